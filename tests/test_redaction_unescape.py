"""A key written as backslash escapes (``\\u0073\\u006b…``, ``\\x73…``, ``\\163…``) is redacted.

A model asked to put a key in JSON or a C string wrote each character (or only some) as an
escape: the answer, ``run``'s output and the session held the key whole, readable by anyone who
decodes the escapes. What is asserted is what the user can read: the terminal, the store's
files, the export, the live deltas, a tool call's arguments that are not JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from cli_support import cli
from fakeserver import FakeServer
from store_support import assert_not_in_sessions_db

from goosectx.message import Message
from goosectx.parts import TextContent, ToolRequest
from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_fragments import Fragments
from goosectx.redaction_reply import redacted_reply
from goosectx.stream_reply import _Settled

KEY = "sk-proj-Q7vX2mK9pL4nR8sT1wY6zA3bC5dE0fG7hJ2kL9mN4pQ8rS1t"


def _u(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def _x(text: str) -> str:
    return "".join(f"\\x{ord(c):02X}" for c in text)


def _octal(text: str) -> str:
    return "".join(f"\\{ord(c):03o}" for c in text)


def _some(text: str) -> str:
    """Every third character as ``\\uXXXX`` (upper-case hex), the others as they are."""
    return "".join(f"\\u{ord(c):04X}" if i % 3 == 0 else c for i, c in enumerate(text))


def _decoded(text: str) -> str:
    return re.sub(r"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([0-7]{3}))",
                  lambda m: chr(int(m[1] or m[2], 16) if m[3] is None else int(m[3], 8)), text)


ENCODERS: list[Callable[[str], str]] = [_u, _x, _octal, _some]


@pytest.mark.parametrize("encode", ENCODERS)
def test_a_key_written_as_escapes_is_redacted_and_the_text_around_kept(
        encode: Callable[[str], str]) -> None:
    redact = Redactor([KEY])
    text = f'{{"k": "{encode(KEY)}", "n": "\\u00e9t\\u00e9"}}'
    assert redact(text) == f'{{"k": "{REDACTED}", "n": "\\u00e9t\\u00e9"}}'
    assert not redact.changes_none([text])
    assert redact.spans(f"a {encode(KEY)} b") == [(2, 2 + len(encode(KEY)))]


def test_a_key_written_half_plain_half_escaped_is_redacted_whole() -> None:
    text = f"key={KEY[:20]}{_x(KEY[20:])};"
    assert Redactor([KEY])(text) == f"key={REDACTED};"


def test_escapes_that_hold_no_key_are_left_as_they_are() -> None:
    redact = Redactor([KEY])
    text = f"path C:\\x41\\new \\u00e9 \\101 {_u(KEY[:7])} {KEY[:7]} \\"
    assert redact(text) == text
    assert redact.changes_none([text])


def test_a_run_of_a_keys_characters_as_escapes_is_a_piece_of_it() -> None:
    pieces = Fragments([KEY])
    text = f"part: {_x(KEY[10:30])} end"
    assert pieces.found_in(text)
    assert pieces(text) == f"part: {REDACTED} end"
    assert pieces("\\x41\\u0042 plain") == "\\x41\\u0042 plain"


@pytest.mark.parametrize("encode", [_u, _x])
@pytest.mark.parametrize("chunk_chars", [1, 5, 16])
def test_a_key_written_as_escapes_is_not_streamed_in_part(
        encode: Callable[[str], str], chunk_chars: int) -> None:
    redact = Redactor([KEY])
    text = f'here: {{"k": "{encode(KEY)}"}} END'
    settled = _Settled(redact, [])
    deltas = [settled.feed(text[i:i + chunk_chars]) for i in range(0, len(text), chunk_chars)]
    deltas.append(settled.flush())
    shown = "".join(deltas)
    assert shown == f'here: {{"k": "{REDACTED}"}} END'
    assert not any(KEY[8:20] in _decoded(d) for d in deltas), deltas


def test_tool_call_arguments_that_are_not_json_are_redacted_read_decoded() -> None:
    raw = f'{{"command": "echo \\x{_x(KEY)[2:]}'  # (cut short: not JSON)
    call = ToolRequest(id="c1", name="shell", arguments={}, raw_arguments=raw,
                       parse_error="Expecting ',' delimiter")
    message = Message(role="assistant", content=(TextContent(f"ok {_u(KEY)}"), call))
    clean = redacted_reply(message, Redactor([KEY]))
    texts = [clean.content[0].text, clean.content[1].raw_arguments]  # type: ignore[union-attr]
    assert texts[0] == f"ok {REDACTED}"
    assert all(KEY[8:20] not in _decoded(t or "") for t in texts), texts


@pytest.mark.parametrize("encode", [_u, _x])
def test_run_shows_and_stores_no_key_written_as_escapes(
        encode: Callable[[str], str], fake_model: FakeServer, workdir: object,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    fake_model.add({"text": f'{{"k": "{encode(KEY)}"}} is the config.', "chunk_chars": 7})
    out, err = cli(capsys, "run", "-t", "hi", "--name", "esc")
    exported, _ = cli(capsys, "sessions", "export", "esc")
    for text in (out, err, exported):
        assert KEY[8:20] not in _decoded(text), text
    assert f'{{"k": "{REDACTED}"}} is the config.' in exported
    assert_not_in_sessions_db(encode(KEY[8:20]))
