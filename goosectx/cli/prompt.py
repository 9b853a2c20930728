"""prompt-toolkit input of the REPL: the prompt session and slash completion.

Keys: Enter sends; Esc then Enter (Alt+Enter in most terminals) inserts a new line; pasted
text keeps its new lines; Ctrl-C clears the line (on an empty line it says how to leave,
above the prompt, which stays up: :func:`draw_above`);
Ctrl-D on an empty line leaves; Tab inserts a unique completion (else the common start, else
opens the menu; :func:`complete_now`); Ctrl-R searches the input history (Enter takes the entry,
Ctrl-C / Ctrl-G end the search); Ctrl-X Ctrl-E edits the message in the user's editor
(:mod:`goosectx.cli.prompt_editor`). The session's input and output are parameters so tests
drive it with ``prompt_toolkit.input.create_pipe_input()`` (STYLE.md example 9).
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.buffer import Buffer, CompletionState
from prompt_toolkit.completion import (
    CompleteEvent,
    Completer,
    Completion,
    get_common_complete_suffix,
)
from prompt_toolkit.document import Document
from prompt_toolkit.filters import is_searching
from prompt_toolkit.formatted_text import AnyFormattedText, FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from goosectx.cli.prompt_safe import (
    guard_escape_input,
    guard_input,
    safe_completions,
    show_safely,
)
from goosectx.cli.sanitize import terminal_safe
from goosectx.cli.toolbar import TOOLBAR_STYLE
from goosectx.errors import is_disk_full

NEWLINE_KEY_HELP = "Esc then Enter (or Alt+Enter)"
"""How to type a new line, as ``/help`` and the banner say it."""

PROMPT_STYLE = Style.from_dict({
    **TOOLBAR_STYLE,
    "prompt": "bold #5fafff",
    "continuation": "#5f5f5f",
    "approval.marker": "bold #ffaf00 reverse",
    "approval.question": "bold #ffaf00",
    "approval.key": "bold #ffffff",
    "approval.text": "#bcbcbc",
})


class SlashCompleter(Completer):
    """Completes command names after a leading ``/`` and their fixed arguments.

    Args:
        models: Returns model names offered after ``/model `` (e.g. the configured ones).
        sessions: Returns ``(what to insert, what the menu shows, title)`` of the sessions
            offered after ``/resume `` (the name, or the id for a name that cannot be typed
            as it is; shown through the sanitiser); a typed prefix of either matches.
    """

    def __init__(self, models: Callable[[], Iterable[str]] = lambda: (),
                 sessions: Callable[[], Iterable[tuple[str, str, str]]] = lambda: ()
                 ) -> None:
        self.models = models
        self.sessions = sessions

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        """Yield completions for the text before the cursor (first line only)."""
        text = document.text_before_cursor
        if not text.startswith("/") or "\n" in text:
            return
        from goosectx.cli.slash import COMMANDS  # imported at the first "/", not at launch

        if " " not in text:
            for info in COMMANDS:
                if info.name.startswith(text.lower()):
                    yield Completion(info.name, start_position=-len(text),
                                     display_meta=info.summary)
            return
        head, _, arg = text.partition(" ")
        choices: Iterable[str] = ()
        for info in COMMANDS:
            if info.name == head.lower():
                choices = info.choices
        if head.lower() == "/model":
            choices = self.models()
        if head.lower() == "/resume":
            typed = arg.strip()
            for ref, shown, title in self.sessions():
                if (ref.startswith(typed) or shown.startswith(typed)) and ref != arg:
                    yield Completion(ref, start_position=-len(arg), display=shown,
                                     display_meta=terminal_safe(title))
            return
        for choice in choices:
            if choice.startswith(arg.strip()) and choice != arg:
                yield Completion(choice, start_position=-len(arg))


def draw_above(app: Application[Any], draw: Callable[[], None]) -> None:
    """Run ``draw`` (which writes whole lines) above the running prompt, then redraw it.

    Call on the prompt's event loop. Not ``run_in_terminal``: it puts the terminal in cooked
    mode meanwhile, and keys typed then are read by the line discipline — a Ctrl-D becomes an
    end of file that the prompt, back in raw mode, reads as a NUL byte (the Ctrl-D is lost);
    a line typed arrives ending in a newline. Here keys wait in raw mode.
    """
    app.renderer.erase()
    try:
        draw()
    finally:
        app.renderer.reset()
        app.renderer.request_absolute_cursor_position()
        app.invalidate()


def _key_bindings(editor: Callable[[str], str | None] | None = None,
                  interrupted: Callable[[], None] | None = None) -> KeyBindings:
    """Enter, Ctrl-C, Esc+Enter and Ctrl-X Ctrl-E of the prompt; none while Ctrl-R searches.

    In a reverse search prompt_toolkit's own bindings apply: Enter takes the found entry
    into the prompt, Ctrl-C / Ctrl-G end the search back to the prompt. (Ours acted on the
    search field: Ctrl-C there left the search open, and a later one left a deaf prompt.)
    ``editor``: takes the prompt's text and gives it back as edited in the user's editor, or
    ``None`` (:func:`goosectx.cli.prompt_editor.edit_text`); run with the prompt hidden.
    ``interrupted``: writes what Ctrl-C on an empty line says, drawn above the prompt, which
    stays up; ``None``: that Ctrl-C ends the prompt with ``KeyboardInterrupt``.
    """
    kb = KeyBindings()
    guard_escape_input(kb)  # ESC [ 31 m typed: not a mouse event that raises

    if editor is not None:
        @kb.add("c-x", "c-e", filter=~is_searching)
        def _edit(event: KeyPressEvent) -> None:
            buffer = event.current_buffer
            typed = buffer.text

            async def edit() -> None:
                text = await run_in_terminal(lambda: editor(typed), in_executor=True)
                if text is not None:  # back into the prompt; Enter sends it
                    buffer.document = Document(text, len(text))

            event.app.create_background_task(edit())

    @kb.add("tab", filter=~is_searching)
    def _complete(event: KeyPressEvent) -> None:
        complete_now(event.current_buffer)

    @kb.add("escape", "enter", filter=~is_searching)
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("c-c", filter=~is_searching)
    def _clear_or_interrupt(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()
        elif interrupted is not None:  # the prompt stays: no cooked-mode gap before the next
            draw_above(event.app, interrupted)
        else:
            event.app.exit(exception=KeyboardInterrupt(), style="class:aborting")

    @kb.add("enter", filter=~is_searching)
    def _submit(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        state = buffer.complete_state
        if state is not None and state.current_completion is not None:
            buffer.apply_completion(state.current_completion)
            return
        buffer.validate_and_handle()

    return kb


def complete_now(buffer: Buffer) -> None:
    """Tab: a unique completion inserted (as in a shell), else the common start, else the menu.

    No common start when the completer's list was cut (it ends with
    :class:`~goosectx.cli.repl_mentions.MoreNotListed`): that of the entries listed could rule
    out one left off.

    With the menu open, Tab goes to its next entry.
    The completions are made here, not by prompt_toolkit's background task: a Tab read in
    the same batch as the last key typed (fast typing, a paste, a busy machine) found the
    typing's own completion not yet run, asked for another, which saw that one's menu and gave
    up — the menu opened and nothing was inserted.
    """
    state = buffer.complete_state
    if state is not None and state.complete_index is not None:
        buffer.complete_next()  # walking the menu
        return
    if buffer.completer is None:
        return
    document = buffer.document
    completions = list(buffer.completer.get_completions(
        document, CompleteEvent(completion_requested=True)))
    if len(completions) == 1 and _changes(document, completions[0]):
        buffer.apply_completion(completions[0])
        return  # (one that changes nothing, a name listed redacted: its menu says why)
    from goosectx.cli.repl_mentions import MoreNotListed  # (the REPL has it loaded)

    cut = any(isinstance(c, MoreNotListed) for c in completions)  # (at exactly the cap: not cut)
    common = "" if cut else get_common_complete_suffix(document, completions)
    if common:
        buffer.insert_text(common)  # (the menu of what is left opens as for typing)
    elif state is not None and state.completions:
        buffer.complete_next()  # the menu typing opened: into it
    elif completions:
        buffer.complete_state = CompletionState(document, completions)
        buffer.on_completions_changed.fire()


def _changes(document: Document, completion: Completion) -> bool:
    """True when inserting ``completion`` changes the text (it is not the word as typed)."""
    before = document.text_before_cursor
    return before[len(before) + completion.start_position:] != completion.text


class InputHistory(FileHistory):
    """The input history file; a failed write is remembered, never raised.

    prompt-toolkit writes the history from inside its Enter key handler, where an exception
    becomes a traceback and a "Press ENTER to continue..." pause; a full disk must only cost
    the history entry (the message itself still goes through).

    Args:
        path: The file (the data dir's ``repl_history``, made private: 0600).
        redact: Redacts this environment's secrets from an entry (the REPL's
            :class:`~goosectx.cli.input_secrets.EnvironmentRedactor`, which redacted the
            message sent too); ``None``: :func:`goosectx.env_secrets.tool_output_redactor`.
    """

    def __init__(self, path: Path, redact: Callable[[str], str] | None = None) -> None:
        super().__init__(str(path))
        self.path = path
        from goosectx.env_secrets import tool_output_redactor

        self.redact = redact or tool_output_redactor()
        self.failure: OSError | None = None
        """The last write's error, until :meth:`take_problem` reports it."""
        self._reported = False

    def append_string(self, string: str) -> None:
        """Add ``string``, a secret of the environment in it redacted, to the file and the up arrow.

        The file, this process's up arrow and Ctrl-R all hold what the session stores (a key
        typed in a message, a ``!command`` or ``/search`` reads ``[REDACTED]``); ``!!`` still
        runs a ``!command`` as it was typed (:mod:`goosectx.cli.shell_escape_cmd`).
        """
        super().append_string(self.redact(string))

    def load_history_strings(self) -> Iterable[str]:
        """The file's entries, newest first, redacted (an older goosectx wrote some as typed).

        Checked all at once first (``changes_none`` of the REPL's redactor: 2 ms for 10,000
        entries, where one by one takes 0.5 s on the prompt's first draw); entry by entry only
        when one may hold a secret, and then the file is rewritten with those entries redacted
        (:meth:`_scrub_file`), so the next start finds none. Never joined by a newline:
        ``echo 100%`` then a newline before ``3a%58…`` read as the escape ``%3a`` and hid the key.
        """
        strings = list(super().load_history_strings())
        changes_none = getattr(self.redact, "changes_none", None)
        if changes_none is not None:
            if changes_none(strings):
                return strings
        elif self.redact(whole := "\0".join(strings)) == whole:  # (redact_known; no escape
            return strings                                       # runs over a NUL)
        with contextlib.suppress(OSError):  # the recall below is redacted all the same
            self._scrub_file()
        return [self.redact(string) for string in strings]

    def _scrub_file(self) -> None:
        """Replace the file, atomically and private (0600), with its secrets redacted.

        Only the entries holding one change; every other byte (timestamps, entries that are
        not UTF-8) is kept as it was; a file that grew meanwhile (another REPL appended) is left
        for the next start. Silent: the file now holds what the up arrow already showed
        (raises OSError).
        """
        from goosectx.file_journal import write_private

        path = Path(os.path.realpath(self.path))  # a symlinked history: its target
        data = path.read_bytes()
        lines = list(io.BytesIO(data))  # split on b"\n" alone, as FileHistory does
        out: list[bytes] = []
        entry: list[bytes] = []
        changed = False
        for line in [*lines, b""]:  # b"": ends the last entry
            if line.startswith(b"+"):
                entry.append(line)
                continue
            if entry:
                body = b"".join(part[1:] for part in entry).decode("utf-8", "surrogateescape")
                redacted = self.redact(body)
                if redacted != body:
                    changed = True
                    end = "\n" if redacted.endswith("\n") else ""
                    text = "+" + redacted.removesuffix("\n").replace("\n", "\n+") + end
                    entry = [text.encode("utf-8", "surrogateescape")]
                out += entry
                entry = []
            out.append(line)
        if changed and path.stat().st_size == len(data):  # else another REPL appended: later
            write_private(path, b"".join(out))

    def store_string(self, string: str) -> None:
        """Append ``string`` to the file; an ``OSError`` is kept in :attr:`failure`."""
        try:
            super().store_string(string)
        except OSError as exc:
            self.failure = exc
        else:
            self.failure, self._reported = None, False

    def take_problem(self) -> str | None:
        """One line on a failed write, once until a write succeeds again; else ``None``."""
        exc = self.failure
        if exc is None or self._reported:
            return None
        self._reported = True
        if is_disk_full(exc):  # one line on an 80-column terminal: no path (it is data_dir's)
            return "input history not saved (disk full): free some space; your message was sent"
        return f"input history not saved: {exc.strerror or exc} ({self.path})"


def history_problem(session: PromptSession[str]) -> str | None:
    """The one line to show when the session's input history could not be written."""
    history = session.history
    return history.take_problem() if isinstance(history, InputHistory) else None


def make_prompt_session(
    *,
    history_path: Path | None,
    toolbar: Callable[[], AnyFormattedText],
    completer: Completer | None = None,
    input: Input | None = None,
    output: Output | None = None,
    editor: Callable[[str], str | None] | None = None,
    redact: Callable[[str], str] | None = None,
    interrupted: Callable[[], None] | None = None,
) -> PromptSession[str]:
    """The REPL's prompt session.

    Args:
        history_path: File of earlier inputs (created on first use), or ``None`` for an
            in-memory history.
        toolbar: Returns the bottom toolbar (called on every redraw, so it must be cheap).
        completer: Slash-command completer.
        input: prompt-toolkit input (``None``: the terminal).
        output: prompt-toolkit output (``None``: the terminal).
        editor: Ctrl-X Ctrl-E's editing (``None``: the key does nothing).
        redact: Redacts the environment's secrets from a history entry (:class:`InputHistory`).
        interrupted: Writes the lines Ctrl-C on an empty line shows above the prompt, which
            stays up (``None``: that Ctrl-C raises ``KeyboardInterrupt`` from ``prompt()``).

    Returns:
        A multi-line session where Enter submits and Esc+Enter inserts a new line; the prompt
        line is erased once submitted (the transcript shows the message as a panel instead);
        what it draws of outside text goes through the sanitiser (:mod:`~goosectx.cli.prompt_safe`).
    """
    history: History
    if history_path is not None:
        history_path.parent.mkdir(parents=True, exist_ok=True)
        if not history_path.exists():  # prompts may hold secrets: private, like the store
            history_path.touch(mode=0o600)
        elif history_path.stat().st_mode & 0o077:  # readable by others (made by hand?)
            with contextlib.suppress(OSError):
                history_path.chmod(0o600)
        history = InputHistory(history_path, redact)
    else:
        history = InMemoryHistory()
    session: PromptSession[str] = PromptSession(
        message=FormattedText([("class:prompt", "❯ ")]),
        multiline=True,
        prompt_continuation=lambda width, line_number, wrap_count: FormattedText(
            [("class:continuation", "· ".rjust(width))]),
        key_bindings=_key_bindings(editor, interrupted),
        history=history,
        completer=completer,
        complete_while_typing=True,
        bottom_toolbar=toolbar,
        style=PROMPT_STYLE,
        erase_when_done=True,
        enable_suspend=True,
        input=input,
        output=output,
    )
    show_safely(session.app.layout.find_all_controls())  # outside text: stand-ins drawn
    guard_input(session.app.input)  # ESC [ K, an OSC title typed: dropped whole
    session.default_buffer.completer = safe_completions(lambda: session.completer)
    return session
