"""Permission rules as written: ``[permissions]`` allow / ask / deny, parsed and checked.

How a tool call matches them is :mod:`goosectx.permissions` (which reads shell commands, so it
imports the shell modules); this module does not, so loading the settings
(:mod:`goosectx.config`) stays light for the commands that match no rule (``compact``,
``sessions``, ``export``).

Core module: no printing.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Literal

from goosectx.config_values import fail, top_level_key_error
from goosectx.errors import ConfigError
from goosectx.lazy_pattern import LazyPattern
from goosectx.plain_record import compared_record
from goosectx.tools.definitions import TEXT_EDITOR_COMMANDS, TEXT_EDITOR_SAME

RuleKind = Literal["allow", "ask", "deny"]

_RULE = LazyPattern(r"^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$", re.S)


@compared_record  # read-only to mypy; printed nowhere (a test)
class PermissionRules:
    """Permission rules: patterns such as ``shell(git status*)``.

    Deny wins over ask over allow, and all win over the approval mode.
    """

    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    def plus(self, kind: RuleKind, rule: str) -> PermissionRules:
        """These rules with ``rule`` added to ``kind`` (no duplicate)."""
        current = getattr(self, kind)
        if rule in current:
            return self
        values = {"allow": self.allow, "ask": self.ask, "deny": self.deny}
        values[kind] = (*current, rule)
        return PermissionRules(**values)

    def merged(self, other: PermissionRules) -> PermissionRules:
        """These rules and ``other``'s together."""
        return PermissionRules(_union(self.allow, other.allow), _union(self.ask, other.ask),
                               _union(self.deny, other.deny))

    def __bool__(self) -> bool:
        return bool(self.allow or self.ask or self.deny)


def _union(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return a + tuple(x for x in b if x not in a)


def parse_rule(rule: str) -> tuple[str, str | None]:
    """``(tool glob, spec or None)`` of a rule.

    Raises:
        ValueError: not ``TOOL`` or ``TOOL(SPEC)``.
    """
    match = _RULE.match(rule)
    if match is None or not rule.strip():
        raise ValueError(f"permission rule {rule!r} is not TOOL or TOOL(PATTERN), "
                         "e.g. shell(git status*)")
    name, spec = match.group(1), match.group(2)
    if not any(c in name for c in "*?[") and "__" not in name and name not in BUILTIN_TOOLS:
        raise ValueError(f"permission rule {rule!r} names no tool: the built-in tools are "
                         f"{', '.join(BUILTIN_TOOLS)} (an extension's are NAME__TOOL)")
    if spec is not None and not spec.strip():
        raise ValueError(f"permission rule {rule!r} has an empty pattern, which matches "
                         f"nothing: write {name} for every call, or {name}(PATTERN)")
    if name == "text_editor" and spec in TEXT_EDITOR_COMMANDS:
        raise ValueError(f"permission rule {rule!r} names the file {spec!r}, not the command "
                         f"(a rule with no ':' is a path): write text_editor({spec}:*) for "
                         f"every {spec}")
    if name == "text_editor" and spec is not None and ":" in spec:
        _check_editor_spec(rule, spec)
    return name, spec


EDITOR_COMMANDS = (*TEXT_EDITOR_COMMANDS, *TEXT_EDITOR_SAME)
"""The commands a ``text_editor(COMMAND:PATH)`` rule may name (``create`` is ``write``)."""


def _check_editor_spec(rule: str, spec: str) -> None:
    """Refuse a ``COMMAND:PATH`` whose COMMAND names no command or whose PATH is empty.

    A COMMAND with a wildcard must match one (``*``, ``[sw]*``); ``text_editor(wirte:src/**)``
    would guard nothing.

    Raises:
        ValueError: the one-line error, with the fix.
    """
    command, _, path = spec.partition(":")
    if not any(fnmatchcase(known, command) for known in EDITOR_COMMANDS):
        raise ValueError(f"permission rule {rule!r} names no text_editor command "
                         f"({command!r}), so it matches nothing: the commands are "
                         f"{', '.join(EDITOR_COMMANDS)}; a path with ':' is written "
                         f"text_editor(*:{spec})")
    if not path.strip():
        raise ValueError(f"permission rule {rule!r} has an empty path, which matches nothing: "
                         f"write text_editor({command}:*) for every {command}")


def parsed(rule: str) -> tuple[str | None, str | None]:
    """:func:`parse_rule`, or ``(None, None)`` for a malformed rule (refused when loaded)."""
    try:
        return parse_rule(rule)
    except ValueError:
        return None, None


def rules_may_catch(rules: PermissionRules, *tools: str) -> bool:
    """True when a deny or ask rule may catch a call of one of ``tools`` (``sh*``, ``*``)."""
    return any(name is not None and any(fnmatchcase(tool, name) for tool in tools)
               for rule in (*rules.deny, *rules.ask) for name in [parsed(rule)[0]])


BUILTIN_TOOLS = ("shell", "text_editor", "tree")
"""The built-in tools' names (``tools/builtin.py``): a rule naming another tool without a
wildcard or an extension's ``NAME__`` would never match anything (a typo such as ``Shell``)."""


def parse_permissions(where: str, raw: object) -> PermissionRules:
    """``{"allow": [...], "ask": [...], "deny": [...]}`` → :class:`PermissionRules`.

    Raises:
        ConfigError: not a table, an unknown key, not a list of strings, or a malformed rule.
    """
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table with allow / ask / deny lists")
    unknown = set(raw) - {"allow", "ask", "deny"}
    if unknown:
        key = sorted(unknown)[0]
        raise top_level_key_error(f"{where}: ", "[permissions]", key) or ConfigError(
            f"{where}: unknown key {key!r}", "valid keys: allow, ask, deny")
    lists: dict[str, tuple[str, ...]] = {}
    for kind in ("allow", "ask", "deny"):
        value = raw.get(kind, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(f"{kind} in {where}", value, "a list of rules like 'shell(git status*)'")
        for rule in value:
            try:
                parse_rule(rule)
            except ValueError as exc:
                raise ConfigError(f"{where}: {exc}") from None
        lists[kind] = tuple(value)
    return PermissionRules(**lists)