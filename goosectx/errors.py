"""The error tree.

Every error goosectx raises on purpose derives from :class:`GoosectxError`. Errors a user can
fix carry a ``hint`` (the exact fix) and an ``exit_code``; the CLI prints them as one line
without a traceback. Anything else is a bug and shows its traceback.
"""

from __future__ import annotations

import errno


class GoosectxError(Exception):
    """Root of goosectx's own errors.

    Attributes:
        message: What is wrong, one line.
        hint: The fix, one line, or ``None``.
        exit_code: Process exit code when this error ends a command.
        kind: What went wrong, as a short phrase the model is told (the calls of a reply a
            turn this error ended never reached: ``turn.error_not_started_text``).
    """

    exit_code: int = 1
    kind: str = "an error"

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """Return ``message`` and ``hint`` joined into the single line the CLI prints.

        A message ending with periods (a provider's sentence) loses them before the `` — ``.
        """
        return f"{clause(self.message)} — {self.hint}" if self.hint else self.message


def clause(text: str) -> str:
    """``text`` without its final periods and spaces, to be followed by more of a line."""
    return text.rstrip(". ")


def is_disk_full(exc: OSError) -> bool:
    """True when ``exc`` says the disk (or the user's quota) has no space left."""
    return exc.errno in (errno.ENOSPC, errno.EDQUOT)


class ConfigError(GoosectxError):
    """A bad configuration value, environment variable or config file (exit code 2)."""

    kind = "a configuration error"

    exit_code = 2


class UsageError(GoosectxError):
    """A bad command-line argument or combination (exit code 2)."""

    exit_code = 2


class StoreError(GoosectxError):
    """The session database cannot be opened, read or written."""

    kind = "the session store failed"


class DataDirUnusable(StoreError, ConfigError):
    """The data dir (GOOSECTX_HOME) cannot be created or is not a directory.

    A configuration error (exit code 2), and a store error for the code that opens the store.
    """

    exit_code = 2


class StoreTooNew(StoreError):
    """The session database was made by a newer goosectx (exit code 2); it is left untouched."""

    exit_code = 2


class StoreCorrupt(StoreError):
    """The session database file is not a usable goosectx database; it is left untouched."""


class SessionNotFound(StoreError):
    """No session matches the given name, id or id prefix: a bad SESSION argument (exit 2).

    Attributes:
        suggestion: The one session name or id close to what was typed (``did you mean``),
            or ``None``; a front end that words its own hint (the REPL's ``/resume``) uses it.
    """

    exit_code = 2

    def __init__(self, message: str, hint: str | None = None,
                 suggestion: str | None = None) -> None:
        super().__init__(message, hint)
        self.suggestion = suggestion


class SessionAmbiguous(StoreError):
    """An id prefix matches more than one session: a bad SESSION argument (exit 2)."""

    exit_code = 2


class SessionNameTaken(StoreError):
    """A new session was given a name another session already has: a bad ``--name`` (exit 2).

    Not :class:`SessionInUse` (exit 1): the same command works once the other process ends.
    """

    exit_code = 2


class SessionInUse(StoreError):
    """Another live process holds the lock on this session."""


class CompactionFailed(GoosectxError):
    """A compaction could not produce a summary; the history was left untouched."""

    kind = "a compaction failed"


class CompactionCancelled(GoosectxError):
    """Ctrl-C (or SIGTERM / SIGHUP: ``exit_code`` 143 / 129) before a compaction was saved.

    ``what`` names it: ``compaction``, or ``undo`` for ``goosectx compact SESSION --undo``.
    """

    def __init__(self, exit_code: int, by: str | None, what: str = "compaction") -> None:
        super().__init__(f"{what} cancelled ({by or 'Ctrl-C'}); the session is unchanged")
        self.exit_code = exit_code


class ImportStopped(GoosectxError):
    """Ctrl-C (or SIGTERM / SIGHUP: ``exit_code`` 143 / 129) during ``sessions import``.

    ``saved``: the ids of the sessions it had saved, all of them (an interrupt once the import
    was complete); an import stopped before that saved nothing.
    """

    def __init__(self, exit_code: int, by: str | None, source: str,
                 saved: list[str] | None = None) -> None:
        if saved:
            what = ", ".join(saved[:6]) + (f" and {len(saved) - 6} more" if len(saved) > 6
                                           else "")
            super().__init__(f"import stopped ({by or 'Ctrl-C'}) after {source} was saved "
                             f"whole: {what}")
        else:
            super().__init__(f"import stopped ({by or 'Ctrl-C'}): nothing was saved from "
                             f"{source}")
        self.exit_code = exit_code


class ExportStopped(GoosectxError):
    """Ctrl-C (or SIGTERM / SIGHUP: ``exit_code`` 143 / 129) during ``sessions export``."""

    def __init__(self, exit_code: int, by: str | None, output: str | None) -> None:
        by = by or "Ctrl-C"
        super().__init__(f"export stopped ({by}): {output} was left as it was" if output else
                         f"export stopped ({by}): what standard output got is incomplete")
        self.exit_code = exit_code


class CostCapReached(GoosectxError):
    """A model call would pass the session's spending cap (``max_cost_usd``); it was not made."""

    kind = "the spending cap was reached"


class NothingToUndo(GoosectxError):
    """``/undo-compact`` / ``compact --undo`` found no compaction to walk back (nothing changed)."""


class CompactionWouldGrow(CompactionFailed):
    """The compacted view would not be smaller than the one it replaces: nothing changed.

    Attributes:
        tokens_before: ``current`` (tokens): the figure a compaction line starts from.
        tokens_after: Calibrated estimate of the request the compaction would have left, at
            least ``tokens_before`` plus the estimated change (``at_least``: measured with an
            empty summary, before any summary call).

    ``messages``: (now, after) tokens of the model's messages when those would not get
    smaller: the figures the message gives (``tokens_before`` may be the context limit, the
    floor of a request the provider refused as too long, which is no size of the context).
    """

    def __init__(self, tokens_before: int, tokens_after: int, *, at_least: bool = False,
                 messages: tuple[int, int] | None = None) -> None:
        bound = "at least " if at_least else ""
        if messages is not None:  # the model's messages would not get smaller
            effect = "not shrink the model's messages"
            change = (f"{effect} ({messages[0]:,} tokens now, "
                      f"{bound}{messages[1]:,} with the summary)")
        elif tokens_after > tokens_before:
            effect = "grow the context"
            change = f"{effect} from {tokens_before:,} to {bound}{tokens_after:,} tokens"
        else:
            effect = "not shrink the context"
            change = f"{effect} ({tokens_before:,} tokens)"
        super().__init__(f"compaction would {change}; nothing changed",
                         "the model's view is already about as small as a summary of it")
        self.tokens_before = tokens_before
        self.tokens_after = tokens_after
        self.change = change
        """What the compaction would do to the context, e.g. ``grow the context from … tokens``."""
        self.effect = effect
        """:attr:`change` without its figures, e.g. ``grow the context`` (a transcript's line
        gives its own figures)."""


EXTRACTIVE_HINT = "use --strategy extractive"
"""What works when a model summary does not: the extractive summary (``goosectx compact``'s
option; the REPL names its own, ``/compact --extractive``)."""


class SummaryOverBudget(CompactionWouldGrow):
    """A refused compaction whose cause is the model's summary, far over its budget.

    The view is not small: a summary within its budget would have shrunk it, so the refusal
    names the summary and suggests another try instead of the "already about as small" hint.
    """

    def __init__(self, growth: CompactionWouldGrow, summary_tokens: int,
                 budget_tokens: int, *, stopped_at: tuple[int, int] | None = None) -> None:
        super().__init__(growth.tokens_before, growth.tokens_after)
        stopped = stopped_at is not None
        chars, per_token = stopped_at or (0, 0)
        self.change = (f"passed {chars:,} characters, twice its budget of "
                       f"{budget_tokens:,} tokens at {per_token} characters a token, and was "
                       f"stopped there ({summary_tokens:,} tokens)") if stopped else growth.change
        """What the summary did. ``stopped_at``: the characters past which its reply was
        stopped (twice its budget, counted in characters: the tokens read may be only a little
        over the budget, so they are not called far over it) and the characters counted as a
        token for that cut (:data:`goosectx.compaction.summarize.STOP_CHARS_PER_TOKEN`)."""
        self.message = (f"the model's summary {self.change}; nothing changed" if stopped else
                        f"the model's summary ({summary_tokens:,} tokens) was far over its "
                        f"budget of {budget_tokens:,}; nothing changed")
        self.hint = f"try again, or {EXTRACTIVE_HINT}"
        self.args = (self.message,)


class ImportFormatError(GoosectxError):
    """A transcript file cannot be imported (unknown format or broken record): exit 2."""

    exit_code = 2


class ProviderError(GoosectxError):
    """Base for errors from the model provider, translated at the adapter."""

    kind = "the model's provider failed"


class ContextLengthExceeded(ProviderError):
    """The provider rejected the request because it does not fit the context window."""

    kind = "the request did not fit the context window"


class RateLimited(ProviderError):
    """The provider kept answering 429 after the bounded retries."""

    kind = "the provider's rate limit was reached"


class AuthFailed(ProviderError):
    """The provider rejected the API key, or none was configured."""

    kind = "the API key was refused or missing"


class ProviderUnavailable(ProviderError):
    """The provider could not be reached or kept failing (5xx, timeouts) after retries."""

    kind = "the provider could not be reached"


class MissingApiKey(AuthFailed):
    """The model's API key variable is not set: a configuration problem (exit code 2)."""

    exit_code = 2


class ModelNotConfigured(ProviderError):
    """No model is configured (exit code 2)."""

    exit_code = 2


class MalformedModelReply(ProviderError):
    """The provider's reply could not be understood."""
