"""The Markdown transcript of a session (``sessions export --format markdown``).

The user-visible messages as Markdown, compactions marked, tool outputs fenced and numbered
as the REPL's ``/show N`` counts them (:mod:`goosectx.shown`); written piece by piece as the
store yields the messages (docs/architecture.md §6). The JSON export is :mod:`goosectx.export`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from goosectx.conversation import (
    Attachment,
    Message,
    PlainMessage,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.parts import arguments_json
from goosectx.session import UNKNOWN_TIME, Session

__all__ = ["iter_transcript_markdown", "transcript_markdown"]

CodeText = Callable[[str], str]
"""How a tool call's name and arguments and a ``!command`` are written (the CLI passes
``cli.sanitize.code_safe``, which shows blank-looking characters as ``<U+3164>``)."""


def _as_stored(text: str) -> str:
    return text


def _ticks(text: str) -> str:
    """The backtick run that fences ``text``: the shortest run of three or more not in it."""
    if "`" not in text:  # one character's search (memchr): most text has no backtick
        return "```"
    # Backtick by backtick (memchr each): a search for "```" scans at a third of that speed.
    find = text.find
    at = find("`")
    while at >= 0:
        if text.startswith("``", at + 1):
            ticks = "````"
            while ticks in text:
                ticks += "`"
            return ticks
        at = find("`", at + 1)
    return "```"


def _fence(text: str, lang: str = "") -> str:
    ticks = _ticks(text)
    return f"{ticks}{lang}\n{text.rstrip(chr(10)) if lang else text}\n{ticks}"


def transcript_markdown(session: Session) -> str:
    """The user-visible transcript as Markdown, compactions marked.

    Each compaction shows as a ``> context compacted`` line where its summary was added (the
    summary itself is agent-only and not shown).
    """
    return "".join(iter_transcript_markdown(session, session.conversation))


def iter_transcript_markdown(session: Session,
                             messages: Iterable[Message | PlainMessage],
                             numbers: dict[str, int] | None = None, *,
                             code: CodeText = _as_stored,
                             writing: Mapping[str, str] | None = None) -> Iterator[str]:
    """:func:`transcript_markdown` in pieces: the header, then one piece per shown message.

    ``session`` gives the header (its conversation is not read); ``messages`` are read one at
    a time (a :class:`PlainMessage` gives the same text its :class:`Message` would). Blank
    lines at the very end are dropped, as in the whole text. ``numbers``: the outputs' numbers
    by key (:func:`goosectx.shown.view_numbers`, for the model's view), else counted here.
    ``code``: applied to each tool call's name and arguments and each ``!command`` (default:
    written as stored); a function of its text alone (a tool name's is kept and used again).
    ``writing``: message id → the label of an answer a live process is still writing, shown
    instead of its "cut off" label (read when the message comes: it may be filled meanwhile).
    """
    from goosectx.shown import output_keys  # here: an import needs neither

    header = [f"# Session {session.display_name}", ""]
    header.append(f"- id: `{session.id}`")
    header.append(f"- working dir: `{session.working_dir}`")
    if session.model:
        header.append(f"- model: `{session.model}`")
    created = "?" if "created" in session.damaged_times else session.created.isoformat(
        timespec="seconds")
    header.append(f"- created: {created}")
    header.append("")
    blanks = _Blanks()
    yield blanks.piece(header)
    numbered = 0  # outputs numbered so far, as the REPL's /show N counts them
    names: dict[str, str] = {}  # code(name) by tool name: a session calls a few tools often
    lines: list[str]
    for m in messages:
        if isinstance(m, PlainMessage):  # no markers: only its own text, if it is shown
            lines, count = _plain_markdown(m, numbered, code, names)
            numbered += count
            if lines:
                yield blanks.ended(lines)
            continue
        meta = m.metadata
        lines = []
        # A compaction of ours (its id) shows its own notice where it happened; a summary
        # without one (imported from another agent) marks the place.
        if meta.is_summary and not meta.compaction_id:
            when = ("?" if m.created == UNKNOWN_TIME  # its stored time did not parse
                    else m.created.isoformat(timespec="seconds"))
            lines += [f"> ── context compacted ({when}) ──", ""]
        cut = (writing or {}).get(m.id, meta.cut_short)
        if meta.user_visible and numbers is not None:
            lines += _message_markdown(m, numbers, code, cut)
        elif meta.user_visible:
            keys = output_keys(m)
            counted = {k: numbered + n for n, k in enumerate(keys, 1)} if keys else {}
            lines += _message_markdown(m, counted, code, cut)
            numbered += len(keys)
        if lines:
            yield blanks.piece(lines)


class _Blanks:
    """Joins lines piece by piece, holding back trailing blank lines until more text comes."""

    def __init__(self) -> None:
        self.pending: list[str] = []

    def piece(self, lines: list[str]) -> str:
        """The lines up to the last one with text, after those held back; holds the rest."""
        size = len(lines)
        last = size
        while last and not _has_text(lines[last - 1]):
            last -= 1
        if not last:
            self.pending += lines
            return ""
        # The line ending after the last text: an empty line next joins it without copying
        # the whole piece once more (``"\n".join(out) + "\n"``); it stays held back too.
        end = last + 1 if last < size and not lines[last] else last
        out = lines if end == size else lines[:end]
        if self.pending:
            out = self.pending + out
        self.pending = lines[last:]
        return "\n".join(out) if end > last else "\n".join(out) + "\n"

    def ended(self, lines: list[str]) -> str:
        """:meth:`piece` of lines whose last is empty and the one before it has text.

        (A plain message's: :func:`_plain_markdown`.) Nothing to look for: they all follow
        those held back, and the empty line is held.
        """
        out = self.pending + lines if self.pending else lines
        self.pending = [""]
        return "\n".join(out)


def _has_text(text: str) -> bool:
    """``bool(text.strip())`` without copying ``text``."""
    return bool(text) and not text.isspace()


def _text_lines(text: str) -> list[str]:
    return [_nested(text), ""] if _has_text(text) else []


_STRUCTURE_STARTS = frozenset("#=-<`~")
"""What a line that may be a heading, an underline or a fence starts with (after 0–3 spaces;
a set: the first character of a text of spaces alone, ``""``, is not in it)."""
_LATER_LINE = re.compile(r"\n {0,3}[#=<`~-]")
"""A line after the first that starts like a heading, an underline or a fence may (its literal
newline lets the search skip from line to line in C)."""
_ATX = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_UNDERLINE = re.compile(r"^( {0,3})(=+|-+)[ \t]*$")
_HTML_HEADING = re.compile(r"^( {0,3})(<[hH][1-6])")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _nested(text: str) -> str:
    """Message text made to sit under the export's own ``##`` headings, never beside them.

    Outside its code blocks, a heading of the text goes two levels down (``## User`` in an
    answer becomes ``#### User``: it cannot pass for a turn of the export), a setext underline
    (``===``, ``---`` under a line of text) and an HTML heading tag are escaped, and a code
    block the text leaves open is closed (it would swallow the rest of the export).

    Only the lines that start like one of those (:data:`_LATER_LINE`, and the first) are looked
    at, one by one; the text between them is copied as it is (a changed line stays a line with
    text, so the blank line an underline needs above it is read from the text as stored).
    """
    first = text[:4].lstrip(" ")[:1] in _STRUCTURE_STARTS
    if first:
        later = 0  # the later lines are searched from the start
    elif (match := _LATER_LINE.search(text)) is not None:
        later = match.start()  # the search goes on from the line it found
    else:
        return text  # no line starts like a heading or a fence (one search, in C)
    out: list[str] = []
    done = 0  # text[:done] is in ``out``
    fence = ""  # the open code block's fence, if any
    for at in _line_starts(text, first, later):
        end = text.find("\n", at)
        line = text[at:] if end < 0 else text[at:end]
        opened = _FENCE.match(line)
        if fence:
            if (opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence)
                    and not line.strip().strip(fence[0])):
                fence = ""
            continue
        if opened and not (opened.group(1)[0] == "`" and "`" in line.strip()[
                len(opened.group(1)):]):
            fence = opened.group(1)
            continue
        if (heading := _ATX.match(line)) is not None:
            level = min(6, len(heading.group(2)) + 2)
            line = heading.group(1) + "#" * level + line[heading.end():]
        elif (underline := _UNDERLINE.match(line)) is not None and at and text[
                text.rfind("\n", 0, at - 1) + 1:at - 1].strip():  # the line above has text
            line = underline.group(1) + "\\" + line[len(underline.group(1)):]
        elif (tag := _HTML_HEADING.match(line)) is not None:
            line = tag.group(1) + "\\" + line[len(tag.group(1)):]
        else:
            continue
        out += (text[done:at], line)
        done = len(text) if end < 0 else end
    if not out and not fence:
        return text
    out.append(text[done:])
    if fence:
        out.append("\n" + fence)
    return "".join(out)


def _line_starts(text: str, first: bool, later: int) -> Iterator[int]:
    """Where each line :func:`_nested` looks at starts, in order.

    The first line's if ``first``, then each one :data:`_LATER_LINE` finds from ``later`` on.
    """
    if first:
        yield 0
    for match in _LATER_LINE.finditer(text, later):
        yield match.start() + 1


def _call_lines(name: str, arguments: str) -> list[str]:
    extension, sep, _tool = name.partition("__")  # goose: NAME__tool
    origin = f" (extension {extension})" if sep and extension else ""
    return [f"**tool call** `{name}`{origin}", _fence(arguments), ""]


def _result_lines(is_error: bool, number: int | None, output: str, diff: str | None
                  ) -> list[str]:
    label = "tool error" if is_error else "tool result"
    lines = [f"**{label}** #{number}" if number else f"**{label}**", _fence(output), ""]
    if diff:
        lines += [_fence(diff, "diff"), ""]
    return lines


_NAMES_KEPT = 256
"""Tool names whose :data:`CodeText` an export keeps (a session has a few; any more are
made again each time)."""


def _plain_markdown(m: PlainMessage, numbered: int, code: CodeText, names: dict[str, str]
                    ) -> tuple[list[str], int]:
    """:func:`_message_markdown` of a plain message, read from its stored parts, in one pass.

    Returns its lines (a fence as three: the ticks, the text, the ticks, so the text is not
    copied into a fence string first) and how many outputs it numbers: its tool responses,
    from ``numbered + 1`` in order (as :func:`goosectx.shown.output_keys` counts them, also
    when two responses share a tool-call id). Lines there are end with an empty one after one
    with text (as :meth:`_Blanks.ended` takes them). ``names``: ``code`` of the tool names
    seen so far, filled here (at most :data:`_NAMES_KEPT`).
    """
    if not m.user_visible:
        return [], 0
    lines = ["", ""]  # the header, set at the end
    results: list[str] = []
    results_only = True  # every part a tool response: "## Tool results"
    for p in m.content:
        kind = p["type"]
        if kind == "text":
            results_only = False
            text = p["text"]
            if text and not text.isspace():  # _has_text
                lines += (_nested(text), "")
        elif kind == "tool_response":
            results.append(p["id"])
            number = numbered + len(results)
            output = p["output"]
            ticks = "```" if "`" not in output else _ticks(output)  # most output: no call
            lines += (f"**tool error** #{number}" if p.get("is_error", False)
                      else f"**tool result** #{number}", ticks, output, ticks, "")
            diff = p.get("diff")
            if diff:
                ticks = _ticks(diff)
                lines += (ticks + "diff", diff.rstrip("\n"), ticks, "")
        else:  # tool_request
            results_only = False
            name = names.get(p["name"])
            if name is None:
                name = code(p["name"])
                if len(names) < _NAMES_KEPT:
                    names[p["name"]] = name
            extension, sep, _tool = name.partition("__")  # goose: NAME__tool
            arguments = code(arguments_json(p.get("arguments"), p.get("raw_arguments")))
            ticks = _ticks(arguments)
            lines += (f"**tool call** `{name}` (extension {extension})" if sep and extension
                      else f"**tool call** `{name}`", ticks, arguments, ticks, "")
    if len(lines) == 2:
        return [], len(results)
    if m.role == "user":
        lines[0] = "## Tool results" if results_only else "## User"
    else:
        lines[0] = "## Assistant"
    return lines, len(results)


def _message_markdown(m: Message, numbers: dict[str, int], code: CodeText,
                      cut: str = "") -> list[str]:
    from goosectx.shell_escape import (
        escape_command,
        escape_output,
        is_shell_escape,
        shell_escape_key,
    )

    header = "## User" if m.role == "user" else "## Assistant"
    if is_shell_escape(m):  # a REPL !command: the command, then its output like a result
        number = numbers.get(shell_escape_key(m.id))
        return [header, "", f"**!command** `{code(escape_command(m))}`" + (f" #{number}" if number
                                                                      else ""),
                _fence(escape_output(m)), ""]
    body: list[str] = []
    results_only = True  # every part a tool response: "## Tool results"
    for i, p in enumerate(m.content):
        if isinstance(p, TextContent):
            results_only = False
            body += _text_lines(p.text)
        elif isinstance(p, ToolResponse):
            from goosectx.shown import result_key

            body += _result_lines(p.is_error, numbers.get(result_key(m.id, i)), p.output,
                                  p.diff)
        elif isinstance(p, ToolRequest):
            results_only = False
            body += _call_lines(code(p.name), code(p.arguments_json()))
        elif isinstance(p, ThinkingContent):
            results_only = False
            if _has_text(p.text):
                from goosectx.shown import thinking_key

                number = numbers.get(thinking_key(m.id, i))
                body += [f"<details><summary>thinking #{number}</summary>", "", _nested(p.text), "",
                         "</details>", ""]
        elif isinstance(p, SystemNotification):
            results_only = False
            body += [f"> {p.text}", ""]
        elif isinstance(p, Attachment):
            from goosectx.shown import attachment_key

            number = numbers.get(attachment_key(m.id, i))
            # One a tool call returned (an extension's image) comes after the results and
            # is named by its stub in the result's own text: no line of its own.
            if any(isinstance(q, ToolResponse) for q in m.content):
                if number:
                    body += [f"`{p.stub()}` #{number}", ""]
                continue
            results_only = False
            body += [f"`{p.stub()}`" + (f" #{number}" if number else ""), ""]
        else:
            results_only = False
    if not body:
        return []
    if results_only and m.role == "user":
        header = "## Tool results"
    if cut:
        header += f" ({cut})"
    return [header, "", *body]
