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
``@mutable_record`` is the same at run time for a record whose fields are assigned to (the
settings, a session, a scan's working state): ``@dataclass(slots=True, eq=False, repr=False)``
as mypy reads it too. ``@value_record`` is ``@dataclass(slots=True)`` (a session's state:
compared and printed), its ``__eq__`` and ``__repr__`` made as :func:`frozen_record` makes them.

``@compared_record`` is the same for a value that is compared (and may be hashed) but never
printed — a compaction plan, its budget and request, a flattened line, a file action: the
``__eq__`` and ``__hash__`` of ``@dataclass(slots=True, unsafe_hash=True, repr=False)``, read as
``frozen=True`` by mypy, without the frozen ``__setattr__``/``__delattr__``
(tests/test_scan_state_plain_records.py).

``@frozen_record`` is ``@dataclass(frozen=True, slots=True)`` for the per-message values (a
message, its metadata and parts, an attachment, a usage): the same methods, fields and
pickling, made for a fraction of the work. :func:`dataclasses.dataclass` compiles each method
it adds in its own ``exec`` (six for a frozen class: ~0.55 ms of CPU a class); this keeps the
dataclass's field machinery (``dataclass(slots=True, init=False, repr=False, eq=False)``, no
method compiled) and makes ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__`` and
``__delattr__`` as closures over the field names (tests/test_frozen_records.py compares each
class with its dataclass twin). ``@unhashable_record``: the same with ``__hash__ = None``, for
a value that holds a dict in every instance (a message's metadata, so a message) instead of a
hash that always raises.

Every record's ``__init__`` — the one method compiled — is compiled at its first use (the
first value made, or ``__init__`` read, by :func:`inspect.signature` say), as
``dataclass`` would make it: of the ~45 records a ``compact --dry-run`` imports, a dozen are
never made, and the others' compile moves from import to where it is needed (~0.1 ms less a
record than ``dataclass``'s own, which wraps each method in a function that makes it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from functools import partial
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T")


def _slotted(cls: type[_T]) -> type[_T]:
    """``cls`` as a slotted dataclass with no generated method (each decorator adds its own)."""
    return dataclass(slots=True, init=False, eq=False, repr=False)(cls)


def _bare(cls: type[_T]) -> type[_T]:
    """:func:`_slotted` with the ``__init__`` made at its first use, fields assignable."""
    return _lazy_init(_slotted(cls), frozen=False)


@dataclass_transform(frozen_default=True, eq_default=False)
def plain_record(cls: type[_T]) -> type[_T]:
    """``cls`` as a slotted dataclass without generated compare, hash, repr or frozen methods."""
    return _bare(cls)


@dataclass_transform(eq_default=False)
def mutable_record(cls: type[_T]) -> type[_T]:
    """:func:`plain_record` whose fields may be assigned to (as mypy reads it too)."""
    return _bare(cls)


@dataclass_transform(frozen_default=True)
def compared_record(cls: type[_T]) -> type[_T]:
    """``cls`` as a slotted dataclass with ``__eq__`` and ``__hash__``, no repr, no frozen ones.

    The two are those ``dataclass(unsafe_hash=True)`` generates, as closures: the fields that
    compare (``field(compare=False)`` ones do not), in a tuple, compared or hashed.
    """
    made = _bare(cls)
    record: Any = made
    compared = _values(tuple(f.name for f in fields(record) if f.compare))
    hashed = _values(tuple(f.name for f in fields(record)
                           if (f.compare if f.hash is None else f.hash)))

    _put(made, _eq_hash(compared, hashed))
    params = made.__dataclass_params__  # type: ignore[attr-defined]
    params.eq = params.unsafe_hash = True
    return made


def _put(made: type[Any], methods: dict[str, Any]) -> None:
    """Set ``methods`` on ``made``, each named as a method of its own (``None``: as it is)."""
    for name, method in methods.items():
        if method is not None and name not in ("__getstate__", "__setstate__"):
            method.__qualname__ = f"{made.__qualname__}.{name}"
            method.__module__ = made.__module__
        setattr(made, name, method)


def _eq_hash(compared: Callable[[Any], Any], hashed: Callable[[Any], Any]) -> dict[str, Any]:
    """A dataclass's ``__eq__`` and ``__hash__``: of the tuples ``compared`` / ``hashed`` give."""

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(hashed(self))

    return {"__eq__": __eq__, "__hash__": __hash__}


def _values(names: tuple[str, ...]) -> Any:
    """The tuple of the fields ``names`` of a value, as a dataclass's generated methods build it."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda value: (one(value),)
    return lambda _value: ()


class _Factory:
    """The default of a field with a ``default_factory`` in ``__init__``'s signature."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(fields(self), state, strict=False):
        object.__setattr__(self, f.name, value)  # as a frozen dataclass's __setstate__


COMPILE_AT = 16
"""Values a record makes through the generic ``__init__`` (:class:`_LazyInit`) before it has
its own compiled: a record made once or twice per command never pays the compile (~0.1 ms)."""


class _LazyInit:
    """A record's ``__init__`` until it has made :data:`COMPILE_AT` values, then compiled.

    A non-data descriptor where the class keeps its ``__init__``: making a value looks it up.
    The first values are made by :meth:`generic`, the same assignments from the same
    arguments, bound by hand; the one after them, or ``Record.__init__`` read (by
    :func:`inspect.signature`, say), compiles the method (:func:`_init`) and puts it in its
    place. Arguments the generic binding does not take as they are (too many, an unknown or
    a repeated name, a missing one) go to the compiled method: its error is the dataclass's.
    """

    __slots__ = ("record", "frozen", "made", "fields", "names", "post_init")

    def __init__(self, record: type[Any], frozen: bool) -> None:
        self.record = record
        self.frozen = frozen
        self.made = 0
        self.fields: tuple[Any, ...] | None = None  # (name, default, factory, init) a field
        self.names: frozenset[str] = frozenset()  # the arguments' names
        self.post_init = hasattr(record, "__post_init__")

    def __get__(self, value: Any, owner: type[Any] | None = None) -> Any:
        if value is None or self.made >= COMPILE_AT:
            init = self.compiled()
            return init if value is None else init.__get__(value, owner)
        self.made += 1
        return partial(self.generic, value)

    def compiled(self) -> Any:
        """The compiled ``__init__``, from now on the record's own."""
        init = _init(self.record, self.frozen)
        init.__qualname__ = f"{self.record.__qualname__}.__init__"
        init.__module__ = self.record.__module__
        setattr(self.record, "__init__", init)  # noqa: B010 - the class's, not a value's
        return init

    def generic(self, value: Any, *args: Any, **kwargs: Any) -> None:
        """``__init__(value, *args, **kwargs)`` without a compiled method."""
        if self.fields is None:
            self.fields = tuple((f.name, f.default, f.default_factory, f.init)
                                for f in fields(self.record))
            self.names = frozenset(f.name for f in fields(self.record) if f.init)
        given = dict(zip((name for name, *_, init in self.fields if init), args, strict=False))
        if (len(given) < len(args) or kwargs.keys() - self.names
                or kwargs.keys() & given.keys()):
            return self.compiled()(value, *args, **kwargs)  # type: ignore[no-any-return]
        given.update(kwargs)
        store = object.__setattr__ if self.frozen else setattr
        for name, default, factory, init in self.fields:
            if init and name in given:
                store(value, name, given[name])
            elif factory is not MISSING:
                store(value, name, factory())
            elif default is not MISSING:
                store(value, name, default)
            elif init:  # a missing argument: the compiled method says which
                return self.compiled()(value, *args, **kwargs)  # type: ignore[no-any-return]
        if self.post_init:
            value.__post_init__()
        return None


def _lazy_init(made: type[_T], frozen: bool) -> type[_T]:
    """``made`` (a dataclass made with ``init=False``) with an ``__init__`` compiled at first use.

    Refused here, as ``dataclass`` refuses them: a field without a default after one with a
    default; a keyword-only field is not supported.
    """
    after_default = None
    record: Any = made
    for f in fields(record):
        if f.kw_only:
            raise TypeError(f"{made.__name__}.{f.name}: a record has no keyword-only fields")
        if not f.init:
            continue
        if f.default is not MISSING or f.default_factory is not MISSING:
            after_default = f.name
        elif after_default is not None:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    record.__init__ = _LazyInit(made, frozen)
    record.__dataclass_params__.init = True
    return made


def _init(cls: type[Any], frozen: bool) -> Any:
    """``cls``'s dataclass ``__init__`` (frozen: through ``object.__setattr__``), compiled."""
    env: dict[str, Any] = {"_object": object, "_FACTORY": _FACTORY, "__name__": cls.__module__}
    params, body, annotations = [], [], {}
    for f in fields(cls):
        value = f.name
        if f.default_factory is not MISSING:
            env[f"_dflt_{f.name}"] = f.default_factory
            if f.init:
                params.append(f"{f.name}=_FACTORY")
                value = f"_dflt_{f.name}() if {f.name} is _FACTORY else {f.name}"
            else:
                value = f"_dflt_{f.name}()"
        elif f.default is not MISSING:
            env[f"_dflt_{f.name}"] = f.default
            if f.init:
                params.append(f"{f.name}=_dflt_{f.name}")
            else:
                value = f"_dflt_{f.name}"
        elif f.init:
            params.append(f.name)
        else:
            continue  # no default and not an argument: left unset, as by a dataclass
        if f.init:
            annotations[f.name] = f.type
        body.append(f"  _object.__setattr__(self, {f.name!r}, {value})" if frozen
                    else f"  self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    exec("\n".join([f"def __init__(self, {', '.join(params)}):", *body, "  pass"]),  # noqa: S102
         env)
    init = env["__init__"]
    init.__annotations__ = {**annotations, "return": None}
    return init


def _methods(cls: type[Any], hashed: bool) -> dict[str, Any]:
    """``cls``'s other frozen-dataclass methods: closures over its field names, none compiled.

    ``values(obj)`` is the tuple of ``obj``'s fields (``attrgetter`` of two or more names), the
    tuple a dataclass's generated methods build: the same comparison, hash and repr.
    """
    names = tuple(f.name for f in fields(cls))
    for f in fields(cls):
        if not f.init or not f.compare or f.hash is not None:
            raise TypeError(f"{cls.__name__}.{f.name}: a frozen_record has plain fields only")
    if len(names) < 2:
        raise TypeError(f"{cls.__name__}: a frozen_record has two fields or more")
    values = attrgetter(*names)
    compare = _eq_hash(values, values)

    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(names, values(self),
                                                                     strict=True))
        return f"{self.__class__.__qualname__}({shown})"

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return {"__repr__": recursive_repr()(__repr__), "__eq__": compare["__eq__"],
            "__hash__": compare["__hash__"] if hashed else None, "__setattr__": __setattr__,
            "__delattr__": __delattr__, "__getstate__": _getstate, "__setstate__": _setstate}


@dataclass_transform()
def value_record(cls: type[_T]) -> type[_T]:
    """``cls`` as ``dataclass(slots=True)`` makes it: compared and printed, unhashable.

    A :func:`mutable_record` with the ``__eq__`` and ``__repr__`` of :func:`frozen_record`
    (closures over the field names) and ``__hash__ = None``, as a dataclass that compares and
    is not frozen has.
    """
    made = _bare(cls)
    methods = _methods(made, hashed=False)
    _put(made, {name: methods[name] for name in ("__eq__", "__repr__", "__hash__")})
    record: Any = made
    record.__dataclass_params__.repr = record.__dataclass_params__.eq = True
    return made


def _frozen(cls: type[_T], hashed: bool) -> type[_T]:
    made = _slotted(cls)
    _put(made, _methods(made, hashed))
    params = made.__dataclass_params__  # type: ignore[attr-defined]
    params.repr = params.eq = params.frozen = True
    return _lazy_init(made, frozen=True)


@dataclass_transform(frozen_default=True)
def frozen_record(cls: type[_T]) -> type[_T]:
    """``cls`` as ``dataclass(frozen=True, slots=True)`` would make it, in one ``exec``."""
    return _frozen(cls, hashed=True)


@dataclass_transform(frozen_default=True)
def unhashable_record(cls: type[_T]) -> type[_T]:
    """:func:`frozen_record` with ``__hash__ = None``: every value holds an unhashable field."""
    return _frozen(cls, hashed=False)
