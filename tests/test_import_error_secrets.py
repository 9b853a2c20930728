"""A refused import never prints a secret of this environment it quotes from the file.

fresh21 #10: a goosectx export holding the API key in a field that fails validation (a
message's role or time, a part's type, ``schema_version``, a token count) was refused with
the key in clear in its error line — a token count's first 20 characters of it, the rest
whole. Every format's refusal goes through one scrubber now
(``cli/import_secrets.error_without_secrets``): the line reads ``[REDACTED]`` where the
secret was, as the lines of an import that succeeds do, and nothing is stored.
"""

from __future__ import annotations

import io
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_cli
from conftest import DUMMY_API_KEY as K
from store_support import assert_not_in_sessions_db
from test_import_bounds import listed
from test_import_secret_formats import FORMATS

Poison = Callable[[Path], tuple[Path, list[str]]]


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _rewrite(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _json(fmt: str, change: Callable[[Any], None]) -> Poison:
    """``fmt``'s sample transcript (a JSON document) with ``change`` made to it."""
    def write(tmp: Path) -> tuple[Path, list[str]]:
        path = FORMATS[fmt](tmp, "x")
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc))
        return path, []
    return write


def _jsonl(fmt: str, change: Callable[[list[dict[str, Any]]], None]) -> Poison:
    """``fmt``'s sample transcript (JSON lines) with ``change`` made to its records."""
    def write(tmp: Path) -> tuple[Path, list[str]]:
        path = FORMATS[fmt](tmp, "x")
        records = _records(path)
        change(records)
        return _rewrite(path, records), []
    return write


def _text(name: str, text: str) -> Poison:
    def write(tmp: Path) -> tuple[Path, list[str]]:
        (tmp / name).write_text(text)
        return tmp / name, []
    return write


def _goose_db_session(tmp: Path) -> tuple[Path, list[str]]:
    return FORMATS["goose-db"](tmp, "x"), ["--session", K]


def _goose_db_role(tmp: Path) -> tuple[Path, list[str]]:
    path = FORMATS["goose-db"](tmp, "x")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE messages SET role = ? WHERE id = 1", (K,))
    conn.commit()
    conn.close()
    return path, []


def _set(*keys: Any, value: Any = K) -> Callable[[Any], None]:
    def change(doc: Any) -> None:
        for key in keys[:-1]:
            doc = doc[key]
        doc[keys[-1]] = value
    return change


def _ledger_tokens(doc: dict[str, Any]) -> None:
    doc["usage_ledger"] = [{"model": "openai/fake", "purpose": "reply", "input_tokens": K,
                            "output_tokens": 1, "created": "2025-01-01T00:00:00+00:00"}]


# (format, poisoned file, whether the refusal quotes the value: it reads [REDACTED] there)
CASES: dict[str, tuple[str, Poison, bool]] = {
    "goosectx message created": ("goosectx", _json("goosectx", _set(
        "messages", 0, "created")), True),
    "goosectx message role": ("goosectx", _json("goosectx", _set("messages", 1, "role")), True),
    "goosectx part type": ("goosectx", _json("goosectx", _set(
        "messages", 0, "content", 0, "type")), True),
    "goosectx session created": ("goosectx", _json("goosectx", _set(
        "session", "created")), True),
    "goosectx schema_version": ("goosectx", _json("goosectx", _set("schema_version")), True),
    "goosectx schema_version list": ("goosectx", _json("goosectx", _set(
        "schema_version", value=[K])), True),
    "goosectx current_tokens (cut)": ("goosectx", _json("goosectx", _set(
        "session", "current_tokens")), True),
    "goosectx ledger tokens (cut)": ("goosectx", _json("goosectx", _ledger_tokens), True),
    "openai role": ("openai", _json("openai", _set(1, "role")), True),
    "swe-agent role": ("swe-agent", _json("swe-agent", _set("history", 0, "role")), True),
    "codex role": ("codex", _jsonl("codex", _set(1, "payload", "role")), True),
    "gemini-cli type": ("gemini-cli", _json("gemini-cli", _set("messages", 0, "type")), True),
    "qwen-code": ("qwen-code", _jsonl("qwen-code", _set(0, "message", "parts", value=K)), False),
    "claude-code": ("claude-code", _jsonl("claude-code", _set(
        1, "message", "content", 0, "input")), False),
    "copilot": ("copilot", _jsonl("copilot", _set(1, "data", value=K)), False),
    "goose-json role": ("goose-json", _json("goose-json", _set(
        "conversation", 0, "role")), False),
    "goose-db --session": ("goose-db", _goose_db_session, True),
    "goose-db role": ("goose-db", _goose_db_role, False),
    "aider": ("aider", _text("chat.md", f"no user lines, just {K}\n"), False),
    "console": ("console", _text("day.md", f"{K}\n"), False),
}


def test_every_format_has_a_refusal_here() -> None:
    assert {fmt for fmt, _, _ in CASES.values()} == set(FORMATS)


def _assert_refused_without_key(capsys: pytest.CaptureFixture[str], code: int, out: str,
                                err: str, quoted: bool) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("goosectx: error:"), err
    assert K[:12] not in out + err  # not whole, nor the start a cut leaves
    if quoted:
        assert "[REDACTED]" in lines[0], err
    assert listed(capsys) == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_refused_import_shows_a_secret_it_quotes_redacted_and_stores_nothing(
        case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", K)
    fmt, poison, quoted = CASES[case]
    path, extra = poison(tmp_path)
    code, out, err = run_cli(capsys, "sessions", "import", str(path), "--format", fmt, *extra)
    _assert_refused_without_key(capsys, code, out, err, quoted)
    assert_not_in_sessions_db(K)


def test_a_refused_import_from_stdin_shows_the_secret_redacted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", K)
    path, _ = _json("goosectx", _set("messages", 0, "role"))(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    code, out, err = run_cli(capsys, "sessions", "import", "-")
    _assert_refused_without_key(capsys, code, out, err, True)
    assert "stdin" in err
