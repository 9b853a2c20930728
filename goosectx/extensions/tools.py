"""Extension tools as goosectx tools: ``NAME__tool`` adapters and goose's platform tools.

goose's platform tools are ``list_resources`` and ``read_resource``.

Each adapter implements the tool protocol of ``tools/base.py``; a call goes through the
:class:`~goosectx.extensions.manager.ExtensionManager`. Output is redacted and capped like
the shell tool's (same cap, overflow file named in the text). Images and embedded resources
come back as attachments on the result; the text names each by its stub.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from goosectx.extensions.manager import ExtensionManager
from goosectx.extensions.model import Attachment, CallOutcome, ToolInfo
from goosectx.redaction_bytes import attachment_redacted
from goosectx.tools.base import ToolContext, ToolResult
from goosectx.tools.output import OutputStream


def finish(outcome: CallOutcome, ctx: ToolContext, label: str) -> ToolResult:
    """``outcome`` redacted and capped (overflow file as for the shell tool) → result.

    Its attachments' bytes redacted too (a key in a binary resource, UTF-8 or UTF-16:
    :mod:`goosectx.redaction_bytes`).
    """
    stream = OutputStream("output", ctx.max_output_chars, ctx.overflow_dir, ctx.redact,
                          name_prefix=label, session_id=ctx.session_id)
    stream.feed(outcome.text.encode("utf-8", errors="replace"))
    stream.close()
    attachments = tuple(attachment_redacted(p, ctx.redact, "from the tool result")
                        for p in map(to_attachment, outcome.attachments) if p is not None)
    return ToolResult(stream.text(ctx.max_output_chars), outcome.is_error, attachments)


class McpTool:
    """One MCP tool offered to the model.

    Attributes:
        name: ``NAME__tool`` as the model sees it.
        extension: The extension's name.
        info: The server's description of the tool.
        trusted: The extension is marked ``trusted = true``.
    """

    def __init__(self, manager: ExtensionManager, extension: str, info: ToolInfo,
                 trusted: bool) -> None:
        self.name = info.model_name
        self.description = info.description or f"{info.name} (extension {extension})"
        self.parameters: dict[str, Any] = info.input_schema
        self.extension = extension
        self.info = info
        self.trusted = trusted
        self._manager = manager

    @property
    def identity(self) -> str:
        """The tool a call of this name reaches now: an "always allow" answer covers only it.

        A digest of the extension's spec (name, command, arguments, environment, URL, headers,
        as configured now: what a call goes to), the server's own name for the tool and its
        definition (description, input schema, annotations but its display title: the approval
        question shows the call, never a title, so a title alone that changes keeps the answer;
        a ``title`` that stands in for a missing description is the description). Another
        server added under the same name, another of the server's tools offered under
        ``NAME__tool`` after a restart, or the tool redefined by the server
        (``tools/list_changed``: "harmless read" become destructive) is another tool; a
        listing that only reorders or repeats it is not.
        A digest: no secret value is kept.
        """
        config = self._manager.configs.get(self.extension)
        info = self.info
        hints = {k: v for k, v in info.annotations.items() if k != "title"}
        spec: list[Any] = [self.extension, info.name, info.description, info.input_schema,
                           hints]
        if config is not None:
            spec += [config.type, config.cmd, list(config.args), sorted(config.envs.items()),
                     list(config.env_keys), config.cwd, config.uri,
                     sorted(config.headers.items())]
        text = json.dumps(spec, default=str, sort_keys=True)  # a schema's key order is not it
        digest = hashlib.sha256(text.encode("utf-8", "replace"))
        return f"{self.name} ({self.extension}: {digest.hexdigest()[:32]})"

    @property
    def extension_trusted(self) -> bool:
        """Its server is marked ``trusted = true`` (the approval decision reads this)."""
        return self.trusted

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """The server's own read-only annotation.

        It counts only for trusted servers (the approval decision's extension clause).
        """
        return self.info.read_only

    def unavailable(self) -> str | None:
        """Why no call can run now — its server failed or stopped — else ``None``.

        The agent then answers the call with this text without asking for approval
        (:meth:`ExtensionManager.down_reason`).
        """
        if self.extension not in self._manager.configs:
            return f"extension {self.extension} is not running; this call was not run."
        return self._manager.down_reason(self.extension)

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Call the tool on its server; errors and cancellation become error results."""
        progress = getattr(ctx, "progress", None)
        outcome = self._manager.call_tool(self.extension, self.info, arguments, ctx.cancel,
                                          progress)
        return finish(outcome, ctx, f"mcp-{self.extension}")


LIST_RESOURCES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"extension": {"type": "string",
                                 "description": "Only this extension's resources (optional)."}},
}
READ_RESOURCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "extension": {"type": "string", "description": "The extension offering the resource."},
        "uri": {"type": "string", "description": "The resource's URI."},
    },
    "required": ["extension", "uri"],
}


class ListResourcesTool:
    """goose's ``list_resources``: every resource the extensions offer (read-only)."""

    name = "list_resources"
    description = ("List the resources (documents, files, data) that extensions offer, as "
                   "'extension: uri — name (description)'. Read one with read_resource.")
    parameters = LIST_RESOURCES_SCHEMA

    def __init__(self, manager: ExtensionManager) -> None:
        self._manager = manager

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """Listing changes nothing."""
        return True

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """One line per resource, grouped by extension."""
        only = arguments.get("extension")
        lines = []
        for status in self._manager.statuses():
            if only and status.name != only:
                continue
            for res in status.resources:
                extra = f" ({res.description})" if res.description else ""
                lines.append(f"{status.name}: {res.uri} — {res.name}{extra}")
        text = "\n".join(lines) or "No extension offers resources."
        return finish(CallOutcome(text), ctx, "mcp-resources")


class ReadResourceTool:
    """goose's ``read_resource``: one resource's contents (read-only)."""

    name = "read_resource"
    description = ("Read a resource an extension offers (see list_resources), by extension "
                   "name and URI.")
    parameters = READ_RESOURCE_SCHEMA

    def __init__(self, manager: ExtensionManager) -> None:
        self._manager = manager

    def is_read_only(self, arguments: dict[str, Any]) -> bool:
        """Reading a resource changes nothing (the server's own contract)."""
        return True

    def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """The resource's text (binary parts as stubs, attached)."""
        extension, uri = arguments.get("extension"), arguments.get("uri")
        if not isinstance(extension, str) or not isinstance(uri, str):
            return ToolResult("read_resource needs 'extension' and 'uri' strings", True)
        outcome = self._manager.read_resource(extension, uri, ctx.cancel)
        return finish(outcome, ctx, f"mcp-{extension}")


def to_attachment(item: Attachment, *, count: bool = True) -> Any:
    """An extension's image or resource as the one attachment content part.

    Its token estimate is the text's count; an image's is an ``@image`` mention's
    (:func:`~goosectx.mention_images.image_tokens`: width × height / 750, 85 to 1,600);
    other bytes the model cannot read cost their stub. 0 for text with ``count=False`` (the
    caller counts it: a resource mention's cap).
    ``None`` while this build has no attachment part (the text keeps the stub).
    """
    try:
        from goosectx.attachment import Attachment as Part
    except ImportError:  # the attachment part lands with the groundwork (docs/architecture.md §2)
        return None
    from goosectx.mention_images import image_tokens
    from goosectx.tokens import count_text

    if item.text is not None:
        estimate = count_text(item.text) if count else 0
    elif item.kind == "image" and item.data is not None:
        estimate = image_tokens(item.media_type, item.data)
    else:
        estimate = count_text(item.stub())
    return Part(kind=item.kind, source=item.source, media_type=item.media_type, text=item.text,
                data=item.data, token_estimate=estimate)
