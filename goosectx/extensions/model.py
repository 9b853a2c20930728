"""Plain values describing a running extension: tools, resources, prompts, status, outcomes.

No mcp types here. The REPL, ``extensions list`` and the tool adapters read
these; only ``server.py``, ``offered.py`` and ``results.py`` turn mcp objects into them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

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
        skipped: Tools not offered (invalid schema), with the reason.
        public: The settings without secrets (``ExtensionConfig.public``).
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
