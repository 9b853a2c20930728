"""Reading a session export back: the JSON form :mod:`goosectx.export` writes.

``sessions import`` reads it unchanged (:mod:`goosectx.importers.goosectx_json`); every schema
up to :data:`~goosectx.parts.SCHEMA_VERSION` reads.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from goosectx.conversation import SCHEMA_VERSION, Conversation, Message
from goosectx.parts import json_kind
from goosectx.session import Session, SessionState
from goosectx.usage import (
    MAX_COST_USD,
    MAX_TOKENS,
    LedgerEntry,
    Usage,
    UsageLedger,
    read_tokens,
)

EXPORT_FORMAT = "goosectx-session"
_M = TypeVar("_M")


class NewerExport(ValueError):
    """An export of a schema newer than this goosectx reads: upgrading is the fix."""


def _field(data: dict[str, Any], name: str, kind: type, what: str) -> Any:
    """``data[name]`` (empty when absent or null), or a ValueError naming it and its type."""
    value = data.get(name)
    if value is None:
        return kind()
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f'"{name}" must be {what}, not {json_kind(value)}')
    return value


def check_export_header(data: dict[str, Any]) -> None:
    """Raise ValueError unless ``data`` says it is an export of a schema this goosectx reads.

    Only ``format`` and ``schema_version`` are read (a streamed import checks them before
    it reads the messages).

    Raises:
        NewerExport: a ``schema_version`` above :data:`SCHEMA_VERSION`.
        ValueError: not an export, or a ``schema_version`` that is no whole number.
    """
    if data.get("format") != EXPORT_FORMAT:
        raise ValueError("not a goosectx session export (no \"format\": \"goosectx-session\")")
    version = data.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise NewerExport(f"unsupported schema_version {version}: the file comes from a newer "
                          f"goosectx (this one reads up to {SCHEMA_VERSION})")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise ValueError(f"unsupported schema_version {version!r} (this goosectx reads up to "
                         f"{SCHEMA_VERSION})")


_MESSAGE_FLAGS = ("user_visible", "agent_visible", "is_summary", "is_continuation", "cancelled",
                  "stopped_by_error", "cut_at_output_limit", "exited")


def check_message_fields(number: int, item: dict[str, Any]) -> None:
    """Raise ValueError naming message ``number``'s flag or usage figure that is unusable.

    A flag is true or false (:func:`read_flag`: ``"yes"`` is refused, not read as true); an
    export's message usage is bounded as its ledger is
    (:meth:`~goosectx.usage.Usage.checked_from_dict`); a stored row is read as it always was.
    """
    metadata = item.get("metadata")
    if type(metadata) is dict:
        for name in _MESSAGE_FLAGS:
            value = metadata.get(name)
            if value is not None and value is not True and value is not False:
                try:
                    read_flag(metadata, name, "metadata.", True)
                except ValueError as exc:
                    raise ValueError(f"message #{number}: {exc}") from None
    usage = metadata.get("usage") if type(metadata) is dict else None
    if type(usage) is not dict or _plainly_in_range(usage):
        return
    try:
        Usage.checked_from_dict(usage)
    except ValueError as exc:
        raise ValueError(f"message #{number}: metadata.usage: {exc}") from None


_USAGE_COUNTS = ("input_tokens", "output_tokens", "total_tokens", "cache_read_tokens",
                 "cache_write_tokens")


def _plainly_in_range(usage: dict[str, Any]) -> bool:
    """Whether every figure of ``usage`` is a count or cost as goosectx writes them.

    The common case, checked without building anything (an export of a long session has a
    usage on every reply); anything else takes the full check, which names the field.
    """
    for name in _USAGE_COUNTS:
        value = usage.get(name)
        if value is not None and not (type(value) is int and 0 <= value <= MAX_TOKENS):
            return False
    cost = usage.get("cost_usd")
    return cost is None or (type(cost) is float and 0 <= cost <= MAX_COST_USD)


def message_from_json(number: int, item: Any) -> Message:
    """Message number ``number`` (from 1) of an export's ``messages``.

    A ``created`` of ``null`` (the exported message's stored time did not parse) becomes the
    time of the import, as the session's own times do.

    Raises:
        ValueError: not a message; the text starts with ``message #NUMBER:``.
    """
    if not isinstance(item, dict):
        raise ValueError(f"message #{number}: must be an object, not {json_kind(item)}")
    check_message_fields(number, item)
    if "created" in item and item["created"] is None:  # its stored time did not parse
        item = {**item, "created": datetime.now(UTC).isoformat()}  # as a session's null time
    try:
        return Message.from_dict(item)
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"message #{number}: {exc}") from None


def session_from_json(data: dict[str, Any]) -> Session:
    """Inverse of :func:`goosectx.export.session_to_json`; reads schemas up to the current.

    That is every schema up to :data:`SCHEMA_VERSION`; schema 1 (no attachment parts) has
    the same shape and reads unchanged.

    Raises:
        ValueError: not a goosectx export, a newer schema, or a broken message (named).
    """
    session, messages = session_and_messages_from_json(data, message_from_json)
    session.conversation = Conversation(messages)
    return session


def session_and_messages_from_json(
    data: dict[str, Any], read_message: Callable[[int, Any], _M]
) -> tuple[Session, list[_M]]:
    """:func:`session_from_json` with each message read by ``read_message(number, item)``.

    Returns the session (its conversation empty) and the messages, in order. The checks run
    in the same order, so a broken export raises the same first error.

    Raises:
        ValueError: not a goosectx export, a newer schema, or a broken message (named).
    """
    check_export_header(data)
    meta = _field(data, "session", dict, "an object")
    messages = [read_message(i + 1, item)
                for i, item in enumerate(_field(data, "messages", list, "a list of messages"))]
    entries = []
    for i, item in enumerate(_field(data, "usage_ledger", list, "a list of usage entries")):
        if not isinstance(item, dict):
            raise ValueError(f"usage_ledger entry #{i + 1}: must be an object, "
                             f"not {json_kind(item)}")
        try:
            _check_ledger_model(item)
            entries.append(LedgerEntry.from_dict(item))
        except ValueError as exc:
            raise ValueError(f"usage_ledger entry #{i + 1}: {exc}") from None
    created, updated = (_session_time(meta, name) for name in ("created", "updated"))
    ledger = UsageLedger(
        entries,
        current_tokens=_session_number(meta, "current_tokens"),
        current_is_estimate=read_flag(meta, "current_is_estimate", "session.", True),
    )
    return Session(
        id=str(meta.get("id") or ""),
        name=_session_text(meta, "name"),
        working_dir=Path(_session_text(meta, "working_dir") or "."),
        model=_session_text(meta, "model"),
        created=created,
        updated=updated,
        ledger=ledger,
        state=_state(meta.get("state")),
        metadata=dict(_field(meta, "metadata", dict, "an object")),
    ), messages


def _check_ledger_model(entry: dict[str, Any]) -> None:
    """Refuse a ledger entry with no ``model`` text (it would count as a call by model '').

    An export always writes it; an empty one (a call whose source named no model, e.g. a
    goose database's) is kept and labelled :data:`~goosectx.usage.UNKNOWN_MODEL`.
    """
    model = entry.get("model")
    if not isinstance(model, str):
        shown = json_kind(model) if "model" in entry else "missing"
        raise ValueError(f'"model" must be the name of the model called (text), not {shown}')


def _session_time(meta: dict[str, Any], name: str) -> datetime:
    """``session.NAME`` as a time; null (its stored time did not parse): the import's time."""
    value = meta.get(name, "")
    try:
        return datetime.now(UTC) if value is None else datetime.fromisoformat(value)
    except (TypeError, ValueError):
        shown = repr(value[:40]) if isinstance(value, str) else json_kind(value)
        raise ValueError(f'"session.{name}" must be an ISO 8601 time (or null), not '
                         f"{shown if name in meta else 'missing'}") from None


def read_flag(data: dict[str, Any], name: str, where: str, default: bool) -> bool:
    """``WHERE.NAME`` as true/false (absent or null: ``default``; ``0``/``1`` read as ever).

    Raises:
        ValueError: any other value (``"yes"``), naming it.
    """
    value = data.get(name)
    if value is None:
        return default
    if type(value) not in (bool, int) or value not in (0, 1):
        raise ValueError(f'"{where}{name}" must be true or false, not {json_kind(value)}')
    return bool(value)


def _session_text(meta: dict[str, Any], name: str) -> str | None:
    """``session.NAME``: text or null (a ValueError naming it otherwise)."""
    value = meta.get(name)
    if value is not None and not isinstance(value, str):
        raise ValueError(f'"session.{name}" must be text (or null), not {json_kind(value)}')
    return value


def _session_number(data: dict[str, Any], name: str, where: str = "session") -> int:
    """``WHERE.NAME`` as a token figure (:func:`~goosectx.usage.read_tokens`; absent: 0)."""
    return read_tokens(data.get(name) or 0, f"{where}.{name}") or 0


_STATE_NUMBERS = ("judge_input_tokens", "growth_base_tokens", "report_fixed_tokens",
                  "compaction_failures")


def _state(raw: Any) -> SessionState:
    """``session.state``, its figures bounded as the ledger's are (null or absent: none)."""
    if raw is None:
        return SessionState()
    if not isinstance(raw, dict):
        raise ValueError(f'"session.state" must be an object, not {json_kind(raw)}')
    for name in _STATE_NUMBERS:
        if raw.get(name) is not None:
            _session_number(raw, name, "session.state")
    for name in ("auto_compaction_paused", "paused_by_undo"):
        read_flag(raw, name, "session.state.", False)
    calibration = raw.get("calibration")
    if calibration is not None and not isinstance(calibration, dict):
        raise ValueError('"session.state.calibration" must be an object, not '
                         f"{json_kind(calibration)}")
    return SessionState.from_dict(raw)
