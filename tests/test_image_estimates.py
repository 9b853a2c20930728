"""An image costs the same in the context window whoever brought it: ``@shot.png`` or an MCP tool.

Both are estimated at width × height / 750 tokens (85 to 1,600): ``/context``'s attachments row
and the auto-compaction trigger count an image from a tool's result as they count a mentioned
one (it was counted at its stub, ~20 tokens, however large the image).
"""

from __future__ import annotations

import struct
import zlib
from types import SimpleNamespace
from typing import Any

from test_repl import CTRL_D, ENTER, World, world  # noqa: F401 - the REPL fixture

from goosectx.extensions.model import Attachment, CallOutcome, ToolInfo
from goosectx.extensions.tools import McpTool
from goosectx.providers.scripted import ScriptedReply
from goosectx.tools.base import ToolRegistry
from goosectx.tools.builtin import default_registry


def png(width: int, height: int) -> bytes:
    """A PNG of ``width`` × ``height`` (its header; enough for a size and a signature)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + chunk + struct.pack(">I", zlib.crc32(chunk[4:]))


class _Server:
    """An extension manager whose one server answers every call with ``image``."""

    def __init__(self, image: bytes) -> None:
        self.image = image
        self.configs = {"pics": None}  # the one extension the session has

    def statuses(self) -> list[Any]:
        return [SimpleNamespace(name="pics", status="ready", error="")]

    def down_reason(self, _extension: str) -> str | None:
        return None  # ready

    def call_tool(self, *_args: Any) -> CallOutcome:
        return CallOutcome("a screenshot", attachments=(
            Attachment("image", "pics__shot", "image/png", data=self.image),))


def attachments_rows(out: str) -> list[int]:
    return [int(line.split()[1].replace(",", "")) for line in out.splitlines()
            if line.split()[:1] == ["attachments"]]


def test_an_mcp_image_counts_as_the_same_image_mentioned(world: World) -> None:  # noqa: F811
    image = png(1024, 1024)
    (world.workdir / "shot.png").write_bytes(image)
    info = ToolInfo("shot", "pics__shot", "a screenshot", {"type": "object"})
    tool = McpTool(_Server(image), "pics", info, trusted=True)  # type: ignore[arg-type]
    world.tools = ToolRegistry([*default_registry().tools(), tool])
    world.mode = "auto"
    world.provider.vision = True
    world.provider.add("a square", ScriptedReply(tool_calls=[("pics__shot", {})]), "same one")
    out = world.run("see @shot.png" + ENTER + "/context" + ENTER + "take one" + ENTER
                    + "/context" + ENTER + CTRL_D)
    mentioned, both = attachments_rows(out)
    assert mentioned == 1024 * 1024 // 750
    assert both == 2 * mentioned
