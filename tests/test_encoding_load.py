"""Loading an encoding the first time (no parsed tables kept yet) gives tiktoken's own tables.

The ranks file is read by ``encoding.read_bpe`` rather than tiktoken's line loop; what a user
would notice is any difference in the counts, so the tables must be equal.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
from tiktoken.load import load_tiktoken_bpe
from tiktoken_ext import openai_public

from goosectx import encoding


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_a_bundled_encoding_built_with_the_faster_reader_is_tiktokens_own(name: str) -> None:
    encoding.ensure_offline_tiktoken()
    constructor = openai_public.ENCODING_CONSTRUCTORS[name]
    assert encoding._construct(constructor) == constructor()
    assert openai_public.load_tiktoken_bpe is load_tiktoken_bpe  # the plugin is left as it was


def _line(token: bytes, rank: int) -> bytes:
    return base64.b64encode(token) + b" " + str(rank).encode()


@pytest.mark.parametrize("contents", [
    b"\n".join(_line(t, r) for r, t in enumerate([b"a", b"b", b"ab", b"\xe6\x97"])) + b"\n",
    b"\n".join(_line(t, r) for r, t in enumerate([b"x", b" y", b"\x00"])),  # no last newline
    _line(b"a", 0) + b"\n\n" + _line(b"b", 1) + b"\n",  # a blank line: tiktoken skips it
    _line(b"a", 0) + b"\r\n" + _line(b"bc", 1) + b"\r\n",
])
def test_a_ranks_file_reads_as_tiktoken_reads_it(
        contents: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # read the file itself, keep no copy
    path = tmp_path / "ranks.tiktoken"
    path.write_bytes(contents)
    known = hashlib.sha256(contents).hexdigest()
    assert encoding.read_bpe(str(path), known) == load_tiktoken_bpe(str(path), known)
    assert len(encoding.read_bpe(str(path), known)) >= 2


def test_a_ranks_file_tiktoken_refuses_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    path = tmp_path / "ranks.tiktoken"
    path.write_bytes(_line(b"a", 0) + b" 7\n" + base64.b64encode(b"b") + b"\n")  # 3 + 1 fields
    for known in (None, hashlib.sha256(path.read_bytes()).hexdigest()):
        with pytest.raises(ValueError, match="Error parsing line"):
            encoding.read_bpe(str(path), known)
