"""Records read-only to the type checker, plain at run time (docs/architecture.md §5).

``@plain_record`` is ``@dataclass(slots=True, eq=False, repr=False)`` that mypy reads as
``frozen=True`` (:func:`typing.dataclass_transform`'s ``frozen_default``): an assignment to a
field is a type error (``mypy --strict`` runs before every commit), but the class gets no
generated ``__setattr__``/``__delattr__``. Each generated method is compiled when its module is
imported — ~0.2 ms of CPU for the two a frozen class adds — and the records built once or
twice per command (a model's settings, a context limit, a system prompt, a kept scan state)
gain nothing from them at run time. No ``__eq__``, ``__hash__`` or ``__repr__`` either: a
record is compared and printed nowhere (tests/test_settings_plain_records.py). Per-message
types stay ``frozen``: their immutability is read by tests at run time.

``@compared_record`` is the same for a value that is compared (and may be hashed) but never
printed — a compaction plan, its budget and request, a flattened line, a file action:
``@dataclass(slots=True, unsafe_hash=True, repr=False)``, read as ``frozen=True`` by mypy, so
its generated ``__eq__`` and ``__hash__`` are those of a frozen dataclass without the frozen
``__setattr__``/``__delattr__`` (tests/test_scan_state_plain_records.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar, dataclass_transform

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True, eq_default=False)
def plain_record(cls: type[_T]) -> type[_T]:
    """``cls`` as a slotted dataclass without generated compare, hash, repr or frozen methods."""
    return dataclass(slots=True, eq=False, repr=False)(cls)


@dataclass_transform(frozen_default=True)
def compared_record(cls: type[_T]) -> type[_T]:
    """``cls`` as a slotted dataclass with ``__eq__`` and ``__hash__``, no repr, no frozen ones."""
    return dataclass(slots=True, unsafe_hash=True, repr=False)(cls)
