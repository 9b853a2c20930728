"""What the REPL's informational commands print.

The banner, ``/help``, ``/usage``, ``/context`` and the "no model configured" panel. Pure:
each function returns text or a rich renderable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich import box
from rich.console import Group
from rich.text import Text

from goosectx import __version__
from goosectx.cli.path_fit import PathNote
from goosectx.cli.prompt import NEWLINE_KEY_HELP
from goosectx.cli.sanitize import one_line_safe, terminal_safe
from goosectx.cli.surface import safe_text
from goosectx.cli.toolbar import ContextFigure
from goosectx.cli.words import plural
from goosectx.compaction.calibration import apply
from goosectx.compaction.decide import FIXED_PART_CAUSE
from goosectx.config import Settings
from goosectx.errors import GoosectxError, ModelNotConfigured
from goosectx.session import Session
from goosectx.usage import (
    COST_UNKNOWN,
    NOT_REPORTED,
    CallPurpose,
    UsageLedger,
    format_cap_usd,
    format_cost_usd,
)

if TYPE_CHECKING:
    from rich.table import Table

    from goosectx.cli.slash import CommandInfo
    from goosectx.tokens import ContextBreakdown

KEYS_HELP = (
    f"Enter sends · {NEWLINE_KEY_HELP} inserts a new line · Ctrl-C cancels a running turn "
    "or clears the line · Ctrl-R searches earlier inputs (Enter takes one, Ctrl-G gives up) · "
    "Ctrl-X Ctrl-E edits the message in your editor ($VISUAL / $EDITOR) · "
    "Ctrl-D on an empty line (or /exit) leaves · start a prompt with // to send a leading /"
)
PLAIN_KEYS_HELP = (
    "Plain mode: one line per message (a line ending in \\ continues on the next) · start a "
    "prompt with // to send a leading / · /exit, Ctrl-D or the end of input leaves"
)
"""``/help``'s key line without a terminal (no TTY, ``TERM=dumb``, ``NO_COLOR``)."""


@dataclass(frozen=True, slots=True)
class ContextFacts:
    """Everything ``/context`` and the banner say about the context window.

    Attributes:
        breakdown: Estimate of the next request by category.
        current_tokens: The ``current`` figure the trigger uses.
        current_is_estimate: Whether ``current_tokens`` is an estimate.
        limit_tokens: The context limit.
        limit_source: Where the limit came from.
        threshold_ratio: Fraction of the limit that triggers auto-compaction.
        threshold_source: Where the threshold came from.
        auto_enabled: ``0 < threshold_ratio < 1``.
        paused: Auto-compaction is paused for this session.
        manages_own_context: The model manages its own context (goosectx never compacts).
        calibration: ``estimates ×1.84, calibrated on 12 calls`` (empty: not shown).
        paused_by_undo: The pause was set by ``/undo-compact`` (worded after it).
        factor: The calibration ratio; the breakdown is in our count, the trigger's figures
            in the provider's.
    """

    breakdown: ContextBreakdown
    current_tokens: int
    current_is_estimate: bool
    limit_tokens: int
    limit_source: str
    threshold_ratio: float
    threshold_source: str
    auto_enabled: bool
    paused: bool
    manages_own_context: bool
    calibration: str = ""
    paused_by_undo: bool = False
    pause_reason: str = ""
    """Why auto-compaction paused, as the pause notice said it (``""``: not kept)."""
    factor: float = 1.0
    """The calibration ratio (provider's count ÷ ours) the estimates are scaled by."""
    instruction_files: tuple[str, ...] = ()
    """The project instruction files read (as the user would name them), in prompt order."""
    instructions_cut: tuple[str, ...] = ()
    """Those of them cut at the size cap (the model does not see their end)."""
    compacted_since_call: bool = False
    """A compaction ran since the last model call (auto-compaction waits for one first)."""
    extensions: tuple[str, ...] = ()
    """The extensions whose tools or instructions every request carries, largest first."""

    def auto_compaction_line(self) -> str:
        """When auto-compaction runs, or why it does not."""
        if self.manages_own_context:
            return "off: the model manages its own context, so goosectx never compacts"
        if not self.auto_enabled:
            return (f"off: threshold {self.threshold_ratio:g} ({self.threshold_source}) is "
                    "outside (0, 1); /compact still works")
        at = int(self.limit_tokens * self.threshold_ratio)
        line = f"at {self.threshold_ratio:.0%} of the limit = {at:,} tokens"
        b = self.breakdown
        fixed = apply(b.system_prompt + b.project_instructions + b.tool_schemas, self.factor)
        if fixed >= at and not self.pause_reason.startswith(FIXED_PART_CAUSE):
            return line + (  # every request is over the threshold before any message
                f" — it cannot help: the system prompt, project instructions and tool schemas "
                f"sent with every request alone take ~{fixed:,} tokens, and compaction "
                "shortens only the conversation. Raise auto_compact_threshold (now "
                f"{self.threshold_ratio:g}, {self.threshold_source}), use a model with a "
                "larger context window (/model), or send less with every request (project "
                "instructions" + (f", fewer extensions: /extension remove {self.extensions[0]})"
                                  if self.extensions else ")"))
        if self.paused and self.paused_by_undo:
            return line + (" — paused: a compaction was undone (it would compact the "
                           "same messages again); /compact or /clear resumes it")
        if self.paused and self.pause_reason:
            return f"{line} — paused: {self.pause_reason}"
        if self.paused:
            return line + (" — paused: the provider's report showed the last compaction did "
                           "not work; /compact or /clear resumes it")
        if self.current_tokens <= at:
            return line + f" — {at - self.current_tokens:,} tokens to go"
        over = f" — over it by {self.current_tokens - at:,} tokens"
        if self.compacted_since_call:  # the guard: none again before a model call succeeds
            return line + over + (": a compaction just ran, so the next request is sent as "
                                  "it is and the one after it compacts first")
        return line + over + ": the next request compacts first"


def banner(session: Session, *, model: str | None, mode: str, resumed: bool,
           auto_compaction: str, plain: bool = False, mode_restored: bool = False,
           model_note: str = "") -> Text:
    """The lines shown when the REPL opens.

    Nothing here may need litellm (it is still loading in the background).

    Args:
        session: The session.
        model: The model, or ``None``.
        mode: The approval mode.
        resumed: Whether the session was resumed.
        auto_compaction: When auto-compaction runs, or why not (:func:`auto_compaction_note`).
        plain: Plain mode (lines read from stdin): its hint replaces the terminal's keys.
        mode_restored: ``mode`` was restored from the session (named when not the default).
        model_note: Where ``model`` comes from, when the session's ``/model`` choice is in play
            (``cli.model_choice.ModelChoice.note``).
    """
    text = Text()
    text.append(f"goosectx {__version__}", style="bold")
    state = "resumed" if resumed else "new"
    text.append(f" · {state} session {one_line_safe(session.display_name)}", style="cyan")
    if session.name:
        text.append(f" ({session.id})", style="dim")
    restored = (" (restored from this session; /mode changes it)"
                if mode_restored and mode != Settings().mode else "")
    text.append(terminal_safe(f"\nmodel {model or 'none'}{model_note} · mode {mode}{restored} · "
                              f"auto-compaction {auto_compaction}"), style="dim")
    if plain:
        text.append("\nPlain mode: one line per message (end a line with \\ to continue it) · "
                    "/help commands · /exit, Ctrl-D or the end of input leaves", style="dim")
    else:
        text.append("\nEnter sends · Esc+Enter new line · /help commands · Ctrl-C cancels · "
                    "Ctrl-D leaves", style="dim")
    return text


def auto_compaction_note(settings: Settings, *, manages_own_context: bool,
                         paused: bool) -> str:
    """``at 80% of the context limit``, or why auto-compaction is off or paused."""
    if manages_own_context:
        return "off (the model manages its own context)"
    if not settings.auto_compaction_enabled:
        return (f"off (threshold {settings.threshold_ratio:g} from "
                f"{settings.source('threshold_ratio')} is outside (0, 1))")
    note = f"at {settings.threshold_ratio:.0%} of the context limit"
    return note + (" (paused: /compact or /clear resumes it)" if paused else "")


HELP_SUMMARY_WIDTH = 48
"""Columns ``/help`` keeps for what a command does, when the terminal has them."""


def help_table(*, plain: bool = False, width: int | None = None) -> Table:
    """The ``/help`` table: every command, then the keys (plain mode: how input is read).

    ``width``: the terminal's; a usage line longer than what leaves
    :data:`HELP_SUMMARY_WIDTH` columns for the summaries (/extension's four forms on an
    80-column terminal) wraps in its column instead of squeezing every summary.
    """
    from rich.table import Table  # (with fractions: at the first table, not the banner)

    from goosectx.cli.slash import COMMANDS  # its command values: at the first /help

    table = Table(box=box.SIMPLE, show_header=False, pad_edge=False, title_justify="left",
                  caption=PLAIN_KEYS_HELP if plain else KEYS_HELP, caption_justify="left")
    widest = None if width is None else max(20, width - HELP_SUMMARY_WIDTH)
    table.add_column("command", style="bold cyan", no_wrap=widest is None, max_width=widest)
    table.add_column("what it does")
    for info in COMMANDS:  # Text, not str: "[instructions]" is not rich markup
        table.add_row(Text(usage_string(info)), Text(info.summary))
    table.add_row(Text("!COMMAND"), Text("run a shell command yourself in the working dir (no "
                                         "model, no approval); its output joins the model's "
                                         "view"))
    table.add_row(Text("!!"), Text("run the previous !command again (!! | head appends, as in "
                                   "bash)"))
    return table


def usage_string(info: CommandInfo) -> str:
    """How a command is typed, every argument shown: ``/compact [instructions]``."""
    return f"{info.name} {info.args}".strip()


def _calls(ledger: UsageLedger, purpose: CallPurpose) -> int:
    return sum(1 for e in ledger.entries if e.purpose == purpose)


def usage_table(ledger: UsageLedger, *, figure: ContextFigure | None = None,
                cap_usd: float | None = None, cap_source: str = "max_cost_usd") -> Group:
    """The ``/usage`` table: model calls, tokens and cost by purpose, then the total.

    Compaction and tool-pair summary calls are rows of their own (DESIGN.md §2: compaction
    calls are billed and shown, never hidden).

    Args:
        ledger: The session's usage ledger.
        figure: ``current`` and the limit as the toolbar and ``/context`` show them
            (``ContextManager.current_tokens``); ``None`` leaves the line out.
        cap_usd: The spending cap (``max_cost_usd``): a line ``spent $x of the $y cap``.
        cap_source: Where the cap came from (``budget.cap_source``), named in that line.
    """
    from rich.table import Table

    table = Table(box=box.SIMPLE, title="usage (tokens)", title_justify="left")
    for name in ("", "calls", "input", "output", "total", "cost"):
        table.add_column(name, justify="left" if not name else "right")
    rows: list[tuple[str, CallPurpose]] = [
        ("replies", "reply"), ("compaction", "compaction"), ("tool-pair notes", "tool_pairs")]

    unknown = False

    def row(label: str, purpose: CallPurpose | None, style: str = "") -> None:
        nonlocal unknown
        calls = len(ledger.entries) if purpose is None else _calls(ledger, purpose)
        usage = ledger.accumulated(purpose)
        if calls and ledger.unreported(purpose) == calls:  # unknown, not 0
            table.add_row(label, f"{calls:,}", *[NOT_REPORTED] * 4, style=style)
            return
        cost = "-"
        if calls and usage.cost_usd is None:
            cost, unknown = "?", True  # said once, in the caption
        elif calls:
            cost = format_cost_usd(usage.cost_usd)
        table.add_row(label, f"{calls:,}", f"{usage.input_tokens:,}", f"{usage.output_tokens:,}",
                      f"{usage.total_tokens:,}", cost, style=style)

    for label, purpose in rows:
        row(label, purpose)
    row("total", None, style="bold")
    cached = ledger.accumulated().cache_read_tokens
    caption = []
    unreported = ledger.unreported()
    if unreported:  # README: under the table, how many calls it could not count
        caption.append(f"{plural(unreported, 'call')} reported no usage (many local servers "
                       "when streaming): not counted in these figures")
    estimated = ledger.estimated()
    if estimated:  # counted (the provider billed them), marked as ours
        caption.append(f"{plural(estimated, 'call')} stopped before its provider reported "
                       "usage: our estimate of its tokens and cost is counted")
    if unknown:
        caption.append(f"? = {COST_UNKNOWN} (no prices for this model)")
    if cached:
        caption.append(f"{cached:,} input tokens served from the provider's cache")
    if figure is not None and figure.limit_tokens:
        est = " (estimate)" if figure.is_estimate else ""
        caption.append(f"current context: {figure.current_tokens:,}{est} of "
                       f"{figure.limit_tokens:,} tokens")
    if cap_usd is not None:
        spent = sum(e.usage.cost_usd or 0.0 for e in ledger.entries)
        caption.append(f"spent {format_cost_usd(spent)} of the {format_cap_usd(cap_usd)} cap "
                       f"(set by {cap_source})"
                       + ("; ? calls not counted" if unknown else
                          "; calls that reported no usage not counted" if unreported else ""))
    # Lines below the table, not its caption: rich wraps a caption to the table's width,
    # mid-phrase ("… · current" / "context: …") even on a wide terminal.
    return Group(table, *(Text(line, style="table.caption") for line in caption))


def context_table(facts: ContextFacts) -> Group:
    """The ``/context`` table: the breakdown, the limit, the threshold and the distance."""
    from rich.table import Table

    b = facts.breakdown
    table = Table(box=box.SIMPLE, title="context window", title_justify="left",
                  show_header=False)
    table.add_column("what")
    table.add_column("tokens", justify="right")
    table.add_column("note", style="dim")

    def share(n: int) -> str:
        return f"{n / facts.limit_tokens:.1%} of limit" if facts.limit_tokens else ""

    for label, n in (("system prompt", b.system_prompt),
                     ("project instructions", b.project_instructions),
                     ("tool schemas", b.tool_schemas), ("messages", b.messages),
                     ("@ mentions", b.mentions), ("attachments", b.attachments),
                     ("summary", b.summary)):
        table.add_row(label, f"{n:,}", share(n) if label != "project instructions"
                      else _instructions_note(facts, share(n)))
    note = share(b.total)
    if facts.factor != 1.0:  # the rows are our count; current is in the provider's
        scaled = apply(b.total, facts.factor)
        note = (f"our count · ≈ {scaled:,} in the provider's (×{facts.factor:.2f})"
                + (f", {share(scaled)}" if facts.limit_tokens else ""))
    table.add_row("estimate of the next request", f"{b.total:,}", note, style="bold")
    how = "estimate" if facts.current_is_estimate else "last reported request + new messages"
    table.add_row("current (what the trigger uses)", f"{facts.current_tokens:,}", how,
                  style="bold")
    # Sources may name a model or a path: Text (never markup), made terminal-safe.
    table.add_row("context limit", f"{facts.limit_tokens:,}", safe_text(facts.limit_source))
    table.add_row("threshold", f"{facts.threshold_ratio:g}", safe_text(facts.threshold_source))
    lines = "auto-compaction " + facts.auto_compaction_line()
    if facts.calibration:
        lines += "\n" + facts.calibration
    return Group(table, safe_text(lines))  # a pause's reason may name an extension


def _instructions_note(facts: ContextFacts, share: str) -> Text | PathNote | Group:
    """The project instructions row's note: the files read (and cut), or the ones looked for.

    The files' paths are cut in the middle where the cell is narrower (:class:`PathNote`),
    so each keeps its start and its name on an 80-column terminal.
    """
    from goosectx.prompts import INSTRUCTION_FILES, MAX_INSTRUCTION_FILE_CHARS

    if facts.instruction_files:
        read = PathNote(f"{share} · from" if share else "from", facts.instruction_files)
        if not facts.instructions_cut:
            return read
        return Group(read, PathNote(f"cut at {MAX_INSTRUCTION_FILE_CHARS:,} characters:",
                                    facts.instructions_cut))
    files = (f"none found: reads {', '.join(INSTRUCTION_FILES)} from the repository root "
             "down to the working dir")
    return safe_text(f"{share} · {files}" if share else files)


def no_model_text(settings: Settings, error: GoosectxError) -> str:
    """The one panel shown when the REPL opens without a usable model."""
    config = settings.config_file
    if isinstance(error, ModelNotConfigured):
        head = "goosectx opened without a model. To talk to one, do one of:\n"
    else:
        head = (f"{error.one_line()}\n\ngoosectx cannot use this model yet. Set its key, or use "
                "another model:\n")
    return (
        head +
        "  1. A hosted model: set GOOSE_MODEL and the provider's key variable, e.g.\n"
        "       export GOOSE_MODEL=openai/gpt-4o-mini OPENAI_API_KEY=sk-...\n"
        "     (anthropic/... reads ANTHROPIC_API_KEY, gemini/... GEMINI_API_KEY, and so on)\n"
        "  2. A local OpenAI-compatible server (llama.cpp, Ollama, vLLM), in the config file\n"
        f"     {config}:\n"
        "       model = \"openai/local\"\n"
        "       [models.\"openai/local\"]\n"
        "       api_base = \"http://127.0.0.1:8080/v1\"\n"
        "Then restart goosectx (or /model NAME). Meanwhile /history, /context, /usage, "
        "/compact (extractive, no model) and /exit work."
    )
