"""The session value: one conversation with its usage ledger and per-session state."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goosectx.conversation import Conversation, Message
from goosectx.lazy_pattern import LazyPattern
from goosectx.plain_record import compared_record, mutable_record, value_record
from goosectx.usage import UsageLedger

if TYPE_CHECKING:  # an import's messages only: a command that loads a session never needs it
    from goosectx.stored_message import StoredMessage

SESSION_ID = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
"""What a session id may be: it becomes a file name (``locks/<id>.lock``), so no ``/``, no
``..``, no dot at all, at most 64 characters. Names never become paths and stay free text."""


def valid_session_id(value: object) -> bool:
    """True when ``value`` is a string matching :data:`SESSION_ID` as a whole."""
    return isinstance(value, str) and SESSION_ID.fullmatch(value) is not None


SHORTEST_REDACTED = 8
"""No redaction changes a text shorter than this, characters: a name shorter is shown as is.

The shortest secret redacted is :data:`goosectx.secret_names.MIN_SECRET_CHARS` long, and so
is each form of one (:func:`goosectx.redaction.encodings`); a form matched in a text spans at
least as many of its characters (each character written as it is or longer: percent-encoded,
a backslash escape, a list item, terminal escapes between), a key's run at least
:data:`goosectx.redaction_fragments.FRAGMENT_MIN_CHARS`. Not imported from there: that is
the redaction's modules, a few ms a command that shows a short name never needs
(tests/test_session_name_short.py derives the bound from those constants).
"""

NAME_MAX_CHARS = 64
"""The longest name a new session takes, characters (as long as an id may be)."""


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a new session, or ``None`` when it can.

    A name is shown on one line (``sessions list``, the resume hint) and typed as an
    argument (``--resume NAME``, ``sessions show NAME``), so it must not be empty or blank,
    longer than :data:`NAME_MAX_CHARS`, hold a control, format or line-separator character
    (a newline, a tab, a bidi override; a zero-width joiner in an emoji is fine) or a
    character that looks blank but is no space (a Hangul filler, a no-break space:
    :data:`goosectx.blank_chars.BLANK_LOOKING`), start with
    ``-``, start or end with a space, or start with anything but a letter or digit (README:
    ``[bad]name`` is refused). Names made before this check still load, list and resume.
    """
    if not name.strip():
        return "is empty"
    if len(name) > NAME_MAX_CHARS:
        return f"is {len(name):,} characters long (at most {NAME_MAX_CHARS})"
    import unicodedata  # here: only a name being given is checked (compact never loads it)

    from goosectx.blank_chars import BLANK_LOOKING

    for char in name:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") and char != "\u200d":
            return f"holds a control character ({ascii(char)[1:-1]})"
        if ord(char) in BLANK_LOOKING:
            return (f"holds U+{ord(char):04X}, which looks blank but is no space (invisible "
                    "in the list, impossible to type)")
    if name.startswith("-"):
        return "starts with '-' (it would read as an option)"
    if name != name.strip():
        return "starts or ends with a space (invisible in the list, easy to mistype)"
    if not name[0].isalnum():
        return f"starts with {name[0]!r}, not a letter or digit"
    return None


def new_session_id(now: datetime | None = None) -> str:
    """Return a short, unique, sortable id: ``YYYYMMDD_HHMMSS_xxxx`` (UTC, 4 random hex)."""
    now = now or datetime.now(UTC)
    import secrets  # here: reading sessions (show, export) makes no id

    return now.strftime("%Y%m%d_%H%M%S_") + secrets.token_hex(2)


TITLE_MAX_CHARS = 72
"""A title longer than this is cut and ends with ``…``."""


def title_from_text(text: str) -> str | None:
    """A session title made of ``text``, or ``None`` when it has no words.

    Its first non-blank line that says something, whitespace collapsed, at most
    :data:`TITLE_MAX_CHARS` characters: a Markdown heading ending with ``:`` labels what
    follows (Codex's "# Context from my IDE setup:" / "## My request for Codex:") and a
    "/NAME is running…" line is a command's echo (Claude Code), so the next line is taken,
    or the first when there is nothing else. No model call.
    """
    lines = [flat for line in text.splitlines() if (flat := " ".join(line.split()))]
    if not lines:
        return None
    said = [line for line in lines if not _LABEL_LINE.fullmatch(line)]
    line = (said or lines)[0]
    return line if len(line) <= TITLE_MAX_CHARS else line[:TITLE_MAX_CHARS - 1] + "…"


_LABEL_LINE = LazyPattern(r"#{1,6} .*:|/[\w:.-]+ is running…?(\.\.\.)?")
"""A line :func:`title_from_text` passes over: a heading ending with ``:``, a command's echo."""


def request_title(message: Message | StoredMessage) -> str | None:
    """The title a session gets from ``message`` when it is its first user request.

    A user request is user text the user wrote and saw (a tool result, a summary, an
    imported harness text or a local ``!command`` does not count); see
    docs/architecture.md §8 (migration 4).
    """
    if (message.role != "user" or not message.metadata.user_visible
            or message.metadata.is_summary or message.metadata.extra.get("source_kind")):
        return None
    return title_from_text(message.text)


def first_request_title(messages: Iterable[Message | StoredMessage]) -> str | None:
    """The title of the first message that is a user request (:func:`request_title`).

    A request that is only label lines (a Claude Code console copy's first prompt is often
    the echo "/hi is running…" alone) is passed over for the next one; it titles the session
    only when no later request says anything.
    """
    echo: str | None = None
    for message in messages:
        title = request_title(message)
        if title is None:
            continue
        if not _only_labels(message.text):
            return title
        echo = echo or title
    return echo


def _only_labels(text: str) -> bool:
    """Every non-blank line of ``text`` is one :func:`title_from_text` passes over."""
    return all(_LABEL_LINE.fullmatch(flat) for line in text.splitlines()
               if (flat := " ".join(line.split())))


CALIBRATION_BOUNDS = (0.25, 8.0)
"""The provider ÷ estimate ratios calibration keeps (``compaction/calibration.py``): one
outside them is a mismatch, never recorded, and a stored one (an imported file) is dropped."""
CALIBRATION_WINDOW = 15
"""Newest ratios kept per model (calibration's median is taken over them); a stored list that
holds more (an imported file) is cut to its newest."""


@value_record  # compared (an import's round trip) and printed (a failing test)
class SessionState:
    """Per-session state that survives a restart (stored as the session's ``state_json``).

    Attributes:
        auto_compaction_paused: Set when the provider's next report showed a compaction did
            not work (docs/architecture.md §5, "Judged by the next report"), or by an undo;
            lifted by a manual compaction or ``/clear``.
        paused_by_undo: The pause was set by undoing a compaction (``/undo-compact``), not by
            a report; the displays word the pause after it. Lifted with the pause.
        pause_reason: Why auto-compaction paused, as its notice said it (the cause clause,
            e.g. the fixed part alone fills the window); ``""`` when not paused, for a pause
            by an undo, or a session saved before it was kept. Lifted with the pause.
        judge_input_tokens: The provider-reported input that triggered the last automatic
            compaction, until the next report judges it; ``None`` when nothing is pending.
        growth_base_tokens: ``current`` after the last automatic compaction (then the first
            report after it): the growth guard measures from here; ``None`` when none ran.
        compaction_failures: Consecutive failed compaction attempts (3 → extractive only).
        calibration: Per model, the newest ratios of provider-reported input ÷ our estimate
            of the same request (the running median is applied to every estimate).
        report_fixed_tokens: Raw estimate of the fixed part (system prompt with project
            instructions, tool schemas) of the request the stored provider report covered,
            saved with the report: ``current`` adds the change of that part since
            (docs/architecture.md §5); ``None`` when ``current`` is no report, or for a
            session saved before it was kept (its report is then taken as it is).
        stated_limits: Per model, the context window its server stated when it rejected a
            request as too long, with the configured limit it replaced and where that came
            from: ``[stated, configured, kind]`` (``configured`` 0 when unknown; ``kind`` 0
            default or model info, 1 ``GOOSE_CONTEXT_LIMIT``, 2 the config file; a session
            saved before kinds were kept has 0). Used on resume while the configured limit
            is the same (:mod:`goosectx.compaction.stated_limit`).
        context_figure: ``[tokens, is_estimate, messages]``: the ``current`` figure the
            toolbar and ``/context`` last showed (``ContextFigures.note_figure``;
            ``is_estimate`` 0 or 1) and how many messages the session held then. ``sessions
            list`` shows it without loading the session, while the stored session still holds
            that many messages (else it says the figure is unknown); ``None``: not measured
            since the session was saved by a goosectx that did not keep it.
        chosen_model: The model last chosen with ``/model`` in this session, resumed on below
            ``--model`` and ``GOOSE_MODEL`` (``cli/model_choice.py``); ``None``: not chosen.
    """

    auto_compaction_paused: bool = False
    paused_by_undo: bool = False
    pause_reason: str = ""
    judge_input_tokens: int | None = None
    growth_base_tokens: int | None = None
    compaction_failures: int = 0
    calibration: dict[str, list[float]] = field(default_factory=dict)
    report_fixed_tokens: int | None = None
    stated_limits: dict[str, list[int]] = field(default_factory=dict)
    context_figure: list[int] | None = None
    chosen_model: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"auto_compaction_paused": self.auto_compaction_paused,
                "paused_by_undo": self.paused_by_undo,
                "pause_reason": self.pause_reason,
                "judge_input_tokens": self.judge_input_tokens,
                "growth_base_tokens": self.growth_base_tokens,
                "compaction_failures": self.compaction_failures,
                "calibration": {k: list(v) for k, v in self.calibration.items()},
                "report_fixed_tokens": self.report_fixed_tokens,
                "stated_limits": {k: list(v) for k, v in self.stated_limits.items()},
                "context_figure": (None if self.context_figure is None
                                   else list(self.context_figure)),
                **({"chosen_model": self.chosen_model} if self.chosen_model else {})}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionState:
        """Inverse of :meth:`to_dict`; unknown keys and malformed values are ignored."""
        def opt_int(key: str) -> int | None:
            value = data.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        raw = data.get("calibration")
        calibration: dict[str, list[float]] = {}
        low, high = CALIBRATION_BOUNDS  # a ratio outside them was never recorded (an import)
        if isinstance(raw, dict):
            for model, ratios in raw.items():
                if isinstance(model, str) and isinstance(ratios, list):
                    calibration[model] = [
                        float(r) for r in ratios if isinstance(r, int | float)
                        and not isinstance(r, bool) and low <= r <= high
                    ][-CALIBRATION_WINDOW:]
        stated: dict[str, list[int]] = {}
        raw_stated = data.get("stated_limits")
        if isinstance(raw_stated, dict):
            for model, pair in raw_stated.items():
                if (isinstance(model, str) and isinstance(pair, list) and len(pair) in (2, 3)
                        and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
                                for n in pair) and pair[0] > 0):
                    stated[model] = [int(n) for n in pair] + [0] * (3 - len(pair))
        figure = data.get("context_figure")
        if not (isinstance(figure, list) and len(figure) == 3 and all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in figure)):
            figure = None
        return cls(auto_compaction_paused=bool(data.get("auto_compaction_paused", False)),
                   paused_by_undo=bool(data.get("paused_by_undo", False)),
                   pause_reason=(reason if isinstance(reason := data.get("pause_reason"), str)
                                 else ""),
                   judge_input_tokens=opt_int("judge_input_tokens"),
                   growth_base_tokens=opt_int("growth_base_tokens"),
                   compaction_failures=opt_int("compaction_failures") or 0,
                   calibration=calibration,
                   report_fixed_tokens=opt_int("report_fixed_tokens"),
                   stated_limits=stated, context_figure=figure,
                   chosen_model=(chosen if isinstance(chosen := data.get("chosen_model"), str)
                                 and chosen.strip() else None))


@compared_record  # read-only to mypy; printed nowhere (a test)
class TokenCount:
    """A message's stored raw token count (docs/architecture.md §8, migration 2).

    Attributes:
        count: Tokens of the message's text (``tokens.message_text_for_count``), without the
            per-message overhead.
        encoding: The tiktoken encoding name the count was made with (e.g. ``o200k_base``);
            a count made with another encoding than the counter's must be recounted.
        parts: How many parts the counted message had (in memory only, not stored): a copy
            with another number of parts under the same id (a message repair merged with
            the next one, or trimmed) is not that message and is counted on its own.
    """

    count: int
    encoding: str
    parts: int | None = field(default=None, compare=False)


UNKNOWN_TIME = datetime(1970, 1, 1, tzinfo=UTC)
"""The stand-in for a stored session time that does not parse (``Session.damaged_times``)."""


@mutable_record  # compared, printed nowhere (a test)
class Session:
    """A saved session.

    Attributes:
        id: Short sortable id (:func:`new_session_id`).
        name: Unique name, or ``None``.
        working_dir: Directory tools run in.
        model: Model the session last used, or ``None``.
        created: Creation time (UTC).
        updated: Last change (UTC).
        conversation: Every message, visible or not.
        ledger: Billed calls and the ``current`` figure.
        state: Per-session state.
        metadata: Extra facts, e.g. an imported session's ``system_prompt`` and ``source``.
        token_counts: Stored raw token counts by message id, for messages already counted
            (filled by ``SessionStore.load``; messages not yet counted are absent).
        title: A short title (the first user request), or ``None`` (migration 3).
        source: Where the session came from: ``None`` for one made here, else the import
            format (``claude-code``, ``goosectx``, …) (migration 3).
        import_hash: SHA-256 of the imported content, so a second import of the same file is
            refused (migration 3); ``None`` for a session made here.
        approval_mode: The approval mode last chosen with ``/mode`` in this session, restored
            on resume below ``--mode`` and ``GOOSE_MODE`` (migration 3); ``None``: not chosen.
        damaged_times: ``created`` / ``updated`` when the stored time did not parse (read for
            export and show only): that field holds :data:`UNKNOWN_TIME`, shown as ``?``.
        stored_messages: An import's messages, those read in their stored form
            (:class:`~goosectx.stored_message.StoredMessage`) among the others, in order; when
            set, ``conversation`` is empty and ``SessionStore.save_new_session`` saves these.
            ``None`` for every other session.
    """

    id: str
    name: str | None
    working_dir: Path
    model: str | None
    created: datetime
    updated: datetime
    conversation: Conversation = field(default_factory=Conversation)
    ledger: UsageLedger = field(default_factory=UsageLedger)
    state: SessionState = field(default_factory=SessionState)
    metadata: dict[str, Any] = field(default_factory=dict)
    token_counts: dict[str, TokenCount] = field(default_factory=dict)
    title: str | None = None
    source: str | None = None
    import_hash: str | None = None
    approval_mode: str | None = None
    damaged_times: tuple[str, ...] = field(default=(), compare=False)
    stored_messages: list[Message | StoredMessage] | None = field(default=None, compare=False,
                                                                   repr=False)

    @property
    def display_name(self) -> str:
        """The name, else the id: a secret the process knows in the name reads ``redacted``.

        A name stored before names were redacted (an older goosectx) may hold a key; each
        notice that names the session draws it so
        (:func:`goosectx.env_secrets.tool_output_redactor`, as a tool output is).
        """
        if not self.name:
            return self.id
        if len(self.name) < SHORTEST_REDACTED:
            return self.name  # (no redactor needed: its modules and set-up are ~4 ms)
        from goosectx.env_secrets import tool_output_redactor
        from goosectx.redaction import REDACTED

        return tool_output_redactor()(self.name).replace(REDACTED, "redacted")

    def note_context_figure(self, tokens: int, is_estimate: bool) -> None:
        """Keep ``tokens`` as :attr:`SessionState.context_figure`, for the messages held now."""
        held = (len(self.stored_messages) if self.stored_messages is not None
                else len(self.conversation.messages))
        self.state.context_figure = [max(0, tokens), int(is_estimate), held]
