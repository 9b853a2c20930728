"""The console backstop of the print path: a rich ``Console`` that sanitises what it renders.

:func:`safe_console` builds every console under ``cli/`` (docs/architecture.md, "The print
path"). Text is made safe by :func:`goosectx.cli.sanitize.terminal_safe` before layout where it
can be; this console passes each rendered text segment through it once more, so tables, panels
and Markdown built from outside text cannot drive the terminal. Kept apart from
:mod:`goosectx.cli.sanitize` so plain writers (``sessions show`` / ``export`` to a pipe) do not
import rich.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.style import Style

from goosectx.cli.sanitize import _UNSAFE, APPROVAL_MARKER, terminal_safe

__all__ = ["OWN_STYLE", "SafeConsole", "safe_console"]

OWN_STYLE = Style(bold=True, color="yellow", meta={"goosectx": "own"})
"""The style of goosectx's own marker; :class:`SafeConsole` passes such segments unchanged
(outside text never gets a style: it is never interpolated into markup)."""


class SafeConsole(Console):
    """A rich ``Console`` whose every rendered text segment passes :func:`terminal_safe`.

    Segments rich marks as control codes (cursor moves of a live display) and the escape
    codes rich derives from styles are rich's own and pass unchanged; the text inside
    panels, tables, Markdown and plain strings cannot drive the terminal whatever built it.
    """

    def render(self, renderable: RenderableType,
               options: ConsoleOptions | None = None) -> Iterable[Segment]:
        """Render like ``Console.render``, with every text segment made terminal-safe."""
        for segment in super().render(renderable, options):
            text = segment.text
            if segment.control or (_UNSAFE.search(text) is None and "\r\n" not in text):
                yield segment
            elif _own(segment.style):  # goosectx's own marker: kept, everything else safe
                yield Segment(APPROVAL_MARKER.join(terminal_safe(piece)
                                                   for piece in text.split(APPROVAL_MARKER)),
                              segment.style, None)
            else:
                yield Segment(terminal_safe(text), segment.style, None)


def _own(style: Style | None) -> bool:
    return style is not None and style.meta.get("goosectx") == "own"


def safe_console(*, file: IO[str] | None = None, **options: Any) -> SafeConsole:
    """A :class:`SafeConsole` (``options`` as for ``rich.console.Console``)."""
    return SafeConsole(file=file, **options)
