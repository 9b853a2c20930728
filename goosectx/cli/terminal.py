"""Where the REPL reads and writes: the real terminal, or plain lines without one.

Without a TTY (piped stdin), with ``TERM=dumb`` or with ``NO_COLOR`` the REPL reads plain
lines from stdin and writes plain text: no escape codes, nothing that waits for a key, and
the end of input ends the REPL (DESIGN.md §6).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.output import Output
from rich.console import Console

from goosectx.cli.answer_guard import keys_help
from goosectx.cli.approval_keys import approval_keys
from goosectx.cli.approval_view import VIEW_KEY
from goosectx.cli.exit_signals import survive_hangup
from goosectx.cli.input_guard import parse_keys
from goosectx.cli.plain_answers import NOT_AN_ANSWER, parse_approval_answer
from goosectx.cli.safe_console import safe_console
from goosectx.cli.sanitize import APPROVAL_MARKER, terminal_safe
from goosectx.cli.stdin_text import lenient

try:
    from termios import error as TermiosError
except ImportError:  # not a POSIX terminal
    TermiosError = OSError  # type: ignore[misc,assignment]  # noqa: N816

INPUT_ENDED_KEY = "input_ended"
"""What an approval question returns when input ended before an answer (not a cancel)."""


@dataclass(slots=True)
class ReplIO:
    """Where the REPL reads and writes.

    Attributes:
        console: The transcript goes here.
        plain: Plain line input from ``stdin`` and plain output (no TTY, ``TERM=dumb``,
            ``NO_COLOR``).
        input: prompt-toolkit input (``None``: the terminal); unused when ``plain``.
        output: prompt-toolkit output (``None``: the terminal); unused when ``plain``.
        stdin: Line source in plain mode (``None``: ``sys.stdin``).
        echo: Echo each prompt into the transcript in plain mode (off when a person types
            on a terminal, whose echo already shows it).
        history: Keep an input history file (off in tests).
    """

    console: Console
    plain: bool = False
    input: Input | None = None
    output: Output | None = None
    stdin: TextIO | None = None
    echo: bool = True
    history: bool = True

    @property
    def is_real_terminal(self) -> bool:
        """True when prompt-toolkit drives the process's own terminal."""
        return self.input is None and not self.plain

    @classmethod
    def for_terminal(cls, environ: Mapping[str, str] | None = None) -> ReplIO:
        """The real terminal; plain mode without one, or with ``TERM=dumb`` / ``NO_COLOR``.

        Output to a terminal survives the terminal going away (its window closed: nothing is
        drawn, nothing fails; :func:`~goosectx.cli.exit_signals.survive_hangup`).
        """
        env = os.environ if environ is None else environ
        tty = sys.stdin.isatty() and sys.stdout.isatty()
        plain = not tty or env.get("TERM") == "dumb" or "NO_COLOR" in env
        out = survive_hangup(sys.stdout) if sys.stdout.isatty() else None
        if plain:
            console = safe_console(file=out, no_color=True, color_system=None,
                                   force_terminal=False, highlight=False, emoji=False,
                                   soft_wrap=True)
            return cls(console, plain=True, stdin=sys.stdin, echo=not sys.stdin.isatty())
        return cls(safe_console(file=out, highlight=False))

    def read_plain_line(self) -> str:
        """Read one input from plain stdin; a line ending in a backslash continues it.

        Raises:
            EOFError: end of input.
        """
        stdin = lenient(self.stdin or sys.stdin)
        if not self.echo:
            self._write("> ")
        lines: list[str] = []
        while True:
            raw = stdin.readline()
            if not raw:
                if lines:
                    break
                raise EOFError
            text = raw.rstrip("\n").rstrip("\r")
            if text.endswith("\\"):
                lines.append(text[:-1])
                continue
            lines.append(text)
            break
        return "\n".join(lines)

    def read_reason(self, question: str) -> str:
        """Read one optional line (a denial's reason) from plain stdin; ``""`` at the end.

        A ``KeyboardInterrupt`` (Ctrl-C, raised by the turn's SIGINT handler) passes through,
        the question's line ended first so that what follows starts a line of its own.
        """
        self._write_own(question)
        raw = self._readline(lenient(self.stdin or sys.stdin))
        if self.echo or not raw:
            self._write(raw if raw.endswith("\n") else raw + "\n")
        return raw.strip()

    def ask_plain_approval(self, tool_name: str, *, must_view: bool = False,
                           rule: str | None = None, read_only: bool = False) -> str:
        """Ask on plain stdin whether a tool call may run (the call is drawn before this).

        With ``must_view`` (a long call shown folded) ``v`` returns ``"view"``, and ``y`` /
        ``a`` only say to look at the whole call first. With ``rule`` (a shell call's command
        prefix) also ``p`` / ``s`` (allow that rule this session / and save it); with
        ``read_only`` ``a`` names the tool's read-only calls. A line that
        answers nothing (:mod:`~goosectx.cli.plain_answers`) is re-asked under a hint naming
        the answers, however many come: no guess turns it into a decision.

        Returns:
            The decision or ``"view"``; :data:`INPUT_ENDED_KEY` at the end of input
            (nothing waits on a closed stdin).
        """
        stdin = lenient(self.stdin or sys.stdin)
        keys = approval_keys(rule, read_only=read_only)
        choices = terminal_safe(" ".join(f"[{key}] {text}" for key, _decision, text in keys))
        hint = NOT_AN_ANSWER.format(keys=keys_help(
            [VIEW_KEY] * must_view + [key for key, _decision, _text in keys]))
        if must_view:
            choices = f"[{VIEW_KEY}] view the whole call {choices}"
        while True:
            self._write_own(f"Run {terminal_safe(tool_name)}? {choices}: ")
            raw = self._readline(stdin)
            if not raw:
                self._write("\n")
                return INPUT_ENDED_KEY
            if self.echo:
                self._write(raw if raw.endswith("\n") else raw + "\n")
            if must_view and raw.strip().lower() == VIEW_KEY:
                return "view"
            decision = parse_approval_answer(raw, rule=rule is not None)
            if must_view and decision in ("allow_once", "always_allow", "allow_rule",
                                          "save_rule"):
                self._write_own(f"press {VIEW_KEY} to see the whole call first\n")
            elif decision is not None:
                return decision
            else:
                self._write_own(hint + "\n")

    def _readline(self, stdin: TextIO) -> str:
        """One line of an answer; Ctrl-C there ends the question's line, then passes on."""
        try:
            return stdin.readline()
        except KeyboardInterrupt:
            self._write("\n")
            raise

    def _write_own(self, text: str) -> None:
        """Write a line of goosectx's own approval question: marked, the rest made safe."""
        self.console.file.write(APPROVAL_MARKER + " " + terminal_safe(text))
        self.console.file.flush()

    def _write(self, text: str) -> None:
        """Write past rich (plain prompts and echoes); outside text in it is made safe."""
        self.console.file.write(terminal_safe(text))
        self.console.file.flush()


class TerminalEcho:
    """Turns the terminal's echo off while a turn runs, and back on.

    Keys typed meanwhile (and the ``^C`` of Ctrl-C) would otherwise be echoed into the
    live-drawn answer and shift its lines. They are kept for the next prompt as type-ahead
    (:func:`keep_typed`), less the end of file of a Ctrl-D: the terminal stays cooked during a
    turn, where Ctrl-D is the line discipline's end of file, which the next prompt (raw mode)
    read as a NUL in the typed text (and the keys after it were lost). Only for the real
    terminal (``enabled``); Ctrl-C still sends SIGINT.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stdin.isatty()
        self._saved: list[Any] | None = None

    def off(self) -> None:
        """Stop echoing typed keys (no-op when not enabled)."""
        if not self.enabled:
            return
        try:
            import termios

            fd = sys.stdin.fileno()
            self._saved = termios.tcgetattr(fd)
            quiet = termios.tcgetattr(fd)
            quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
            termios.tcsetattr(fd, termios.TCSANOW, quiet)
        except (ImportError, OSError, ValueError, TermiosError):  # EIO: the terminal is gone
            self._saved = None

    def restore(self) -> None:
        """Put the terminal settings back as they were; what was typed waits for the prompt."""
        if self._saved is None:
            return
        typed = b""
        try:
            import termios

            fd = sys.stdin.fileno()
            typed = _read_typed(fd)
            termios.tcsetattr(fd, termios.TCSANOW, self._saved)
        except (ImportError, OSError, ValueError, TermiosError):  # EIO: the terminal is gone
            pass
        self._saved = None
        keep_typed(typed)


TYPED_MAX_BYTES = 1 << 16
"""The most type-ahead read at a turn's end (a line discipline holds 4 KB)."""


def _read_typed(fd: int) -> bytes:
    """Take what the cooked terminal holds, its unfinished line too, without waiting.

    The line discipline hands over all it holds when line editing is switched off; with
    ``VMIN`` and ``VTIME`` 0 a read returns at once, empty when nothing is left. The
    caller puts the settings back.
    """
    import termios

    now = termios.tcgetattr(fd)
    now[3] &= ~(termios.ICANON | termios.ECHO | termios.ECHOCTL)
    now[6] = list(now[6])
    now[6][termios.VMIN] = 0
    now[6][termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, now)
    chunks: list[bytes] = []
    while sum(map(len, chunks)) < TYPED_MAX_BYTES and (data := os.read(fd, 4096)):
        chunks.append(data)
    return b"".join(chunks)


def keep_typed(typed: bytes) -> None:
    """Keep keys typed on the real terminal as type-ahead for its next prompt.

    NUL is dropped: the end of file a Ctrl-D left in the cooked terminal (it neither ends
    the REPL nor reaches the prompt). The keys go after any type-ahead already kept (they
    were typed later); prompt-toolkit keeps type-ahead by the terminal's file descriptor,
    which the REPL's prompt reads.
    """
    keys = typed_keys(typed)
    if not keys:
        return
    from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
    from prompt_toolkit.input.vt100 import Vt100Input

    terminal = Vt100Input(sys.stdin)
    store_typeahead(terminal, get_typeahead(terminal) + keys)


def typed_keys(typed: bytes) -> list[KeyPress]:
    """The keys in ``typed`` (read from the terminal during a turn), less NUL.

    Read by the prompt's guard (:func:`~goosectx.cli.input_guard.parse_keys`): an escape
    sequence typed meanwhile is dropped whole, as at the prompt (prompt-toolkit's own parser
    left ``[2J`` and ``]0;title`` for the model), and a paste start with no end keeps what
    followed it as a paste.
    """
    keys: list[KeyPress] = []
    parser = parse_keys(keys.append, hold_strings=False)
    parser.feed(typed.replace(b"\0", b"").decode("utf-8", "surrogateescape"))  # (as prompt-toolkit)
    parser.flush()
    return keys


def drop_typeahead() -> bool:
    """Discard keys typed on the real terminal while a turn ran; returns True when any were.

    So that they cannot answer an approval question by accident.
    """
    if not sys.stdin.isatty():
        return False
    try:
        import fcntl
        import struct
        import termios

        fd = sys.stdin.fileno()
        try:
            waiting = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0]
        except OSError:
            waiting = 0
        termios.tcflush(fd, termios.TCIFLUSH)
    except (ImportError, OSError, TermiosError):
        return False
    return bool(waiting)
