"""Which key presses at the approval question count as an answer: one deliberate key, alone.

On the real terminal a key answers the question only when the user pressed it to answer:

* keys typed before the question was on screen never count — the REPL drops what waits in
  the terminal and in prompt-toolkit's type-ahead before drawing the key line, and keys in
  the first :data:`ANSWER_SETTLE_S` after it is drawn are dropped too (no one reads a
  question that fast: they were typed for something else);
* an answer key takes effect only when no other key follows it within
  :data:`ANSWER_SETTLE_S` — or at once when Enter follows it (``y`` Enter). A burst of keys
  ("yes please", "cancel that, use python", "all good" + Enter, a paste) is typing, not
  answering: all of it is dropped, nothing of it is sent to the model, and a one-line hint
  says to press one key.

Cancelling (Ctrl-C, Esc) and denying (Ctrl-D, with no reason asked) stay immediate: they
cannot run anything.
Claude Code and Codex guard their approval prompts against type-ahead the same way.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Any

ANSWER_SETTLE_S = 0.4
"""Quiet time around an answer key: after the question is drawn, and after the key itself."""

DROPPED_HINT = "keys typed before this question were dropped — press one key: {keys}"
TYPING_HINT = "what you typed is not an answer and was not sent — press one key: {keys}"


def keys_help(keys: list[str]) -> str:
    """``["y", "n", "a", "c"]`` as ``"y, n, a or c"``."""
    return keys[0] if len(keys) == 1 else ", ".join(keys[:-1]) + " or " + keys[-1]


class AnswerGuard:
    """Decides whether the key presses of one approval question answer it.

    Args:
        keys: The question's answer keys as the hint names them (``"y, n, a or c"``).
        dropped: Keys typed before the question were dropped (the hint says so at once).
        settle_s: See :data:`ANSWER_SETTLE_S`.
        clock: Monotonic seconds (a parameter for tests).
    """

    def __init__(self, keys: str, *, dropped: bool = False, settle_s: float = ANSWER_SETTLE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.keys = keys
        self.settle_s = settle_s
        self.clock = clock
        self.hint = DROPPED_HINT.format(keys=keys) if dropped else ""
        """The line to show under the key line ("" for none)."""
        self._guard_until = math.inf  # until the key line is drawn, no key counts
        self._quiet_until = math.inf
        self._pending: asyncio.TimerHandle | None = None
        self._pending_act: Callable[[], None] | None = None

    def drawn(self, _app: Any = None) -> None:
        """The key line is on screen (``Application(after_render=...)``; the first call counts)."""
        if self._guard_until == math.inf:
            self._guard_until = self._quiet_until = self.clock() + self.settle_s

    def press(self, app: Any, act: Callable[[], None] | None) -> None:
        """One key press: ``act`` is what the key does, ``None`` for a key that answers nothing.

        The key's ``act`` runs after :attr:`settle_s` of quiet; another key meanwhile (or a
        key too soon after the question was drawn or after other keys) drops it, shows the
        hint, and needs :attr:`settle_s` of quiet before a key counts again.
        """
        now = self.clock()
        typing = act is None or self._pending is not None or now < self._quiet_until
        self._quiet_until = now + self.settle_s
        if act is not None and not typing:
            self._pending = asyncio.get_running_loop().call_later(
                self.settle_s, self._settled, app, act)
            self._pending_act = act
            return
        if self._pending is not None:
            self._pending.cancel()
            self._pending = self._pending_act = None
        early = now < self._guard_until
        self.hint = (DROPPED_HINT if early else TYPING_HINT).format(keys=self.keys)
        app.invalidate()

    def confirm(self, app: Any) -> None:
        """Enter: it confirms at once an answer key pressed on its own just before.

        The ``y`` Enter habit; otherwise Enter is one more key of typing.
        """
        act = self._pending_act
        if self._pending is None or act is None:
            self.press(app, None)
            return
        self.cancel()
        if not app.is_done:
            act()

    def cancel(self) -> None:
        """Forget a pending answer (the question ended another way)."""
        if self._pending is not None:
            self._pending.cancel()
        self._pending = self._pending_act = None

    def _settled(self, app: Any, act: Callable[[], None]) -> None:
        self._pending = self._pending_act = None
        if not app.is_done:
            act()
