"""A key a tool prints as a list of its characters or bytes is redacted, as the key itself is.

``print(list(key))``, ``json.dumps(list(key))``, ``key.encode().hex(':')`` and a C byte array
(``0x73, 0x6b, …``) wrote the key past the redactor, to the model and the session
(docs/architecture.md §2, redaction; :mod:`goosectx.redaction_separated`). Whitespace
between characters (``s k - …``) was redacted already and still is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from goosectx.config import Settings
from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_fragments import WithPieces
from goosectx.tools.builtin import make_tool_context
from goosectx.tools.shell import ShellTool

KEY = "sk-proj-Q7vX2mK9pL4sR6yH1zTwqAbCdEfGh"
HEX = KEY.encode().hex()


def shell_output(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, program: str) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # (the tool's process never has it: a file does)
    (tmp_path / "notes.txt").write_text(KEY)
    ctx = make_tool_context(Settings(data_dir=tmp_path / "data"), tmp_path)
    command = f"{sys.executable} -c '{program}'"
    return ShellTool().run({"command": command}, ctx).output


@pytest.mark.parametrize("program", [
    "print(list(open(\"notes.txt\").read()))",
    "import json; print(json.dumps(list(open(\"notes.txt\").read())))",
    "print(open(\"notes.txt\").read().encode().hex(\":\"))",
    "print(\", \".join(hex(b) for b in open(\"notes.txt\").read().encode()))",
])
def test_a_shell_command_printing_the_key_as_a_list_shows_it_redacted(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, program: str) -> None:
    output = shell_output(monkeypatch, tmp_path, program)
    assert REDACTED in output, output
    secret = KEY[len("sk-proj-"):]
    for k in range(0, len(secret) - 3):  # no four characters of its secret part in a row
        piece = secret[k:k + 4]
        assert repr(list(piece))[1:-1] not in output and ":".join(
            f"{ord(c):02x}" for c in piece) not in output, output


@pytest.mark.parametrize("shown", [
    str(list(KEY)), json.dumps(list(KEY)), json.dumps(list(KEY), separators=(",", ":")),
    ":".join(HEX[i:i + 2] for i in range(0, len(HEX), 2)),
    "-".join(HEX[i:i + 2].upper() for i in range(0, len(HEX), 2)),
    "{" + ", ".join(f"0x{b:02x}" for b in KEY.encode()) + "};",
    "0x" + " 0x".join(HEX[i:i + 2] for i in range(0, len(HEX), 2)),
    " ".join(KEY),
])
def test_each_list_form_of_the_key_reads_redacted_and_the_text_around_it_stays(
        shown: str) -> None:
    redact = WithPieces(Redactor([KEY]))
    out = redact(f"before: {shown} :after")
    assert out.startswith("before: ") and out.endswith(" :after"), out
    assert REDACTED in out and "Q" not in out.replace("before", "").replace("after", ""), out


def test_lists_and_hex_runs_without_the_key_are_left_as_they_are() -> None:
    redact = WithPieces(Redactor([KEY]))
    text = ("mac 00:1a:2b:3c:4d:5e, fingerprint SHA256:ab:cd:ef:01:23:45:67:89:ab:cd\n"
            "['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] " + json.dumps(list("the quick fox"))
            + "\nbytes = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};\n"
            + str(list(KEY[:8])) + " is the prefix")  # (sk-proj- alone is no secret)
    assert redact(text) == text


def test_a_list_of_the_key_split_over_two_lists_keeps_neither_whole() -> None:
    redact = WithPieces(Redactor([KEY]))
    out = redact(f"a = {list(KEY)!r}\nb = {list(KEY[::-1])!r}\n")
    assert out.count(REDACTED) == 2, out
