"""``@path`` mentions at the REPL prompt: completion, and the files attached to a message.

``@sr`` + Tab completes to ``@src/`` (directories end with ``/`` and complete further; files
and directories under the working dir, .gitignore honoured, ``.git`` never offered). When the
message is sent, :func:`file_mentions` reads the mentioned files as attachment parts
(:mod:`goosectx.mentions`) and draws a one-line notice for each one not attached or cut. A
word whose ``NAME:`` prefix is a configured extension is that extension's resource
(``cli/repl_extensions.py``), never a path (docs/architecture.md, "@path mentions").
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from goosectx.cli import repl_agent
from goosectx.cli.sanitize import terminal_safe
from goosectx.config import DEFAULT_CONTEXT_LIMIT_TOKENS
from goosectx.errors import GoosectxError
from goosectx.secret_names import SECRET_FILE_NAME as SECRET_NAME

if TYPE_CHECKING:
    from goosectx.attachment import Attachment
    from goosectx.cli.repl import Repl

MAX_COMPLETIONS = 200
"""Entries offered for one directory; a match past them is told by :class:`MoreNotListed`."""
_WORD = re.compile(r"(?:^|\s)@((?:\\ |[^\s@])*)$")


def extension_names(repl: Repl) -> set[str]:
    """Names of the configured extensions (their ``@NAME:`` words are resources)."""
    names = set(repl.settings.extensions.tables)
    if repl.extensions is not None:
        names |= set(repl.extensions.configs)
    return names


def mention_cap_tokens(repl: Repl) -> int:
    """Tokens one mention (a file, a resource) may take in this REPL's session."""
    from goosectx.mentions import mention_cap  # (mentions, tokens: at the first @, not launch)

    try:
        limit = repl_agent.context_manager(repl).context_limit().tokens
    except GoosectxError:
        limit = DEFAULT_CONTEXT_LIMIT_TOKENS
    return mention_cap(repl.settings.mention_max_tokens, limit)


def file_mentions(repl: Repl, text: str) -> list[Attachment]:
    """The files ``text`` mentions, read as attachment parts; notices drawn for the rest."""
    if "@" not in text:
        return []
    from goosectx.mentions import read_mentions

    provider = repl.provider
    found = read_mentions(text, repl.session.working_dir, cap_tokens=mention_cap_tokens(repl),
                          extension_names=extension_names(repl),
                          data_dir=repl.settings.data_dir,
                          model=provider.model if provider else repl.session.model,
                          provider=provider,
                          config_path=repl.settings.config_file,
                          rules=repl.settings.permissions)
    for notice in found.notices:
        repl.renderer.notice(terminal_safe(notice), style="yellow")
    return found.attachments


def redacted_message(repl: Repl, text: str) -> str:
    """``text`` with this environment's secrets redacted, and a notice when it held one.

    Before the message is drawn, saved or sent (README, "Security"); the agent may not be
    built yet, so the REPL's redactor is made from the settings as the tools' is.
    """
    from goosectx.cli.input_secrets import InputSecrets

    secrets = InputSecrets(repl.redact_input)
    text = secrets.text(text, "your message")
    if (notice := secrets.notice()) is not None:
        repl.renderer.notice(notice, style="yellow")
    return text


def redacted_parts(repl: Repl, parts: list[Any]) -> list[Any]:
    """``parts`` (``@`` files, resources) redacted as tool output is; a notice if one held one."""
    from goosectx.cli.input_secrets import InputSecrets

    secrets = InputSecrets(repl.agent.redact)
    parts = secrets.parts(parts)
    if (notice := secrets.notice()) is not None:
        repl.renderer.notice(terminal_safe(notice), style="yellow")
    return parts


class MoreNotListed(Completion):
    """The menu's last entry when a directory holds more matches than :data:`MAX_COMPLETIONS`.

    It inserts nothing and says to type more of the name; Tab inserts no common start beside it
    (that of the entries listed could rule out one left off).
    """

    def __init__(self) -> None:
        super().__init__("", start_position=0, display="…",
                         display_meta=f"more than {MAX_COMPLETIONS}: type more of the name")


class MentionCompleter(Completer):
    """Completes the ``@path`` word before the cursor with files and directories.

    A name holding a secret (a key saved as a file's name, ``sk-proj-….txt``) is listed
    redacted, as a tool output would show it, and inserts nothing: the word stays as typed.
    Inserted, the name would show whole on the prompt line (and stay in the scrollback),
    and the message would be sent with it redacted (``@[REDACTED].txt``: no such file), so
    the mention could not work either; the menu says to rename the file.

    Args:
        working_dir: Paths are relative to it; nothing outside it is offered.
        extension_names: The configured extension names (their ``NAME:`` words are not paths).
        redact: The REPL's redactor (``Repl.redact_input``); ``None``:
            :func:`goosectx.env_secrets.tool_output_redactor` of the secrets the process knows.
    """

    def __init__(self, working_dir: Path,
                 extension_names: Callable[[], Collection[str]] = lambda: (),
                 redact: Callable[[str], str] | None = None) -> None:
        self.working_dir = Path(os.path.abspath(working_dir))
        self.extension_names = extension_names
        self.redact = redact

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterator[Completion]:
        """Yield path completions of the ``@`` word that ends at the cursor."""
        match = _WORD.search(document.text_before_cursor)
        if match is None:
            return
        partial = match.group(1)
        head, colon, _rest = partial.partition(":")
        if colon and head in self.extension_names():
            return
        yield from self._paths(partial)

    def _paths(self, partial: str) -> Iterator[Completion]:
        typed = partial.replace("\\ ", " ")
        folder, _, prefix = typed.rpartition("/")
        base = Path(os.path.abspath(self.working_dir / folder)) if folder else self.working_dir
        if base != self.working_dir and self.working_dir not in base.parents:
            return
        try:
            entries = sorted(os.scandir(base), key=lambda e: (not e.is_dir(), e.name))
        except OSError:
            return
        from goosectx.mentions import mention_text  # imported at the first @ completion
        from goosectx.tools.tree import gitignore_rules, is_ignored

        rules = gitignore_rules(base, self.working_dir)
        redact = self.redact
        if redact is None:
            from goosectx.env_secrets import tool_output_redactor

            redact = tool_output_redactor()
        shown = 0
        for entry in entries:  # MAX_COMPLETIONS entries, then MoreNotListed at one more
            if not entry.name.startswith(prefix) or entry.name == ".git":
                continue
            if entry.name.startswith(".") and not prefix.startswith("."):
                continue
            is_dir = entry.is_dir()
            if rules and is_ignored(Path(entry.path), is_dir, rules):
                continue
            if shown == MAX_COMPLETIONS:
                yield MoreNotListed()
                return
            name = entry.name + ("/" if is_dir else "")
            text = (f"{folder}/" if folder else "") + name
            if (clean := redact(name)) != name:  # the word stays as typed
                yield Completion(partial, start_position=-len(partial),
                                 display=terminal_safe(clean), display_meta=SECRET_NAME)
            else:
                yield Completion(mention_text(text), start_position=-len(partial),
                                 display=terminal_safe(name),
                                 display_meta="directory" if is_dir else "file")
            shown += 1
