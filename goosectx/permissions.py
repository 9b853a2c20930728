"""Permission rules (``[permissions]`` allow / ask / deny) and how a tool call matches them.

docs/architecture.md §4, clause 2 of the one approval decision. A rule is ``TOOL`` or
``TOOL(SPEC)``; TOOL is a glob on the tool name (``shell``, ``NAME__*`` for every tool of an
extension). SPEC depends on the tool:

* ``shell(git status*)`` — a glob on one simple command. A compound command (``;``, ``&&``,
  ``||``, ``|``, ``&``, newlines, ``$( )``, backticks, redirections) is split into its parts:
  an allow rule covers it only when EVERY part matches an allow rule (or when one with no
  wildcard spells the whole line as written, ``shell(npm test 2>&1 | tail -20)``, what ``p``
  offers for such a line: that very line); a deny or ask rule catches it when ANY part
  matches. A redirection (``> out.txt``) is a part of its own, so
  ``shell(echo *)`` does not allow ``echo x > ~/.bashrc`` (one to or from ``/dev/null`` as
  written names no file and is no part; a ``for NAME in WORDS`` header runs no program and
  needs no allow rule, nor does ``set -euo pipefail``). Each part is matched in its forms
  (``shell_command.command_forms``): deny and ask rules in any form (quotes, ``/bin/`` paths,
  ``VAR=value`` and wrappers such as ``sudo``/``env``/``xargs`` removed, the inside of
  ``sh -c``), allow rules in the unquoted form only. A trailing ``*`` right after a word
  starts a new word: ``shell(ls*)`` matches ``ls -la``, not ``lsblk``. Words are split as
  bash splits them (``shell_lexer``); a command the rules cannot read (its program named at
  run time or by a glob or brace expansion, a function or alias definition) is never allowed
  by a rule and, under any shell deny/ask rule, is asked about.
* ``text_editor(view:src/**)`` — ``COMMAND:PATH`` globs (``text_editor(src/**)``: any command),
  the path relative to the working dir.
* any other tool — a glob on the call's arguments as compact JSON.

Rules come from the user's config file and the command line (``run --allow/--deny``), never
from the project directory: a cloned repository must not grant itself permissions.

Core module: no printing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from goosectx.deny_backstop import backstop
from goosectx.editor_rules import editor_checks, editor_protected, editor_spec, editor_subjects
from goosectx.permission_rules import (
    BUILTIN_TOOLS,
    PermissionRules,
    RuleKind,
    parse_permissions,
    parse_rule,
    parsed,
    rules_may_catch,
)
from goosectx.protected_paths import line_dirs
from goosectx.rule_offer import suggested_rule
from goosectx.sed_script import in_place_unnamed
from goosectx.shell_builtins import sets_shell_options
from goosectx.shell_command import command_forms, shell_parts
from goosectx.shell_dirs import Walked
from goosectx.shell_forms import CommandForms
from goosectx.shell_git import in_own_dir
from goosectx.shell_lexer import Part, lex
from goosectx.shell_program import SYSTEM_PROGRAM, after_keywords
from goosectx.shell_subcommands import subcommand_forms
from goosectx.shell_unchecked import unchecked
from goosectx.subcommand_aliases import equal_forms

__all__ = ["BUILTIN_TOOLS", "PermissionRules", "RuleKind", "RuleMatch", "match_rules",
           "parse_permissions", "parse_rule", "rules_for_no_tool", "shell_parts",
           "suggested_rule"]


def rules_for_no_tool(rules: PermissionRules, extensions: Iterable[str]) -> list[str]:
    """A one-line warning for each rule whose TOOL part matches no known tool.

    The known tools are the built-in ones and every ``NAME__…`` of the ``extensions`` named
    (their tools may not be listed yet: any name after the prefix counts). Matching is
    case-sensitive, as :func:`parse_rule`'s check of a plain name is (``Shell`` is refused).
    Not an error: an extension added later (``/extension add``) may bring the tool.
    """
    prefixes = sorted(f"{name}__" for name in extensions)
    known = [*BUILTIN_TOOLS, *(f"{p}*" for p in prefixes)]
    shown = ", ".join(known[:-1]) + f" and {known[-1]}"
    warnings = []
    for rule in dict.fromkeys((*rules.deny, *rules.ask, *rules.allow)):
        name = parsed(rule)[0]
        if name is None or _names_a_tool(name, prefixes):
            continue
        case = (" (tool names are case-sensitive)" if _names_a_tool(name, prefixes, fold=True)
                else "")
        warnings.append(f"permission rule {rule!r} matches no tool, so it never applies: "
                        f"the tools are {shown}{case}")
    return warnings


def _names_a_tool(glob: str, prefixes: list[str], *, fold: bool = False) -> bool:
    """True when ``glob`` matches a built-in tool or may match a tool of one of ``prefixes``.

    ``fold``: compare with case folded (to tell the user a rule differs only in case).
    """
    if fold:
        glob, prefixes = glob.lower(), [p.lower() for p in prefixes]
    if any(fnmatchcase(tool.lower() if fold else tool, glob) for tool in BUILTIN_TOOLS):
        return True
    literal = re.split(r"[*?\[]", glob, maxsplit=1)[0]
    return any(p.startswith(literal) or literal.startswith(p) for p in prefixes)


# -- matching --------------------------------------------------------------------------------
def call_subjects(tool_name: str, arguments: Mapping[str, Any],
                  working_dir: Path) -> list[CommandForms]:
    """What a rule's SPEC is matched against, one entry per part of the call.

    The forms of each shell part (:func:`~goosectx.shell_command.command_forms`),
    ``COMMAND:PATH`` for ``text_editor`` (:func:`goosectx.editor_rules.editor_subjects`), or the
    arguments' JSON.
    """
    if tool_name == "shell":
        command = arguments.get("command")
        return _shell_subjects(command, working_dir)[0] if isinstance(command, str) else []
    if tool_name == "text_editor":
        return editor_subjects(arguments, working_dir)
    subject = json.dumps(dict(arguments), ensure_ascii=False, separators=(",", ":"),
                         sort_keys=True)
    return [CommandForms((subject,), subject)]


def _shell_subjects(command: str, working_dir: Path, walked: Walked | None = None,
                    ) -> tuple[list[CommandForms], dict[int, int]]:
    """The forms of each part of a shell line, and each ``< FILE`` part's command.

    The second: the index of a plain input redirection's part (:attr:`Part.input_of
    <goosectx.shell_words.Part.input_of>`) → the index of the command it gives FILE to, for
    :func:`match_rules` to let that command's allow rule cover it; a ``for NAME in WORDS``
    header's or bash settings' (``set -euo pipefail``) index → :data:`LOOP_HEADER` (no rule
    need cover it).
    """
    dirs = line_dirs(command, working_dir, walked)  # cd .git && tee HEAD: where each part runs
    kept = [(p, _with_subcommands(f)) for p in lex(command)
            if (f := command_forms(p, command, dirs)).all or f.unreadable]  # not a lone `fi`
    index = {id(p): k for k, (p, _f) in enumerate(kept)}
    owners = {k: index[id(p.input_of)] for k, (p, _f) in enumerate(kept)
              if p.input_of is not None and id(p.input_of) in index}
    owners |= {k: LOOP_HEADER for k, (p, _f) in enumerate(kept) if _loop_header(p) or (
        sets_shell_options([w.raw for w in after_keywords(p.words, p.piped)]))}  # set -e
    return [f for _p, f in kept], owners


LOOP_HEADER = -1
"""In :func:`_shell_subjects`' second value: the part is a ``for NAME in WORDS`` header."""


def _loop_header(part: Part) -> bool:
    r"""True for ``for NAME [in WORDS]`` (after reserved words): it runs no program.

    Its words are data bash expands (a ``$( )`` among them is a part of its own, judged as
    any); no allow rule need cover it. Not a quoted ``\for`` or ``'for'``: a program.
    """
    words = after_keywords(part.words, part.piped)
    return (not part.unreadable and len(words) >= 2 and words[0].raw == "for"
            and _NAME.fullmatch(words[1].raw) is not None
            and (len(words) == 2 or words[2].raw == "in"))


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _with_subcommands(forms: CommandForms) -> CommandForms:
    """``forms`` with its subcommand forms added for deny and ask rules (``git -C . push``).

    :func:`goosectx.shell_subcommands.subcommand_forms`, and each under the other names of its
    program and subcommand (``npm i``, ``python3 -m pip``: :mod:`goosectx.subcommand_aliases`);
    an allow rule still matches
    :attr:`CommandForms.words` only.
    """
    named = _other_names(forms.all)
    return replace(forms, all=named) if len(named) > len(forms.all) else forms


def _other_names(forms: tuple[str, ...]) -> tuple[str, ...]:
    """``forms`` and their subcommand forms, each under its other names (``npm i``: install)."""
    extra = [x for form in forms for x in subcommand_forms(form)]
    extra += [x for form in (*forms, *extra) for x in equal_forms(form)]
    return tuple(dict.fromkeys((*forms, *extra))) if extra else forms


_TRAILING_STAR = re.compile(r"\w *\*$")


def _spec_matches(tool_name: str, spec: str, subject: str) -> bool:
    """``fnmatch``, except that a shell rule's trailing ``*`` after a word starts a new word.

    ``shell(ls*)`` and ``shell(ls *)`` both mean "``ls`` with any arguments or none": they
    match ``ls`` and ``ls -la`` but not ``lsblk``.
    """
    if tool_name == "text_editor":
        spec = editor_spec(spec)  # src/** is *:src/**, create:x is write:x
    if tool_name == "shell" and _TRAILING_STAR.search(spec) and not spec.endswith("\\*"):
        head = spec[:-1].rstrip(" ")
        return fnmatchcase(subject, head) or fnmatchcase(subject, head + " *")
    return fnmatchcase(subject, spec)


def matching_rules(rules: tuple[str, ...], tool_name: str, subjects: tuple[str, ...]) -> list[str]:
    """The rules (of one kind) that match any of ``subjects`` (the forms of one part)."""
    out = []
    for rule in rules:
        try:
            name_glob, spec = parse_rule(rule)
        except ValueError:
            continue
        if not fnmatchcase(tool_name, name_glob):
            continue
        if spec is None or any(_spec_matches(tool_name, spec, s) for s in subjects):
            out.append(rule)
    return out


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """The verdict of the rules on one call.

    Attributes:
        kind: ``deny``, ``ask``, ``allow``, or ``None`` when no rule decides.
        rules: The rules that decided (for the reason shown to the user).
        unreadable: With ``ask`` and no rule, or with no verdict: why the rules cannot read
            the command (``tee .git/HEAD``: what it writes), for the question to name.
        uncovered: With no verdict on a shell line the rules can read: the first part no
            allow rule covers (``sort`` of ``grep -rn x src | sort`` under ``shell(grep*)``),
            for the question to name; :attr:`rules` are the ones that cover the others.
        beyond: With no verdict, when an awk or sed call (or an output option: ``sort -o F``)
            does more than an allow rule may cover: why
            (:attr:`goosectx.shell_forms.CommandForms.beyond`).
        starter: With :attr:`uncovered`, what starts it when it is a command a wrapper runs
            (``find -exec`` for ``rm`` of ``find . -exec rm {} +`` under ``shell(find*)``),
            ``None`` for a part of the line.
        clause: With ``deny`` or ``ask`` from a rule: the form of the command the first rule
            matched (``rm -rf build``, the ``rm x`` of ``chroot / rm x``), for the reason.
    """

    kind: RuleKind | None
    rules: tuple[str, ...] = ()
    unreadable: str | None = None
    uncovered: str | None = None
    beyond: str | None = None
    starter: str | None = None
    clause: str | None = None


CANNOT_CHECK = "which the deny and ask rules cannot check"
"""Ends the reason an ``ask`` with :attr:`RuleMatch.unreadable` gives."""


def _unreadable(rules: PermissionRules, subjects: list[CommandForms]) -> str | None:
    """Why a part escapes the shell's deny and ask rules, or ``None`` (only shell rules count).

    :func:`goosectx.shell_unchecked.unchecked`, given the programs those rules name, then
    :func:`goosectx.deny_backstop.backstop` (``rustup run stable rm``), given each one's rule.
    """
    named = {(spec or "").split(" ", 1)[0].rstrip("*"): rule
             for rule in reversed((*rules.deny, *rules.ask))  # the first rule naming one
             for name, spec in [parsed(rule)] if name is not None and fnmatchcase("shell", name)}
    if not named:
        return None
    return unchecked(subjects, set(named)) or backstop(subjects, named)


def shell_checks(rules: PermissionRules) -> bool:
    """True when a deny or ask rule may catch a shell call (``shell(rm*)``, ``sh*``)."""
    return rules_may_catch(rules, "shell")


def match_rules(rules: PermissionRules, tool_name: str, arguments: Mapping[str, Any],
                working_dir: Path, walked: Walked | None = None) -> RuleMatch:
    """The rules' verdict on one call.

    Deny when any form of any part matches a deny rule, else ask when any form of any part
    matches an ask rule, else ask when a shell part is one the rules cannot read, or computes
    an argument of a program a shell deny/ask rule names (:func:`_unreadable`), else allow
    when EVERY part's unquoted form (as the shell reads it, wrappers and assignments kept)
    matches an allow rule, so does every command a wrapper in it starts
    (:attr:`CommandForms.started`: ``shell(find*)`` covers ``find``, not the ``rm`` of its
    ``-exec``), and every part is one the rules can read; otherwise no verdict. ``walked``:
    a shell line's walk (:func:`goosectx.shell_dirs.command_dirs`), when the caller has it.
    """
    command = arguments.get("command")
    subjects, owners = _shell_subjects(command, working_dir, walked) if (
        tool_name == "shell" and isinstance(command, str)) else (
        call_subjects(tool_name, arguments, working_dir), {})
    subjects = subjects or [CommandForms(("",), "")]
    for kind in ("deny", "ask"):
        hits = [r for s in subjects for r in matching_rules(getattr(rules, kind), tool_name,
                                                             s.all)]
        if hits:
            return RuleMatch(kind, tuple(dict.fromkeys(hits)), clause=_clause(
                hits[0], tool_name, [f for s in subjects for f in s.all]))
    if tool_name == "text_editor" and (why := editor_protected(arguments, working_dir)):
        return RuleMatch("ask" if editor_checks(rules) else None, unreadable=why)  # .git/config
    may_start = [_other_names(s.maybe) for s in subjects]  # npx npm i x: npm install x too
    maybe = [r for forms in may_start if forms
             for r in matching_rules((*rules.deny, *rules.ask), tool_name, forms)]
    if maybe:  # chroot / rm x: a runner may start what the rule names
        clause = _clause(maybe[0], tool_name, [f for forms in may_start for f in forms])
        return RuleMatch("ask", unreadable=f"a program it runs may start `{clause}`, which "
                                           f"{maybe[0]} names", clause=clause)
    why = _unreadable(rules, subjects) if tool_name == "shell" else None
    if why is not None:
        return RuleMatch("ask", unreadable=why)
    readable = [(subject.words, subject.started) for subject in subjects
                if subject.words is not None]
    if len(readable) < len(subjects):  # the rules cannot read a part: never allowed by a rule
        return RuleMatch(None, beyond=next((s.beyond for s in subjects if s.beyond), None),
                         unreadable=next(  # tee .git/HEAD: the question says why
                             (s.unreadable for s in subjects if s.unreadable), None))
    if len(subjects) > 1 and (line := _line_rules(rules.allow, tool_name, arguments)):
        return RuleMatch("allow", line)  # shell(npm test 2>&1 | tail -20): the very line
    covers = [[hit for hit in matching_rules(rules.allow, tool_name, named)
               if not in_place_unnamed(hit, named[-1])]  # sed -n -i 1p f under shell(sed -n*)
              for words, _started in readable for named in [_by_name(words, working_dir)]]
    allowed: list[str] = []
    uncovered: list[tuple[str, str | None]] = []
    for k, (words, started) in enumerate(readable):  # wc -l < f: wc's rule covers `< f`
        found = covers[k] or (covers[owners[k]] if owners.get(k, LOOP_HEADER) >= 0 else [])
        if not found and k not in owners:  # rm x < f: the question names `rm x`
            uncovered.append((words or "the line", None))  # ((…)) alone: no command in it
        allowed += found
        for starter, form, head in started:  # env rm x: `rm x` needs an allow rule of its own
            named = _by_name(form, working_dir)  # find -exec /bin/rm {} +: shell(rm*) covers it
            hits = [hit for hit in matching_rules(rules.allow, tool_name, named)
                    if not in_place_unnamed(hit, named[-1])] or [  # sed -n -i 1p f, shell(sed -n*)
                        hit for hit in found if _spells(hit, head)]  # shell(uv run pytest*)
            if not hits:
                uncovered.append((form.split(" ", 1)[0], starter))
            allowed += hits
    if uncovered:  # grep -rn x src | sort under shell(grep*): the question names `sort`
        return RuleMatch(None, tuple(dict.fromkeys(allowed)), uncovered=uncovered[0][0],
                         starter=uncovered[0][1])
    return RuleMatch("allow" if allowed else None, tuple(dict.fromkeys(allowed)))  # set -e alone


def _clause(rule: str, tool_name: str, forms: list[str]) -> str | None:
    """The first of ``forms`` ``rule`` matches (one line, cut to 80 characters), or ``None``."""
    form = next((f for f in forms if matching_rules((rule,), tool_name, (f,))), None)
    if form is None or tool_name != "shell":
        return None  # text_editor(hard.txt): the rule says it
    form = " ".join(form.split())
    return form if len(form) <= 80 else form[:79] + "…"


def _by_name(form: str, working_dir: Path) -> tuple[str, ...]:
    """An allow form, and with a program in a system dir by its name (``/bin/rm x``: ``rm x``).

    ``git -C . status`` (``-C`` the working dir) is ``git status`` too (:func:`in_own_dir`).

    :data:`goosectx.shell_program.SYSTEM_PROGRAM`: ``shell(rm*)`` covers ``/bin/rm x`` and
    ``shell(/bin/rm*)`` still does; ``./rm x`` runs a project file: only a rule naming it as
    written covers it.
    """
    if (here := in_own_dir(form, working_dir)) is not None:
        return form, here
    if SYSTEM_PROGRAM.match(form) is None:
        return (form,)
    program, _, rest = form.partition(" ")
    return form, " ".join(filter(None, (program.rsplit("/", 1)[1], rest)))


def _spells(rule: str, head: str) -> bool:
    """True when ``rule``'s text before any wildcard is ``head`` or goes on past it.

    ``head``: a simple command up to a program it starts (``uv run pytest``, ``""`` for none);
    ``shell(uv run pytest*)`` names that program, ``shell(uv run*)`` does not.
    """
    spec = parsed(rule)[1]
    if not head or spec is None:
        return False
    literal = re.split(r"[*?\[]", spec, maxsplit=1)[0]
    literal = literal.rstrip(" ") if literal != spec else literal
    return literal == head or literal.startswith(head + " ")


def _line_rules(rules: tuple[str, ...], tool_name: str,
                arguments: Mapping[str, Any]) -> tuple[str, ...]:
    """The allow rules that spell a shell call's whole command line, no wildcard in them.

    What ``p`` offers for a line of several commands (``rule_offer._whole_line``): it
    allows that line as written, nothing longer or reordered.
    """
    command = arguments.get("command")
    if tool_name != "shell" or not isinstance(command, str):
        return ()
    found = []
    for rule in rules:
        name, spec = parsed(rule)
        if (name is not None and fnmatchcase(tool_name, name) and spec is not None
                and not any(c in spec for c in "*?[") and spec == command.strip()):
            found.append(rule)
    return tuple(found)


def names_path(rules: tuple[str, ...], path: str) -> bool:
    """True when one of ``rules`` names ``path`` itself (no wildcard stands in for it)."""
    for rule in rules:
        _name, spec = parse_rule(rule)
        if spec and path in spec and not any(c in spec for c in "*?["):
            return True
    return False


