"""A key dumped by ``hexdump``, ``xxd`` or ``od`` reaches neither the model, nor the store, nor
an export (goosectx/redaction_dump.py; docs/architecture.md §2).

Each dump is the real tool's output (skipped where the tool is missing): its offsets and text
columns sit between the lines of a key's bytes, and ``od -x``/``hexdump`` swap each two.
"""

from __future__ import annotations

import io
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from fakeserver import FakeServer

from goosectx.cli.run_cmd import run_task
from goosectx.cli.sessions_cmd import export_session
from goosectx.config import load_settings
from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_fragments import WithPieces

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
KEY = "sk-proj-" + "".join(random.Random(30).choices(ALPHABET, k=120))
DUMPS = ["hexdump -C", "hexdump", "hexdump -x", "hexdump -c", "hexdump -b", "xxd", "xxd -g1",
         "xxd -g4", "xxd -g8", "xxd -g0", "xxd -u", "xxd -e", "xxd -c8", "xxd -b", "od -c",
         "od -ta", "od -b", "od -tx1", "od -x", "od -tx4", "od -tx8", "od -Ax -tx1z",
         "od -Ad -c", "od -tc -tx1", "od --endian=big -x", "od -w8 -c", "od -An -x",
         "od -An -tx4", "od -An -c"]


def dumped(command: str, path: Path) -> str:
    tool = command.split()[0]
    if shutil.which(tool) is None:
        pytest.skip(f"no {tool} here")
    done = subprocess.run([*command.split(), str(path)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        pytest.skip(f"{command}: {done.stderr.strip()}")
    return done.stdout


def shown_pieces(text: str, data: bytes) -> list[str]:
    """What of :data:`KEY` (in the file's ``data``, UTF-8 or UTF-16) ``text`` still shows: 6
    bytes of hex in the file's order or in words of 2, 4 or 8 swapped, 4 bytes in octal or
    bits, or 8 characters (spaces and NULs out)."""
    digits = re.sub(r"[^0-9a-f]", "", text.lower())
    octal, bits = re.sub(r"[^0-7]", "", text), re.sub(r"[^01]", "", text)
    letters = re.sub(r"\s|\\0", "", text)
    start, size = max((data.find(written := KEY[8:].encode(encoding)), len(written))
                      for encoding in ("utf-8", "utf-16-le"))
    found = []
    for width in (1, 2, 4, 8):
        words = b"".join(data[i:i + width][::-1] for i in range(0, len(data), width))
        found += [words[at:at + 6].hex() for at in range(start, start + size - 5)
                  if words[at:at + 6].hex() in digits]
    for at in range(start, start + size - 3):
        if "".join(f"{byte:03o}" for byte in data[at:at + 4]) in octal or \
                "".join(f"{byte:08b}" for byte in data[at:at + 4]) in bits:
            found.append(data[at:at + 4].hex())
    found += [KEY[i:i + 8] for i in range(8, len(KEY) - 8) if KEY[i:i + 8] in letters]
    return found


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    path = tmp_path / "settings.py"
    path.write_text(f'DEBUG = False\nAPI_KEY = "{KEY}"\nNAME = "demo"\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("command", DUMPS)
def test_a_dump_of_a_file_holding_the_key_shows_none_of_it(
        command: str, settings_file: Path) -> None:
    out = dumped(command, settings_file)
    assert shown_pieces(out, settings_file.read_bytes())  # (the dump does show it)
    redacted = WithPieces(Redactor([KEY]))(out)
    assert REDACTED in redacted
    assert shown_pieces(redacted, settings_file.read_bytes()) == []
    assert redacted.count("\n") == out.count("\n")  # (its lines kept)


@pytest.mark.parametrize("command", ["hexdump -C -s 40 -n 40", "xxd -s 40 -l 40",
                                     "od -j 40 -N 40 -x", "od -j 40 -N 40 -c"])
def test_a_dump_of_a_piece_of_the_key_shows_none_of_it(command: str, settings_file: Path) -> None:
    out = dumped(command, settings_file)
    redacted = WithPieces(Redactor([KEY]))(out)
    assert shown_pieces(redacted, settings_file.read_bytes()) == []


@pytest.mark.parametrize("command", ["hexdump -C", "xxd", "od -c"])
def test_a_dump_of_a_utf16_file_holding_the_key_shows_none_of_it(
        command: str, tmp_path: Path) -> None:
    path = tmp_path / "key.txt"
    path.write_bytes(f"KEY={KEY}\r\n".encode("utf-16-le"))
    redacted = WithPieces(Redactor([KEY]))(dumped(command, path))
    assert shown_pieces(redacted, path.read_bytes()) == []


@pytest.mark.parametrize("command", ["hexdump -C", "xxd", "od -x", "od -c", "xxd -b"])
def test_dumps_without_the_key_are_left_as_they_are(command: str, tmp_path: Path) -> None:
    text = tmp_path / "plain.py"
    text.write_text("".join(f"value_{i} = {i * 7919}  # sk-proj- and more\n"
                            for i in range(40)), encoding="utf-8")
    binary = tmp_path / "random.bin"
    binary.write_bytes(random.Random(2).randbytes(4096))
    redact = WithPieces(Redactor([KEY]))
    for path in (text, binary):
        out = dumped(command, path)
        assert redact(out) == out
        assert redact.changes_none([out])


def test_the_import_check_does_not_pass_a_dump_holding_the_key(settings_file: Path) -> None:
    redact = WithPieces(Redactor([KEY]))
    for command in ("hexdump -C", "od -x", "xxd"):
        out = dumped(command, settings_file)
        assert not redact.changes_none(["before", out, "after"])
        assert not redact.changes_none([out.splitlines()[4]])  # (one line, a text's first)


def test_the_model_the_store_and_an_export_never_get_a_dumped_key(
        fake_model: FakeServer, workdir: Path, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    (workdir / "settings.py").write_text(f'API_KEY = "{KEY}"\n', encoding="utf-8")
    commands = [c for c in ("hexdump -C settings.py", "xxd settings.py", "od -c settings.py",
                            "od -x settings.py") if shutil.which(c.split()[0])]
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": c}}
                                   for c in commands]}, {"text": "done"})
    settings = load_settings()
    err = io.StringIO()
    code = run_task(settings, text="look at settings.py", input_file=None, continue_=False,
                    max_turns=None, output_format="text", mode="auto", model=None,
                    stdin=io.StringIO(""), stdout=io.StringIO(), stderr=err, name="dumps",
                    resume=None)
    assert code == 0, err.getvalue()
    data = (workdir / "settings.py").read_bytes()
    sent = [m["content"] for m in fake_model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(sent) == len(commands) and all(REDACTED in s for s in sent)
    assert shown_pieces(json.dumps(fake_model.requests, ensure_ascii=False), data) == []
    stored = b"".join(p.read_bytes() for p in settings.data_dir.rglob("*") if p.is_file())
    assert shown_pieces(stored.decode("utf-8", "replace"), data) == []
    for fmt in ("json", "markdown"):
        export_session(settings, "dumps", fmt=fmt, output=tmp_path / f"export.{fmt}")
        exported = (tmp_path / f"export.{fmt}").read_text(encoding="utf-8")
        assert REDACTED in exported and shown_pieces(exported, data) == []
