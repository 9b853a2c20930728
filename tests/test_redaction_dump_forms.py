"""A key in the dumps the first dump reader did not read reaches neither the model nor the
import (goosectx/redaction_dump.py; docs/architecture.md §2).

``xxd -p``'s plain hex (a piece of a key split across its lines), decimal and octal words
(``od -d``, ``od -o``, ``od -tu1``, ``od -td4``, ``hexdump -d``/``-o``), ``hexdump -e`` formats
of hex groups with any separator and no offset, a key after the ``*`` line that stands for
repeated lines, and a key with characters outside ASCII (the text column shows dots). Each
dump is the real tool's output (skipped where the tool is missing).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_redaction_dump import KEY, dumped, shown_pieces

from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_fragments import WithPieces

NUMBERS = {"od -d": (2, 10), "od -o": (2, 8), "od -tu1": (1, 10), "od -td1": (1, 10),
           "od -td2": (2, 10), "od -tu4": (4, 10), "od -td4": (4, 10), "od -to4": (4, 8),
           "od -tu8": (8, 10), "od -w8 -d": (2, 10), "hexdump -d": (2, 10),
           "hexdump -o": (2, 8)}
"""Dumps of numbers: the bytes a word stands for, and its base. (Not ``od -An -d``: lines
of indented numbers alone are not looked for, goosectx/redaction_dump.py ``_HEAD``.)"""
FORMATS = ["xxd -p", "xxd -p -c 20", "od -An -tx1", "od -tx2", "od -An -tx2", "od -tx4",
           "hexdump -e '16/1 \"%02x \" \"\\n\"'", "hexdump -e '16/1 \"%02X:\" \"\\n\"'",
           "hexdump -e '16/1 \"%02x\" \"\\n\"'", "hexdump -e '8/2 \"%04x \" \"\\n\"'",
           "hexdump -e '4/4 \"%08x \" \"\\n\"'", "hexdump -e '16/1 \"%02x-\" \"\\n\"'"]


def numbers_shown(text: str, size: int, base: int) -> list[str]:
    """The 6-character runs of :data:`KEY`'s secret part that ``text``'s numbers still give
    (each line's words after its offset read as ``size``-byte words, little-endian)."""
    data = bytearray()
    for line in text.splitlines():
        words = line.split() if line.startswith(" ") else line.split()[1:]
        for word in words:
            try:
                value = int(word, base) % (1 << 8 * size)
            except ValueError:
                continue
            data += value.to_bytes(size, "little")
    return [KEY[i:i + 6] for i in range(8, len(KEY) - 6) if KEY[i:i + 6].encode() in data]


def _split(command: str) -> list[str]:
    """``command``'s words (a quoted ``hexdump -e`` format one word)."""
    import shlex

    return shlex.split(command)


def _dumped(command: str, path: Path) -> str:
    words = _split(command)
    if len(words) == len(command.split()):
        return dumped(command, path)
    import shutil
    import subprocess

    if shutil.which(words[0]) is None:
        pytest.skip(f"no {words[0]} here")
    return subprocess.run([*words, str(path)], capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture
def settings_file(tmp_path: Path) -> Path:
    path = tmp_path / "settings.py"
    path.write_text(f'DEBUG = False\nAPI_KEY = "{KEY}"\nNAME = "demo"\n', encoding="utf-8")
    return path


@pytest.fixture
def after_repeats(tmp_path: Path) -> Path:
    """A file whose key comes after 64 NULs (a dump writes them as a line, then ``*``)."""
    path = tmp_path / "blob.bin"
    path.write_bytes(b"\0" * 64 + f'API_KEY = "{KEY}"\n'.encode() + b"\0" * 64 + b"tail")
    return path


@pytest.mark.parametrize("command", list(NUMBERS))
def test_a_dump_of_numbers_shows_none_of_the_key(
        command: str, settings_file: Path, after_repeats: Path) -> None:
    size, base = NUMBERS[command]
    for path in (settings_file, after_repeats):
        out = dumped(command, path)
        assert numbers_shown(out, size, base)  # (the dump does show it)
        redacted = WithPieces(Redactor([KEY]))(out)
        assert numbers_shown(redacted, size, base) == []
        assert redacted.count("\n") == out.count("\n")
        assert not WithPieces(Redactor([KEY])).changes_none(["before", out])


@pytest.mark.parametrize("command", FORMATS)
def test_a_dump_of_hex_groups_without_offsets_shows_none_of_the_key(
        command: str, settings_file: Path, after_repeats: Path) -> None:
    for path in (settings_file, after_repeats):
        out = _dumped(command, path)
        redacted = WithPieces(Redactor([KEY]))(out)
        assert REDACTED in redacted
        assert shown_pieces(redacted, path.read_bytes()) == []
        assert redacted.count("\n") == out.count("\n")


@pytest.mark.parametrize("command", ["xxd -p -s 40 -l 60", "od -d -j 40 -N 40",
                                     "hexdump -s 40 -n 40 -e '8/1 \"%02x:\" \"\\n\"'"])
def test_a_dump_of_a_piece_of_the_key_shows_none_of_it(
        command: str, settings_file: Path) -> None:
    out = _dumped(command, settings_file)
    redacted = WithPieces(Redactor([KEY]))(out)
    assert REDACTED in redacted
    assert shown_pieces(redacted, settings_file.read_bytes()) == []
    assert numbers_shown(redacted, 2, 10) == []
    assert not WithPieces(Redactor([KEY])).changes_none([out])  # the import's check too


@pytest.mark.parametrize("command", ["hexdump -C", "xxd -a", "od -c", "od -x", "od -tx1z"])
def test_a_key_after_a_line_of_repeats_is_redacted(command: str, after_repeats: Path) -> None:
    out = dumped(command, after_repeats)
    assert "\n*\n" in out
    redacted = WithPieces(Redactor([KEY]))(out)
    assert shown_pieces(redacted, after_repeats.read_bytes()) == []
    assert redacted.count("\n*\n") == out.count("\n*\n")


PASSWORD = "pässwörd-Ωmega-42-sehr-geheim-éàü"


@pytest.mark.parametrize("command", ["hexdump -C", "xxd", "od -tx1", "od -x", "od -c",
                                     "xxd -p"])
def test_a_dump_of_a_key_outside_ascii_shows_none_of_it(command: str, tmp_path: Path) -> None:
    path = tmp_path / "pw.txt"
    path.write_text(f"PW={PASSWORD}\n{'x' * 29}{PASSWORD}\n", encoding="utf-8")
    data = PASSWORD.encode()
    out = dumped(command, path)
    redacted = WithPieces(Redactor([PASSWORD]))(out)
    digits = "".join(ch for ch in redacted.lower() if ch in "0123456789abcdef")
    words = bytes(b for i in range(0, len(data) - 1, 2) for b in (data[i + 1], data[i]))
    pieces = [d[i:i + 6].hex() for d in (data, words) for i in range(len(d) - 6)]
    assert [p for p in pieces if p in digits] == []
    octal = "".join(ch for ch in redacted if ch in "01234567")
    assert ["".join(f"{b:03o}" for b in data[i:i + 4]) for i in range(len(data) - 4)
            if "".join(f"{b:03o}" for b in data[i:i + 4]) in octal] == []
    assert not WithPieces(Redactor([PASSWORD])).changes_none([out])


def test_numbers_hex_lines_and_dumps_without_the_key_are_left_as_they_are(
        tmp_path: Path) -> None:
    text = tmp_path / "plain.py"
    text.write_text("".join(f"value_{i} = {i * 7919}  # sk-proj- and more ä\n"
                            for i in range(40)), encoding="utf-8")
    binary = tmp_path / "random.bin"
    binary.write_bytes(random.Random(2).randbytes(4096))
    redact = WithPieces(Redactor([KEY, PASSWORD]))
    for path in (text, binary):
        for command in ("od -d", "od -o", "od -tu1", "xxd -p", "hexdump -d",
                        "hexdump -e '16/1 \"%02X:\" \"\\n\"'"):
            out = _dumped(command, path)
            assert redact(out) == out, command
            # (a ``73:6B:…`` line is a list of bytes the check always passes on to the
            # redactor, goosectx/redaction_separated.py)
            assert redact.changes_none([out]) or ":" in command, command
    table = "\n".join(f"  {i:4d}  {i * 31 % 997:5d}  {i * 7:6d}  {i * 13:6d}" for i in range(200))
    hashes = "\n".join(f"{random.Random(i).randbytes(32).hex()}  file{i}.txt" for i in range(50))
    plain_hex = "\n".join(random.Random(i).randbytes(30).hex() for i in range(50))
    for other in (table, hashes, plain_hex):
        assert redact(other) == other
        assert redact.changes_none([other])
