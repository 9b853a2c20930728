"""A streamed answer another goosectx is still writing, as ``sessions show`` labels it.

While an answer streams, its text so far is stored as a draft marked the way it would be
stored if goosectx died now (:mod:`goosectx.answer_draft`: ``cancelled`` + ``exited``), so a
reader would call it "cut off: goosectx exited". When the session's lock
(:meth:`goosectx.store.SessionStore.lock_holder`) shows a live process still drives the
session, its newest message is the answer being written, and is labelled so.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TypeVar

from goosectx.conversation import EXITED_MARK, Message, TextContent
from goosectx.store.locks import LockHolder

M = TypeVar("M")


def live_draft(messages: Iterable[M], holder: LockHolder, writing: dict[str, str]
               ) -> Iterator[M]:
    """``messages``, the last one labelled as being written when it is a live draft.

    A live draft: an assistant message with ``metadata.exited`` made since ``holder``, the
    process holding the session's lock, took it (one made before is an earlier process's,
    cut off when it died: a resumed session before its next message). Its label (``being
    written by goosectx (PID N)``) goes into ``writing`` (message id → label) before it is
    yielded, and in the model's view its ``[cut off: goosectx exited …]`` mark is replaced by
    the label. Reads one message ahead; the others pass unchanged (when reading the next one
    fails, the one read before it comes first, then the error).
    """
    label = f"being written by goosectx (PID {holder.pid})"
    last: M | None = None
    try:
        for m in messages:
            if last is not None:
                yield last
            last = m
    except Exception:  # a row that does not parse: the one read before it is still shown
        if last is not None:
            yield last
        raise
    if last is None:
        return
    if (isinstance(last, Message) and last.role == "assistant" and last.metadata.exited
            and last.created.timestamp() >= holder.since_s):
        writing[last.id] = label
        content = last.content
        if content and isinstance(content[-1], TextContent) and content[-1].text == EXITED_MARK:
            last = replace(last, content=(*content[:-1],
                                          TextContent(f"[{label}: the answer so far]")))
    yield last
