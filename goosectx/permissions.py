"""Permission rules (``[permissions]`` allow / ask / deny) and how a tool call matches them.

docs/architecture.md §4, clause 2 of the one approval decision. A rule is ``TOOL`` or
``TOOL(SPEC)``; TOOL is a glob on the tool name (``shell``, ``NAME__*`` for every tool of an
extension). SPEC depends on the tool:

* ``shell(git status*)`` — a glob on one simple command. A compound command (``;``, ``&&``,
  ``||``, ``|``, ``&``, newlines, ``$( )``, backticks, redirections) is split into its parts:
  an allow rule covers it only when EVERY part matches an allow rule; a deny or ask rule
  catches it when ANY part matches. A redirection (``> out.txt``) is a part of its own, so
  ``shell(echo *)`` does not allow ``echo x > ~/.bashrc``.
* ``text_editor(view:src/**)`` — ``COMMAND:PATH`` globs (``text_editor(src/**)``: any command),
  the path relative to the working dir.
* any other tool — a glob on the call's arguments as compact JSON.

Rules come from the user's config file and the command line (``run --allow/--deny``), never
from the project directory: a cloned repository must not grant itself permissions.

Core module: no printing.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal

from goosectx.config_values import fail
from goosectx.errors import ConfigError

RuleKind = Literal["allow", "ask", "deny"]

_RULE = re.compile(r"^\s*([^()\s]+)\s*(?:\((.*)\))?\s*$", re.S)


@dataclass(frozen=True, slots=True)
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
    return match.group(1), match.group(2)


# -- shell commands split into parts ------------------------------------------------------
_OPERATORS = ("&&", "||", ";", "|", "&", "\n")


def shell_parts(command: str) -> list[str]:
    """The simple commands of a shell command line, each with its white space normalised.

    Splits on ``;`` ``&&`` ``||`` ``|`` ``&`` and newlines outside quotes; the inside of
    ``$( )`` and backticks (also inside double quotes) is split as commands of its own; a
    redirection (``>``, ``>>``, ``<``, ``2>``, ``&>``) and its target become a part
    ``> TARGET``. Empty parts are dropped.
    """
    parts: list[str] = []
    _split(command, parts)
    return [p for p in (" ".join(x.split()) for x in parts) if p]


def _split(text: str, parts: list[str]) -> None:  # noqa: C901 - one small scanner
    current: list[str] = []
    i, quote = 0, ""
    while i < len(text):
        ch = text[i]
        if quote == "'":
            current.append(ch)
            if ch == "'":
                quote = ""
            i += 1
            continue
        if ch == "\\" and i + 1 < len(text):
            current.append(text[i:i + 2])
            i += 2
            continue
        if ch == "$" and text.startswith("$(", i):
            end = _closing(text, i + 2)
            _split(text[i + 2:end], parts)
            current.append("$(…)")
            i = end + 1
            continue
        if ch == "`":
            end = text.find("`", i + 1)
            end = len(text) if end < 0 else end
            _split(text[i + 1:end], parts)
            current.append("`…`")
            i = end + 1
            continue
        if quote == '"':
            current.append(ch)
            if ch == '"':
                quote = ""
            i += 1
            continue
        if ch in "'\"":
            quote = ch
            current.append(ch)
            i += 1
            continue
        op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
        if op is not None and not (op == "&" and text.startswith("&>", i)):
            parts.append("".join(current))
            current = []
            i += len(op)
            continue
        redirect = re.match(r"(\d*|&)(>>|>|<)&?\s*", text[i:])
        if redirect and (not current or current[-1].isspace() or redirect.group(1) == ""):
            target = re.match(r"(\"[^\"]*\"|'[^']*'|[^\s;&|]+)", text[i + redirect.end():])
            tail = target.group(0) if target else ""
            if not (redirect.group(0).rstrip().endswith("&") and tail.isdigit()):
                parts.append(f"{redirect.group(2)} {tail}")  # not 2>&1: that writes nothing
            i += redirect.end() + len(tail)
            continue
        current.append(ch)
        i += 1
    parts.append("".join(current))


def _closing(text: str, start: int) -> int:
    depth = 1
    i = start
    while i < len(text):
        if text.startswith("$(", i) or text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


# -- matching --------------------------------------------------------------------------------
def _relative(path: str, working_dir: Path) -> str:
    full = Path(os.path.abspath(working_dir / Path(path).expanduser()))
    try:
        return full.relative_to(os.path.abspath(working_dir)).as_posix()
    except ValueError:
        return full.as_posix()


def call_subjects(tool_name: str, arguments: Mapping[str, Any], working_dir: Path) -> list[str]:
    """What a rule's SPEC is matched against: the shell parts, ``COMMAND:PATH``, or JSON."""
    if tool_name == "shell":
        command = arguments.get("command")
        return shell_parts(command) if isinstance(command, str) else []
    if tool_name == "text_editor":
        path = arguments.get("path")
        rel = _relative(path, working_dir) if isinstance(path, str) else ""
        return [f"{arguments.get('command', '')}:{rel}"]
    return [json.dumps(dict(arguments), ensure_ascii=False, separators=(",", ":"),
                       sort_keys=True)]


def _spec_matches(tool_name: str, spec: str, subject: str) -> bool:
    if tool_name == "text_editor" and ":" not in spec:
        spec = "*:" + spec
    return fnmatchcase(subject, spec)


def matching_rules(rules: tuple[str, ...], tool_name: str, subject: str) -> list[str]:
    """The rules (of one kind) that match one subject of a call."""
    out = []
    for rule in rules:
        try:
            name_glob, spec = parse_rule(rule)
        except ValueError:
            continue
        if not fnmatchcase(tool_name, name_glob):
            continue
        if spec is None or _spec_matches(tool_name, spec, subject):
            out.append(rule)
    return out


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """The verdict of the rules on one call.

    Attributes:
        kind: ``deny``, ``ask``, ``allow``, or ``None`` when no rule decides.
        rules: The rules that decided (for the reason shown to the user).
    """

    kind: RuleKind | None
    rules: tuple[str, ...] = ()


def match_rules(rules: PermissionRules, tool_name: str, arguments: Mapping[str, Any],
                working_dir: Path) -> RuleMatch:
    """The rules' verdict on one call.

    Deny when any part matches a deny rule, else ask when any part matches an ask rule, else
    allow when EVERY part matches an allow rule; otherwise no verdict (``kind`` ``None``).
    """
    subjects = call_subjects(tool_name, arguments, working_dir) or [""]
    for kind in ("deny", "ask"):
        hits = [r for s in subjects for r in matching_rules(getattr(rules, kind), tool_name, s)]
        if hits:
            return RuleMatch(kind, tuple(dict.fromkeys(hits)))
    allowed: list[str] = []
    for subject in subjects:
        hits = matching_rules(rules.allow, tool_name, subject)
        if not hits:
            return RuleMatch(None)
        allowed += hits
    return RuleMatch("allow", tuple(dict.fromkeys(allowed)))


def names_path(rules: tuple[str, ...], path: str) -> bool:
    """True when one of ``rules`` names ``path`` itself (no wildcard stands in for it)."""
    for rule in rules:
        _name, spec = parse_rule(rule)
        if spec and path in spec and not any(c in spec for c in "*?["):
            return True
    return False


SUBCOMMAND_TOOLS = frozenset({
    "git", "npm", "pnpm", "yarn", "cargo", "go", "docker", "kubectl", "uv", "pip", "poetry",
    "gh", "terraform", "dotnet", "bundle", "rails", "mix", "nix", "brew", "apt", "helm"})
"""Commands whose second word is a subcommand (``git status``), kept in a suggested rule."""


def suggested_rule(tool_name: str, arguments: Mapping[str, Any]) -> str | None:
    """The rule ``a`` offers for a shell call: its first words and ``*``.

    ``git status --short`` → ``shell(git status*)``; ``pytest -q`` → ``shell(pytest*)``.
    ``None`` for a compound command or another tool.
    """
    if tool_name != "shell" or not isinstance(arguments.get("command"), str):
        return None
    parts = shell_parts(arguments["command"])
    if len(parts) != 1:
        return None
    words = parts[0].split()
    keep = [words[0]]
    if (len(words) > 1 and words[0] in SUBCOMMAND_TOOLS
            and re.fullmatch(r"[a-z][a-z0-9_-]*", words[1])):
        keep.append(words[1])  # a subcommand: git status, npm test, cargo build
    return f"shell({' '.join(keep)}*)"


def parse_permissions(where: str, raw: object) -> PermissionRules:
    """``{"allow": [...], "ask": [...], "deny": [...]}`` → :class:`PermissionRules`.

    Raises:
        ConfigError: not a table, an unknown key, not a list of strings, or a malformed rule.
    """
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table with allow / ask / deny lists")
    unknown = set(raw) - {"allow", "ask", "deny"}
    if unknown:
        raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r}",
                          "valid keys: allow, ask, deny")
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
