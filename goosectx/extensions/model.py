"""Plain values describing a running extension: tools, resources, prompts, status, outcomes.

No mcp types here. The REPL, ``extensions list`` and the tool adapters read
these; only ``server.py``, ``offered.py`` and ``results.py`` turn mcp objects into them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from goosectx.extensions.config import ExtensionConfig

Status = Literal["starting", "ready", "failed", "stopped"]


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One tool a server offers.

    Attributes:
        name: The server's own name for it.
        model_name: The name offered to the model (``NAME__tool``, provider-safe).
        description: The server's description.
        input_schema: Its JSON schema, unchanged.
        read_only: The server's ``readOnlyHint`` claim (trusted only for trusted servers).
        annotations: Every annotation the server set (``read_only_hint`` …), for display.
    """

    name: str
    model_name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool = False
    annotations: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    """One resource a server offers (``uri``, ``name``, ``description``, ``mime_type``)."""

    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None


@dataclass(frozen=True, slots=True)
class PromptArg:
    """One argument of a server prompt."""

    name: str
    required: bool = False
    description: str = ""


@dataclass(frozen=True, slots=True)
class PromptInfo:
    """One prompt a server offers."""

    name: str
    description: str = ""
    arguments: tuple[PromptArg, ...] = ()


@dataclass(frozen=True, slots=True)
class Attachment:
    """An image or embedded resource a call returned or a resource read gave.

    Attributes:
        kind: ``image`` or ``resource``.
        source: Where it came from (``NAME:URI`` or ``NAME__tool``).
        media_type: Its MIME type.
        text: Text content (resources), or ``None``.
        data: Raw bytes (images, binary resources), or ``None``.
    """

    kind: Literal["image", "resource"]
    source: str
    media_type: str
    text: str | None = None
    data: bytes | None = None

    def stub(self) -> str:
        """``[image: image/png, 1,204 bytes]`` — the form that never repeats the content."""
        size = len(self.data) if self.data is not None else len((self.text or "").encode())
        return f"[{self.kind}: {self.media_type}, {size:,} bytes, from {self.source}]"


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """What one call (tool, resource read, prompt) gave back.

    Attributes:
        text: The text for the model (not yet capped).
        is_error: The call failed or the server flagged ``is_error``.
        attachments: Images and embedded resources, in order.
    """

    text: str
    is_error: bool = False
    attachments: tuple[Attachment, ...] = ()


@dataclass(frozen=True, slots=True)
class ExtensionStatus:
    """A snapshot of one extension (``/extension list``, ``extensions list``, the toolbar).

    Attributes:
        name: The extension's name.
        status: ``starting``, ``ready``, ``failed`` or ``stopped``.
        error: The one-line reason when failed.
        stderr_tail: The end of its stderr when failed.
        server_name: What the server calls itself.
        instructions: Its ``instructions`` text.
        tools: Its tools in the server's order.
        resources: Its resources.
        prompts: Its prompts.
        skipped: Tools not offered (invalid schema, task-only), ``"NAME: why"``.
        public: The settings without secrets (``ExtensionConfig.public``).
        skipped_resources: Resources left out of its listing (not valid MCP), ``"NAME: why"``.
        skipped_prompts: Prompts left out of its listing (not valid MCP), ``"NAME: why"``.
        listing_notes: What was wrong with its listings' paging (a cursor given again, an
            entry listed twice), one line each.
    """

    name: str
    status: Status
    error: str = ""
    stderr_tail: str = ""
    server_name: str = ""
    instructions: str = ""
    tools: tuple[ToolInfo, ...] = ()
    resources: tuple[ResourceInfo, ...] = ()
    prompts: tuple[PromptInfo, ...] = ()
    skipped: tuple[str, ...] = ()
    public: dict[str, Any] = field(default_factory=dict)
    skipped_resources: tuple[str, ...] = ()
    skipped_prompts: tuple[str, ...] = ()
    listing_notes: tuple[str, ...] = ()


INSTRUCTIONS_CUT = ("\n[… instructions cut here: {total:,} characters, "
                    "max_instructions_chars = {cap}]")
"""Ends instructions cut at their extension's ``max_instructions_chars``."""


def cap_instructions(text: str, config: ExtensionConfig, warn: Callable[[str], None]) -> str:
    """A server's instructions cut at its ``max_instructions_chars``; ``warn`` says so once.

    They go into every request's system prompt, like an instruction file (which is cut at
    50,000 characters): a server sending 65,000 characters took 15k tokens on every call.
    """
    text, cap, name = text.strip(), config.max_instructions_chars, config.name
    if len(text) <= cap:
        return text
    warn(f"extension {name}: its instructions are {len(text):,} characters; only the first "
         f"{cap:,} are sent with every request (raise max_instructions_chars under "
         f"[extensions.{name}] to send more)")
    return text[:cap] + INSTRUCTIONS_CUT.format(total=len(text), cap=cap)


def instructions_cut(text: str) -> str:
    """What :func:`cap_instructions` cut from ``text`` (``65,000 characters, …``), or ``""``."""
    head, sep, tail = text.rpartition("\n[… instructions cut here: ")
    return tail.removesuffix("]") if sep and head and tail.endswith("]") else ""
