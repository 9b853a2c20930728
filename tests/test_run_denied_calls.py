"""``goosectx run`` in a script: a call that was not run is in the JSON, not only on stderr.

A CI script reading ``--output-format json`` got ``status: done``, ``notices: []`` for a run
whose ``make release`` was denied (no terminal to ask): nothing in the JSON said so.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from fakeserver import FakeServer

from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings


def shell(command: str) -> dict:
    return {"tool_calls": [{"name": "shell", "arguments": {"command": command}}]}


def run(output_format: str, mode: str | None = None) -> tuple[int, str, str]:
    """One in-process ``run -t 'cut the release'`` without a terminal: (exit code, out, err)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run_task(load_settings(), text="cut the release", input_file=None, name=None,
                    resume=None, continue_=False, max_turns=None, output_format=output_format,
                    mode=mode, model=None, stdin=io.StringIO(""), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


NO_TERMINAL = ("shell needs approval and there is no terminal to ask, so it was denied; "
               "use --mode auto to run tools without asking")


def test_json_names_a_call_denied_for_want_of_a_terminal(fake_model: FakeServer,
                                                         workdir: Path) -> None:
    fake_model.add(shell("make release"), {"text": "Released."})
    code, out, err = run("json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "done" and data["exit_code"] == 0  # README: 0 done
    assert data["notices"] == [NO_TERMINAL]
    (call,) = data["denied_calls"]
    assert call["tool"] == "shell" and call["arguments"] == {"command": "make release"}
    assert call["reason"] == "needs approval and there is no terminal to ask"
    assert call["id"] in {m["content"][0].get("id") for m in data["messages"]
                          if m["role"] == "assistant" and m["content"]}
    assert f"goosectx: warning: {NO_TERMINAL}" in err  # stderr still says it


def test_stream_json_has_the_notice_before_the_call_and_the_count_in_its_result(
        fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add(shell("make release"), {"text": "Released."})
    _code, out, _err = run("stream-json")
    lines = [json.loads(line) for line in out.splitlines()]
    kinds = [d["type"] for d in lines]
    notice = kinds.index("notification")
    assert lines[notice]["text"] == NO_TERMINAL
    assert notice < kinds.index("tool_call_finished")
    (call,) = lines[-1]["denied_calls"]
    assert lines[-1]["type"] == "result" and call["tool"] == "shell"


def test_a_permission_rule_and_chat_mode_denials_are_listed_and_a_clean_run_lists_none(
        fake_model: FakeServer, workdir: Path) -> None:
    Path(os.environ["GOOSECTX_CONFIG"]).write_text('[permissions]\ndeny = ["shell(rm *)"]\n')
    fake_model.add(shell("rm -rf build"), {"text": "Could not."},
                   shell("ls"), {"text": "Chat only."},
                   shell("true"), {"text": "Done."})
    (call,) = json.loads(run("json", mode="auto")[1])["denied_calls"]
    assert call["reason"] == "denied by a permission rule: shell(rm *)"
    (call,) = json.loads(run("json", mode="chat")[1])["denied_calls"]
    assert call["reason"] == "chat mode runs no tool"
    data = json.loads(run("json", mode="auto")[1])
    assert data["denied_calls"] == [] and data["notices"] == []


def _edit(call_id: str, path: str, command: str = "write") -> dict:
    arguments = {"command": command, "path": path, "file_text": f"changed via {path}\n"}
    if command == "str_replace":
        arguments = {"command": command, "path": path, "old_str": "orig", "new_str": "changed"}
    return {"name": "text_editor", "arguments": arguments, "id": call_id}


def test_a_text_editor_rule_holds_for_the_file_reached_through_a_symlink(
        fake_model: FakeServer, workdir: Path) -> None:
    # deny text_editor(write:protected/**) was matched on the path as written: the same
    # file through an in-project symlink, or /proc/self/cwd/..., was edited in auto mode.
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        '[permissions]\ndeny = ["text_editor(write:protected/**)",'
        ' "text_editor(str_replace:protected/**)"]\nallow = ["text_editor(write:p2/**)"]\n')
    (workdir / "protected").mkdir()
    protected = workdir / "protected" / "a.txt"
    protected.write_text("orig\n")
    (workdir / "p2").symlink_to("protected")
    (workdir / "sub").mkdir()
    (workdir / "sub" / "alink").symlink_to("../protected/a.txt")
    paths = ["p2/a.txt", "sub/alink", "sub/../p2/a.txt", str(workdir / "p2" / "a.txt")]
    if Path("/proc/self/cwd").is_symlink():
        paths.append("/proc/self/cwd/protected/a.txt")
    calls = [_edit(f"w{i}", p) for i, p in enumerate(paths)] + [_edit("sr", "p2/a.txt",
                                                                       "str_replace")]
    fake_model.add({"tool_calls": calls}, {"text": "Done."})
    data = json.loads(run("json", mode="auto")[1])
    reasons = {c["id"]: c["reason"] for c in data["denied_calls"]}
    assert reasons == {
        **{f"w{i}": "denied by a permission rule: text_editor(write:protected/**)"
           for i in range(len(paths))},
        "sr": "denied by a permission rule: text_editor(str_replace:protected/**)"}
    assert protected.read_text() == "orig\n"
    # An allow rule naming the link covers the edit only when the file it reaches is covered
    # too: p2/** alone leaves the protected file to the question (none here: denied).
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        '[permissions]\nallow = ["text_editor(write:p2/**)"]\n')
    fake_model.add({"tool_calls": [_edit("a", "p2/a.txt")]}, {"text": "Done."})
    (call,) = json.loads(run("json", mode="approve")[1])["denied_calls"]
    assert call["reason"] == "needs approval and there is no terminal to ask"
    assert protected.read_text() == "orig\n"


def test_a_command_the_rules_cannot_check_is_named_with_why_and_a_way_out_that_works(
        fake_model: FakeServer, workdir: Path) -> None:
    # fresh20c #7: the notice said only "a program named at run time or by a glob, a function
    # or alias definition" and advised --allow, which cannot allow it (not even shell(*));
    # the model got only "needs approval".
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        '[permissions]\ndeny = ["shell(rm *)"]\nallow = ["shell(*)"]\n')
    (workdir / "v").write_text("keep")
    fake_model.add(shell("f=/dev/stdin; . $f <<< 'rm -f v'"), {"text": "Could not."})
    _code, out, err = run("json", mode="auto")
    assert (workdir / "v").read_text() == "keep"
    why = ("needs approval and there is no terminal to ask, so it was denied; . runs the "
           "commands it reads from a computed, ~ or .. path that may be a stream the command "
           "line opens or names, in `. $f`, which the deny and ask rules cannot check; no "
           "--allow rule or mode can run it: answer it in the REPL, or drop or narrow the "
           "deny or ask rule behind it")
    assert f"goosectx: warning: shell {why}" in err
    assert "change [permissions]" not in err
    (call,) = json.loads(out)["denied_calls"]
    assert call["reason"].startswith("needs approval and there is no terminal to ask: . runs ")
    tool = [m for m in fake_model.requests[1]["messages"] if m["role"] == "tool"][0]
    assert tool["content"].endswith(" It needs approval because . runs the commands it reads "
                                    "from a computed, ~ or .. path that may be a stream the "
                                    "command line opens or names, in `. $f`, which the deny "
                                    "and ask rules cannot check."), tool["content"]


def test_an_ask_rule_notice_says_which_rule_and_quotes_a_part_only_terminal_safe(
        fake_model: FakeServer, workdir: Path) -> None:
    Path(os.environ["GOOSECTX_CONFIG"]).write_text(
        '[permissions]\nask = ["shell(git push*)"]\ndeny = ["shell(rm *)"]\n'
        'allow = ["shell(*)"]\n')
    fake_model.add(shell("git push origin main"), shell("$X '\x1b]0;owned\x07'"),
                   {"text": "Could not."})
    _code, _out, err = run("text", mode="auto")
    assert ("shell needs approval and there is no terminal to ask, so it was denied; `git "
            "push origin main` matches ask rule shell(git push*); no --allow rule or mode can "
            "run it: answer it in the REPL, or drop or narrow the deny or ask rule behind it"
            ) in " ".join(err.split())  # appb29: the question names the rule and the command
    assert "its program is named at run time or by a glob or brace expansion, in `$X '" in err
    assert "\x1b" not in err and "\x07" not in err  # the model's text, made terminal-safe


def test_a_reply_of_many_refused_calls_draws_five_and_a_count_not_two_lines_each(
        fake_model: FakeServer, workdir: Path) -> None:
    calls = [{"name": "shell", "arguments": {"command": f"make step{n}"}} for n in range(12)]
    fake_model.add({"tool_calls": calls}, {"text": "Nothing ran."})
    code, out, err = run("text")
    lines = err.splitlines()
    drawn = [line for line in lines if line.startswith("> shell")]
    assert [d.split("step")[1][0] for d in drawn] == ["0", "1", "2", "3", "4"]
    assert "  … and 7 more tool calls, each denied: no terminal to ask" in lines
    assert len(lines) < 16 and code == 0 and out.strip() == "Nothing ran."
    fake_model.add({"tool_calls": calls}, {"text": "Again."})
    assert len(json.loads(run("json")[1])["denied_calls"]) == 12  # a script still sees each
