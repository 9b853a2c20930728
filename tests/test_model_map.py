"""The bundled model map's entries kept in the user cache dir (providers/model_map.py)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from goosectx.providers import model_map

MAP = {
    "gpt-4o-mini": {"max_input_tokens": 128000, "input_cost_per_token": 1.5e-07,
                    "litellm_provider": "openai"},
    "claude-x": {"max_input_tokens": 200000, "litellm_provider": "anthropic"},
}


@pytest.fixture
def map_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "litellm" / model_map.MAP_FILE
    path.parent.mkdir()
    path.write_text(json.dumps(MAP), encoding="utf-8")
    monkeypatch.setattr(model_map, "_map_path", lambda: path)
    parsed = model_map._bundled_model_map
    fresh_process(monkeypatch)
    yield path
    parsed.cache_clear()  # the fake map must not stay for later tests


def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget what this process read, as a new process would."""
    monkeypatch.setattr(model_map, "_KEPT", {})
    model_map._bundled_model_map.cache_clear()


def test_an_entry_is_the_maps_and_the_next_process_reads_it_without_parsing_the_map(
        map_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache" / model_map.FILE_NAME
    assert model_map.bundled_model_info("openai/gpt-4o-mini", cache) == MAP["gpt-4o-mini"]
    assert model_map.bundled_model_info("openai/unknown", cache) is None
    assert model_map.bundled_model_info("anthropic/gpt-4o-mini", cache) is None  # wrong provider

    fresh_process(monkeypatch)

    def no_parse() -> dict[str, object]:
        raise AssertionError("the map was parsed")

    monkeypatch.setattr(model_map, "_bundled_model_map", no_parse)
    assert model_map.bundled_model_info("openai/gpt-4o-mini", cache) == MAP["gpt-4o-mini"]
    assert model_map.bundled_model_info("openai/unknown", cache) is None
    assert model_map.bundled_model_info("anthropic/gpt-4o-mini", cache) is None


def test_a_changed_map_or_a_damaged_cache_file_is_read_again(
        map_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache" / model_map.FILE_NAME
    assert model_map.bundled_model_info("claude-x", cache) == MAP["claude-x"]

    changed = {**MAP, "claude-x": {"max_input_tokens": 1000, "litellm_provider": "anthropic"}}
    map_file.write_text(json.dumps(changed), encoding="utf-8")
    os.utime(map_file, ns=(1, 1))  # another size and time: another map
    fresh_process(monkeypatch)
    assert model_map.bundled_model_info("claude-x", cache) == changed["claude-x"]

    data = json.loads(cache.read_text(encoding="utf-8"))
    data["entries"]["claude-x"] = {"max_input_tokens": 5}  # the checksum no longer matches
    cache.write_text(json.dumps(data), encoding="utf-8")
    fresh_process(monkeypatch)
    assert model_map.bundled_model_info("claude-x", cache) == changed["claude-x"]


def test_an_unwritable_cache_dir_still_gives_the_entry(map_file: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    cache = blocker / model_map.FILE_NAME
    assert model_map.bundled_model_info("openai/gpt-4o-mini", cache) == MAP["gpt-4o-mini"]
