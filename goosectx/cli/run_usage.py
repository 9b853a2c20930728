"""``goosectx run "some task"``: the usage error that says the task goes after ``-t``.

Read by :func:`goosectx.cli.app.main` when click refuses extra arguments to ``run``.
"""

from __future__ import annotations


def _as_typed(joined: str, args: list[str]) -> list[str]:
    """The last run of words in ``args`` that click joined into ``joined`` (else it, whole).

    Only looked for among a command line of up to 64 words (the search is quadratic).
    """
    if len(args) > 64:
        return [joined]
    for start in range(len(args) - 1, -1, -1):
        for end in range(start + 1, len(args) + 1):
            if " ".join(args[start:end]) == joined:
                return args[start:end]
    return [joined]


def positional_task_line(exc: Exception, args: list[str]) -> str | None:
    """``goosectx run "fix the tests"``: the one line saying the task goes after ``-t``.

    Other agents take the task as an argument; click would echo all of it back (a pasted
    task of pages) under a usage block. ``None`` for any other usage error.
    """
    ctx, message = getattr(exc, "ctx", None), str(getattr(exc, "message", ""))
    marker = "unexpected extra argument"
    if ctx is None or ctx.command.name != "run" or marker not in message:
        return None
    extra = message[message.index(marker) + len(marker):].removeprefix("s").removeprefix("(s)")
    extra = extra.strip().removeprefix("(").removesuffix(")")
    extra = "', '".join(_as_typed(extra, args))  # click joined the words with spaces
    shown = extra if len(extra) <= 40 else extra[:39] + "…"
    return (f"goosectx run takes the task as an option, not as '{shown}' — "
            "goosectx run -t 'TEXT' (or -i FILE, -i - for stdin)")
