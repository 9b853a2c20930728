"""Files a shell command renames, copies, links or removes are in a compaction's file facts.

Round 19, finding 06: after ``git mv b.py c.py``, ``git rm -q d.py``, ``mv f.py g.py`` and
``cp h.py i.py`` the "Files" facts of a compaction listed only what ``sed -i``, ``rm``, ``tee``
and ``>`` changed: the model, reading that list as complete, was not told b, d and f are gone
nor that c, g and i exist. A rename is listed as the old path deleted and the new one created.
"""

from __future__ import annotations

import pytest
from cli_support import cli
from compaction_support import REQUEST, collect, make_session, manager, tool_pair, words
from test_compact_cmd import saved_session

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider

NAMES_NOTHING = '{"user_intent": "tidy the files", "next_step": "continue"}'


def _shell(command: str) -> list[Message]:
    return tool_pair("(no output)\n[exit code: 0]", args={"command": command})


def test_the_findings_commands_are_listed_by_an_extractive_compact(
        capsys: pytest.CaptureFixture[str]) -> None:
    commands = ["sed -i s/old_helper/new_helper/g a.py", "git mv b.py c.py", "git rm -q d.py",
                "rm e.py", "mv f.py g.py", "cp h.py i.py", "echo hi | tee j.py",
                "echo hi > k.py"]
    saved_session(messages=[Message.user("Refactor old_helper to new_helper"),
                            *(m for c in commands for m in _shell(c)),
                            *tool_pair(words(3000), args={"command": "cat big.txt"}),
                            Message.assistant("Refactor done.")])
    cli(capsys, "compact", "work", "--strategy", "extractive")
    shown, _ = cli(capsys, "sessions", "show", "work", "--agent")
    for line in ("`a.py`: edited", "`b.py`: deleted", "`c.py`: created", "`d.py`: deleted",
                 "`e.py`: deleted", "`f.py`: deleted", "`g.py`: created", "`i.py`: written",
                 "`j.py`: written", "`k.py`: written"):
        assert line in shown, line
    assert "`h.py`" not in shown.split("Commands run")[0]  # a copy's source is not changed


def _sent_after_compacting(*commands: str) -> str:
    """What the model is sent after a compaction of a session that ran ``commands``."""
    session = make_session([Message.user("tidy the files"),
                            *(m for c in commands for m in _shell(c)),
                            *tool_pair(words(400), args={"command": "seq 1 1500"}),
                            Message.assistant("next"), Message.user("carry on")])
    collect(manager(session, ScriptedProvider([NAMES_NOTHING]), keep_recent_ratio=0,
                    keep_user_tokens=0).compact(REQUEST))
    sent = "\n".join(m.text for m in session.conversation.agent_messages())
    return sent.split("Commands run")[0]  # the file lines (the commands are listed after)


def _assert_files_facts(command: str, listed: list[str], unlisted: list[str]) -> None:
    """The Files facts sent after compacting a session that ran ``command`` hold each line of
    ``listed`` and none of the texts in ``unlisted``."""
    files = _sent_after_compacting(command)
    for line in listed:
        assert line in files, (line, files)
    for text in unlisted:
        assert text not in files, (text, files)


@pytest.mark.parametrize(("command", "listed", "unlisted"), [
    # quoting, `--`, and an option taking a value in its own word or glued to its letter
    ("mv -- '-old name.py' 'new name.py'", ["`-old name.py`: deleted",
                                            "`new name.py`: created"], []),
    ("mv -S .bak -f a.py b.py", ["`a.py`: deleted", "`b.py`: created"], [".bak"]),
    ("cp --suffix=.orig --backup=numbered a.py b.py", ["`b.py`: written"], ["`a.py`"]),
    ("cp -S .orig -b a.py b.py", ["`b.py`: written"], ["`a.py`", ".orig"]),
    # a target directory: named by -t (alone, glued, long), by a trailing slash, by `.`, or
    # by being the last of several operands
    ("mv -t lib a.py src/b.py", ["`a.py`: deleted", "`src/b.py`: deleted", "`lib/a.py`: created",
                                 "`lib/b.py`: created"], ["`lib`:"]),
    ("cp -vtlib a.py", ["`lib/a.py`: written"], ["`a.py`", "`lib`:"]),
    ("mv --target-directory lib a.py", ["`lib/a.py`: created"], ["`lib`:"]),
    ("mv a.py b.py pkg", ["`pkg/a.py`: created", "`pkg/b.py`: created"], ["`pkg`:"]),
    ("git mv src/a.py lib/", ["`src/a.py`: deleted", "`lib/a.py`: created"], ["`lib/`"]),
    ("cp ../x/a.py .", ["`a.py`: written"], ["`.`:"]),
    ("cp -r --parents src/a.py out/", ["`out/src/a.py`: written"], []),
    ("mv -T olddir newdir", ["`olddir`: deleted", "`newdir`: created"], []),
    # git: -C runs it elsewhere; a dry run and an untracking (--cached) change no file
    ("git -C sub -c core.quotepath=off mv a.py b.py", ["`sub/a.py`: deleted",
                                                        "`sub/b.py`: created"], []),
    ("git rm -r --cached build && git rm -n x.py && git mv --dry-run y.py z.py && git rm w.py",
     ["`w.py`: deleted"], ["`build`", "`x.py`", "`y.py`", "`z.py`"]),
    ("git rm --pathspec-from-file list.txt -- -x.py", ["`-x.py`: deleted"], ["`list.txt`"]),
    # links, install, unlink
    ("ln -sf ../shared/conf.py conf.py && ln -s /opt/tool/bin/run",
     ["`conf.py`: created", "`run`: created"], ["`../shared/conf.py`", "`/opt/tool/bin/run`"]),
    ("install -m 0755 -D build/tool bin/tool && install -d logs", ["`bin/tool`: written"],
     ["`build/tool`", "0755", "`logs`"]),
    ("unlink stale.lock", ["`stale.lock`: deleted"], []),
    ("sudo mv /etc/a.conf /etc/b.conf", ["`/etc/a.conf`: deleted", "`/etc/b.conf`: created"],
     []),
])
def test_a_shell_command_that_moves_copies_links_or_removes_files_lists_them(
        command: str, listed: list[str], unlisted: list[str]) -> None:
    _assert_files_facts(command, listed, unlisted)


@pytest.mark.parametrize(("command", "listed", "unlisted"), [
    # after the reserved words of a compound command (do, then, else, {, !)
    ("for f in a.py b.py; do rm $f; done", ["`a.py`: deleted", "`b.py`: deleted"], ["`$f`"]),
    ('for f in n.py o.py\ndo\n  rm "${f}"\ndone', ["`n.py`: deleted", "`o.py`: deleted"],
     ["`${f}`"]),
    ("if true; then mv c.py d.py; else touch z.py; fi",
     ["`c.py`: deleted", "`d.py`: created", "`z.py`: created"], []),
    ("{ rm i.py; } && ! cp j.py k.py", ["`i.py`: deleted", "`k.py`: written"], ["`j.py`"]),
    ("while read x; do touch w.py; done < list.txt", ["`w.py`: created"], ["`list.txt`"]),
    # behind the wrappers the shell rules read (time, env, xargs, nice, timeout, sudo -u)
    ("time cp e.py f.py", ["`f.py`: written"], ["`e.py`"]),
    ("env X=1 mv g.py h.py", ["`g.py`: deleted", "`h.py`: created"], []),
    ("env -u HOME LANG=C rm m.py", ["`m.py`: deleted"], ["`HOME`", "`LANG=C`"]),
    ("ls | xargs -n 1 rm p.py", ["`p.py`: deleted"], ["`1`"]),
    ("nice -n 5 timeout 10 rm q.py && sudo -u bob rm r.py",
     ["`q.py`: deleted", "`r.py`: deleted"], ["`5`", "`10`", "`bob`"]),
])
def test_commands_in_compound_commands_and_behind_wrappers_are_read(
        command: str, listed: list[str], unlisted: list[str]) -> None:
    """``for f in a b; do rm $f; done``, ``if …; then mv a b; fi``, ``time cp a b`` and
    ``env X=1 mv a b`` changed files the facts never listed: ``do``, ``then``, ``time`` and
    ``env`` were read as the program."""
    _assert_files_facts(command, listed, unlisted)


@pytest.mark.parametrize(("command", "listed", "unlisted"), [
    # rev20 F7: a subshell's paren, an expansion or an unknown directory named junk or wrong files
    ("(cd build && rm -f out.o)", ["`build/out.o`: deleted"], ["`out.o)`", "`out.o`"]),
    ("cd src && rm x.py", ["`src/x.py`: deleted"], ["`x.py`"]),
    ("cd src && cd lib && echo hi > y.py", ["`src/lib/y.py`: written"], ["`y.py`"]),
    ("(cd build && rm a.o); rm b.o", ["`build/a.o`: deleted", "`b.o`: deleted"], []),
    ("cd $DIR && rm c.py; rm /tmp/d.py", ["`/tmp/d.py`: deleted"], ["`c.py`"]),
    ("cd src; rm e.py", [], ["`e.py`", "`src/e.py`"]),
    ("cd src\nrm f.py", [], ["`f.py`", "`src/f.py`"]),
    ("pushd src && rm h.py; popd", [], ["`h.py`"]),
    ("for f in $(ls *.tmp); do rm $f; done", [], ["`$(ls`", "`*.tmp)`"]),
    ('while read f; do rm "$f"; done < list', [], ["`$f`"]),
    ("rm `cat list` g.py", ["`g.py`: deleted"], ["`cat", "list`"]),
    ("for f in a; do for f in b; do rm $f; done; rm $f; done",
     ["`a`: deleted", "`b`: deleted"], []),
])
def test_no_junk_or_wrong_paths_from_subshells_cd_and_expansions(
        command: str, listed: list[str], unlisted: list[str]) -> None:
    """A word with an unbalanced paren or an expansion is not a path; ``cd DIR &&`` with a
    plain DIR puts DIR before the paths after it; a file in a directory not known is left
    out rather than named wrongly."""
    _assert_files_facts(command, listed, unlisted)
