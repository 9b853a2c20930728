"""``@image.png`` mentions: a PNG/JPEG/GIF/WebP file (known by its bytes) goes as an image.

On a model that reads images (litellm's ``supports_vision``) the image reaches the request as
an ``image_url`` part and the transcript shows ``[image: image/png, N bytes]``; on another
model, or one litellm does not know, a one-line notice says why it was not attached. A text
file named ``.png`` is text; an image over the cap is refused with its size.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from test_mentions import world  # noqa: F401 - the REPL fixture
from test_repl import CTRL_D, ENTER, World
from test_run_cmd import Run, only_session

from goosectx.attachment import Attachment
from goosectx.mention_images import IMAGE_MAX_BYTES

RED_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000004000000040802000000269309"
    "290000001049444154789c63f8cfc000470cc47100ae930ff1d05f239e000000"
    "0049454e44ae426082")
"""A valid 4×4 red PNG, 73 bytes."""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    (path / "red.png").write_bytes(RED_PNG)
    monkeypatch.chdir(path)
    return path


def image_urls(server: FakeServer) -> list[str]:
    return [item["image_url"]["url"] for m in server.requests[0]["messages"]
            if isinstance(m["content"], list) for item in m["content"]
            if item.get("type") == "image_url"]


def test_a_png_mention_reaches_a_vision_model_as_an_image(
        fake_model: FakeServer, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GOOSE_MODEL", "openai/gpt-4o")  # litellm: gpt-4o reads images
    fake_model.add({"text": "It is red."})
    run = Run(text="what colour is @red.png?")
    assert run.code == 0, run.err
    assert run.out == "It is red.\n" and "red.png" not in run.err
    assert image_urls(fake_model) == ["data:image/png;base64," + base64.b64encode(
        RED_PNG).decode()]
    user = next(m for m in only_session() if m.role == "user")
    (image,) = [p for p in user.content if isinstance(p, Attachment)]
    assert (image.kind, image.source, image.media_type, image.data) == (
        "image", "red.png", "image/png", RED_PNG)
    (summary,) = json.loads(cli(capsys, "sessions", "list", "--json")[0])
    shown, _ = cli(capsys, "sessions", "show", summary["id"])
    assert "[image: image/png, 73 bytes]" in shown and "iVBOR" not in shown
    exported, _ = cli(capsys, "sessions", "export", summary["id"], "--format", "md")
    assert "[image: image/png, 73 bytes]" in exported and "iVBOR" not in exported
    exported, _ = cli(capsys, "sessions", "export", summary["id"], "--format", "json")
    assert base64.b64encode(RED_PNG).decode() in exported  # the stored image, kept


def test_a_png_mention_on_a_model_without_images_gets_a_notice(
        fake_model: FakeServer, project: Path, isolated_env: dict[str, Path]) -> None:
    fake_model.add({"text": "ok"})  # openai/fake-model: litellm does not know it
    run = Run(text="what colour is @red.png?")
    assert run.code == 0, run.err
    notices = [line for line in run.err.splitlines() if "@red.png" in line]
    assert notices == ["goosectx: @red.png is a PNG image (73 bytes) and whether "
                       "openai/fake-model reads images is unknown (litellm does not list it) "
                       "— not attached; set supports_vision = true under "
                       f'[models."openai/fake-model"] in {isolated_env["config"]} if it '
                       "reads images"]
    sent = json.dumps(fake_model.requests[0]["messages"])
    assert image_urls(fake_model) == [] and "iVBOR" not in sent


def test_supports_vision_in_the_config_sends_the_image_to_a_model_litellm_does_not_know(
        fake_model: FakeServer, project: Path, isolated_env: dict[str, Path]) -> None:
    isolated_env["config"].write_text('[models."openai/fake-model"]\nsupports_vision = true\n')
    fake_model.add({"text": "It is red."})
    run = Run(text="what colour is @red.png?")
    assert run.code == 0 and "red.png" not in run.err, run.err
    assert image_urls(fake_model) == ["data:image/png;base64," + base64.b64encode(
        RED_PNG).decode()]


def test_supports_vision_false_in_the_config_overrides_litellm(
        fake_model: FakeServer, project: Path, isolated_env: dict[str, Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSE_MODEL", "openai/gpt-4o")  # litellm: gpt-4o reads images
    isolated_env["config"].write_text('[models."openai/gpt-4o"]\nsupports_vision = false\n')
    fake_model.add({"text": "ok"})
    run = Run(text="what colour is @red.png?")
    assert run.code == 0, run.err
    assert ("goosectx: @red.png is a PNG image (73 bytes) and openai/gpt-4o does not read "
            "images — not attached") in run.err.splitlines()
    assert image_urls(fake_model) == []


def test_a_bad_supports_vision_is_a_one_line_config_error(
        fake_model: FakeServer, project: Path, isolated_env: dict[str, Path]) -> None:
    """It named neither the config file nor yes/no (accepted); now as the other keys do."""
    isolated_env["config"].write_text('[models."openai/fake-model"]\nsupports_vision = "maybe"\n')
    proc = subprocess.run([sys.executable, "-m", "goosectx", "run", "-t", "hi"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        f'goosectx: error: [models."openai/fake-model"] supports_vision in {isolated_env["config"]} '
        "must be one of true, false, yes, no, on, off, 1, 0; got 'maybe'\n")
    assert fake_model.requests == []


def test_a_text_file_named_png_is_text(fake_model: FakeServer, project: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSE_MODEL", "openai/gpt-4o")
    (project / "fake.png").write_text("not an image, just notes\n")
    fake_model.add({"text": "ok"})
    run = Run(text="read @fake.png")
    assert run.code == 0 and "fake.png" not in run.err
    sent = json.dumps(fake_model.requests[0]["messages"])
    assert 'media_type=\\"text/plain\\">\\nnot an image, just notes' in sent
    assert image_urls(fake_model) == []


def test_an_image_over_the_cap_is_refused_with_its_size(
        fake_model: FakeServer, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSE_MODEL", "openai/gpt-4o")
    huge = RED_PNG + b"\x00" * (IMAGE_MAX_BYTES + 1 - len(RED_PNG))
    (project / "huge.png").write_bytes(huge)
    fake_model.add({"text": "ok"})
    run = Run(text="look at @huge.png")
    assert run.code == 0, run.err
    assert (f"goosectx: @huge.png is a PNG image of {len(huge):,} bytes, over the 5 MB "
            "an image may be (5,242,880 bytes) — not attached; shrink it first") in run.err
    assert image_urls(fake_model) == []
    assert len(json.dumps(fake_model.requests[0]["messages"])) < 10_000


def test_the_repl_attaches_an_image_for_a_vision_model_and_shows_its_stub(
        world: World) -> None:  # noqa: F811 - the fixture
    (world.workdir / "red.png").write_bytes(RED_PNG)
    (world.workdir / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 60)
    world.provider.vision = True
    world.provider.add("ok")
    out = world.run("see @red.png and @photo.jpg" + ENTER + CTRL_D)
    assert "[image: image/png, 73 bytes]" in out and "[image: image/jpeg, 64 bytes]" in out
    assert "not attached" not in out
    sent = world.provider.requests[0].messages
    images = [p for m in sent for p in m.content if isinstance(p, Attachment)]
    assert [(a.kind, a.media_type, a.data) for a in images] == [
        ("image", "image/png", RED_PNG), ("image", "image/jpeg", b"\xff\xd8\xff\xe0" + bytes(60))]


def test_the_repl_says_why_an_image_is_not_attached_for_a_model_without_images(
        world: World) -> None:  # noqa: F811 - the fixture
    (world.workdir / "red.png").write_bytes(RED_PNG)
    world.provider.vision = False
    world.provider.add("ok")
    out = world.run("see @red.png" + ENTER + CTRL_D)
    assert ("@red.png is a PNG image (73 bytes) and scripted/test-model does not read "
            "images — not attached") in " ".join(out.split())
    sent = world.provider.requests[0].messages
    assert not [p for m in sent for p in m.content if isinstance(p, Attachment)]
    assert os.path.exists(world.workdir / "red.png")
