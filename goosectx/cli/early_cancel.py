"""A cancel in goosectx's first instants, before any command's own handling is in place.

Importing the command line (typer, the command modules) takes about 0.1 s. A Ctrl-C then
raised ``KeyboardInterrupt`` out of an import (a traceback, exit -2), and SIGTERM or SIGHUP
ended the process without a word; ``run`` wrote no result line, which README promises for
every failure before the turn. :func:`install` is the first thing the command does
(``goosectx.cli`` calls it before it imports anything else, for the console script and
``python -m goosectx`` only — a test importing the package keeps its own handlers): until
:func:`hand_over`, each of the three signals ends the process at once, as nothing is open or
written yet, with what a later cancel before ``run``'s session opened says
(:mod:`goosectx.cli.run_cancel`): ``goosectx: cancelled (SIGTERM)``, that the task was not
saved, and with ``--output-format json`` / ``stream-json`` the result object; for any other
command nothing (as its Ctrl-C). Exit 130 / 143 / 129.

``cli.app`` hands over as it dispatches the command, except to ``run``, whose body does it once
its own handling (:func:`goosectx.cli.exit_signals.as_ctrl_c`) is in place.

Standard library only, and light (os, signal, sys): it runs before the imports it guards, and
its handler imports nothing (an import it interrupted may be half done): ``run``'s result line
is made when the guard is installed (``json`` imported then, for the two JSON formats only:
about 1 ms), from :func:`cancelled_result`, the object a later cancel writes too.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

__all__ = ["NOT_SAVED", "RESULT_FORMATS", "ROOT_VALUED_OPTIONS", "STREAM_RESULT_FIELDS",
           "before_command", "cancelled_result", "hand_over", "install", "is_guard",
           "requested_format"]

NOT_SAVED = "goosectx: the task was not saved (cancelled before its session was open)\n"
"""What a ``run`` cancelled before its session was open says after ``goosectx: cancelled``."""

RESULT_FORMATS = ("json", "stream-json")
"""The output formats whose stdout ends with a result object."""

ROOT_VALUED_OPTIONS = frozenset({
    "--config", "--max-cost", "--mode", "--model", "--name", "--resume", "--with-extension",
    "--with-remote-extension", "-m", "-n", "-r"})
"""The options given before a command that take a value (``goosectx --model M run …``), for
finding the command before typer is imported; a test keeps them the same as typer's."""

STREAM_RESULT_FIELDS = ("session_id", "status", "exit_code", "error", "usage", "cost_usd",
                        "compactions", "denied_calls")
"""The fields of stream-json's ``result`` line; a test keeps them ``run_output.RESULT_FIELDS``."""

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class _Guard:
    """What :func:`install` took: the signals it guards; ``run``'s format."""

    taken: tuple[int, ...] = ()
    run_format: str | None = None
    """``text``, ``json`` or ``stream-json`` when the command is ``run``, else ``None``."""
    result_lines: dict[int, str] = {}
    """For a JSON ``run_format``: each guarded signal's result line (its exit code in it)."""


def cancelled_result(exit_code: int, *, session_id: str | None = None,
                     session_name: str | None = None,
                     messages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``run``'s result object when a cancel ended it before its turn began; ``json`` writes it.

    No answer, usage or cost; ``messages``: the task's message when it was saved
    (:mod:`goosectx.cli.run_cancel`, which writes it as this guard does).
    """
    return {"session_id": session_id, "session_name": session_name, "status": "cancelled",
            "exit_code": exit_code, "error": None, "answer": "", "messages": messages or [],
            "usage": None, "cost_usd": None, "compactions": 0, "denied_calls": []}


def _result_line(output_format: str, result: dict[str, Any]) -> str:
    """``result`` as ``output_format`` ends with it: the ``json`` object, stream-json's line."""
    import json

    if output_format == "stream-json":
        result = {"type": "result", **{key: result[key] for key in STREAM_RESULT_FIELDS}}
    return json.dumps(result, ensure_ascii=False) + "\n"


def requested_format(args: list[str],
                     valued: frozenset[str] | set[str] = ROOT_VALUED_OPTIONS) -> str | None:
    """``run``'s ``--output-format`` when ``args`` are the ``run`` command, else ``None``.

    The command is the first argument that is not an option or an option's value (``valued``:
    the options that take one); then ``--output-format FORMAT`` or ``--output-format=FORMAT``
    before any ``--``; ``text`` when none is given.
    """
    command: int | None = None
    for i, arg in enumerate(args):
        if arg == "--":
            return None
        if not arg.startswith("-") and not (i and args[i - 1] in valued):
            command = i
            break
    if command is None or args[command] != "run":
        return None
    found = "text"
    rest = args[command + 1:]
    for i, arg in enumerate(rest):
        if arg == "--":
            break
        if arg == "--output-format" and i + 1 < len(rest):
            found = rest[i + 1]
        elif arg.startswith("--output-format="):
            found = arg.partition("=")[2]
    return found


def install() -> None:
    """Guard the start-up of the ``goosectx`` command (see the module docstring).

    Only in the process the console script or ``python -m goosectx`` started, on the main
    thread, and only for a signal whose handling is still the default (one a parent ignored,
    as ``nohup`` does, is left ignored). Once.
    """
    if _Guard.taken or not _is_the_command():
        return
    _Guard.run_format = requested_format(sys.argv[1:])
    _Guard.taken = tuple(s for s in _SIGNALS if signal.getsignal(s) == _default(s))
    for signum in _Guard.taken:
        signal.signal(signum, _cancel_now)
    if _Guard.run_format in RESULT_FORMATS:  # (a cancel within json's import: no result line)
        _Guard.result_lines = {signum: _result_line(_Guard.run_format,
                                                    cancelled_result(128 + signum))
                               for signum in _Guard.taken}


def before_command() -> None:
    """The command is dispatched: hand over now, unless it is ``run`` (its body does)."""
    if _Guard.run_format is None:
        hand_over()


def hand_over() -> None:
    """Give each guarded signal its default back, unless someone took it over since."""
    for signum in _Guard.taken:
        if signal.getsignal(signum) is _cancel_now:
            if signum == signal.SIGINT:
                signal.signal(signum, signal.default_int_handler)
            else:
                signal.signal(signum, signal.SIG_DFL)
    _Guard.taken = ()


def _default(signum: int) -> object:
    """Python's own handling of ``signum``: ``KeyboardInterrupt`` for SIGINT, else the OS's."""
    return signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL


def is_guard(handler: object) -> bool:
    """True when ``handler`` is this guard's (``as_ctrl_c`` takes such a signal over)."""
    return handler is _cancel_now


def _is_the_command() -> bool:
    """True in a process the ``goosectx`` console script or ``python -m goosectx`` started."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None:
        return bool(spec.name == "goosectx.__main__")
    return os.path.basename(getattr(main, "__file__", None) or "") == "goosectx"


def _cancel_now(signum: int, _frame: object) -> None:
    """End the process: ``run``'s cancel lines (and result object), exit 128 + the signal."""
    code = 128 + signum
    fmt = _Guard.run_format
    if fmt is not None:
        _write(1, _Guard.result_lines.get(signum, ""))
        by = "" if signum == signal.SIGINT else f" ({signal.Signals(signum).name})"
        _write(2, f"goosectx: cancelled{by}\n{NOT_SAVED}")
    os._exit(code)


def _write(fd: int, text: str) -> None:
    """All of ``text`` to ``fd`` (a closed or full output is let be: the exit still comes)."""
    data = text.encode()
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        pass
