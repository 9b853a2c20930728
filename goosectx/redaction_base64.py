"""The base64 forms of a secret, and the run of base64 text around one found.

Part of :mod:`goosectx.redaction` (docs/architecture.md §2, "Secrets"): a secret's base64 is
matched by the part only it decides (:func:`base64_forms`), then widened over the groups it
shares with its neighbours, the lines of a wrapped block (``base64 -w20``) included
(:func:`base64_run`).
"""

from __future__ import annotations

import base64

BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
_PADDED_END = 6
"""The most characters the last line of a wrapped block takes past a core: its last group
(4) and its padding (2)."""


def _base64_cores(data: bytes, alphabet: bytes | None) -> list[str]:
    """For each alignment 0, 1, 2: the part of base64(prefix + data) that only ``data`` decides.

    Whatever bytes surround the secret in a longer stream, its base64 form contains one of
    these three strings (the groups that mix in neighbouring bytes are left out).
    """
    cores = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data, altchars=alphabet).decode("ascii")
        start = 4 if shift else 0
        whole_groups = (shift + len(data)) // 3
        cores.append(encoded[start : whole_groups * 4])
    return cores


def base64_forms(secret: str) -> list[str]:
    """The base64 and base64url cores of ``secret`` (see :func:`_base64_cores`)."""
    return bytes_base64_forms(secret.encode("utf-8", "surrogateescape"))


def bytes_base64_forms(data: bytes) -> list[str]:
    """The base64 and base64url cores of ``data`` (a secret's UTF-16 bytes too)."""
    return _base64_cores(data, None) + _base64_cores(data, b"-_")


def padded_base64(secret: str) -> list[str]:
    """``secret``'s base64 and base64url whole, padding included (``printf "$KEY" | base64``).

    What a stream holds back to its end: a block wrapped right after the core ends in a line
    of its last group alone (``dQ==``), which :func:`base64_run` redacts with the rest.
    """
    data = secret.encode("utf-8", "surrogateescape")
    return [base64.b64encode(data).decode("ascii"), base64.urlsafe_b64encode(data).decode("ascii")]


def base64_run(text: str, start: int, end: int, floor: int) -> tuple[int, int]:
    """``start:end`` widened to the whole run of base64 characters around it (padding after).

    A core leaves out the groups the secret shares with its neighbours; those groups still
    carry bits of the secret (``printf "$KEY" | base64`` ends in ``MjM=``), so the run goes.
    A block wrapped over lines goes whole: each line before as long as the run's longest
    (``base64 -w8`` puts the key's prefix, ``sk-proj-``, on a line of its own), and a last
    line of padding after (``dQ==``). Never back past ``floor``.
    """
    while start > floor and text[start - 1] in BASE64_CHARS:
        start -= 1
    end = _word_end(text, end)
    lines = text[start:end].split()
    width = max(map(len, lines)) if len(lines) > 1 else 0  # (0: one line, not a block)
    while (line := _line_before(text, start, floor)) is not None and line[1] - line[0] == width:
        start = line[0]
    after = _line_after(text, end)
    return start, end if after is None else after


def _word_end(text: str, end: int) -> int:
    """``end`` moved over the base64 characters and the padding that follow it."""
    while end < len(text) and text[end] in BASE64_CHARS:
        end += 1
    while end < len(text) and text[end] == "=":
        end += 1
    return end


def _line_before(text: str, start: int, floor: int) -> tuple[int, int] | None:
    """(start, end) of the word of base64 characters that ends the line before ``start``.

    ``None`` unless ``start`` begins a line (one line break before it, and spaces) and the
    line before ends in such a word (``KEY=c2stcHJv``: the word is ``c2stcHJv``).
    """
    i = start
    while i > floor and text[i - 1] in " \t\r":
        i -= 1
    if i <= floor or text[i - 1] != "\n":
        return None
    i -= 1
    while i > floor and text[i - 1] in " \t\r":
        i -= 1
    word_end = i
    while i > floor and text[i - 1] in BASE64_CHARS:
        i -= 1
    if i == word_end:
        return None
    return i, word_end


def _line_after(text: str, end: int) -> int | None:
    """The end of a padded last line of a wrapped block (``dQ==``) after ``end``, if one is."""
    i = end
    while i < len(text) and text[i] in " \t\r":
        i += 1
    if i >= len(text) or text[i] != "\n" or end == 0 or text[end - 1] == "=":
        return None
    i += 1
    while i < len(text) and text[i] in " \t\r":
        i += 1
    word = i
    i = _word_end(text, i)
    token = text[word:i]
    if not token.endswith("=") or len(token) > _PADDED_END or token.startswith("="):
        return None
    return i
