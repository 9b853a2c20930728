"""An MCP server written for goosectx's tests with the SDK's server API (MCPServer).

Run as ``python demo_server.py [--http PORT] [--behaviour B]``. Behaviours:
``normal``; ``never_start`` (never answers the handshake); ``exit_at_start`` (complains on
stderr and exits 3); ``ignore_term`` (ignores SIGTERM and does not exit when stdin closes);
``orphan_holds_stdout`` (never answers; a child in its own session keeps stdout open 4 s, so
killing the server's process group does not end the handshake at once).
Tools: echo (annotated read-only), image, fail (is_error), slow (progress), hang, crash,
add_tool (sends tools/list_changed), env_names, peek_environ (which visible processes' environment
holds a variable), hostile (escape sequences), bad_schema.
``--stdout-junk N`` first writes N lines that are not JSON-RPC to stdout (a banner, a flood).
``--shapes`` adds read_text_file, read_media_file and structured_only, which return the result
shapes of @modelcontextprotocol/server-filesystem (content blocks plus the same data again as
structuredContent) and of a tool that sends structuredContent alone.
``--many N`` adds N tools op_000, op_001, … ("Operation number I: …", about 60 tokens each).
``--long-instructions N`` makes the instructions N characters of "Always obey. " repeated (ending in "!").
``--big-resource N`` adds the resource ``file:///big.txt``: N // 58 numbered lines of 58 characters.
``--clashing`` adds get.data (not a valid model tool name) and get_data, each answering its name.
``--clashing-if PATH`` adds get.data, and get_data only while PATH exists (a restart then
offers get_data as NAME__get_data, get.data under another name).
``--bad-schemas`` adds bad_string (input schema ``{"type": "string"}``) and bad_empty (``{}``),
which the MCP SDK's client rejects in a tools/list result.
``--task-required`` adds research, listed with execution.taskSupport "required" (as
server-everything's simulate-research-query); a plain call of it answers "requires task
augmentation".
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import signal
import sys
import threading
import time

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.types import ToolAnnotations

parser = argparse.ArgumentParser()
parser.add_argument("--http", type=int, default=0)
parser.add_argument("--behaviour", default="normal")
parser.add_argument("--name", default="demo")
parser.add_argument("--stdout-junk", type=int, default=0)
parser.add_argument("--big-resource", type=int, default=0)
parser.add_argument("--shapes", action="store_true")
parser.add_argument("--many", type=int, default=0)
parser.add_argument("--clashing", action="store_true")
parser.add_argument("--clashing-if", default="")
parser.add_argument("--bad-schemas", action="store_true")
parser.add_argument("--long-instructions", type=int, default=0)
parser.add_argument("--task-required", action="store_true")
args = parser.parse_args()

sys.stdout.write("junk \x1b]52;c;aGk=\x07 not json\n" * args.stdout_junk)
sys.stdout.flush()

print(f"demo server starting ({args.behaviour})", file=sys.stderr, flush=True)
if os.environ.get("DEMO_PID_FILE"):
    with open(os.environ["DEMO_PID_FILE"], "w") as fh:
        fh.write(str(os.getpid()))
if args.behaviour == "exit_at_start":
    print("fatal: DEMO_CONFIG is not set", file=sys.stderr, flush=True)
    sys.exit(3)
if args.behaviour == "orphan_holds_stdout":
    if os.fork() == 0:
        os.setsid()
        time.sleep(4)
        os._exit(0)
    time.sleep(3600)
if args.behaviour == "never_start":
    time.sleep(3600)
if args.behaviour == "ignore_term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # A non-daemon thread keeps the process alive after stdin closes.
    threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()

_instructions = f"The {args.name} server echoes and demonstrates."
if args.long_instructions:  # a server whose instructions alone would fill a small window
    _instructions = ("Always obey. " * args.long_instructions)[:args.long_instructions - 1] + "!"
mcp = MCPServer(args.name, instructions=_instructions)


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@mcp.tool()
def image() -> Image:
    """Return a tiny PNG image."""
    return Image(data=b"\x89PNG\r\n\x1a\n" + b"\x00" * 24, format="png")


@mcp.tool()
def fail(reason: str = "boom") -> str:
    """Fail with an error."""
    raise ValueError(reason)


@mcp.tool()
async def slow(steps: int, ctx: Context, delay_s: float = 0.05) -> str:
    """Report progress for a few steps, then finish."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        await asyncio.sleep(delay_s)
    return f"finished {steps} steps"


@mcp.tool()
async def hang(seconds: float = 3600) -> str:
    """Sleep for a long time (records whether it was cancelled)."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        marker = os.environ.get("DEMO_CANCEL_MARKER")
        if marker:
            with open(marker, "w") as fh:
                fh.write("cancelled")
        raise
    return "woke up"


@mcp.tool()
def crash(by_signal: str = "", log: str = "") -> str:
    """Die in the middle of the call (exit code 7, or killed by the signal named, e.g. SIGTERM).

    ``log`` is written to stderr first.
    """
    print(log + "demo server: crashing on purpose", file=sys.stderr, flush=True)
    if by_signal:
        os.kill(os.getpid(), getattr(signal, by_signal))
        time.sleep(10)
    os._exit(7)


@mcp.tool()
async def add_tool(ctx: Context) -> str:
    """Add a tool named 'added' and tell the client the tool list changed."""
    mcp.add_tool(lambda: "added works", name="added", description="Added at run time.")
    await ctx.request_context.session.send_tool_list_changed()
    return "added"


@mcp.tool()
def env_names() -> str:
    """The names of this process's environment variables, sorted."""
    return " ".join(sorted(os.environ))


@mcp.tool()
def peek_environ(variable: str) -> str:
    """How many processes visible in /proc have ``variable`` in their environment (readable)."""
    found, readable, pids = 0, 0, [p for p in os.listdir("/proc") if p.isdigit()]
    for pid in [*pids, str(os.getppid())]:
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        readable += 1
        found += any(item.startswith(variable.encode() + b"=") for item in data.split(b"\0"))
    return f"{variable} in {found} of {readable} readable environments; {len(pids)} processes"


@mcp.tool(description="Text with terminal escape sequences \x1b[2J and a bidi \u202e override.")
def hostile() -> str:
    return "safe \x1b]52;c;SGVsbG8=\x07 \x1b[2J text \u202e reversed"


@mcp.tool()
def bad_schema() -> str:
    """A tool whose schema is broken on purpose."""
    return "never offered"


mcp._tool_manager.get_tool("bad_schema").parameters = {"type": "object", "properties": {"x": {"type": "text"}}}  # type: ignore[union-attr]


@mcp.resource("file:///notes.txt", description="Project notes")
def notes() -> str:
    """Notes."""
    return "the notes say: ship it"


if args.big_resource:
    @mcp.resource("file:///big.txt", description="A large log")
    def big() -> str:
        """Numbered lines of 58 characters, about ``--big-resource`` characters in all."""
        return "".join(f"big line {i:07d} {'x' * 40}\n" for i in range(args.big_resource // 58))


if args.clashing:
    def answering(name: str) -> object:
        return lambda: f"ran {name}"

    for clashing in ("get.data", "get_data"):
        mcp.add_tool(answering(clashing), name=clashing, description=f"Tool {clashing}.")


if args.clashing_if:
    def answering_if(name: str) -> object:
        return lambda: f"ran {name}"

    for clashing in ("get.data", "get_data")[:1 + os.path.exists(args.clashing_if)]:
        mcp.add_tool(answering_if(clashing), name=clashing, description=f"Tool {clashing}.")


if args.task_required:
    from mcp.types import ToolExecution

    @mcp.tool()
    def research(topic: str) -> str:
        """Research a topic (a long task)."""
        raise RuntimeError("Tool research requires task augmentation")

    _list_plain = mcp.list_tools

    async def _list_with_task() -> list:  # MCPServer.tool() takes no execution setting
        return [t.model_copy(update={"execution": ToolExecution(task_support="required")})
                if t.name == "research" else t for t in await _list_plain()]

    mcp.list_tools = _list_with_task  # type: ignore[method-assign]


if args.bad_schemas:
    bad = {"bad_string": {"type": "string"}, "bad_empty": {}}
    for bad_name in bad:
        mcp.add_tool(lambda: "ran a bad one", name=bad_name, description="A bad schema.")
    _list_good = mcp.list_tools

    async def _list_with_bad() -> list:  # MCPServer.add_tool makes a valid schema
        return [t.model_copy(update={"input_schema": bad[t.name]}) if t.name in bad else t
                for t in await _list_good()]

    mcp.list_tools = _list_with_bad  # type: ignore[method-assign]

    from mcp_types import methods as _methods  # the SDK checks what it sends: not these

    _serialize = _methods.serialize_server_result

    def _sent_as_is(method: str, version: str, data: dict, **kw: object) -> dict:
        return dict(data) if method == "tools/list" else _serialize(method, version, data, **kw)

    _methods.serialize_server_result = _sent_as_is


if args.shapes:
    from mcp.types import CallToolResult, ImageContent, TextContent

    @mcp.tool()
    def read_text_file(path: str) -> CallToolResult:
        """The file's text, as server-filesystem sends it: a text block and structuredContent."""
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content={"content": text})

    @mcp.tool()
    def read_media_file(path: str) -> CallToolResult:
        """The file's bytes as an image block, and the same block again as structuredContent."""
        with open(path, "rb") as fh:
            data = base64.b64encode(fh.read()).decode()
        return CallToolResult(
            content=[ImageContent(type="image", data=data, mime_type="image/png")],
            structured_content={"content": [{"type": "image", "data": data,
                                             "mimeType": "image/png"}]})

    @mcp.tool()
    def structured_only(empty_text: bool = False) -> CallToolResult:
        """Data sent only as structuredContent (content empty, or one empty text block)."""
        return CallToolResult(content=[TextContent(type="text", text="")] if empty_text else [],
                              structured_content={"city": "Oslo", "temperature_c": 4})


def _operation(number: int) -> None:
    def operation(x: str = "") -> str:
        return f"operation {number} got {x}"
    operation.__name__ = f"op_{number:03d}"
    operation.__doc__ = (f"Operation number {number}: does thing {number} with a long "
                         "description " + "lorem ipsum " * 10)
    mcp.tool()(operation)


for _number in range(args.many):
    _operation(_number)


@mcp.prompt()
def review(code: str) -> str:
    """Ask for a code review."""
    return f"Please review this code: {code}"


if __name__ == "__main__":
    if args.http:
        mcp.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        mcp.run()
