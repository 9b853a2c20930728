"""A sensitive file named inside an interpreter's inline code is a read of it, as ``cat .env`` is.

Before, after ``a`` (always allow the shell this session) in smart_approve, ``cat .env``
asked but ``python3 -c "print(open('.env').read())"``, ``node -e "…readFileSync('.env')…"``,
``ruby -e 'puts File.read(".env")'``, ``perl -e 'open F,".env"; print <F>'`` and ``sqlite3
:memory: ".read .env"`` ran unasked, and the model got the secrets (a tester's finding).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_harness import Approvals, make_harness

from goosectx.approval import ApprovalContext, ApprovalVerdict, PermissionRules, decide
from goosectx.config import Settings
from goosectx.conversation import ToolResponse
from goosectx.inline_code_extra import ALIASES, OPAQUE
from goosectx.providers.scripted import ScriptedProvider, ScriptedReply

SECRET = "sk-live-9e8d7c6b5a4f3e2d1c0b"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".env").write_text(f"API_KEY={SECRET}\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("print(1)\n")
    (tmp_path / "x.json").write_text('{"a": 1}\n')
    return tmp_path


def _after_always(project: Path, command: str,
                  rules: PermissionRules | None = None) -> ApprovalVerdict:
    return decide(ApprovalContext(mode="smart_approve", tool_name="shell", read_only=False,
                                  working_dir=project, arguments={"command": command},
                                  rules=rules or PermissionRules(), always_allowed=frozenset({"shell"})))


@pytest.mark.parametrize(("command", "interpreter"), [
    ("""python3 -c "print(open('.env').read())\"""", "python3"),
    ("""node -e "console.log(require('fs').readFileSync('.env','utf8'))\"""", "node"),
    ("""ruby -e 'puts File.read(".env")'""", "ruby"),
    ("""perl -e 'open F,".env"; print <F>'""", "perl"),
    ("""php -r 'echo file_get_contents(".env");'""", "php"),
    ("""lua -e 'print(io.open(".env"):read("a"))'""", "lua"),
    ("""awk 'BEGIN { while ((getline l < ".env") > 0) print l }'""", "awk"),
    ("""sqlite3 :memory: ".read .env\"""", "sqlite3"),
    ("""sed '1r .env' src/a.py""", "sed"),
    ("""python3 -c "import os; os.system('cat .env')\"""", "python3"),
    ("""python3 -c "print(open('.git/config').read())\"""", "python3"),
    ("""python3 -m timeit "open('.env').read()\"""", "python3"),
    ("""cd src && python3 -c "print(open('../.env').read())\"""", "python3"),
    ("""bash -c "python3 -c \\"print(open('.env').read())\\"\"""", "python3"),
    # a runner's interpreter; a program read from a here-document or a pipe
    ("""uv run python -c "print(open('.env').read())\"""", "python"),
    ("""timeout 5 node -e "console.log(require('fs').readFileSync('.env', 'utf8'))\"""", "node"),
    ("python3 - <<'EOF'\nprint(open('.env').read())\nEOF", "python3"),
    ("""echo "print(open('.env').read())" | python3""", "python3"),
    ("""deno eval "console.log(Deno.readTextFileSync('.env'))\"""", "deno"),
    ("""Rscript -e 'cat(readLines(".env"))'""", "Rscript"),
    ("""psql -c "\\copy t from '.env'\"""", "psql"),
])
def test_inline_code_naming_a_sensitive_file_is_asked_after_always_allow(
        project: Path, command: str, interpreter: str) -> None:
    verdict = _after_always(project, command)
    assert verdict.action == "ask", command
    assert f"(named in {interpreter}'s inline code) is a sensitive file" in verdict.reason
    assert verdict.reason.endswith('which "always allow" does not cover')


_READS = {"ruby": "-e 'puts File.read(\".env\")'", "node": "-e 'require(\"fs\").readFileSync(\".env\")'",
          "python3": "-c 'print(open(\".env\").read())'", "lua": "-e 'io.open(\".env\")'",
          "luajit": "-e 'io.open(\".env\")'"}


@pytest.mark.parametrize("command", [
    *(f"{name} {_READS[language]}" for name, language in ALIASES.items()),
    *(f"{name} {options[0]} 'readFile \".env\"'" for name, options in OPAQUE.items()),
    "irb <<'EOF'\nputs File.read('.env')\nEOF", "echo 'slurp \".env\"' | raku",
    "rpm --eval '%(cat .env)'",
])
def test_the_other_interpreters_inline_code_is_read_too(project: Path, command: str) -> None:
    """Each interpreter :mod:`goosectx.inline_code_extra` reads (round 30: ``jruby -e``,
    ``ghc -e`` … read files unasked after ``a``)."""
    verdict = _after_always(project, command)
    assert verdict.action == "ask", command
    assert "inline code) is a sensitive file" in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", [
    "jruby -e 'puts 1'", "ghc -e 'print 1'", "ghc Main.hs", "irb -v", "rpm --eval '%{_libdir}'",
])
def test_the_other_interpreters_code_naming_no_sensitive_file_still_runs(project: Path,
                                                                        command: str) -> None:
    assert _after_always(project, command).action == "run", command


@pytest.mark.parametrize("command", [
    """python3 -c "import os; print(os.environ.get('HOME'))\"""", "python3 -c 'print(1+1)'",
    """python3 -c "d = {'id_token': 1}; print(d['id_token'])\"""",
    """python3 -c "import json; print(json.load(open('x.json'))['a'])\"""",
    """python3 -c "import os; print(os.path.splitext('a.key')[1])\"""",
    """node -e "console.log(process.env.HOME)\"""", """perl -ne 'print if /\\.env/' src/a.py""",
    "sed 's/.env/x/' src/a.py", "sqlite3 db.sqlite '.tables'", "awk -F= '{print $1}' x.json",
])
def test_code_that_names_no_sensitive_file_still_runs(project: Path, command: str) -> None:
    assert _after_always(project, command).action == "run"


def test_an_allow_rule_for_the_interpreter_does_not_cover_the_file(project: Path) -> None:
    command = """python3 -c "print(open('.env').read())\""""
    verdict = _after_always(project, command, PermissionRules(allow=("shell(python3*)",)))
    assert verdict.action == "ask"
    assert "which the allow rule shell(python3*) does not cover" in verdict.reason


def test_the_model_never_gets_the_secret_after_always_allow(tmp_path: Path) -> None:
    command = """python3 -c "print(open('.env').read())\""""
    provider = ScriptedProvider([
        ScriptedReply(tool_calls=[("shell", {"command": "ls"})]),
        ScriptedReply(tool_calls=[("shell", {"command": command})]), "done"])
    approvals = Approvals(answers=["always_allow", "deny"])
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=provider,
                     approve=approvals, mode="smart_approve")
    (tmp_path / "work" / ".env").write_text(f"API_KEY={SECRET}\n")
    h.turn("look around")
    assert [r.arguments["command"] for r in approvals.asked if r.arguments] == ["ls", command]
    outputs = [p.output for m in h.stored() for p in m.content if isinstance(p, ToolResponse)]
    assert SECRET not in "".join(outputs)
    assert "The user denied this tool call" in outputs[1]
