"""Secrets of this environment scrubbed from everything an imported transcript holds.

Tool output goosectx makes is redacted before the model or the store sees it
(``env_secrets.tool_output_redactor``: the values of secret-looking variables and configured
API keys, in every encoding it lists, written as a list of their characters or bytes, and
each run of 13+ of their characters); an imported transcript gets the same, in every string
it brings: tool outputs (another agent's ``env``), tool calls' arguments (a ``curl -H
"Authorization: Bearer …"`` written out), text and reasoning (reasoning whose text or
signature changes loses its signature: a provider would refuse the pair), attachments and
notices (every string field of every part type: the model reads an ``@``-file's text on
resume; ``sessions show`` prints a notice), and the strings
that are not conversation — the source's session id, working dir, model and title, record
ids, every text field of a message's metadata (``compaction_id``, ``hidden_by``), tool-call
ids and tool names. Those are printed at import, shown, exported, stored, and
(ids, names) sent to the provider on resume.

A tool-call id or tool name that held a secret is written ``…REDACTED…`` (no brackets: a
provider takes ids and names of letters, digits, ``_`` and ``-``); a request and its
response keep the same id, and an id never becomes one the session already uses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goosectx.attachment import Attachment
from goosectx.cli.words import plural
from goosectx.config import Settings
from goosectx.importers.builder import IMPORT_NOTES
from goosectx.parts import Part, TextContent, ThinkingContent, ToolRequest, ToolResponse
from goosectx.redaction import REDACTED
from goosectx.redaction_bytes import attachment_redacted, nul_reading
from goosectx.session import Session, SessionState, new_session_id
from goosectx.stored_message import StoredMessage

if TYPE_CHECKING:
    from goosectx.conversation import Message
    from goosectx.errors import GoosectxError
    from goosectx.message import MessageMetadata
    from goosectx.redaction_fragments import WithPieces

Redact = Callable[[str], str]


def redact_secrets(sessions: list[Session], settings: Settings) -> list[str]:
    """Scrub secrets of this environment from every imported string; one note per session.

    A goosectx export's messages (its stored-form ones too) are scrubbed like any other
    format's: the export may come from another machine, or be written by hand. A message id
    that held a secret is written ``…REDACTED…`` like a tool-call id (unique; a ``copy_of``
    naming it follows). ``sessions`` are changed in place.

    Returns:
        Per session, ``a secret of this environment was redacted in 1 tool call, …`` or ``""``
        when it held none.
    """
    from goosectx.env_secrets import tool_output_redactor

    redact = tool_output_redactor(settings)  # a live tool output's: a key as a list, a piece
    if not redact.secrets:  # nothing to look for: a long import pays nothing for it
        return ["" for _ in sessions]
    notes = []
    for session in sessions:
        messages: list[Message | StoredMessage] = (
            session.stored_messages if session.stored_messages is not None
            else session.conversation.messages)  # type: ignore[assignment]  # (Messages only)
        if _holds_none(session, messages, redact):  # the common case: one check
            notes.append("")
            continue
        found: dict[str, int] = {}
        _scrub_session_fields(session, redact, found)
        ids = _Ids(redact, {p.id for m in messages for p in m.content
                            if isinstance(p, ToolRequest | ToolResponse)})
        message_ids = _Ids(redact, {m.id for m in messages})
        marks = _Ids(redact, {v for m in messages for v in metadata_ids(m.metadata).values()})
        for i, m in enumerate(messages):
            parts = [_redacted(p, redact, ids, found) for p in m.content]
            new_id = message_ids(m.id)
            extra = _scrub(_copy_of_renamed(m.metadata.extra, message_ids), redact)
            renamed: dict[str, Any] = {name: new for name, value in metadata_ids(m.metadata).items()
                       if (new := marks(value)) != value}
            if extra != m.metadata.extra or new_id != m.id or renamed:
                found["record id"] = found.get("record id", 0) + 1
            if extra != m.metadata.extra or new_id != m.id or renamed or any(
                    a is not b for a, b in zip(parts, m.content, strict=True)):
                metadata = replace(m.metadata, extra=extra, **renamed)
                messages[i] = (m._replace(id=new_id, content=tuple(parts), metadata=metadata)
                               if isinstance(m, StoredMessage)
                               else replace(m, id=new_id, content=tuple(parts),
                                            metadata=metadata))
        what = ", ".join(plural(n, kind) for kind, n in found.items())
        notes.append(f"a secret of this environment was redacted in {what}" if found else "")
    return notes


def _holds_none(session: Session, messages: list[Message | StoredMessage],
                redact: WithPieces) -> bool:
    """True when scrubbing ``session`` would change nothing: proved by one check of it all.

    Every string the scrub reads (:func:`_strings`: more is harmless) goes to one
    :meth:`~goosectx.redaction_fragments.WithPieces.changes_none`; and no id or tool name holds a
    ``[REDACTED]`` of its own, which the scrub writes ``REDACTED`` (:func:`_plain`).
    """
    texts: list[str] = [session.id, str(session.working_dir)]
    _strings([session.name, session.title, session.model, session.metadata,
              session.state.to_dict(), [e.model for e in session.ledger.entries]], texts)
    names: list[str] = []
    read: set[int] = set()  # metadata read (most messages share one of four: stored_message)
    for m in messages:
        names.append(m.id)
        if id(m.metadata) not in read:  # (its strings once are as good as once a message)
            read.add(id(m.metadata))
            names += metadata_ids(m.metadata).values()
            _strings(m.metadata.extra, texts)
            if isinstance(copy_of := m.metadata.extra.get("copy_of"), str):  # a message id
                names.append(copy_of)
        for part in m.content:
            if type(part) is TextContent:  # (most parts: their one string, without the walk)
                texts.append(part.text)
                continue
            if type(part) is ToolResponse and part.diff is None:
                texts.append(part.output)
                names.append(part.id)
                continue
            for field in part.__dataclass_fields__:
                _strings(getattr(part, field), texts)
            if isinstance(part, ToolRequest):
                names += (part.id, part.name)
            elif isinstance(part, ToolResponse):
                names.append(part.id)
    texts += names
    return REDACTED not in "\0".join(names) and redact.changes_none(texts)


def metadata_ids(metadata: MessageMetadata) -> dict[str, str]:
    """The text fields of ``metadata`` but ``extra``, by name (its ids, any field added later).

    ``compaction_id`` and ``hidden_by`` today. What both the check (:func:`_holds_none`) and
    the scrub read of a message's metadata beside its ``extra``. Each is an id that others
    name (``hidden_by`` names a ``compaction_id``): one that held a secret is renamed, the
    same wherever it stands.
    """
    return {name: value for name in _field_names(type(metadata))
            if isinstance(value := getattr(metadata, name), str)}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type[MessageMetadata]) -> tuple[str, ...]:
    """The field names of the metadata class ``cls`` (``dataclasses.fields`` once, not a call)."""
    if cls not in _FIELD_NAMES:
        _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return _FIELD_NAMES[cls]


def _strings(value: Any, out: list[str]) -> None:
    """Append to ``out`` every string in ``value`` (keys too; bytes read as Latin-1)."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _strings(key, out)
            _strings(item, out)
    elif isinstance(value, list | tuple):
        for item in value:
            _strings(item, out)
    elif isinstance(value, bytes):  # an attachment's data (``redaction_bytes``)
        raw = value.decode("latin-1")
        out += [raw, nul_reading(raw).text]  # (a key in UTF-16: NULs between its characters)


def error_without_secrets(error: GoosectxError, settings: Settings) -> GoosectxError:
    """``error`` (a refused import) with this environment's secrets redacted from its line.

    A file's value quoted by a refusal (a message's role, a time, a token count's first 20
    characters) may be a secret of this environment: the line reads ``[REDACTED]`` there, as
    the lines of an import that succeeds do (:func:`redact_secrets`'s redactor; a secret's start
    left by a cut too). ``error`` is changed in place.
    """
    from goosectx.env_secrets import tool_output_redactor
    from goosectx.redaction import redact_cut_secrets

    redact = tool_output_redactor(settings)
    if not redact.secrets:
        return error

    def clean(text: str) -> str:
        return redact_cut_secrets(redact(text), redact.secrets)

    error.message = clean(error.message)
    error.hint = clean(error.hint) if error.hint is not None else None
    error.args = (error.message,)
    return error


def redact_parts(parts: list[Part], redact: Redact, *, removed: str = "at import"
                 ) -> tuple[list[Part], dict[str, int]]:
    """``parts`` with secrets redacted as an import's are, and how many of each kind changed.

    For the parts a user sends (``@`` files, extension resources): the same scrubbing, every
    string field and an attachment's bytes. An image whose bytes held a secret becomes a text
    part saying it was removed (``removed``: when, ``at import`` or ``before sending``).
    """
    found: dict[str, int] = {}
    ids = _Ids(redact, {p.id for p in parts if isinstance(p, ToolRequest | ToolResponse)})
    return [_redacted(p, redact, ids, found, removed) for p in parts], found


def _scrub_session_fields(session: Session, redact: Redact, found: dict[str, int]) -> None:
    """Scrub every field of the session but its messages, in place.

    Its id, name, title, model, working dir, metadata (keys too: two stay two), state and
    ledger's models. An id holding a secret (a goosectx export's own) is replaced by a new one.
    """
    changed = 0
    if redact(session.id) != session.id:
        session.id = new_session_id(session.created)
        changed += 1
    working_dir = str(session.working_dir)  # a goosectx export's: the source's
    if (clean_dir := redact(working_dir)) != working_dir:
        session.working_dir = Path(clean_dir)
        changed += 1
    for attr in ("name", "title", "model"):
        value = getattr(session, attr)
        if isinstance(value, str) and (clean := redact(value)) != value:
            setattr(session, attr, clean if attr != "name" else secret_free_name(clean))
            changed += 1
    items = list(session.metadata.items())
    keys = {key for key, _ in items}
    session.metadata.clear()
    for key, value in items:  # (a goosectx export's keys are the source's too)
        clean_key, clean = redact(key), _scrub(value, redact)
        while clean_key != key and (clean_key in keys or clean_key in session.metadata):
            clean_key += "_"  # two keys stay two
        session.metadata[clean_key] = clean
        changed += (clean_key, clean) != (key, value) and key != IMPORT_NOTES  # ours: not counted
    state = session.state.to_dict()  # a goosectx export's: its pause reason, model names
    if (clean_state := _scrub(state, redact)) != state:
        session.state = SessionState.from_dict(clean_state)
        changed += 1
    entries = session.ledger.entries
    for i, entry in enumerate(entries):
        if (model := redact(entry.model)) != entry.model:
            entries[i] = replace(entry, model=model)
            changed += 1
    if changed:
        found["source field"] = found.get("source field", 0) + changed  # id, model, title…


def secret_free_name(redacted: str) -> str:
    """A session name that held a secret, made a valid name: ``redacted`` for ``[REDACTED]``.

    The brackets would break the name rule (it starts with a letter or digit); the import
    then numbers it (``redacted-1``, :func:`numbered_name`).
    """
    return redacted.replace(REDACTED, "redacted")


def numbered_name(name: str, taken: set[str]) -> str:
    """``name-1``, ``name-2``, …: the first not in ``taken`` (a name that held a secret)."""
    n = 1
    while f"{name}-{n}" in taken:
        n += 1
    return f"{name}-{n}"


class _Ids:
    """Scrubbed tool-call ids: the same id always maps to the same one, never to one taken."""

    def __init__(self, redact: Redact, taken: set[str]) -> None:
        self._redact = redact
        self._taken = set(taken)
        self._given: dict[str, str] = {}

    def __call__(self, raw: str) -> str:
        if raw in self._given:
            return self._given[raw]
        clean = _plain(self._redact(raw))
        if clean == raw:
            return raw
        unique, n = clean, 1
        while unique in self._taken:
            n += 1
            unique = f"{clean}_{n}"
        self._taken.add(unique)
        self._given[raw] = unique
        return unique


def _copy_of_renamed(extra: dict[str, Any], message_ids: _Ids) -> dict[str, Any]:
    """``extra`` with its ``copy_of`` (a message id) renamed as that message is.

    (:mod:`goosectx.compaction.tail`: the copy still names the message it copies.)
    """
    copy_of = extra.get("copy_of")
    if not isinstance(copy_of, str) or message_ids(copy_of) == copy_of:
        return extra
    return {**extra, "copy_of": message_ids(copy_of)}


def _plain(text: str) -> str:
    """``text`` with each ``[REDACTED]`` written ``REDACTED`` (fit for an id or a tool name)."""
    return text.replace(REDACTED, REDACTED.strip("[]"))


def _redacted(part: Part, redact: Redact, ids: _Ids, found: dict[str, int],
              removed: str = "at import") -> Part:
    """``part`` with secrets redacted (itself when it holds none); ``found`` counts by kind.

    Every string field of every part type is scrubbed (an attachment's text, source and media
    type, a notice, a tool call's parse error too), and so is a part type added later
    (:func:`_every_string_redacted`): none is passed through unread.
    """
    if isinstance(part, ToolResponse):
        output = redact(part.output)  # (the text itself when it holds none: the common case)
        if output is part.output and part.diff is None and ids(part.id) == part.id:
            return part
        clean: Part = replace(part, output=output,
                              diff=redact(part.diff) if part.diff is not None else None)
        kind = "tool output"
    elif isinstance(part, ToolRequest):
        clean = replace(part, arguments=_scrub(part.arguments, redact),
                        raw_arguments=(redact(part.raw_arguments)
                                       if part.raw_arguments is not None else None),
                        parse_error=(redact(part.parse_error)
                                     if part.parse_error is not None else None),
                        name=_plain(redact(part.name)))
        kind = "tool call"
    elif isinstance(part, ThinkingContent):
        text = redact(part.text)
        signature = redact(part.signature) if part.signature is not None else None
        clean = (part if (text, signature) == (part.text, part.signature)
                 else replace(part, text=text, signature=None))
        kind = "reasoning part"
    elif isinstance(part, TextContent):
        text = redact(part.text)
        if text is part.text:
            return part
        clean, kind = replace(part, text=text), "text part"
    else:  # an attachment, a notice, any other part type
        clean = _every_string_redacted(part, redact)
        if isinstance(clean, Attachment) and clean.data is not None:
            clean = attachment_redacted(clean, redact, removed)
        kind = _KINDS.get(part.type, "other part")
    if isinstance(clean, ToolRequest | ToolResponse) and ids(clean.id) != clean.id:
        clean = replace(clean, id=ids(clean.id))
    if clean == part:
        return part
    found[kind] = found.get(kind, 0) + 1
    return clean


_KINDS = {"attachment": "attachment", "system_notification": "notice"}
"""How the import's note names a part of these types (``redacted in 1 attachment``)."""


def _every_string_redacted(part: Part, redact: Redact) -> Part:
    """``part`` with every string field (in lists and objects too) redacted; itself if none."""
    changed = {}
    for name in part.__dataclass_fields__:
        value = getattr(part, name)
        clean = _scrub(value, redact)
        if name != "type" and clean != value:
            changed[name] = clean
    return replace(part, **changed) if changed else part


def _scrub(value: Any, redact: Redact) -> Any:
    """A JSON value with every string (keys too) redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k): _scrub(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, redact) for v in value]
    if isinstance(value, tuple):
        return tuple(_scrub(v, redact) for v in value)
    return value
