"""Counting a text's tokens in pieces, so that a long text costs linear time.

BPE on one long run without a space (a base64 blob, 100,000 × "a") is quadratic; cut where
the tokenizer starts a new word anyway, ordinary text counts exactly. Used by
:mod:`goosectx.tokens`.
"""

from __future__ import annotations

from goosectx.encoding import Encoder

CHUNK_CHARS = 4096
"""Texts longer than this are counted in pieces: BPE on one long run without a space (a
base64 blob, 100,000 × "a") is quadratic, pieces keep counting linear."""


def token_len(encoder: Encoder, text: str, limit: int | None = None) -> int:
    """Tokens in ``text``, encoded in pieces of at most :data:`CHUNK_CHARS` characters.

    A piece ends where the tokenizer starts a new word anyway (:func:`_piece_end`), so
    ordinary text counts exactly; a run with no such place is cut hard (off by at most a
    token per piece). With ``limit``, counting stops at the piece that takes the total past
    it: the figure returned is then above ``limit``, not the whole count.
    """
    return token_len_whole(encoder, text, limit)[0]


def token_len_whole(encoder: Encoder, text: str, limit: int | None) -> tuple[int, bool]:
    """(:func:`token_len`, whether that is the whole count: False when it stopped early).

    An encoder that counts whole texts itself (:class:`goosectx.encoder_worker.RemoteEncoder`,
    with these functions in its process) is asked once.
    """
    whole = getattr(encoder, "count_whole", None)
    if whole is not None:
        return whole(text, limit)  # type: ignore[no-any-return]
    if len(text) <= CHUNK_CHARS:
        return len(encoder.encode(text, disallowed_special=())), True
    total, start, end_of_text = 0, 0, len(text)
    while start < end_of_text:
        end = min(end_of_text, start + CHUNK_CHARS)
        if end < end_of_text:
            end = _piece_end(text, start + CHUNK_CHARS // 2, end)
        total += len(encoder.encode(text[start:end], disallowed_special=()))
        if limit is not None and total > limit:
            return total, end == end_of_text
        start = end
    return total, True


def _piece_end(text: str, low: int, high: int) -> int:
    """Where to end a piece in ``text[low:high]``: where the tokenizer starts a word anyway.

    After a newline followed by a non-space, else before a space between a non-space and a
    letter; ``high`` (a hard cut) when the window has neither.
    """
    for separator in ("\n", " "):
        at = high
        for _ in range(64):
            at = text.rfind(separator, low, at)
            if at <= low:
                break
            after = text[at + 1]
            if separator == "\n" and not after.isspace():
                return at + 1
            if separator == " " and after.isalpha() and not text[at - 1].isspace():
                return at
    return high
