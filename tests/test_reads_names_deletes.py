"""Reads, deletes and writes the shell check used to miss under allow rules (docs/architecture.md
§4, permission rules): a jq ``import``, names read from input (``sort --files0-from=-``, ``tar
-T -``), abbreviated recursive options (``grep --recu``), a recursive copy or delete of ``.git``,
goosectx's own config below a dir ``grep -r`` reads, ``find -fprint`` into a git hook."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.approval import ApprovalContext, decide
from goosectx.permissions import PermissionRules
from goosectx.shell_command import command_forms
from goosectx.shell_lexer import lex
from goosectx.shell_program import program_argv
from goosectx.shell_runners import RUNNERS


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("print(1)\n")
    (work / "a.txt").write_text("a\n")
    (work / "build").mkdir()
    (work / "build" / "out.o").write_text("o\n")
    (work / "README.md").write_text("# x\n")
    (work / ".env").write_text("API_KEY=hunter2\n")
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / ".git" / "config").write_text("[remote]\n")
    (work / "sub").mkdir()
    (work / "sub" / "id_rsa").write_text("KEY\n")
    (tmp_path / "notes.json").write_text('{"n": 1}\n')
    return work


def _verdict(work: Path, command: str) -> tuple[str, str]:
    """The verdict under a rule for each program of the line, each a wrapper runs and a runner.

    (``parallel gzip ::: a.txt``: ``shell(parallel*)`` and ``shell(gzip*)``.)
    """
    parts = [part.split() for part in command.replace("&&", "|").split("|") if part.strip()]
    started = {form.split(" ", 1)[0] for part in lex(command)  # not wget --use-askpass's
               for starter, form, _head in command_forms(part, command).started
               if starter.split(" ", 1)[0] in RUNNERS}
    programs = sorted(started | {name for words in parts
                                 for name in (words[0], *program_argv(words)[:1])})
    rules = PermissionRules(allow=tuple(f"shell({p}*)" for p in programs))
    verdict = shell_verdict(rules, command, "smart_approve", working_dir=work)
    return verdict.action, verdict.reason


@pytest.mark.parametrize("command", [
    "jq -n 'import \"../notes\" as $x; $x'",  # H4: reads ../notes.json
    "jq -n 'include \"../notes\"; 1'",
    "jq -L .. -n 'import \"notes\" as $x; $x'",
    "jq -f prog.jq data.json",  # the program, and what it imports, is in a file
    "jq --rawfile x .env -n '$x'",
])
def test_a_jq_program_that_may_read_a_file_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "printf '.%s\\0' env | sort --files0-from=-",  # H5: reads .env
    "sort --files0-from=list",
    "sort --files0-from list",
    "ls -a | tar -c -T -",
    "ls -a | tar -cf out.tar --files-from=-",
    "ls -a | tar cTf - out.tar",
    "ls -a | cpio -o",
    "ls -a | cpio --create -O out.cpio",
    "nice sort --files0-from=-",
    "ls -a | zip -@ -",
    "ls -a | zip out.zip --names-stdin",
    "rsync --files-from=list . dst/",
    "du --files0-from=list",
    "wc --files0-from=list",
    "find -files0-from list -type f",
    "parallel cat :::: list",
    "parallel -a list cat",
    "parallel --arg-file list cat",
])
def test_a_program_reading_file_names_from_its_input_or_a_list_asks(
        project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert "may name a sensitive file" in reason


@pytest.mark.parametrize("command", [
    "grep --directories recurse TOKEN .",  # H6
    "grep --directories=recurse TOKEN .",
    "grep --dir=rec TOKEN .",
    "grep -d rec TOKEN .",
    "grep -nd recurse TOKEN .",
    "grep -drecurse TOKEN .",
    "grep --recu TOKEN .",
    "grep --rec TOKEN .",
    "grep --derefer TOKEN .",
    "nice -n5 grep -r TOKEN .",
    "timeout 5 grep -r TOKEN .",
    "cp --recu . ../copy",
    "cp --arch . ../copy",
    "diff --recu . /dev/null",
    "rsync --recur . ../copy",
    "zip --recurse-p o.zip .",
])
def test_abbreviated_recursive_options_read_below(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert "(holding" in reason


@pytest.mark.parametrize("command", [
    "cp -r .git g && cat g/config",  # H7
    "cp -a . x",
    "cp -R .git/ backup",
    "tar czf g.tgz .git",
    "mv .git g && cat g/config",
    "ln -s .git g && cat g/config",
    "ln -s sub k && cat k/id_rsa",
])
def test_a_recursive_copy_of_a_sensitive_dir_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert "sensitive file" in reason or "mv removes the git directory .git" in reason or (
        "ln links a name to the git directory .git" in reason), reason


@pytest.mark.parametrize("command", [
    "find . -name '*' -delete",  # H11
    "find sub -delete",  # rm -rf .git: test_unmodelled_writes (it removes the repository)
    "rm -r sub",
    "rm --recursive --force sub",
    "rm --recu sub",
    "rm -fR .",
    "git clean -fdx",
    "rsync -a --delete src/ sub/",
])
def test_a_recursive_delete_reaching_a_sensitive_file_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert "sensitive file" in reason


@pytest.mark.parametrize("command", [
    "find . -maxdepth 0 -fprint .git/hooks/pre-commit",  # L1
    "find . -fprint0 .git/hooks/post-checkout",
    "find . -fprintf .git/config '%p'",
    "find . -fls .git/hooks/pre-push",
])
def test_find_writing_a_git_hook_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "ls", "cat src/a.py", "grep -rn x src", "find . -name '*.py'", "git status", "npm test",
    "rm build/out.o", "cp a.txt b.txt", "rm -r build", "rm -rf build/", "find build -delete",
    "cp -r src copy", "grep --recursive x src", "grep --directories=skip x .",
    "grep -d skip x a.txt", "jq '.a' data.json", "jq -n '1 + 1'", "jq '.import' data.json",
    "sort a.txt", "mv a.txt b.txt", "mv src lib", "ln -s src lib", "parallel gzip ::: a.txt", "tar -tf x.tar", "tar -xf x.tar", "zip o.zip a.txt",
    "find . -name '*.py' -fprint /dev/stderr", "git clean -n src",
    "find . -name '*.md' | xargs wc -l",  # M2: what find can print holds no sensitive file
    "find . -type f -name '*.py' | xargs cat",
])
def test_common_safe_commands_still_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "find . -name '.env*' | xargs cat",
    "find . -name 'id_*' | xargs cat",
    "find . -name '.git' | xargs grep -r x",  # a dir it prints is read below by grep -r
    "find . -name '*' -o -name x | xargs cat",  # an -o: not worked out
    "find . ! -name '*.md' | xargs cat",
    "find . -path '*' | xargs cat",
    "find . -iname '*.ENV' | xargs cat",
])
def test_a_filtered_find_that_may_print_a_sensitive_file_asks(
        project: Path, command: str) -> None:
    (project / "x.env").write_text("X\n")
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", ["find . -name '*.md' | xargs cat",
                                     "find src -type f -name '*.md' | xargs cat"])
def test_a_listed_name_xargs_splits_into_others_asks(project: Path, command: str) -> None:
    (project / "src" / "x .env y.md").write_text("x\n")  # xargs cat reads ./.env
    action, reason = _verdict(project, command)
    assert action == "ask", reason
    assert "a name xargs splits" in reason


def test_a_filtered_find_printing_a_dir_that_holds_a_sensitive_file_asks(
        project: Path) -> None:
    (project / "notes.md").mkdir()
    (project / "notes.md" / ".env").write_text("K=1\n")
    assert _verdict(project, "find . -name '*.md' | xargs grep -r K")[0] == "ask"


def test_a_tracked_sensitive_file_git_ls_files_prints_asks(project: Path) -> None:
    assert _verdict(project, "git ls-files | xargs cat")[0] == "ask"


@pytest.mark.parametrize("command", [
    "git ls-files | xargs wc -l",  # tracked files only, never .git/
    "find . -name '*.md' | xargs wc -l",
    "find . -name '*.md' -print0 | xargs -0 grep -n x",
])
def test_listing_a_git_repo_without_sensitive_files_runs(tmp_path: Path, command: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "README.md").write_text("# x\n")
    assert _verdict(tmp_path, command)[0] == "run"


@pytest.mark.parametrize("command", ["git ls-files | xargs cat", "git ls-files -o | xargs cat"])
def test_git_ls_files_over_a_nested_repository_asks(tmp_path: Path, command: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "nested" / ".git").mkdir(parents=True)
    (tmp_path / "nested" / ".git" / "config").write_text("[remote]\n")
    assert _verdict(tmp_path, command)[0] == "ask"


@pytest.mark.parametrize("command", ["grep -r TOKEN .config", "grep -r x .local",
                                     "grep -r x ."])
def test_a_recursive_read_reaching_goosectx_own_config_or_data_asks(
        tmp_path: Path, command: str) -> None:
    home = tmp_path / "home"
    config = home / ".config" / "goosectx" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('token = "x"\n')
    data = home / ".local" / "share" / "goosectx"
    data.mkdir(parents=True)
    (data / "sessions.db").write_text("x")
    verdict = decide(ApprovalContext(
        mode="smart_approve", tool_name="shell", read_only=False, working_dir=home,
        arguments={"command": command}, rules=PermissionRules(allow=("shell(grep*)",)),
        data_dir=data, config_file=config))
    assert verdict.action == "ask", verdict.reason
    assert "goosectx" in verdict.reason


def test_goosectx_config_in_the_project_is_judged_by_what_find_prints(project: Path) -> None:
    config = project / ".cfg.toml"
    config.write_text('token = "x"\n')
    (project / ".env").unlink()
    (project / "sub" / "id_rsa").unlink()

    def action(command: str) -> str:
        return decide(ApprovalContext(
            mode="smart_approve", tool_name="shell", read_only=False, working_dir=project,
            arguments={"command": command},
            rules=PermissionRules(allow=("shell(find*)", "shell(xargs*)", "shell(wc*)")),
            config_file=config)).action

    assert action("find . -name '*.md' | xargs wc -l") == "run"
    assert action("find . -name '*.toml' | xargs wc -l") == "ask"
    assert action("find . | xargs wc -l") == "ask"


@pytest.mark.parametrize(("command", "expected"), [
    ("rg KEY", "ask"),  # sub/id_rsa is no hidden file: rg reads it
    ("ag KEY .", "ask"),
    ("rg KEY src", "run"),
    ("rg -n TODO src/a.py", "run"),
])
def test_a_searcher_reading_the_working_dir_by_default_is_judged_below_it(
        project: Path, command: str, expected: str) -> None:
    action, reason = _verdict(project, command)
    assert action == expected, reason


@pytest.mark.parametrize(("command", "expected"), [
    ("rg KEY", "run"),  # .env and .git are hidden: rg skips them
    ("rg --hidden KEY", "ask"), ("rg --hid KEY", "ask"), ("rg -uu KEY", "ask"),
    ("rg -. KEY", "ask"), ("rg KEY .git", "ask"), ("ack KEY", "ask"),
])
def test_rg_skips_hidden_names_unless_told(project: Path, command: str, expected: str) -> None:
    (project / "sub" / "id_rsa").unlink()
    action, reason = _verdict(project, command)
    assert action == expected, reason
