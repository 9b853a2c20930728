"""Command-line values without pydantic where there is nothing to convert.

Typer (0.29) checks every parameter of the command it runs — given or not — with a pydantic
``TypeAdapter`` built on the spot: importing pydantic and building the adapters cost a third
of a second or more of every ``goosectx`` command on a busy 2-core machine (README,
"Performance"). :func:`install` wraps typer's builder so that these values are taken as typer
would make them, without it: a parameter that was not given (``None``), a text parameter
given as text, a choice given as one of its members (a default) or as the exact text of one
(case-sensitive, no token normaliser), a plain path given as text (no ``exists=``-style
settings: typer makes it ``Path(text)``). Any other value goes through typer's own adapter,
built when first needed, so conversions and their errors are typer's. If typer's internals
are not the ones this was written for, nothing is changed.

A whole-number option (no clamping, no parser of its own) is read here alone: digits (``_``
between them allowed, as in the config file), inside its ``min``/``max``; anything else —
``5.0``, ``1e3``, a number past its range — is the one-line usage error naming the range
(typer took ``5.0`` and a number of any size).
"""

from __future__ import annotations

import os
import re
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any

_TEXT_TYPES: tuple[Any, ...] = (str, typing.Optional[str], str | None)  # noqa: UP045
_PATH_TYPES: tuple[Any, ...] = (Path, typing.Optional[Path], Path | None)  # noqa: UP045
_INT_TYPES: tuple[Any, ...] = (int, typing.Optional[int], int | None)  # noqa: UP045
_PLAIN_PATH = {"exists": False, "file_okay": True, "dir_okay": True, "writable": False,
               "readable": True, "resolve_path": False, "allow_dash": False, "path_type": None}
"""typer's path settings under which a path given as text becomes ``Path(text)`` (and one
that exists must be readable: that refusal is left to typer)."""


def _plain_path(info: Any) -> bool:
    return getattr(info, "parser", None) is None and all(
        getattr(info, name, not value) == value for name, value in _PLAIN_PATH.items())


def _plain_int(info: Any) -> bool:
    return getattr(info, "parser", None) is None and not getattr(info, "clamp", False)


_WHOLE = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*")


def _whole_number(text: str, info: Any, param: Any) -> int:
    """``text`` as a whole number within the option's range.

    Raises:
        UsageError: anything else (one line naming the range).
    """
    name = max(getattr(param, "opts", None) or [str(getattr(param, "name", "the value"))],
               key=len)
    return whole_number(text, name, getattr(info, "min", None), getattr(info, "max", None))


def whole_number(text: str, name: str, low: int | None, high: int | None) -> int:
    """``text`` as a whole number from ``low`` to ``high`` (either may be ``None``).

    Raises:
        UsageError: anything else (one line naming ``name`` and the range).
    """
    from goosectx.errors import UsageError

    number = int(text) if _WHOLE.fullmatch(text.strip()) else None
    if number is not None and (low is None or number >= low) and (high is None or number <= high):
        return number
    raise UsageError(f"{name} must be a whole number{_allowed(low, high)}; got {text!r}")


def _allowed(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" from {low:,} to {high:,}"
    if low is not None:
        return f" of at least {low:,}"
    return "" if high is None else f" of at most {high:,}"


def _choices(annotation: Any, info: Any) -> type[Enum] | None:
    is_enum = isinstance(annotation, type) and issubclass(annotation, Enum)
    return annotation if is_enum and getattr(info, "parser", None) is None else None


def _choice(choices: type[Enum], info: Any, value: str, ctx: Any) -> Enum | None:
    """The member whose value's text is ``value`` when typer compares exactly, else ``None``."""
    if ctx is None or ctx.token_normalize_func is not None:
        return None
    if not getattr(info, "case_sensitive", False):
        return None
    return next((member for member in choices if str(member.value) == value), None)


class _LazyParam:
    """Typer's runtime parameter, built at the first value that needs converting."""

    def __init__(self, descriptor: Any, build: Callable[[Any], Any]) -> None:
        self._descriptor = descriptor
        self._build = build
        self._built: Any = None
        self._is_text = descriptor.annotation in _TEXT_TYPES
        info = getattr(descriptor, "parameter_info", None)
        self._is_path = descriptor.annotation in _PATH_TYPES and _plain_path(info)
        self._info = info
        self._choices = _choices(descriptor.annotation, info)
        self._is_int = descriptor.annotation in _INT_TYPES and _plain_int(info)

    def _as_is(self, value: Any, ctx: Any, param: Any) -> Any:
        """``value`` as typer would convert it, or ``None`` when typer has to."""
        if self._is_text and isinstance(value, str):
            return value
        if self._choices is not None:
            if isinstance(value, self._choices):
                return value  # typer returns a member of the choices unchanged
            if isinstance(value, str):
                return _choice(self._choices, self._info, value, ctx)
        if self._is_int and isinstance(value, str):
            return _whole_number(value, self._info, param)
        if self._is_path and isinstance(value, str) and value:
            try:
                os.stat(value)
            except OSError:
                return Path(value)
            return Path(value) if os.access(value, os.R_OK) else None
        return None

    def _real(self) -> Any:
        if self._built is None:
            self._built = self._build(self._descriptor)
        return self._built

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if (param.multiple or param.nargs == -1) else None
        if not param.multiple and param.nargs == 1:
            converted = self._as_is(value, ctx, param)
            if converted is not None:
                return converted
        with _plain_errors():
            return self._real().coerce(value, param=param, ctx=ctx)

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        converted = self._as_is(value, ctx, param)
        if converted is not None:
            return converted
        with _plain_errors():
            return self._real()._coerce_value(value, param=param, ctx=ctx)  # noqa: SLF001


_PYDANTIC_PREFIX = "Value error, "


@contextmanager
def _plain_errors() -> Iterator[None]:
    """Typer's refusal of a value without pydantic's ``Value error, `` in front of it.

    (``Invalid value for '--format': 'xml' is not one of 'md', 'json'.``)
    """
    try:
        yield
    except Exception as exc:
        message = getattr(exc, "message", None)
        if isinstance(message, str) and message.startswith(_PYDANTIC_PREFIX):
            exc.message = message[len(_PYDANTIC_PREFIX):]  # type: ignore[attr-defined]
        raise


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

