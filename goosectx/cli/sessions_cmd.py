"""``goosectx sessions show | export | rename | remove`` (others: sessions_list, import_cmd).

Session names, paths, models and transcripts are outside text: everything printed passes
:mod:`goosectx.cli.sanitize` (docs/architecture.md, "The print path").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Generic, TypeVar

from goosectx.cli.ascii_output import fit_json
from goosectx.cli.common import quoted_name, resolve_session
from goosectx.cli.live_draft import live_draft
from goosectx.cli.sanitize import (
    code_safe,
    json_safe,
    one_line_safe,
    terminal_safe,
    terminal_safe_utf8,
)
from goosectx.cli.sessions_names import names_shown
from goosectx.errors import GoosectxError, UsageError

if TYPE_CHECKING:
    from goosectx.config import Settings
    from goosectx.session import Session
    from goosectx.store.damaged_pairs import LostPairs

T = TypeVar("T")


def ask_line(question: str) -> str:
    """``input(question)``, with a Ctrl-C there ending the terminal's line first.

    (After the ``^C`` the terminal echoed: the shell's prompt does not come back on the
    question's line.)
    """
    from goosectx.cli.stdin_text import lenient

    lenient(sys.stdin)  # a byte that is not UTF-8 is U+FFFD: an answer that means nothing
    try:
        return input(question)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        sys.stderr.flush()
        raise


def note(line: str) -> None:
    """One line on stderr (it names sessions and paths: made safe, on one line)."""
    sys.stderr.write(one_line_safe(line) + "\n")
    sys.stderr.flush()


def show_session(settings: Settings, ref: str, *, agent: bool, skip_damaged: bool = False
                 ) -> None:
    """Print a session's user-visible transcript, or with ``agent`` what the model sees.

    The transcript is written message by message as it is read from the store, so the first
    line appears at once and memory stays flat with the session's size. ``--agent`` loads the
    whole session (the model's view is computed over all of it). ``skip_damaged``: rows
    that do not parse are left out (named on stderr) instead of stopping the transcript.
    Tool calls show blank-looking characters as ``<U+3164>``, as the REPL draws them.
    """
    from goosectx.export_markdown import iter_transcript_markdown
    from goosectx.store.damaged_pairs import LostPairs

    unreadable: list[str] | None = [] if skip_damaged else None
    lost = LostPairs()
    if agent:
        from goosectx.conversation import Conversation
        from goosectx.session import Session

        store, session_id = resolve_session(settings, ref, read_only=True)
        try:
            holder = store.lock_holder(session_id)
            if unreadable is None:
                session = store.load(session_id, lenient_times=True)
            else:  # the rows that read, the pairs a left-out row broke marked (as below)
                session = store.load_header(session_id, lenient_times=True)
                session.conversation = Conversation(
                    list(store.iter_messages_skipping(session_id, unreadable, lost)))
        finally:
            store.close()
        _warn_damaged_times(session)
        from goosectx.session import UNKNOWN_TIME
        from goosectx.shown import view_numbers

        damaged = [m.id for m in session.conversation if m.created == UNKNOWN_TIME]
        seen = session.conversation.agent_view(for_sending=False)
        writing: dict[str, str] = {}
        if holder is not None and seen:
            seen[-1:] = list(live_draft(seen[-1:], holder, writing))
        view = Session(
            session.id, names_shown(settings)(session.name), session.working_dir, session.model,
            session.created, session.updated,
            Conversation([m.with_metadata(user_visible=True) for m in seen]),
            damaged_times=session.damaged_times,
        )
        numbers = view_numbers(seen, session.conversation)
        _write_markdown(iter_transcript_markdown(view, view.conversation, numbers,
                                                 code=code_safe, writing=writing))
        _warn_damaged_messages(session.id, damaged)
        _warn_skipped(session.id, unreadable, lost)
        return
    store, session_id = resolve_session(settings, ref, read_only=True)
    damaged = []
    try:
        holder = store.lock_holder(session_id)
        header = store.load_header(session_id, lenient_times=True)
        header.name = names_shown(settings)(header.name)  # (read only: never saved)
        _warn_damaged_times(header)
        messages = store.iter_messages_plain(session_id, damaged, unreadable, lost)
        writing = {}
        _write_markdown(iter_transcript_markdown(
            header, messages if holder is None else live_draft(messages, holder, writing),
            code=code_safe, writing=writing))
    finally:
        store.close()
    _warn_damaged_messages(session_id, damaged)
    _warn_skipped(session_id, unreadable, lost)


def _warn_skipped(session_id: str, unreadable: list[str] | None, lost: LostPairs) -> None:
    """One line on stderr naming the messages ``--skip-damaged`` left out.

    And the tool pairs they broke: the results of calls (named), the calls of results.
    """
    if unreadable:
        from goosectx.cli.folding import plural

        shown = ", ".join(unreadable[:5]) + (", …" if len(unreadable) > 5 else "")
        one = len(unreadable) == 1
        pairs = []
        if lost.results:
            names = ", ".join(dict.fromkeys(lost.results))
            pairs.append(f"the result of {plural(len(lost.results), 'tool call')} ({names})")
        if lost.calls:
            pairs.append(f"the call of {plural(lost.calls, 'tool result')}")
        held = (f"; {'it' if one else 'they'} held {' and '.join(pairs)}, marked in the "
                "transcript where it was lost" if pairs else "")
        note(f"goosectx: warning: session {session_id}: {plural(len(unreadable), 'message')} "
             f"that {'does' if one else 'do'} not parse {'was' if one else 'were'} left out "
             f"({shown}){held}; everything else is there")


def _warn_damaged_times(session: Session) -> None:
    """One line on stderr when the session's stored times did not parse (shown as ``?``)."""
    if session.damaged_times:
        note(f"goosectx: warning: session {session.id}'s stored "
              f"{' and '.join(session.damaged_times)} time does not parse: shown as ? "
              "(null in JSON); the messages are all there")


def _warn_damaged_messages(session_id: str, damaged: list[str]) -> None:
    """One line on stderr when messages' stored times did not parse (read as unknown)."""
    if damaged:
        from goosectx.cli.folding import plural

        note(f"goosectx: warning: session {session_id}: the stored time of "
              f"{plural(len(damaged), 'message')} does not parse: shown as unknown (null in "
              "JSON); the rest is all there")


def _write_markdown(pieces: Iterable[str]) -> None:
    """Markdown pieces to stdout, made terminal-safe: rendered one by one on a terminal."""
    if _may_be_terminal():
        from goosectx.cli.safe_console import safe_console

        console = safe_console(highlight=False, soft_wrap=False)
        if console.is_terminal:
            from goosectx.cli.stream import markdown_class

            markdown = markdown_class()  # an image drawn as a link, in place, as in the REPL
            for piece in pieces:
                console.print(markdown(terminal_safe(piece), hyperlinks=False))
            return
    _write_safe(pieces)


def _write_safe(pieces: Iterable[str]) -> None:
    """Text pieces to stdout, made terminal-safe (Markdown written as it is, not rendered).

    A UTF-8 stdout gets each piece's bytes from :func:`terminal_safe_utf8` on its byte stream
    (after what its text layer holds): the bytes the safety scan made are the ones written,
    where the text layer would encode the piece again (183 MB at 100k messages).
    """
    out = _utf8_bytes(sys.stdout)
    if out is None:
        for piece in pieces:
            sys.stdout.write(terminal_safe(piece))
        return
    sys.stdout.flush()  # what was written as text comes first
    for piece in pieces:
        out.write(terminal_safe_utf8(piece))


def _utf8_bytes(stream: object) -> BinaryIO | None:
    """The byte stream under ``stream`` when it writes text as UTF-8 as it is, else ``None``.

    Not for a stream another encoding (ASCII, Latin-1: fitted by ``cli/ascii_output``) or
    newline translation writes differently, nor for one without a ``buffer`` (a test's).
    """
    buffer = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None)
    if buffer is None or not isinstance(encoding, str) or os.linesep != "\n":
        return None
    import codecs

    try:
        return buffer if codecs.lookup(encoding).name == "utf-8" else None
    except LookupError:
        return None


def _may_be_terminal() -> bool:
    """False when rich would surely not take stdout for a terminal, so rich is not imported.

    rich's ``Console.is_terminal`` answers True only for ``TTY_COMPATIBLE=1``, a non-empty
    ``FORCE_COLOR`` or a stdout that is a tty; in those cases the console itself decides.
    """
    if os.environ.get("TTY_COMPATIBLE") == "1" or os.environ.get("FORCE_COLOR"):
        return True
    try:
        return sys.stdout.isatty()
    except ValueError:  # a closed stdout: rich says "not a terminal" too
        return False


class _Counted(Generic[T]):
    """The messages of an export, counted as they are read (the position of a damaged one)."""

    def __init__(self, messages: Iterable[T]) -> None:
        self.messages = messages
        self.count = 0

    def __iter__(self) -> Iterator[T]:
        for message in self.messages:
            self.count += 1
            yield message


def _cut_short(exc: GoosectxError, fmt: str, position: int, total: int) -> GoosectxError:
    """The error of an export to stdout stopped by a row that does not parse.

    What came before is already written (the export streams): the error says the output is
    incomplete and where it stops. The JSON is left unclosed (no valid document); Markdown
    gets a last line saying so (a file it was piped to says it too).
    """
    where = f"message {position} of {total}"
    if fmt == "json":
        if sys.stdout.isatty():
            sys.stdout.write("\n")  # the error on a line of its own
    else:
        sys.stdout.write(terminal_safe(f"\n\n[export incomplete: it stops before {where}, "
                                       "whose stored data does not parse]\n"))
    sys.stdout.flush()
    return type(exc)(
        f"the export above is incomplete: it stops at {where}: {exc.message}",
        "add --skip-damaged to export the rest without it, use -o FILE (nothing is written "
        "when a message does not parse), or remove this session with goosectx sessions remove")


def export_session(settings: Settings, ref: str, *, fmt: str, output: Path | None,
                   skip_damaged: bool = False) -> None:
    """Write the session as Markdown or JSON to ``output`` (atomically) or stdout.

    Written message by message as the store yields them: memory stays flat with size.
    Markdown labels an answer a live process is still writing as ``sessions show`` does
    (:mod:`goosectx.cli.live_draft`).
    ``skip_damaged``: rows that do not parse are left out (named on stderr), so what still
    reads can be saved (and imported again).
    """
    from goosectx.cli.output_path import refuse_own_file, write_private_file
    from goosectx.errors import StoreCorrupt
    from goosectx.export import iter_session_json
    from goosectx.export_markdown import iter_transcript_markdown
    from goosectx.store.damaged_pairs import LostPairs

    if output is not None and str(output) == "-":
        output = None  # ``-o -``: standard output, as ``sessions import -`` reads stdin
    if output is not None:
        refuse_own_file(output, settings.data_dir)  # before anything is read or written
    store, session_id = resolve_session(settings, ref, read_only=True)
    damaged: list[str] = []  # messages whose stored time does not parse
    unreadable: list[str] | None = [] if skip_damaged else None
    lost = LostPairs()
    others = 0  # other hard links of the file replaced
    try:
        header = store.load_header(session_id, lenient_times=True)
        header.name = names_shown(settings)(header.name)  # (read only: never saved)
        _warn_damaged_times(header)
        read: _Counted[Any] = _Counted(
            store.iter_messages_json(session_id, damaged, unreadable, lost) if fmt == "json"
            else store.iter_messages_plain(session_id, damaged, unreadable, lost))
        # An answer a live process still streams is labelled as `sessions show` labels it;
        # JSON keeps it as stored (an import of this copy holds an answer cut off).
        holder = None if fmt == "json" else store.lock_holder(session_id)
        writing: dict[str, str] = {}
        pieces = (iter_session_json(header, read) if fmt == "json" else
                  iter_transcript_markdown(
                      header, read if holder is None else live_draft(read, holder, writing),
                      code=code_safe, writing=writing))
        # Wherever it goes (a later `cat` of the file reaches a terminal): JSON keeps the same
        # values with unsafe characters escaped; Markdown, made for reading, shows them (and
        # in tool calls the blank-looking ones too, as <U+3164>, as the REPL draws calls).
        safe = json_safe if fmt == "json" else terminal_safe
        if output is None:
            try:
                if fmt == "json":
                    for piece in pieces:  # JSON is data: escapes where the terminal lacks a char
                        sys.stdout.write(fit_json(json_safe(piece), sys.stdout))
                else:
                    _write_safe(pieces)
            except StoreCorrupt as exc:  # the rows before it are out: say they are not all
                raise _cut_short(exc, fmt, read.count + 1,
                                 store.message_count(session_id)) from None
        else:
            others = write_private_file(output, map(safe, pieces), data_dir=settings.data_dir)
    finally:
        store.close()
    _warn_damaged_messages(session_id, damaged)
    _warn_skipped(session_id, unreadable, lost)
    if output is not None:
        if others:
            links = "hard link" if others == 1 else "hard links"
            note(f"goosectx: warning: {output} had {others} other {links}: the export was "
                 "written to a new file under this name; the other names keep the old contents")
        note(f"exported {header.display_name} to {output}")


def remove_session(settings: Settings, ref: str, *, yes: bool) -> None:
    """Delete a session after confirmation (``--yes`` skips it; no TTY requires it).

    Its messages are not read, so a session whose stored data no longer parses (the error
    that names it says to remove it) can still be removed.
    """
    from goosectx.cli.folding import plural
    from goosectx.errors import StoreCorrupt

    store, session_id = resolve_session(settings, ref)
    try:
        try:
            header = store.load_header(session_id)
            shown = names_shown(settings)(header.name) or header.id
        except StoreCorrupt:
            shown = session_id  # its session row does not parse: removing it is the fix
        if not yes:
            if not sys.stdin.isatty():
                raise UsageError(
                    f"refusing to remove {shown} without confirmation",
                    "add --yes",
                )
            answer = ask_line(terminal_safe(
                f"Remove session {shown} "
                f"({plural(store.message_count(session_id), 'message')})? [y/N] "))
            if answer.strip().lower() not in ("y", "yes"):
                note("kept")
                return
        lock = store.lock(session_id)
        try:
            store.remove(session_id)
        except BaseException:
            lock.release()
            raise
        lock.release_removed()
    finally:
        store.close()
    note(f"removed {shown}")


def rename_session(settings: Settings, ref: str, new_name: str) -> None:
    """Give a session another name (``sessions rename``).

    A session another process drives is refused: it would save its old name back. A secret of
    this environment in ``new_name`` reads ``redacted`` (:mod:`goosectx.cli.sessions_names`).

    Raises:
        UsageError: ``new_name`` is one ``--name`` would refuse.
        SessionNameTaken: another session has it. SessionInUse: the session is driven.
    """
    from goosectx.cli.sessions_names import secret_free_name
    from goosectx.session import NAME_MAX_CHARS, name_problem

    new_name = secret_free_name(settings, new_name)  # (README: a key in it reads "redacted")
    problem = name_problem(new_name)
    if problem:
        raise UsageError(f"the session name {quoted_name(new_name)} {problem}",
                         "give a name on one line that starts with a letter or digit, "
                         f"at most {NAME_MAX_CHARS} characters, e.g. fix-login")
    store, session_id = resolve_session(settings, ref)
    try:
        header = store.load_header(session_id)
        shown = names_shown(settings)(header.name) or header.id
        with store.lock(session_id):
            store.rename(session_id, new_name)
    finally:
        store.close()
    note(f"renamed {shown} to {new_name}")
