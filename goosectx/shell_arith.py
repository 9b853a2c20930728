r"""Variables bash reads as numbers whose value the command line reads at run time.

docs/architecture.md §4, clause 2 of the one approval decision. Bash evaluates a variable's
value as an arithmetic expression, again and again, wherever a name stands in arithmetic
context, and an expression may hold an array subscript whose ``$( )`` bash runs:
``read x < list; (( x ))`` runs ``rm`` when ``list`` holds ``a[$(rm f)]``. The contexts:
``((…))`` (``for ((…))`` too), ``$((…))``, ``$[…]``, ``let``, the operands of ``[[ … -eq …]]``
(and ``-ne -lt -le -gt -ge``; not ``[``/``test``, whose operands must be integers), the
expansions in the operand of ``[[ -v ]]``/``test -v``/``[ -v ]`` (``-v $x``; not a name
written out, ``-v x``: bash only tests whether it is set), an array's subscript
(``${a[x]}``, ``a[x]=``, ``a=([x]=1)``, ``printf -v 'a[x]'``; an associative array's key too:
its ``declare -A`` may stand in a subshell, where the array outside is indexed), a substring
offset (``${s:x:n}``) and an assignment to a ``declare -i`` variable. :func:`arithmetic_reason` asks
when one names, directly or through values the line assigns (``y=$x``, ``y=x``), a variable
whose value the line does not write: set by ``read``, ``mapfile``, ``getopts``, ``select``,
``printf -v``, a ``for`` over computed words, ``[[ =~ ]]`` (``BASH_REMATCH``), a ``$( )`` whose
output may be text, ``$_``, or ``$0``, ``$1`` … when the line sets them (``set --``, a ``-c``
string's arguments: awk's ``c[$1]`` is no parameter of a plain line); or a ``$( )`` inside
it. A ``$( )`` whose output is a number (``wc -l < f``, ``grep -c x f``, ``seq 5``,
``date +%s``, ``nproc``, ``id -u``, ``stat -c %s f``) is a number. A variable the line does
not set at all comes from goosectx's scrubbed environment: each call is a fresh ``bash -c``,
so no earlier call sets it, and it is not read. Read from the text, quotes included
(over-reading only asks), like :mod:`goosectx.shell_reparse`, with every inner line
(``bash -c $'(( \x78 ))'`` decoded); the caller leaves out a quoted-delimiter here-document's
body (:func:`goosectx.shell_lexer.unexpanded`: bash expands nothing there).

Core module: no printing.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["arithmetic_reason"]

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_END = ";&|\n)"
_AFTER = r"(?<![\w$%:/.@-])"
_ASSIGN = re.compile(rf"{_AFTER}({_NAME})(\[|\+?=(?!=))|\$\{{({_NAME}):?=")
"""``NAME=``, ``a[i]+=`` (the ``[``: its ``]`` is found apart), ``${NAME:=…}``."""
_READS = re.compile(r"(?<![\w.-])(read|mapfile|readarray|getopts|select)\s+([^;&|<>()\n]*)")
_IMPLIED = {"read": "REPLY", "mapfile": "MAPFILE", "readarray": "MAPFILE",
            "getopts": "OPTARG", "select": "REPLY"}
_PRINTF_V = re.compile(r"(?<![\w.-])printf\s+(?:--\s+)?-v\s*['\"]?(" + _NAME + ")")
_FOR = re.compile(rf"(?<![\w.-])for\s+({_NAME})(\s+in\s+([^;\n]*)|\s*(?:;|\n|do\b))")
_INTEGER = re.compile(r"(?<![\w.-])(?:declare|typeset|local)\s+((?:[-+]\w+\s+)*)([^;&|\n)]*)")
_LET = re.compile(r"(?<![\w.-])let\s+([^;&|\n)]*)")
_COMPARED = re.compile(r"\s-(?:eq|ne|lt|le|gt|ge)\s")
"""In ``[[ … ]]``: all of it is read (an operand may hold blanks, ``$(cat f)``)."""
_TEST_V = re.compile(r"(?<![\w-])-v\s+(\S+)")
_TESTS = re.compile(r"(?<![\w.-])test(?![\w.-])|\[\s")
"""``test``, ``[`` or ``[[``: any ``-v WORD`` of the line is read (``[ -n 1 -a -v "$x" ]``)."""
_BARE_NAME = re.compile(rf"(?<![\w$#{{])(?:{_NAME})")
"""A name written out in ``-v``'s operand: bash tests whether it is set, never reads its value
(``[[ -v x ]]``); the operand's expansions name the variable (``-v $x``: x's value may be
``a[$(rm f)]``) and its subscript is read as any subscript is."""
_SUBSCRIPT = re.compile(rf"{_NAME}\[|\(\[|(\s)\[")
"""A name's subscript (``a[x]``, ``${a[x]}``; an associative array's key is read too: a
``declare -A`` may stand elsewhere), or an array literal's (``a=([x]=1 [y]=2)``: after a
blank, only a ``[…]`` followed by ``=`` or ``+=``; ``[ "$n" -gt 0 ]`` is no subscript)."""
_EXPANSION = re.compile(rf"\$\{{(?:{_NAME}|[0-9@*])")
_REFERENCE = re.compile(rf"\$\{{#[^}}]{{0,256}}\}}|\$\{{?({_NAME}|[0-9@*])|(?<![\w#$.])({_NAME})")
_NUMBERS = re.compile(
    r"\s*(?:wc(?:\s+-[clmwL]+)+(?:\s*<\s*\S+)?"
    r"|grep(?:\s+-[a-zA-Z]+|\s+--[\w-]+)*\s+-[a-zA-Z]*c[a-zA-Z]*(?:\s+-[a-zA-Z]+|\s+--[\w-]+)*"
    r"\s+[^\s$`*?\[-]\S*(?:\s+[^\s$`*?\[-][^\s$`*?\[]*)?|seq(?:\s+-?[\d.]+)+|date\s+\+%[sN]|nproc|id\s+-[ug]"
    r"|stat\s+-c\s*%[sYXZW]\s+[^\s$`*?\[]+)\s*")
"""A ``$( )`` whose output is a number (or nothing): the last command of its pipeline."""
_MOST = 1000
"""More assignments than this in a line: any name counts as read at run time (asks)."""
_ANY = "\0"
"""In the names read: every name."""
_LONGEST = 4096
"""A value longer than this is not read to its end: it counts as read at run time."""
_POSITIONAL = frozenset("0123456789@*")
_SETS_POSITIONAL = re.compile(r"(?<![\w.-])(?:set|shift)(?![\w.-])|(?<![\w.])-\w*c\s|\(\s*\)")
"""``set --``, a ``-c`` string given arguments, a function: ``$1`` … hold values (not in a
plain ``bash -c`` line, where awk's ``c[$1]`` is no shell parameter)."""


def _closing(text: str, i: int, opener: str, closer: str, depth: int = 1,
             longest: int | None = None) -> int:
    """Past the ``closer`` bringing ``depth`` to 0 from ``i`` (or the end, or ``longest`` on)."""
    stop = len(text) if longest is None else min(len(text), i + longest)
    while i < stop and depth:
        depth += (text[i] == opener) - (text[i] == closer)
        i += 1
    return i


def _brackets(text: str) -> dict[int, int]:
    """Each ``[`` of ``text``: the index past its ``]`` (or the end), in one pass."""
    closes: dict[int, int] = {}
    opened: list[int] = []
    for k, c in enumerate(text):
        if c == "[":
            opened.append(k)
        elif c == "]" and opened:
            closes[opened.pop()] = k + 1
    closes.update(dict.fromkeys(opened, len(text)))
    return closes


def _substitutions(text: str) -> list[tuple[int, int, str]]:
    """Each ``$(…)`` (not ``$((``) and backtick of ``text``: (start, end, inner text)."""
    found, i = [], 0
    while (i := min((k for k in (text.find("$(", i), text.find("`", i)) if k >= 0),
                    default=-1)) >= 0:
        if text.startswith("$((", i):
            i += 3
            continue
        end = (_closing(text, i + 2, "(", ")") if text[i] == "$"
               else (text.find("`", i + 1) + 1 or len(text)))
        found.append((i, end, text[i + (2 if text[i] == "$" else 1):end - 1]))
        i = end
    return found


def _number(inner: str) -> bool:
    """True when the ``$( )`` of ``inner`` outputs a number (:data:`_NUMBERS`)."""
    last = inner.rsplit("|", 1)[-1]
    if re.search(r"(?<![\w-])grep\b", last) and re.search(r"\s-\w*[rRHdD]|--[rdw]", last):
        return False  # grep -rc, -H: a file name before each count
    return not re.search(r"[;&\n]|\|\|", inner) and _NUMBERS.fullmatch(last) is not None


def _references(text: str) -> tuple[set[str], bool]:
    """The names ``text`` (arithmetic or a value) refers to; True if a ``$( )`` puts text."""
    computed = any(not _number(inner) for _s, _e, inner in _substitutions(text))
    plain = re.sub(r"\$\((?:[^()]|\([^()]*\))*\)|`[^`]*`", " ", text)
    names = {a or b for a, b in _REFERENCE.findall(plain)} - {""}
    return names, computed


_PLAIN = re.compile(r"[^\s;&|<>)'\"$`]*")


def _word(text: str, i: int) -> str:
    """The shell word of ``text`` from ``i``: quotes and ``$(…)``/``${…}`` read whole."""
    j = i
    while j < min(len(text), i + _LONGEST) and not text[j].isspace() and text[j] not in ";&|<>)":
        c = text[j]
        if c in "'\"":
            j = text.find(c, j + 1) + 1 or len(text)
        elif text.startswith(("$(", "${"), j):
            j = _closing(text, j + 2, text[j + 1], ")" if text[j + 1] == "(" else "}", 1,
                         _LONGEST)
        elif c == "`":
            j = text.find("`", j + 1) + 1 or len(text)
        else:
            j = _PLAIN.match(text, j + 1, i + _LONGEST).end()  # type: ignore[union-attr]
    return text[i:j]


def _contexts(text: str) -> list[str]:
    """The texts ``text`` evaluates as arithmetic (names whose value bash evaluates)."""
    found: list[str] = []
    i = 0
    while (i := text.find("((", i)) >= 0:
        end = _closing(text, i + 2, "(", ")", 2)
        found.append(text[i + 2:end])  # (( a[(( x ))] )): the inner one is in it
        i = max(end, i + 2)
    i = 0
    while (i := text.find("$[", i)) >= 0:
        end = _closing(text, i + 2, "[", "]")
        found.append(text[i + 2:end])
        i = end
    found += _LET.findall(text)
    i = 0
    while (i := text.find("[[", i)) >= 0:  # one pass: a [[ never closed reads to the end
        end = text.find("]]", i + 2) % (len(text) + 1)
        found += [text[i + 2:end]] if _COMPARED.search(text, i + 2, end) else []
        i = end + 2
    found += [_BARE_NAME.sub(" ", w) for w in _TEST_V.findall(text)] if _TESTS.search(text) else []
    i = 0
    closes = _brackets(text)
    while m := _SUBSCRIPT.search(text, i):  # a lone _ there is a pattern's ([^_]), not $_
        end = closes[m.end() - 1]
        if m[1] and not re.compile(r"\+?=").match(text, end):
            i = m.end()  # [ "$n" -gt 0 ]: read on inside it
            continue
        found.append(re.sub(r"(?<![\w$])_(?!\w)", " ", text[m.end():end]))
        i = end
    i = 0
    while m := _EXPANSION.search(text, i):  # ${s:x:n}, ${a[@]:x}: not ${s:-x}
        i = _closing(text, m.end() + 1, "[", "]") if text.startswith("[", m.end()) else m.end()
        if text.startswith(":", i) and not text.startswith((":-", ":=", ":?", ":+"), i):
            i = text.find("}", i) % (len(text) + 1)
            found.append(text[m.end():i])
    for options, names in _INTEGER.findall(text):
        if any(o.startswith("-") and "i" in o for o in options.split()):
            found += re.findall(rf"(?<![\w$])({_NAME})", names)  # declare -i n: its values too
    return found


def _values(text: str) -> tuple[dict[str, set[str]], set[str]]:
    """What the line assigns: each name's referenced names, and the names it reads."""
    refers: dict[str, set[str]] = {}
    read: set[str] = {"_"} | (_POSITIONAL if _SETS_POSITIONAL.search(text) else set())
    at = 0
    for _count in range(_MOST):
        if not (m := _ASSIGN.search(text, at)):
            break
        name, start = m[1] or m[3], m.end()
        at = start
        if m[2] == "[":  # a[i]=: the subscript is read as a context, the value here
            at = start = _closing(text, start, "[", "]")
            equals = re.compile(r"\+?=(?!=)").match(text, start)
            if equals is None:
                continue
            start = equals.end()
        value = (text[start:_closing(text, start, "{", "}", 1, _LONGEST)] if m[3]
                 else _word(text, start))
        names, computed = _references(re.sub(r"\$\(\(.*?\)\)|\$\[.*?\]", "0", value))
        refers.setdefault(name, set()).update(names)
        if computed or len(value) >= _LONGEST:
            read.add(name)
    else:
        read.add(_ANY)  # more assignments than read here: any name may hold text
    for builtin, rest in _READS.findall(text):
        words = rest.split(" in ", 1)[0] if builtin == "select" else rest
        read.update(w.strip("'\"") for w in words.split() if re.fullmatch(_NAME, w.strip("'\"")))
        read.add(_IMPLIED[builtin])
    read.update(_PRINTF_V.findall(text))
    for name, _in, words in _FOR.findall(text):
        if not _in or re.search(r"[*?\[]", re.sub(r"\$\((?:[^()]|\([^()]*\))*\)|\$\{[^}]*\}",
                                                   "", words)):
            read.add(name)  # for f; for f in *: the parameters, file names
        names, computed = _references(words)
        refers.setdefault(name, set()).update(names - {name})
        if computed:
            read.add(name)
    if "=~" in text:
        read.add("BASH_REMATCH")
    return refers, read - {""}


@lru_cache(maxsize=256)
def arithmetic_reason(command: str) -> str | None:
    """Why ``command`` evaluates as a number a value it reads at run time, or ``None``."""
    command += "\n" + re.sub(r"[\\'\"]", "", command)  # 'read' x, l\et x
    if not re.search(r"\(\(|\$\[|let|-v\b|\[|\$\{[\w@*]+:|declare|typeset|local", command):
        return None
    refers, read = _values(command)
    seen: set[str] = set()
    todo: list[str] = []
    for context in _contexts(command):
        names, computed = _references(context)
        if computed:
            return ("it evaluates the output of a $( ) as a number: bash runs a $( ) in an array "
                    "subscript of that text ('a[$(rm f)]')")
        todo += names
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in read or _ANY in read:
            shown = f"${name}" if name in _POSITIONAL or name == "_" else name
            return (f"it evaluates {shown} as a number, whose value the line reads at run time: "
                    f"bash runs a $( ) in an array subscript of that value ('a[$(rm f)]')")
        todo += refers.get(name, ())
    return None
