"""The summary request: flattened history, middle-out tool-result removal, elision.

DESIGN.md §4.2(2). The agent-visible messages are flattened to lines
(:mod:`goosectx.compaction.flatten`). When the request would not fit the summariser's
window, rungs keep 100, 90, 80, 50 and 0 % of the tool results, removing them from the
middle of the list outward (goose: middle-out tool-response removal); a removed result takes
its call line with it. Past 0 %, the middle of the longest texts is elided until the request
fits, so compaction works even when the history alone is over the window; a history too long
even for that is summarised from its extractive digest and newest messages (:mod:`.digest_rung`).

Wave 2 (docs/architecture.md §5): the input is only the HEAD of the agent view; before any
result is removed, each result longer than ``summary_result_chars`` is cut to its head and tail
lines; a removed result keeps its tool-call line (``[tool] shell {…} → (result omitted)``), so
the summariser still learns what ran. The rung is chosen before calling so that request +
``max_tokens`` ≤ 95 % of the summariser's window, and ``max_tokens`` is capped by the layout
budget (≤ ¼ of the target).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from goosectx.compaction.flatten import Line, cut_lines, flatten, kept_floor_tokens
from goosectx.compaction.prompts import (
    SUMMARY_ELIDED_NOTE,
    SUMMARY_INSTRUCTIONS,
    SUMMARY_REMOVED_NOTE,
    SUMMARY_SYSTEM_PROMPT,
    SUMMARY_USER_INSTRUCTIONS,
)
from goosectx.compaction.results import (
    REMOVED_CALL_TOKENS,
    ResultLines,
    head_entries,
    middle_out_removal,
    removed_of,
    stand_in_lines,
)
from goosectx.conversation import Message, ToolResponse
from goosectx.errors import EXTRACTIVE_HINT, CompactionFailed
from goosectx.plain_record import compared_record
from goosectx.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter

__all__ = [  # cut_lines, flatten, Line and middle_out_removal are read from here too
    "DEFAULT_RESULT_CHARS", "ELISION_LEVELS", "KEEP_RUNGS_PERCENT", "MIN_ELIDED_ITEM_TOKENS",
    "REMOVED_CALL_TOKENS", "SUMMARY_OUTPUT_CAP_TOKENS", "WINDOW_MARGIN_RATIO", "Line",
    "SummaryLadder", "SummaryRequest", "cut_lines", "elide_middle", "flatten",
    "middle_out_removal", "reserved_output_tokens",
]

KEEP_RUNGS_PERCENT: tuple[int, ...] = (100, 90, 80, 50, 0)
"""Share of tool results kept at each rung, in the order tried."""
SUMMARY_OUTPUT_CAP_TOKENS = 8_000
"""The summary call never asks for more than this many output tokens."""
ELISION_LEVELS: tuple[float, ...] = (1.0, 0.75, 0.5, 0.25)
"""Past 0 %: fractions of the input budget the elided request is squeezed into, in turn."""
MIN_ELIDED_ITEM_TOKENS = 24
"""No text is elided below this many tokens."""
WINDOW_MARGIN_RATIO = 0.05
"""Request + ``max_tokens`` stays this share of the summariser's window below it."""
DEFAULT_RESULT_CHARS = 2_000
"""Tool results longer than this are cut to head and tail lines (``summary_result_chars``)."""


@compared_record  # read-only to mypy; printed nowhere (a test)
class SummaryRequest:
    """One candidate summary request.

    Attributes:
        system: System prompt.
        prompt: The single user message (flattened conversation + instructions).
        rung: ``"100%"`` … ``"0%"``, or ``"0% + elided"``.
        keep_percent: Share of tool results kept.
        removed_results: Tool results left out.
        total_results: Tool results in the agent view.
        estimate_tokens: Estimated input tokens of the request.
        max_tokens: The call's ``max_tokens``: min(output limit, 8,000, what the window leaves).
    """

    system: str
    prompt: str
    rung: str
    keep_percent: int
    removed_results: int
    total_results: int
    estimate_tokens: int
    max_tokens: int

    def messages(self) -> list[Message]:
        """The request's message list (one user message)."""
        return [Message.user(self.prompt)]


def elide_middle(text: str, keep_tokens: int, tokens: int) -> str:
    """Cut the middle of ``text`` (of ``tokens`` tokens) to about ``keep_tokens`` tokens.

    The head and tail are kept in equal parts and a marker names what was cut. Lengths are
    measured in characters at the text's own characters-per-token ratio.
    """
    if tokens <= keep_tokens:
        return text
    chars_per_token = len(text) / max(tokens, 1)
    half = max(int(keep_tokens * chars_per_token / 2), 1)
    if 2 * half >= len(text):
        return text
    return f"{text[:half]} … [{tokens - keep_tokens} tokens elided] … {text[-half:]}"


def _prompt(lines: Sequence[Line], removed: int, total: int, elided: bool,
            instructions: str | None, note: str | None = None) -> str:
    parts = ["<conversation>", *(line.text for line in lines), "</conversation>", ""]
    if note:
        parts.append(note)
    if removed:
        parts.append(SUMMARY_REMOVED_NOTE.format(removed=removed, total=total))
    if elided:
        parts.append(SUMMARY_ELIDED_NOTE)
    if instructions and instructions.strip():
        parts.append(SUMMARY_USER_INSTRUCTIONS.format(text=instructions.strip()))
    parts.append(SUMMARY_INSTRUCTIONS)
    return "\n".join(parts)


def reserved_output_tokens(context_limit_tokens: int, output_limit_tokens: int,
                           cap_tokens: int | None = None) -> int:
    """Output tokens a summary request must leave free to "fit".

    Returns:
        min(output limit, 8,000, the layout's cap, half the window), at least 1.
    """
    cap = SUMMARY_OUTPUT_CAP_TOKENS if cap_tokens is None else min(cap_tokens,
                                                                   SUMMARY_OUTPUT_CAP_TOKENS)
    return max(1, min(output_limit_tokens, cap, context_limit_tokens // 2))


class SummaryLadder:
    """The candidate summary requests for one history, in the order to try them.

    Args:
        messages: The agent-visible messages to summarise.
        counter: Token counter of the summariser's model.
        context_limit_tokens: The summariser's context window.
        output_limit_tokens: The summariser's output limit.
        instructions: Extra instructions from ``/compact`` (added to the prompt).
        max_output_tokens: The layout budget's cap on the summary (``None`` = 8,000).
        result_chars: Tool results longer than this are cut to head and tail lines.
    """

    def __init__(
        self,
        messages: Sequence[Message],
        *,
        counter: TokenCounter,
        context_limit_tokens: int,
        output_limit_tokens: int,
        instructions: str | None = None,
        max_output_tokens: int | None = None,
        result_chars: int | None = DEFAULT_RESULT_CHARS,
    ) -> None:
        self.counter = counter
        self.limit = context_limit_tokens
        self.output_limit = output_limit_tokens
        self.instructions = instructions
        self.messages = messages
        self.result_chars = result_chars
        self._lines: list[Line] | None = None  # measured at first need (:attr:`lines`)
        self._entries: list[Line | ResultLines] | None = None  # (:meth:`_head`)
        self._sums: tuple[list[str | None], list[ResultLines], list[Line],
                          dict[str | None, int], int] | None = None  # (:meth:`_over_budget`)
        self.reserve = reserved_output_tokens(context_limit_tokens, output_limit_tokens,
                                              max_output_tokens)
        self.window = int(context_limit_tokens * (1 - WINDOW_MARGIN_RATIO))
        self.fixed_tokens = (counter.count_cached_text(SUMMARY_SYSTEM_PROMPT)
                       + counter.count_cached_text(_prompt([], 1, 1, True, instructions))
                       + 2 * MESSAGE_OVERHEAD_TOKENS)

    @property
    def lines(self) -> list[Line]:
        """The flattened input, each line with its tokens (measured at first need)."""
        if self._lines is None:
            self._lines = [line for entry in self._head() for line in (entry.lines(
                self.counter, self.result_chars) if isinstance(entry, ResultLines) else (entry,))]
        return self._lines

    def _head(self) -> list[Line | ResultLines]:
        """The lines, those of each message of tool results only not measured yet."""
        if self._entries is None:
            self._entries = head_entries(self.messages, self.counter, self.result_chars)
        return self._entries

    @property
    def total_results(self) -> int:
        """Tool results in the input (each is a line of its own)."""
        if self._lines is not None:
            return sum(line.is_result for line in self._lines)
        return sum(isinstance(p, ToolResponse) for m in self.messages  # no list a message
                   if not m.metadata.is_continuation for p in m.content)

    def _cannot_fit(self) -> bool:
        """True when even the smallest candidate request is certainly over the input budget.

        Every candidate keeps each line that is not a tool result, with no fewer tokens than
        ``min(its tokens, MIN_ELIDED_ITEM_TOKENS)`` (an elided line's floor): when those floors
        alone, sized as :func:`~goosectx.compaction.flatten.measured_message` sizes the lines,
        exceed the budget, no rung fits and no elision makes one fit, so the history is not
        flattened at all. The sum stops once past the budget; ``False`` when a message has
        no stored count, and at once when the parts are too few for their floors to pass it
        (a part makes one line at most).
        """
        room = self.input_budget_tokens - self.fixed_tokens
        if MIN_ELIDED_ITEM_TOKENS * sum(len(m.content) for m in self.messages) <= room:
            return False
        floor = 0
        for m in self.messages:
            if m.metadata.is_continuation:
                continue
            tokens = kept_floor_tokens(m, self.counter, MIN_ELIDED_ITEM_TOKENS)
            if tokens is None:
                return False
            floor += tokens  # (0 for tool results only: no line every request keeps)
            if floor > room:
                return True
        return False

    @property
    def input_budget_tokens(self) -> int:
        """Most input tokens a request may have and still fit (95 % of the window − reserve)."""
        return self.window - self.reserve

    def instructions_over(self) -> int | None:
        """The instructions' tokens when they alone leave no room for the conversation.

        That is when the request with no conversation line at all is over the input budget;
        ``None`` otherwise (or without instructions).
        """
        if not (self.instructions and self.instructions.strip()) or (
                self.fixed_tokens < self.input_budget_tokens):
            return None
        return self.counter.count_text(self.instructions)

    def _approx(self, lines: Sequence[Line]) -> int:
        return self.fixed_tokens + sum(line.tokens for line in lines)

    def _over_budget(self, keep: int, budget: int) -> bool:
        """``_approx(middle_out_removal(self.lines, keep)[0]) > budget``, from sums.

        The lines every rung keeps, the call lines of the removed results, then the results
        kept, measured until the sum passes the budget — those every rung keeps first, in
        order (their outputs are read in order): a rung over it reads few outputs to tell.
        """
        if self._sums is None:
            ids: list[str | None] = []
            groups: list[ResultLines] = []
            measured: list[Line] = []  # the results of a message with other lines
            calls: dict[str | None, int] = {}  # the other lines by tool id; their tokens:
            others = 0
            for entry in self._head():
                if isinstance(entry, ResultLines):
                    groups.append(entry)
                    ids += entry.ids
                elif entry.is_result:
                    ids.append(entry.tool_id)
                    measured.append(entry)
                else:
                    others += entry.tokens
                    calls[entry.tool_id] = calls.get(entry.tool_id, 0) + 1
            fewest = removed_of(ids, KEEP_RUNGS_PERCENT[-2])[0]  # what the last rung removes
            groups.sort(key=lambda g: any(i in fewest for i in g.ids))  # (stable: in order)
            self._sums = ids, groups, measured, calls, others
        ids, groups, measured, calls, others = self._sums
        removed = removed_of(ids, keep)[0]
        room = (budget - self.fixed_tokens - others
                - REMOVED_CALL_TOKENS * sum(calls.get(i, 0) for i in removed)
                - sum(line.tokens for line in measured if line.tool_id not in removed))
        for group in groups:
            if room < 0:
                return True
            if not all(i in removed for i in group.ids):
                room -= sum(tokens for i, tokens in group.tokens(self.counter,
                                                                 self.result_chars)
                            if i not in removed)
        return room < 0

    def build(self, lines: Sequence[Line], keep: int, removed: int, total: int,
              elided: bool, *, note: str | None = None, rung: str | None = None,
              ) -> SummaryRequest:
        """The request of ``lines``, counted exactly; ``note`` goes before the instructions."""
        prompt = _prompt(lines, removed, total, elided, self.instructions, note)
        estimate = (self.counter.count_cached_text(SUMMARY_SYSTEM_PROMPT)
                    + self.counter.count_kept_text(prompt) + 2 * MESSAGE_OVERHEAD_TOKENS)
        max_tokens = max(1, min(self.reserve, self.window - estimate))
        rung = rung or f"{keep}%" + (" + elided" if elided else "")
        return SummaryRequest(SUMMARY_SYSTEM_PROMPT, prompt, rung, keep, removed, total,
                              estimate, max_tokens)

    def first(self) -> SummaryRequest | None:
        """The request to try first (the plan ``--dry-run`` shows), or ``None`` if none fits."""
        return next(iter(self), None)

    def __iter__(self) -> Iterator[SummaryRequest]:
        """Yield candidate requests, in the order to try them.

        First the first rung whose estimate fits and every later rung that removes more, then
        elided requests squeezed into shrinking budgets, each smaller than the one before.
        """
        budget = self.input_budget_tokens
        if self._lines is None and self._cannot_fit():
            return
        started = False
        last_estimate: int | None = None
        lines_at_zero: list[Line] = []
        removed = total = 0
        last_removed: int | None = None
        for keep in KEEP_RUNGS_PERCENT:
            last_rung = keep == KEEP_RUNGS_PERCENT[-1]
            if not started and not last_rung and self._over_budget(keep, budget):
                continue  # does not fit: its lines are not built
            lines_all = (stand_in_lines(self._head()) if last_rung and self._lines is None
                         else self.lines)  # (the last rung keeps no result)
            lines, removed, total = middle_out_removal(lines_all, keep)
            lines_at_zero = lines
            if not started and self._approx(lines) > budget:
                continue
            if removed == last_removed:
                continue  # removes nothing more (e.g. no tool results): the same request again
            started = True
            last_removed = removed
            request = self.build(lines, keep, removed, total, elided=False)
            last_estimate = request.estimate_tokens
            yield request
        for level in ELISION_LEVELS:
            target = int(budget * level)
            elided = self.elide(lines_at_zero, target)
            if elided is None:
                return
            request = self.build(elided, 0, removed, total, elided=True)
            if last_estimate is not None and request.estimate_tokens >= last_estimate:
                continue
            if request.estimate_tokens > budget:
                continue
            last_estimate = request.estimate_tokens
            yield request

    def elide(self, lines: Sequence[Line], target_tokens: int) -> list[Line] | None:
        """Cap every line at the largest token count under which the request fits.

        Returns ``None`` when even the smallest cap does not fit ``target_tokens``.
        """
        sizes = [line.tokens for line in lines]
        room = target_tokens - self.fixed_tokens
        if not sizes or room <= 0:
            return None
        if sum(sizes) <= room:
            return list(lines)
        floor_total = sum(min(s, MIN_ELIDED_ITEM_TOKENS) for s in sizes)
        if floor_total > room:
            return None
        lo, hi = MIN_ELIDED_ITEM_TOKENS, max(sizes)
        while lo < hi:  # largest cap with sum(min(size, cap)) <= room
            mid = (lo + hi + 1) // 2
            if sum(min(s, mid) for s in sizes) <= room:
                lo = mid
            else:
                hi = mid - 1
        cap = lo
        for _ in range(8):  # character-based cuts are approximate: re-measure and tighten
            out: list[Line] = []
            for line, size in zip(lines, sizes, strict=True):
                if size > cap:
                    text = elide_middle(line.text, cap - 12, size)
                    line = Line(text, line.tool_id, line.is_result,
                                self.counter.count_text(text) + 1)
                out.append(line)
            if self._approx(out) <= target_tokens:
                return out
            cap = max(MIN_ELIDED_ITEM_TOKENS, int(cap * 0.85))
        return None


TOO_LARGE = "even with every tool result removed and long texts elided it is too large"


NO_RUNG_HINT = (f"{EXTRACTIVE_HINT} (a summary built from the transcript, no model call), or "
                "set compaction_model to a model with a larger context window")
"""What works when no summary request fits: the extractive summary fits any window."""


def no_rung_fits(limit: int, model: str, why: str = TOO_LARGE, *,
                 instructions_tokens: int | None = None) -> CompactionFailed:
    """The refusal when no summary request fits ``model``'s ``limit``-token context window.

    ``instructions_tokens``: the instructions alone are too large
    (:meth:`SummaryLadder.instructions_over`), the fix is to shorten them. Here, beside the
    ladder, so a dry run that refuses says it without importing the summariser
    (:mod:`.summarize`: ~7 ms of imports).
    """
    fits_not = f"the summary request does not fit the {limit:,}-token context window of {model}"
    if instructions_tokens is not None:
        return CompactionFailed(
            f"{fits_not}: the instructions alone are ~{instructions_tokens:,} tokens, more "
            "than the request may hold", "shorten the instructions (--instructions, or the "
            "text after /compact)")
    return CompactionFailed(f"{fits_not}: {why}", NO_RUNG_HINT)
