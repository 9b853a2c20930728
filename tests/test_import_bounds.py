"""``sessions import`` of hostile figures, names and encodings (fresh-eyes report, round 8).

What the user sees: a one-line error naming the file and the field (exit 2, nothing saved),
or an import with a one-line notice saying what was dropped and why.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_cli

EXPORT: dict[str, Any] = {
    "format": "goosectx-session", "schema_version": 2,
    "session": {"id": "20260101_000000_beef", "name": None, "working_dir": "/nowhere",
                "model": "openai/gpt-4o-mini", "created": "2026-01-01T00:00:00+00:00",
                "updated": "2026-01-01T01:00:00+00:00", "current_tokens": 1200,
                "current_is_estimate": False,
                "state": {"compaction_failures": 0,
                          "calibration": {"openai/gpt-4o-mini": [1.15, 1.2]}},
                "metadata": {}},
    "usage_ledger": [{"model": "openai/gpt-4o-mini", "purpose": "reply",
                      "created": "2026-01-01T00:30:00+00:00", "input_tokens": 940,
                      "output_tokens": 7, "total_tokens": 947, "cost_usd": 0.0001}],
    "messages": [
        {"role": "user", "id": "m1", "created": "2026-01-01T00:00:00+00:00",
         "content": [{"type": "text", "text": "port the parser"}]},
        {"role": "assistant", "id": "m2", "created": "2026-01-01T00:30:00+00:00",
         "content": [{"type": "text", "text": "done"}],
         "metadata": {"usage": {"input_tokens": 940, "output_tokens": 7,
                                "total_tokens": 947}}},
    ],
}


def export(change: Any = None) -> dict[str, Any]:
    doc = copy.deepcopy(EXPORT)
    if change is not None:
        change(doc)
    return doc


def write(tmp_path: Path, doc: Any, name: str = "export.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def listed(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    code, out, _ = run_cli(capsys, "sessions", "list", "--json")
    assert code == 0
    return list(json.loads(out))


def assert_refused(capsys: pytest.CaptureFixture[str], code: int, err: str,
                   *words: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and "Traceback" not in err
    assert len(lines) == 1 and lines[0].startswith("goosectx: error:"), err
    for word in words:
        assert word in lines[0], err
    assert listed(capsys) == []


def _ledger(field: str, value: Any) -> Any:
    return lambda d: d["usage_ledger"][0].update({field: value})


def _session(field: str, value: Any) -> Any:
    return lambda d: d["session"].update({field: value})


def _state(field: str, value: Any) -> Any:
    return lambda d: d["session"]["state"].update({field: value})


@pytest.mark.parametrize(("change", "words"), [
    (_ledger("output_tokens", 10**30), ('usage_ledger entry #1: "output_tokens"',
                                        "a 31-digit number")),
    (_ledger("input_tokens", "x"), ('usage_ledger entry #1: "input_tokens"', "whole number",
                                    "'x'")),
    (_ledger("cache_read_tokens", 2**70), ('"cache_read_tokens"', "whole number")),
    (_ledger("total_tokens", -5), ('"total_tokens"', "not -5")),
    (_ledger("cost_usd", float("nan")), ('"cost_usd"', "dollars")),
    (_ledger("created", 5), ('usage_ledger entry #1: "created"', "ISO 8601")),
    # a junk entry was imported as a 0-token reply call by model ''
    (lambda d: d.update(usage_ledger=[{"bogus": 1}]), ('usage_ledger entry #1: "model" must be',
                                                       "not missing")),
    (_ledger("model", 5), ('usage_ledger entry #1: "model" must be', "not a number")),
    (_ledger("model", None), ('usage_ledger entry #1: "model" must be', "not null")),
    (_session("current_tokens", 10**30), ('"session.current_tokens"', "whole number")),
    (_state("judge_input_tokens", 10**30), ('"session.state.judge_input_tokens"',)),
    (_state("compaction_failures", "x"), ('"session.state.compaction_failures"',)),
    (_state("calibration", "x"), ('"session.state.calibration" must be an object',)),
    (lambda d: d["session"].update(state=[1, 2]), ('"session.state" must be an object',)),
    (_session("working_dir", 5), ('"session.working_dir" must be text', "a number")),
    (_session("updated", "yesterday"), ('"session.updated" must be an ISO 8601 time',
                                        "'yesterday'")),
    (lambda d: d["session"].pop("created"), ('"session.created"', "not missing")),
    (_session("name", ["a"]), ('"session.name" must be text',)),
    (lambda d: d["messages"][1]["metadata"]["usage"].update(output_tokens=10**30),
     ("message #2", "metadata.usage", '"output_tokens"')),
    (lambda d: d["messages"][0].update(created=10**30), ('message #1: "created" must be an '
                                                         "ISO 8601 time",)),
])
def test_an_export_figure_out_of_range_or_of_the_wrong_type_is_one_line_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any,
        words: tuple[str, ...]) -> None:
    path = write(tmp_path, export(change))
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "export.json: ", *words)


def test_a_well_formed_export_imports_with_its_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, export())
    code, out, err = run_cli(capsys, "sessions", "import", str(path))
    assert code == 0 and "imported" in out, err
    [row] = listed(capsys)
    assert row["current_tokens"] == 1200


def test_a_claude_code_usage_figure_out_of_range_names_the_line_and_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": "port the parser"}},
        {"type": "assistant", "uuid": "u2", "sessionId": "s1",
         "timestamp": "2026-01-01T00:00:05Z",
         "message": {"role": "assistant", "id": "a1", "content": [{"type": "text",
                                                                    "text": "done"}],
                     "usage": {"input_tokens": 10, "output_tokens": 10**30}}},
    ]
    path = tmp_path / "cc.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "cc.jsonl: line 2:", '"message.usage.output_tokens"',
                   "whole number")


@pytest.mark.parametrize(("ratios", "kept"), [([1e308], None), ([1e6, 1.2], [1.2]),
                                              ([0.01], None)])
def test_calibration_ratios_calibration_would_never_keep_are_dropped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], ratios: list[float],
        kept: list[float] | None) -> None:
    """Dropped as any stored state's are (``SessionState.from_dict``): the import goes on."""
    path = write(tmp_path, export(_state("calibration", {"openai/gpt-4o-mini": ratios})))
    code, out, err = run_cli(capsys, "sessions", "import", str(path))
    assert code == 0 and "imported 20260101_000000_beef" in out, err
    code, out, err = run_cli(capsys, "compact", "20260101_000000_beef", "--dry-run")
    assert code in (0, 1) and "Traceback" not in err, err  # (1: too small to shrink)
    assert re.search(r"\d,\d{3},\d{3},\d{3}", out + err) is None  # no figure over a billion
    code, out, _ = run_cli(capsys, "info", "--session", "20260101_000000_beef")
    calibrated = [line for line in out.splitlines() if line.startswith("calibration")]
    if kept is None:
        assert "uncalibrated" in calibrated[0]
    else:
        assert "×1.20, calibrated on 1 call" in calibrated[0]


def test_an_imported_calibration_keeps_the_newest_ratios_calibration_keeps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """40 stored ratios: the newest 15 (what calibration keeps) make the figure, as a
    session of this goosectx would have them."""
    ratios = [2.0] * 25 + [1.2] * 15
    path = write(tmp_path, export(_state("calibration", {"openai/gpt-4o-mini": ratios})))
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert code == 0, err
    code, out, _ = run_cli(capsys, "info", "--session", "20260101_000000_beef")
    [calibrated] = [line for line in out.splitlines() if line.startswith("calibration")]
    assert "×1.20, calibrated on 15 calls" in calibrated


@pytest.mark.parametrize("name", ["ev\x1b]8;;http://x/\x07il", "two\nlines", "rlo\u202eevil",
                                  "-rf"])
def test_an_imported_name_the_name_rules_refuse_is_dropped_with_a_notice(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    path = write(tmp_path, export(_session("name", name)))
    code, out, err = run_cli(capsys, "sessions", "import", str(path))
    assert code == 0 and "imported 20260101_000000_beef:" in out, err
    [note] = [line for line in err.splitlines() if "name" in line]
    assert "imported without a name" in note and "20260101_000000_beef" in note
    assert "\x1b" not in err and "\u202e" not in err
    [row] = listed(capsys)
    assert row["name"] is None and row["id"] == "20260101_000000_beef"


def test_an_imported_name_the_rules_accept_is_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, export(_session("name", "parser-port 🚀")))
    code, out, err = run_cli(capsys, "sessions", "import", str(path))
    assert code == 0 and "(parser-port 🚀)" in out and "note" not in err


def test_an_imported_name_another_session_has_is_dropped_with_a_notice(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The export's own name is taken here: the session is imported unnamed, not refused."""
    code, _, err = run_cli(capsys, "sessions", "import", str(write(tmp_path, export())),
                           "--name", "parser-port")
    assert code == 0, err
    second = write(tmp_path, export(_session("name", "parser-port")), "second.json")
    code, out, err = run_cli(capsys, "sessions", "import", str(second), "--force")
    assert code == 0 and "imported " in out, err
    [note] = [line for line in err.splitlines() if "name" in line]
    assert "'parser-port' is taken by another session" in note
    assert "imported without a name" in note
    new_id = out.split()[1].rstrip(":")
    assert f"goosectx sessions rename {new_id} NEW_NAME" in note
    names = sorted((row["name"] or "") for row in listed(capsys))
    assert names == ["", "parser-port"]
    # A name the user asked for is still refused when taken: they chose it.
    code, _, err = run_cli(capsys, "sessions", "import", str(second), "--force",
                           "--name", "parser-port")
    assert code == 2 and "'parser-port' already exists" in err
    assert len(listed(capsys)) == 2
    # An export named with another session's id is imported unnamed too, not refused.
    [first] = [row for row in listed(capsys) if row["name"] == "parser-port"]
    shadow = write(tmp_path, export(_session("name", first["id"])), "shadow.json")
    code, _, err = run_cli(capsys, "sessions", "import", str(shadow), "--force")
    assert code == 0 and "imported without a name" in err, err
    assert len(listed(capsys)) == 3
    code, _, err = run_cli(capsys, "sessions", "remove", "--yes", "--", first["id"])
    assert code == 0 and "parser-port" in err  # the id still names its own session


CLAUDE_LINES = [
    {"type": "user", "uuid": "u1", "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z",
     "message": {"role": "user", "content": "port the parser"}},
    {"type": "assistant", "uuid": "u2", "sessionId": "s1", "timestamp": "2026-01-01T00:00:05Z",
     "message": {"role": "assistant", "id": "a1",
                 "content": [{"type": "text", "text": "done"}]}},
]
BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize(("name", "body", "fmt"), [
    ("cc.jsonl", "".join(json.dumps(r) + "\n" for r in CLAUDE_LINES), "claude-code"),
    ("cc-crlf.jsonl", "".join(json.dumps(r) + "\r\n" for r in CLAUDE_LINES), "claude-code"),
    ("chat.json", json.dumps([{"role": "user", "content": "port the parser"},
                              {"role": "assistant", "content": "done"}], indent=2), "openai"),
    ("export.json", json.dumps(EXPORT, indent=2), "goosectx"),
])
@pytest.mark.parametrize("given", [False, True])
def test_a_leading_utf8_bom_is_skipped_in_every_text_format(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, body: str, fmt: str,
        given: bool) -> None:
    path = tmp_path / name
    path.write_bytes(BOM + body.encode())
    code, out, err = run_cli(capsys, "sessions", "import", str(path),
                             *(["--format", fmt] if given else []))
    assert code == 0 and "imported" in out and f"from {fmt}" in out, err
    code, out, _ = run_cli(capsys, "sessions", "show", out.split()[1].rstrip(":"))
    assert "port the parser" in out


def test_a_utf16_file_is_named_as_such_with_the_command_that_converts_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cc utf16.jsonl"
    path.write_text(json.dumps({"type": "user", "message": {"content": "hi"}}) + "\n",
                    encoding="utf-16")  # with its byte order mark, as Windows tools write it
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "is UTF-16 text",
                   "iconv -f UTF-16 -t UTF-8 'cc utf16.jsonl' > converted.jsonl")


def test_a_large_export_with_a_bom_is_read_a_message_at_a_time(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.importers import builder

    monkeypatch.setattr(builder, "MAX_DOCUMENT_BYTES", 200)  # the export is over it: streamed
    path = tmp_path / "export.json"
    path.write_bytes(BOM + json.dumps(EXPORT).encode())
    code, out, err = run_cli(capsys, "sessions", "import", str(path))
    assert code == 0 and "2 messages" in out, err


def test_json_followed_by_extra_data_says_so_under_auto_detect(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.dumps([{"role": "user", "content": "hi"}], indent=2)
    path = tmp_path / "trailing.json"
    path.write_text(doc + '\n{"extra": 1}\n')
    for options in ([], ["--format", "openai"]):
        code, _, err = run_cli(capsys, "sessions", "import", str(path), *options)
        assert_refused(capsys, code, err, "trailing.json: line 7 column 1", "more text follows the JSON value")
        assert "cut short" not in err


def test_an_export_of_a_newer_schema_says_to_upgrade(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, export(lambda d: d.update(schema_version=99)))
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "schema_version 99", "newer goosectx", "upgrade goosectx")
    assert "--format" not in err


def test_a_newline_in_the_file_name_keeps_the_error_on_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad\nname\x1b[2J.json"
    path.write_text('{"role": "user"}')
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "bad\u240aname")
    assert "\x1b" not in err


@pytest.fixture
def small_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.importers import builder, detect

    for module in (builder, detect):  # scaled down: 1 MB lines, 4 MB documents
        monkeypatch.setattr(module, "MAX_LINE_BYTES", 2**20)
        monkeypatch.setattr(module, "MAX_DOCUMENT_BYTES", 4 * 2**20)


def _claude_with_long_line(path: Path, line_bytes: int) -> None:
    long = dict(CLAUDE_LINES[1], uuid="u3", message={"role": "user",
                                                     "content": "y" * line_bytes})
    path.write_text("".join(json.dumps(r) + "\n" for r in (CLAUDE_LINES[0], long,
                                                             CLAUDE_LINES[1])))


@pytest.mark.usefixtures("small_caps")
def test_a_line_over_the_cap_is_named_by_its_number_without_the_file_size(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "long.jsonl"
    _claude_with_long_line(path, 3 * 2**20)
    for options in ([], ["--format", "claude-code"]):
        code, _, err = run_cli(capsys, "sessions", "import", str(path), *options)
        assert_refused(capsys, code, err, "long.jsonl: line 2 is longer than 1 MB",
                       "lines up to 1 MB")
        assert "in a file that" not in err


@pytest.mark.usefixtures("small_caps")
def test_format_detection_does_not_hold_an_over_long_line_whole(tmp_path: Path) -> None:
    import tracemalloc

    from goosectx.importers.detect import detect_format

    path = tmp_path / "long.jsonl"
    _claude_with_long_line(path, 3 * 2**20)  # a 3 MB file, under the 4 MB document cap
    tracemalloc.start()
    try:
        assert detect_format(path) == "claude-code"
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2.5 * 2**20  # the line cap (1 MB) and change, not the 3 MB line


@pytest.mark.usefixtures("small_caps")
def test_a_first_line_over_the_cap_says_so_under_auto_detect(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "first.jsonl"
    record = {"type": "user", "message": {"role": "user", "content": "y" * 2 * 2**20}}
    path.write_text(json.dumps(record) + "\n")  # 2 MB: over the line cap, under the file cap
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "first.jsonl: line 1 is longer than 1 MB")


@pytest.mark.usefixtures("small_caps")
def test_a_one_line_json_file_over_both_caps_names_what_applies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.json"
    path.write_text(json.dumps({"id": "x", "working_dir": "/w",
                                "conversation": [{"role": "user", "content": "y" * 5 * 2**20}]}))
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "huge.json: line 1 is longer than 1 MB and the file is 5.0",
                   "JSON documents up to 4 MB")


def test_a_streamed_export_bounds_message_usage_too(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from goosectx.importers import builder

    monkeypatch.setattr(builder, "MAX_DOCUMENT_BYTES", 200)  # read a message at a time
    path = write(tmp_path, export(
        lambda d: d["messages"][1]["metadata"]["usage"].update(input_tokens=-3)))
    code, _, err = run_cli(capsys, "sessions", "import", str(path))
    assert_refused(capsys, code, err, "message #2: metadata.usage:", '"input_tokens"', "not -3")


def test_a_stated_current_figure_the_messages_cannot_fit_in_is_replaced_by_the_estimate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def grow(doc: dict[str, Any]) -> None:  # 40 long requests under a header saying 1,200
        doc["messages"] += [{"role": "user", "id": f"u{i}", "created": "2026-01-01T00:40:00+00:00",
                             "content": [{"type": "text", "text": "word " * 2000}]}
                            for i in range(40)]
    code, _out, err = run_cli(capsys, "sessions", "import", str(write(tmp_path, export(grow))))
    assert code == 0, err
    (row,) = listed(capsys)
    assert row["current_tokens"] > 40 * 2000 // 4 and row["current_is_estimate"] is True
