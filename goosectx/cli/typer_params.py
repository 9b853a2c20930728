"""Command-line values without pydantic where there is nothing to convert.

Typer (0.29) checks every parameter of the command it runs — given or not — with a pydantic
``TypeAdapter`` built on the spot: importing pydantic and building the adapters cost a third
of a second or more of every ``goosectx`` command on a busy 2-core machine (README,
"Performance"). :func:`install` wraps typer's builder so that a parameter that was not
given (``None``) and a text parameter given as text are taken as they are, and so are a
choice given exactly as one of its values (``--format json``) or as its default member, and a
path with none of typer's path checks asked for (``Path(value)``, what typer's adapter
returns); any other value goes through typer's own adapter, built when first needed, so
conversions and their errors are typer's. If typer's internals are not the ones this was
written for, nothing is changed.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any

_TEXT_TYPES: tuple[Any, ...] = (str, typing.Optional[str], str | None)  # noqa: UP045
_PATH_TYPES: tuple[Any, ...] = (Path, typing.Optional[Path], Path | None)  # noqa: UP045
_PATH_CHECKS_OFF = {"exists": False, "file_okay": True, "dir_okay": True, "writable": False,
                    "readable": True, "resolve_path": False, "allow_dash": False,
                    "path_type": None, "parser": None}
"""typer's path options at their defaults: no check, the value is only made a ``Path``."""


def _plain(descriptor: Any) -> Callable[[str], Any] | None:
    """How to take a text value of ``descriptor``'s type as it is, or ``None``."""
    annotation, info = descriptor.annotation, descriptor.parameter_info
    if annotation in _TEXT_TYPES:
        return str
    if annotation in _PATH_TYPES and all(
            getattr(info, name, None) == default for name, default in _PATH_CHECKS_OFF.items()):
        return Path
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        members = {str(m.value): m for m in annotation}
        return lambda value: members.get(value)
    return None


class _LazyParam:
    """Typer's runtime parameter, built at the first value that needs converting."""

    def __init__(self, descriptor: Any, build: Callable[[Any], Any]) -> None:
        self._descriptor = descriptor
        self._build = build
        self._built: Any = None
        self._as_is = _plain(descriptor)
        self._type = descriptor.annotation if isinstance(descriptor.annotation, type) else None

    def _real(self) -> Any:
        if self._built is None:
            self._built = self._build(self._descriptor)
        return self._built

    def _taken(self, value: Any) -> Any:
        """``value`` as typer would convert it, when that needs no adapter; else ``None``."""
        if self._type is not None and issubclass(self._type, Enum) and isinstance(value,
                                                                                    self._type):
            return value  # a choice's default member
        if self._as_is is not None and isinstance(value, str):
            return self._as_is(value)
        return None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if (param.multiple or param.nargs == -1) else None
        if not param.multiple and param.nargs == 1:
            taken = self._taken(value)
            if taken is not None:
                return taken
        return self._real().coerce(value, param=param, ctx=ctx)

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        taken = self._taken(value)
        if taken is not None:
            return taken
        return self._real()._coerce_value(value, param=param, ctx=ctx)  # noqa: SLF001


def install() -> None:
    """Make typer build its pydantic adapters only for values that need converting."""
    try:
        from typer import _coercion, core
    except ImportError:
        return
    original = getattr(core, "build_runtime_param", None)
    if original is None or getattr(original, "_goosectx_lazy", False):
        return
    if not all(hasattr(_coercion, name) for name in ("TypeDescriptor", "RuntimeParam")):
        return

    def build(descriptor: Any) -> Any:
        if getattr(descriptor, "file_annotation", None) is not None:
            return original(descriptor)
        return _LazyParam(descriptor, original)

    build._goosectx_lazy = True  # type: ignore[attr-defined]
    setattr(core, "build_runtime_param", build)  # noqa: B010 - not an exported name

