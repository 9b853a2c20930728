"""``@path`` mentions: the files a user's message names, read as attachment parts.

A word ``@src/app.py`` in a REPL message attaches that file's content to the message as one
``Attachment(kind="file")`` (docs/architecture.md, "@path mentions"): the model reads it as a
labelled block, the transcript shows its one-line stub, ``/context`` counts it as
"@ mentions". A file larger than the cap (``mention_max_tokens``, default 0.1 × the context
limit) is attached as its first and last lines with a marker naming what was left out (its
first and last characters when a line at either end is longer than its share: one long line);
an extension resource (``@NAME:URI``, read by ``extensions/mentions.py``) gets the same cap
through :func:`cap_attachment`.

Nothing is attached — and a one-line notice says why — for a file outside the working dir
(symlinks resolved; the notice names where a symlink leads), a sensitive file
(:mod:`goosectx.sensitive`, the approval module's list), one a ``text_editor`` deny rule
refuses to view, one with other hard links (:mod:`goosectx.mention_checks`), a binary,
unreadable or special file, or a directory. An image file (PNG, JPEG, GIF, WebP by its
bytes) is attached as an image for a model that reads images, else a notice says why
(:mod:`goosectx.mention_images`);
a text file is text whatever its name. A word whose ``NAME:`` prefix is a configured
extension is an extension resource (``@NAME:URI``), never a path; a word
``@NAME:SCHEME://…`` naming neither a file nor an extension says there is no such extension.
Pure: no printing; the caller draws the notices.
"""

from __future__ import annotations

import mimetypes
import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from goosectx.attachment import Attachment
from goosectx.extensions.config import NAME_RE as EXTENSION_NAME
from goosectx.mention_checks import refusal
from goosectx.mention_images import image_mention
from goosectx.permissions import PermissionRules
from goosectx.read_target import JudgedFile, judge
from goosectx.redaction import REDACTED
from goosectx.secret_names import SECRET_FILE_NAME as SECRET_NAME
from goosectx.sensitive import expand_user
from goosectx.testhooks import pause_point
from goosectx.tokens import count_text
from goosectx.tools.files import UTF16_BOMS, FileChanged, FileError, decode, open_regular, utf16_fix

MENTION_RATIO = 0.1
"""Default cap of one mentioned file: this share of the context limit (tokens)."""
READ_BYTES_PER_TOKEN = 8
"""Bytes read per token of the cap (from the head and from the tail of a larger file)."""
_WORD = re.compile(r'(?<![\w@`])@(?:"((?:\\.|[^"\\\n])+)"|((?:\\ |[^\s@`])+))')
"""``@"a name with spaces"`` (group 1: a backslash escapes a quote or a backslash in it, and
``\\n`` ``\\r`` ``\\t`` are a line break, a carriage return, a tab) or ``@word`` with
backslash-spaces (group 2)."""
_QUOTED_ESCAPE = re.compile(r"\\(.)")
_CONTROL_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
_NEEDS_QUOTES = re.compile(r"[^\S ]|[@`]")
"""What the unquoted ``@word`` cannot hold: whitespace other than a space, ``@``, a backtick."""
_TRAILING = ".,;:!?)]}'\""
_TEXT_APPLICATION_TYPES = frozenset((
    "application/json", "application/xml", "application/javascript", "application/x-sh",
    "application/x-python-code", "application/toml", "application/x-yaml", "application/yaml",
    "application/sql", "application/x-tex", "application/x-latex", "application/ld+json"))
"""``application/…`` types whose files are text (their names' type is kept)."""


@dataclass(slots=True)
class Mentions:
    """What the ``@path`` words of one message gave.

    Attributes:
        attachments: One file attachment per distinct readable file, in order of mention.
        notices: One line per file not attached (or attached cut), for the user.
    """

    attachments: list[Attachment] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def mention_cap(max_tokens: int | None, limit_tokens: int) -> int:
    """Tokens one mentioned file may take: ``mention_max_tokens``, else 0.1 × the limit."""
    return max_tokens if max_tokens else max(1, int(limit_tokens * MENTION_RATIO))


def mentioned_words(text: str) -> list[tuple[str, bool]]:
    """The ``@`` words of ``text`` (``a@b`` is none), each with whether it was quoted.

    ``@"my file.txt"`` and ``@my`` backslash-space ``file.txt`` are both ``my file.txt``.
    """
    return [(_QUOTED_ESCAPE.sub(_unescape, m.group(1)), True) if m.group(1) is not None
            else (m.group(2).replace("\\ ", " "), False) for m in _WORD.finditer(text)]


def _unescape(match: re.Match[str]) -> str:
    return _CONTROL_ESCAPES.get(match.group(1), match.group(1))


def mention_text(path: str) -> str:
    """``path`` as written after ``@`` so that :func:`mentioned_words` reads it back.

    Spaces become backslash-spaces; a name holding a line break, a tab, ``@`` or a backtick
    is quoted, with its quotes, backslashes and line breaks escaped (the raw line break ended
    the message's word, so nothing was attached).
    """
    if not _NEEDS_QUOTES.search(path):
        return path.replace(" ", "\\ ")
    escaped = path.replace("\\", "\\\\").replace('"', '\\"')
    for letter, char in _CONTROL_ESCAPES.items():
        escaped = escaped.replace(char, "\\" + letter)
    return f'"{escaped}"'


def read_mentions(text: str, working_dir: Path, *, cap_tokens: int,
                  extension_names: Collection[str] = (), data_dir: Path | None = None,
                  model: str | None = None, provider: Any = None,
                  config_path: Path | None = None,
                  rules: PermissionRules | None = None) -> Mentions:
    """Read every ``@path`` of ``text`` under ``working_dir`` (see the module docstring).

    An image file is attached as an image only when ``provider`` (or, without one,
    litellm's map for ``model``) says the model reads images (:mod:`goosectx.mention_images`);
    ``config_path``: the config file a notice names for the ``supports_vision`` setting.
    ``rules``: the permission rules; what ``text_editor`` may not view is not attached
    (:func:`goosectx.mention_checks.refusal` says which files are refused).

    A word that names nothing and does not look like a path (no ``/`` or ``.``: ``@bob``)
    is left alone silently.
    """
    out = Mentions()
    seen: set[Path] = set()
    for word, quoted in mentioned_words(text):
        name, colon, _rest = word.partition(":")
        if colon and name in extension_names:
            continue  # an extension resource (@NAME:URI), read by the extensions
        path, shown = _existing(working_dir, word)
        if path is None:
            if colon and EXTENSION_NAME.match(name) and "://" in _rest:
                out.notices.append(_no_extension(shown, name, extension_names))
            elif REDACTED in shown:
                out.notices.append(f"@{shown}: {SECRET_NAME} — not attached")
            elif quoted or "/" in shown or "." in shown:
                out.notices.append(f"@{shown}: no such file in the working dir — not attached")
            continue
        if path in seen:
            continue
        seen.add(path)
        judged = judge(path)  # resolved once: the file checked is the file read
        why = refusal(judged, shown, working_dir, data_dir=data_dir, config_path=config_path,
                      rules=rules)
        if why is not None:
            out.notices.append(why)
        else:
            pause_point("mention:checked")
            _attach(out, judged, shown.rstrip("/"), cap_tokens, model, provider, config_path)
    return out


def _no_extension(shown: str, name: str, extension_names: Collection[str]) -> str:
    """The notice for ``@NAME:SCHEME://…`` when no extension is named NAME (and no such file)."""
    known = ", ".join(sorted(extension_names))
    return (f"@{shown}: no extension is named {name} "
            f"({'configured: ' + known if known else 'none is configured'}) — not attached")


def _existing(working_dir: Path, word: str) -> tuple[Path | None, str]:
    """The path ``word`` names and the word as shown, or ``(None, word stripped)``.

    Trailing punctuation is dropped when the word with it names nothing (``@app.py,`` is
    ``app.py``).
    """
    for candidate in dict.fromkeys((word, word.rstrip(_TRAILING))):
        if not candidate:
            continue
        path = Path(os.path.abspath(working_dir / expand_user(candidate)))
        if os.path.lexists(path):
            return path, candidate
    return None, word.rstrip(_TRAILING)


def _attach(out: Mentions, judged: JudgedFile, shown: str, cap: int, model: str | None,
            provider: Any, config_path: Path | None) -> None:
    """Attach the file ``judged`` (refused with a notice when its path leads elsewhere now)."""
    path = judged.path
    budget = max(64 * 1024, cap * READ_BYTES_PER_TOKEN)
    try:
        image = image_mention(judged, shown, provider=provider, model=model,
                              config_path=config_path)
        if image is not None:
            out.attachments += [image[0]] if image[0] is not None else []
            out.notices += [image[1]] if image[1] is not None else []
            return
        head, tail, skipped = _read(judged, budget)
        if head.startswith(UTF16_BOMS):
            out.notices.append(f"@{shown}: it is UTF-16 text, not UTF-8 — not attached; "
                               f"convert it: {utf16_fix(shown)}")
            return
        head = head.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 BOM: not text to send
        file_size = len(head) + len(tail or b"") + skipped  # not only the part decoded
        if tail is not None:  # each end cut at a line boundary, else at a character's
            head = head[: head.rfind(b"\n") + 1] or whole_characters(head)
            tail = tail[tail.find(b"\n") + 1:] if b"\n" in tail else whole_characters(tail,
                                                                                    end=True)
        text = decode(path, head, size_bytes=file_size)
        end = None if tail is None else decode(path, tail, size_bytes=file_size)
    except FileChanged as exc:
        out.notices.append(f"@{shown} changed after it was checked ({exc.where}) — not "
                           "attached")
        return
    except FileError as exc:
        reason = str(exc).replace(str(path), "it").split(";")[0]
        out.notices.append(f"@{shown}: {reason} — not attached")
        return
    except OSError as exc:
        out.notices.append(f"@{shown}: {exc.strerror or exc} — not attached")
        return
    tokens = count_text(text + (end or ""), model)
    if tokens > cap or skipped:
        text, kept_head, kept_tail, unit = _head_and_tail(text, end, tokens, cap, skipped)
        size = f"{tokens:,} tokens" if not skipped else f"{path.stat().st_size:,} bytes"
        out.notices.append(f"@{shown} is {size}, over mention_max_tokens ({cap:,}): attached "
                           f"{_kept(kept_head, kept_tail, unit)}")
    media = _text_type(path)
    part = Attachment("file", shown, media, text=text)
    out.attachments.append(Attachment("file", shown, media, text=text,
                                      token_estimate=count_text(part.labelled_text(), model)))


def _text_type(path: Path) -> str:
    """The media type of a file read as text: its name's if a text type, else ``text/plain``.

    The content is text whatever the name says (``notes.png``).
    """
    guess = mimetypes.guess_type(path.name)[0] or ""
    textual = (guess.startswith("text/") or guess.endswith(("+json", "+xml"))
               or guess in _TEXT_APPLICATION_TYPES)
    return guess if textual else "text/plain"


def _read(judged: JudgedFile, budget: int) -> tuple[bytes, bytes | None, int]:
    """``(whole, None, 0)``, or ``(head, tail, bytes skipped)`` for a file over 2 × budget."""
    fd, st = open_regular(judged.path, judged)
    with os.fdopen(fd, "rb") as fh:
        if st.st_size <= 2 * budget:
            return fh.read(2 * budget), None, 0
        head = fh.read(budget)
        fh.seek(st.st_size - budget)
        return head, fh.read(budget), st.st_size - 2 * budget


def cap_attachment(part: Attachment, cap_tokens: int,
                   model: str | None = None) -> tuple[Attachment, str | None]:
    """``part`` cut to ``cap_tokens`` the way a mentioned file is, and the notice saying so.

    For a text attachment that is not a file (an extension resource), counted once: over the
    cap, its first and last lines around a marker, estimated as the block the model reads;
    else ``(part, None)`` with the text's count as its estimate. Bytes (an image) are
    returned unchanged.
    """
    if part.text is None:
        return part, None
    tokens = count_text(part.text, model)
    if tokens <= cap_tokens:
        return replace(part, token_estimate=tokens), None
    text, kept_head, kept_tail, unit = _head_and_tail(part.text, None, tokens, cap_tokens, 0,
                                                      what="resource", how="read_resource")
    cut = Attachment(part.kind, part.source, part.media_type, text=text)
    cut = replace(cut, token_estimate=count_text(cut.labelled_text(), model))
    return cut, (f"@{part.source} is {tokens:,} tokens, over mention_max_tokens "
                 f"({cap_tokens:,}): attached {_kept(kept_head, kept_tail, unit)}")


def cap_piped(text: str, end: str | None, skipped_bytes: int, cap_tokens: int,
              model: str | None = None, size_bytes: int = 0) -> tuple[str, str | None]:
    """Piped standard input cut to ``cap_tokens`` the way a mentioned file is, and the notice.

    ``end`` is the input's last part when its middle (``skipped_bytes``) was not kept while
    it was read (``size_bytes`` in all). Returns ``(text, None)`` when it fits; else its
    first and last lines around a marker naming what was left out, and the one line saying so.
    """
    tokens = count_text(text + (end or ""), model)
    if tokens <= cap_tokens and not skipped_bytes:
        return text + (end or ""), None
    cut, kept_head, kept_tail, unit = _head_and_tail(text, end, tokens, cap_tokens,
                                                     skipped_bytes, what="standard input",
                                                     how=None)
    size = f"{tokens:,} tokens" if not skipped_bytes else f"{size_bytes:,} bytes"
    return cut, (f"standard input is {size}, over mention_max_tokens ({cap_tokens:,}): "
                 f"sent {_kept(kept_head, kept_tail, unit)}")


def _read_with(how: str | None) -> str:
    return f"; read them with {how}" if how else ""


def _kept(head: int, tail: int, unit: str) -> str:
    """``its first 40 and last 20 lines``; ``its first 54,613 characters`` with no tail."""
    return (f"its first {head:,} and last {tail:,} {unit}" if tail
            else f"its first {head:,} {unit}")


def whole_characters(data: bytes, *, end: bool = False) -> bytes:
    """``data`` without the partial UTF-8 character a cut left at its end (or start: ``end``)."""
    if end:
        start = 0
        while start < min(3, len(data)) and data[start] & 0xC0 == 0x80:
            start += 1
        return data[start:]
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # the last character's first byte
            length = 1 if byte < 0x80 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if length <= back else data[:-back]
    return data


def _head_and_tail(text: str, end: str | None, tokens: int, cap: int, skipped: int, *,
                   what: str = "file", how: str | None = "text_editor view and a view_range",
                   ) -> tuple[str, int, int, str]:
    """The first and last lines that fit ``cap`` (about 2:1), with a marker between them.

    ``end`` is the file's tail when its middle was not read (``skipped`` bytes); the marker
    says the ``what`` is over the cap and to read the rest with ``how`` (``None``: it cannot
    be read again, so the marker says only what was left out). When a
    line at either end is longer than its share (a minified file, one long line), the
    first and last characters instead.

    Returns:
        ``(text with the marker, kept at the head, kept at the tail, "lines" or
        "characters")``.
    """
    lines = text.splitlines(keepends=True)
    tail_lines = end.splitlines(keepends=True) if end is not None else lines
    per_char = max(tokens, 1) / max(len(text) + len(end or ""), 1)
    budget = int(cap * 0.9 / per_char)  # characters, with room for the marker
    head, used = [], 0
    for line in lines:
        if used + len(line) > budget * 2 // 3:
            break
        head.append(line)
        used += len(line)
    tail: list[str] = []
    for line in reversed(tail_lines if end is not None else lines[len(head):]):
        if used + len(line) > budget:
            break
        tail.insert(0, line)
        used += len(line)
    if not head or not tail:
        return _characters(text, end, budget, cap, skipped, what=what,
                           how="cut -c" if what == "file" else how)
    left = _left_out(skipped, len(head) + 1, len(lines) - len(tail), "lines")
    marker = (f"[... {left} left out by goosectx: the {what} is over mention_max_tokens "
              f"({cap:,} tokens){_read_with(how)} ...]\n")
    body = "".join(head)
    if body and not body.endswith("\n"):
        body += "\n"
    return body + marker + "".join(tail), len(head), len(tail), "lines"


def _left_out(skipped: int, first: int, last: int, unit: str) -> str:
    """What a cut marker says was left out: bytes skipped unread, else ``unit`` first–last."""
    if skipped:
        return f"{skipped:,}+ bytes in the middle"
    return f"{unit} {first:,}–{last:,} ({last - first + 1:,} {unit})"


def _characters(text: str, end: str | None, budget: int, cap: int, skipped: int, *,
                what: str = "file", how: str | None = "cut -c") -> tuple[str, int, int, str]:
    """:func:`_head_and_tail` by characters: the first and last that fit (about 2:1).

    ``budget`` (characters) is taken as 8/9 of itself: ends cut mid-word count more tokens
    a character than the text they were cut from.
    """
    budget = budget * 8 // 9
    head = text[: budget * 2 // 3]
    rest = end if end is not None else text[len(head):]
    tail = rest[len(rest) - min(len(rest), budget - len(head)):]
    left = _left_out(skipped, len(head) + 1, len(text) - len(tail), "characters")
    marker = (f"\n[... {left} left out by goosectx: the {what} is over mention_max_tokens "
              f"({cap:,} tokens), its lines too long to keep{_read_with(how)} ...]\n")
    return head + marker + tail, len(head), len(tail), "characters"
