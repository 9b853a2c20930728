"""Counts of fixed texts kept between processes: a counted session's dry run loads no encoding.

Each ``cli`` call below stands for a new process: the kept counts are read from the file
again (``text_counts._BY_PATH`` emptied), as a new process would.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from cli_support import cli

from goosectx import text_counts, tokens
from goosectx.conversation import Message, ToolRequest, ToolResponse
from goosectx.store import SessionStore

LLM = ("--strategy", "llm", "--model", "openai/gpt-4o-mini")
EXTRACTIVE = ("--strategy", "extractive")


def _session(home: Path, work: Path) -> None:
    store = SessionStore(home)
    session = store.create_session(work, name="long")
    for i in range(100):
        store.append_message(session.id, Message.user(
            f"request {i}: you must keep the tests green and never touch vendor/ ({i})"))
        call = ToolRequest(f"c{i}", "shell", {"command": f"sed -i s/a/b/ src/mod{i}.py"})
        store.append_message(session.id, Message("assistant", (call,)))
        output = f"edited src/mod{i}.py\n" + "line of output\n" * (20 + i % 7)
        store.append_message(session.id, Message("user", (ToolResponse(f"c{i}", output),)))
    store.close()


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The models an encoding was loaded for, by any counter."""
    seen: list[str | None] = []
    real = tokens.get_encoder

    def spy(model: str | None = None) -> tokens.Encoder:
        seen.append(model)
        return real(model)

    monkeypatch.setattr(tokens, "get_encoder", spy)
    return seen


def _dry_run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
             *strategy: str) -> str:
    monkeypatch.setattr(text_counts, "_BY_PATH", {})  # a new process reads the file again
    out, _ = cli(capsys, "compact", "long", "--dry-run", *strategy)
    return out


def _kept_file() -> Path:
    return text_counts.default_path()


@pytest.mark.parametrize("strategy", [LLM, EXTRACTIVE])
def test_a_second_dry_run_loads_no_encoding_and_prints_the_same_figures(
        strategy: tuple[str, ...], capsys: pytest.CaptureFixture[str],
        isolated_env: dict[str, Path], work: Path, monkeypatch: pytest.MonkeyPatch,
        loads: list[str | None]) -> None:
    _session(isolated_env["home"], work)
    first = _dry_run(capsys, monkeypatch, *strategy)
    assert loads  # the first process counts the messages (and the fixed texts)
    assert "Tokens before:" in first
    loads.clear()
    again = _dry_run(capsys, monkeypatch, *strategy)
    assert loads == []  # message counts stored, fixed texts kept: nothing to tokenise
    assert again == first


@pytest.mark.parametrize("damage", ["garbage", "tampered", "other version", "a directory"])
def test_a_broken_or_tampered_kept_file_is_ignored_and_the_figures_stay_right(
        damage: str, capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path],
        work: Path, monkeypatch: pytest.MonkeyPatch, loads: list[str | None]) -> None:
    _session(isolated_env["home"], work)
    first = _dry_run(capsys, monkeypatch, *LLM)
    path = _kept_file()
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["entries"]
    if damage == "garbage":
        path.write_bytes(b"\x00{not json")
    elif damage == "tampered":  # every count wrong, the checksum left as it was
        data["entries"] = {key: count + 1000 for key, count in data["entries"].items()}
        path.write_text(json.dumps(data), encoding="utf-8")
    elif damage == "other version":
        data["version"] = text_counts.VERSION + 1
        path.write_text(json.dumps(data), encoding="utf-8")
    else:
        path.unlink()
        path.mkdir()  # neither readable nor writable as a file
    loads.clear()
    again = _dry_run(capsys, monkeypatch, *LLM)
    assert again == first  # counted afresh, not taken from the file
    assert loads  # the fixed texts were counted again
    if damage != "a directory":  # written anew, and trusted by the next process
        loads.clear()
        assert _dry_run(capsys, monkeypatch, *LLM) == first
        assert loads == []


def test_a_kept_count_is_found_only_for_the_same_text_and_encoding(tmp_path: Path) -> None:
    kept = text_counts.TextCounts(tmp_path / "counts.json")
    kept.put("o200k_base", "some fixed text", 3)
    kept.save()
    again = text_counts.TextCounts(tmp_path / "counts.json")
    assert again.get("o200k_base", "some fixed text") == 3
    assert again.get("o200k_base", "some fixed text!") is None
    assert again.get("cl100k_base", "some fixed text") is None


def test_the_kept_file_holds_at_most_the_newest_entries(tmp_path: Path) -> None:
    path = tmp_path / "counts.json"
    kept = text_counts.TextCounts(path)
    for i in range(text_counts.MAX_ENTRIES + 10):
        kept.put("o200k_base", f"text {i}", i)
    kept.save()
    again = text_counts.TextCounts(path)
    assert again.get("o200k_base", "text 0") is None
    last = text_counts.MAX_ENTRIES + 9
    assert again.get("o200k_base", f"text {last}") == last
    assert len(json.loads(path.read_text(encoding="utf-8"))["entries"]) == text_counts.MAX_ENTRIES


@pytest.mark.parametrize("damage", [None, b"short", "flipped byte"])
def test_the_encoding_counts_the_same_when_loaded_from_its_kept_tables(
        damage: bytes | str | None) -> None:
    import tiktoken

    from goosectx import encoding

    encoding.ensure_offline_tiktoken()
    reference = tiktoken.get_encoding(encoding.DEFAULT_ENCODING)
    text = "Compaction keeps the tail verbatim — naïve café, 数据, emoji 🙂, <|endoftext|>\n" * 20
    encoding.get_encoder.cache_clear()
    first = encoding.get_encoder(None)  # builds the tables file
    tables = next(text_counts.default_path().parent.glob("tiktoken-*.marshal"))
    if damage == "flipped byte":
        data = bytearray(tables.read_bytes())
        data[len(data) // 2] ^= 0xFF
        tables.write_bytes(bytes(data))
    elif damage is not None:
        tables.write_bytes(damage)
    encoding.get_encoder.cache_clear()
    again = encoding.get_encoder(None)  # from the tables file, or afresh when it is damaged
    encoding.get_encoder.cache_clear()
    for enc in (first, again):
        assert enc.encode(text, disallowed_special=()) == reference.encode(
            text, disallowed_special=())
    kept = tables.read_bytes()  # written anew when it was damaged
    assert hashlib.sha256(kept[32:]).digest() == kept[:32]


def _widen(directory: Path) -> list[Path]:
    """``directory`` 0755 and its files 0644 (a umask of 022, an older version); the files."""
    directory.chmod(0o755)
    files = [p for p in directory.iterdir() if p.is_file()]
    for path in files:
        path.chmod(0o644)
    return files


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_kept_counts_dir_and_files_are_made_private_again(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path], work: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _session(isolated_env["home"], work)
    first = _dry_run(capsys, monkeypatch, *LLM)
    cache = _kept_file().parent
    files = _widen(cache)
    assert _kept_file() in files
    assert _dry_run(capsys, monkeypatch, *LLM) == first  # reads the kept counts, writes nothing
    assert _mode(cache) == 0o700
    assert {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}


def test_the_kept_encoding_tables_are_made_private_again() -> None:
    from goosectx import encoding

    encoding.ensure_offline_tiktoken()
    encoding.get_encoder.cache_clear()
    encoding.get_encoder(None)  # builds the tables file
    cache = text_counts.default_path().parent
    tables = next(cache.glob("tiktoken-*.marshal"))
    _widen(cache)
    encoding.get_encoder.cache_clear()
    encoding.get_encoder(None)  # read from the tables file
    assert _mode(cache) == 0o700 and _mode(tables) == 0o600


@pytest.mark.parametrize("xdg", ["/tmp/elsewhere/cache", "relative/cache", "", None])
def test_the_kept_counts_live_in_platformdirs_user_cache_dir(
        xdg: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Made without platformdirs where that is known (Linux, an absolute XDG_CACHE_HOME),
    the directory is the one platformdirs names."""
    import platformdirs

    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert text_counts.default_path().parent == Path(platformdirs.user_cache_dir("goosectx"))


def test_a_models_encoding_is_the_one_tiktoken_names() -> None:
    """The model tables read without importing tiktoken are tiktoken's own (a tiktoken that
    maps a model otherwise fails here), and every model resolves as tiktoken resolves it."""
    import tiktoken
    import tiktoken.model

    from goosectx import encoding

    assert encoding.MODEL_TO_ENCODING == tiktoken.model.MODEL_TO_ENCODING
    assert list(encoding.MODEL_PREFIX_TO_ENCODING.items()) == list(
        tiktoken.model.MODEL_PREFIX_TO_ENCODING.items())
    names = [*tiktoken.model.MODEL_TO_ENCODING,
             *(p + "2025-01-01" for p in tiktoken.model.MODEL_PREFIX_TO_ENCODING),
             "gpt-4o-mini", "gpt-4-turbo", "o3-mini", "claude-3-5-sonnet", "llama3"]
    for name in names:
        try:
            expected = tiktoken.encoding_name_for_model(name)
        except KeyError:
            expected = encoding.DEFAULT_ENCODING
        encoding.encoding_name.cache_clear()
        assert encoding.encoding_name(f"openai/{name}") == expected, name
        assert encoding.encoding_name(name) == expected, name
