"""Other agents' session formats → goosectx sessions (``goosectx sessions import``).

:func:`load_sessions` reads one file in a named format (or detects it) and returns complete
:class:`~goosectx.session.Session` values; it never writes anything. The formats, one module
per family:

=============  ==============================================================================
format         module / source
=============  ==============================================================================
goosectx       our own JSON export (:func:`goosectx.export.session_from_json`), unchanged
goose-db       :mod:`.goose` — goose ≥ 1.10 ``sessions.db`` (every session, or ``--session``)
goose-json     :mod:`.goose` — ``goose session export --format json``; legacy goose ``.jsonl``
openai         :mod:`.openai_chat` — an OpenAI chat-completions message list
swe-agent      :mod:`.openai_chat` — SWE-agent ``.traj`` (function calling or text actions)
claude-code    :mod:`.claude_code` — Claude Code session ``.jsonl``
codex          :mod:`.codex` — Codex CLI ``rollout-*.jsonl``
gemini-cli     :mod:`.gemini` — Gemini CLI chat recording (``.json`` or ``.jsonl``)
qwen-code      :mod:`.gemini` — Qwen Code chat ``.jsonl``
copilot        :mod:`.copilot` — GitHub Copilot CLI ``events.jsonl``
aider          :mod:`.aider` — ``.aider.chat.history.md`` (text turns)
console        :mod:`.console` — Claude Code / Gemini CLI terminal copies (text turns)
=============  ==============================================================================

Conventions shared by all importers are in :mod:`goosectx.importers.builder`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from goosectx.errors import ImportFormatError
from goosectx.parts import check_part_fields
from goosectx.session import Session

OwnFiles = tuple[Path | None, Path | None]
"""goosectx's config file and data dir (either unknown: ``None``)."""

FORMATS: tuple[str, ...] = (
    "goosectx", "goose-db", "goose-json", "openai", "swe-agent", "claude-code", "codex",
    "gemini-cli", "qwen-code", "copilot", "aider", "console",
)


def load_sessions(
    path: Path, *, fmt: str = "auto", source_session: str | None = None,
    working_dir: Path | None = None, stored: bool = False, own: OwnFiles = (None, None),
) -> list[Session]:
    """Read ``path`` as ``fmt`` (``auto`` detects it) into unnamed sessions.

    Args:
        path: The transcript file (or goose ``sessions.db``).
        fmt: One of :data:`FORMATS`, or ``auto``.
        source_session: For ``goose-db``: import only the session with this goose id.
        working_dir: Working dir of the new sessions (default: the current directory); the
            source's own is kept in ``metadata["source_working_dir"]``.
        stored: A goosectx export's messages go to ``session.stored_messages``, read in
            their stored form where they can be (what ``sessions import`` saves); other
            formats ignore it.
        own: goosectx's config file and data dir: a Codex user's ``!cat`` of one is the
            user's only, as a live ``!command``'s is (:mod:`goosectx.importers.codex`).

    Returns:
        One session per source session (several only for a goose database), each with a
        fresh id, no name, and ``metadata["source"]`` naming the format.

    Raises:
        ImportFormatError: unknown format, undetectable file, a broken line/record (named),
            a field of the wrong type, a file or line over its size limit, or JSON nested
            deeper than :data:`goosectx.importers.json_depth.MAX_NESTING`.
    """
    if not path.is_file():
        what = ("is a directory" if path.is_dir() else "is not a regular file"
                if path.exists() else "does not exist")
        raise ImportFormatError(f"{path} {what}", "give the path of a transcript file")
    from goosectx.importers.detect import detect_format, is_own_export

    named = fmt != "auto"
    if not named:
        fmt = detect_format(path)
    elif fmt != "goosectx" and is_own_export(path):  # another format may read it wrongly
        raise _not_this_format(path, fmt, "goosectx")
    if source_session is not None and fmt != "goose-db":
        raise ImportFormatError(f"--session applies to goose sessions.db files, not {fmt}",
                                "drop --session")
    try:
        return _load(path, fmt, working_dir, source_session, stored, own)
    except ImportFormatError as exc:
        if not named:
            raise
        try:  # a --format that cannot take the file: say what the file is, if it can be told
            found = detect_format(path)
        except ImportFormatError:
            raise exc from None
        if found == fmt:
            raise
        raise _not_this_format(path, fmt, found) from None


def _not_this_format(path: Path, fmt: str, found: str) -> ImportFormatError:
    """The error for a ``--format`` that does not fit the file, naming the one that does."""
    return ImportFormatError(
        f"{path.name} is not {_a(fmt)} {fmt} file: it reads as {_a(found)} {found} file",
        f"import it with --format {found}, or leave --format out")


def _a(fmt: str) -> str:
    """The article before a format's name: "an aider file", "a goose-db file"."""
    return "an" if fmt[:1] in ("a", "e", "i", "o", "u") else "a"


def _load(path: Path, fmt: str, working_dir: Path | None, source_session: str | None,
          stored: bool = False, own: OwnFiles = (None, None)) -> list[Session]:
    """:func:`load_sessions` of a file in format ``fmt`` (a format error says what is wrong)."""
    loader = _loader(fmt, stored, own)
    try:
        sessions = loader(path, working_dir or Path.cwd(), source_session)
        if fmt != "goosectx":  # (our own export's parts are checked by part_from_dict)
            for session in sessions:
                for message in session.conversation:
                    for part in message.content:
                        check_part_fields(part)  # what the store will read back
        return sessions
    except RecursionError:
        raise ImportFormatError(f"{path.name}: nested too deeply to import",
                                "check the file") from None
    except (TypeError, ValueError, OverflowError, AttributeError, KeyError,
            IndexError) as exc:
        # A field of an unexpected type or size in the file: bad input, one line, exit 2.
        raise ImportFormatError(f"{path.name}: unexpected {fmt} content: {_plain(exc)}",
                                "check the file, or name its format with --format") from None


_JSON_KINDS = {"str": "text", "int": "a number", "float": "a number", "bool": "true/false",
               "NoneType": "null", "list": "a list", "dict": "an object"}


def _plain(exc: Exception) -> str:
    """What a loader's Python error means for the file, in the file's (JSON's) terms."""
    text = str(exc)
    found = re.search(r"'(\w+)' object", text)
    kind = _JSON_KINDS.get(found[1], "a value of another type") if found else ""
    if isinstance(exc, KeyError):
        return f"a record has no {str(exc.args[0])[:60]!r} field"
    if isinstance(exc, OverflowError) or "digits" in text:
        return "a number is too large"
    if isinstance(exc, IndexError):
        return "a list is shorter than expected"
    if "string indices" in text or (isinstance(exc, AttributeError) and kind == "text"):
        return "a field holds text where an object was expected"
    if kind and "iterable" in text:
        return f"a field holds {kind} where a list was expected"
    if kind:
        wanted = "an object" if "attribute" in text else "another type"
        return f"a field holds {kind} where {wanted} was expected"
    if isinstance(exc, ValueError):
        return f"a value cannot be read ({text[:80]})"
    return "a field has an unexpected type"


def _loader(fmt: str, stored: bool, own: OwnFiles = (None, None)
            ) -> Callable[[Path, Path, str | None], list[Session]]:
    if fmt == "goosectx":
        from goosectx.importers.goosectx_json import load as load_own

        return lambda p, wd, _s: load_own(p, stored=stored)
    if fmt == "goose-db":
        from goosectx.importers import goose

        return lambda p, wd, s: goose.load_db(p, working_dir=wd, source_session=s)
    if fmt == "goose-json":
        from goosectx.importers import goose

        return lambda p, wd, _s: goose.load_json(p, working_dir=wd)
    if fmt in ("openai", "swe-agent"):
        from goosectx.importers import openai_chat

        return lambda p, wd, _s: openai_chat.load(p, working_dir=wd, source=fmt)
    if fmt in ("gemini-cli", "qwen-code"):
        from goosectx.importers import gemini

        load = gemini.load_gemini_cli if fmt == "gemini-cli" else gemini.load_qwen_code
        return lambda p, wd, _s: load(p, working_dir=wd)
    if fmt == "codex":
        from goosectx.importers import codex

        return lambda p, wd, _s: codex.load(p, working_dir=wd, own=own)
    modules = {"claude-code": "claude_code", "copilot": "copilot",
               "aider": "aider", "console": "console"}
    if fmt in modules:
        import importlib

        module = importlib.import_module(f"goosectx.importers.{modules[fmt]}")
        return lambda p, wd, _s: list(module.load(p, working_dir=wd))
    raise ImportFormatError(f"unknown import format {fmt!r}",
                            "use one of: auto, " + ", ".join(FORMATS))
