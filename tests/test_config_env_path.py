"""GOOSECTX_CONFIG naming a file that does not exist is refused, as ``--config`` is.

A mistyped path used to be read as "no config file": its permission rules were dropped and
``run --mode auto`` let the model run what the file denies (tester 12, cfgtypo.sh).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from cli_support import run_cli
from test_repl import CTRL_D, ENTER, World

from goosectx.providers.scripted import ScriptedReply


def test_a_mistyped_goosectx_config_stops_the_run_before_any_tool_runs(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "guarded.toml").write_text('[permissions]\ndeny = ["shell(rm *)"]\n')
    victim = workdir / "victim.txt"
    victim.write_text("keep me\n")
    fake_model.add({"tool_calls": [{"name": "shell", "arguments": {"command": "rm -f victim.txt"}}]},
                   {"text": "cleaned up"})
    typo = tmp_path / "gaurded.toml"
    monkeypatch.setenv("GOOSECTX_CONFIG", str(typo))
    code, out, err = run_cli(capsys, "run", "--mode", "auto", "-t", "clean up")
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert f"config file {typo} does not exist" in err and "GOOSECTX_CONFIG" in err
    assert victim.read_text() == "keep me\n" and fake_model.requests == []
    assert not typo.exists()  # nothing written in its place


def test_info_refuses_a_missing_goosectx_config_the_same_way(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    typo = tmp_path / "gaurded.toml"
    monkeypatch.setenv("GOOSECTX_CONFIG", str(typo))
    code, out, err = run_cli(capsys, "info")
    assert code == 2 and out == "", out
    assert len(err.strip().splitlines()) == 1 and f"config file {typo} does not exist" in err
    code, _out, err2 = run_cli(capsys, "--config", str(typo), "info")
    assert code == 2 and f"config file {typo} does not exist" in err2


def test_an_empty_goosectx_config_is_unset_and_a_missing_default_file_means_defaults(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for value in ("", "  "):
        monkeypatch.setenv("GOOSECTX_CONFIG", value)
        code, out, err = run_cli(capsys, "info")
        assert code == 0 and err == "", err
        assert "not found (defaults in use)" in out
    monkeypatch.delenv("GOOSECTX_CONFIG")
    code, out, err = run_cli(capsys, "info")
    assert code == 0 and err == "" and "not found (defaults in use)" in out


def test_s_creates_the_config_file_only_at_the_default_location(
        world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOSECTX_CONFIG")
    default = Path(__import__("platformdirs").user_config_dir("goosectx")) / "config.toml"
    assert not default.exists()
    world.settings.config_path = None
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "git status"})]), "ok")
    out = world.run("status" + ENTER + "s" + CTRL_D)
    assert f"saved: [permissions] allow += shell(git status*) in {default}" in out.replace(" \n", " ")
    assert tomllib.loads(default.read_text())["permissions"]["allow"] == ["shell(git status*)"]


def test_s_does_not_recreate_a_named_config_file_removed_during_the_session(
        world: World, tmp_path: Path) -> None:
    named = tmp_path / "named.toml"
    world.settings.config_path = named  # read at start, deleted since
    world.provider.add(ScriptedReply(tool_calls=[("shell", {"command": "git status"})]), "ok")
    out = world.run("status" + ENTER + "s" + CTRL_D)
    assert "saved:" not in out and f"{named} no longer exists" in out
    assert not named.exists()


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = World(tmp_path)
    yield w
    w.store.close()


def test_a_goosectx_config_pipe_is_read_as_config_reads_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``GOOSECTX_CONFIG=<(printf …)`` (a pipe) was "not found (defaults in use)": its mode
    and deny rules were dropped while ``--config <(…)`` read them."""
    import os
    import threading

    fifo = tmp_path / "config.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with fifo.open("w") as fh:  # blocks until goosectx opens it
            fh.write('mode = "chat"\n')

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    monkeypatch.setenv("GOOSECTX_CONFIG", str(fifo))
    code, out, err = run_cli(capsys, "info")
    writer.join(timeout=10)
    assert code == 0, err
    assert "not found" not in out and "read" in out
    assert "chat" in out and f"config {fifo}" in out.replace("\n", " ").replace("  ", " ")


def test_a_goosectx_config_naming_dev_zero_is_refused_not_read_for_ever(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSECTX_CONFIG", "/dev/zero")
    code, out, err = run_cli(capsys, "info")
    assert code == 2 and out == "", out
    assert err.count("\n") == 1 and "config file /dev/zero is over 1 MiB" in err, err


def test_a_relative_goosectx_home_is_refused_with_the_absolute_path_to_give(
        workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """It was read from the current directory: the sessions seemed lost in another one and
    the database landed inside the project."""
    monkeypatch.setenv("GOOSECTX_HOME", "goose-data")
    for argv in (("info",), ("sessions", "list")):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "", out
        assert err.count("\n") == 1 and "GOOSECTX_HOME='goose-data' is a relative path" in err
        assert f"GOOSECTX_HOME={workdir / 'goose-data'}" in err, err
    assert not (workdir / "goose-data").exists()
    monkeypatch.setenv("GOOSECTX_HOME", "~/goose-data")  # ~ is expanded: absolute
    code, out, err = run_cli(capsys, "info")
    assert code == 0 and str(Path.home() / "goose-data") in out, err
