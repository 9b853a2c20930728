"""A shell command line as permission rules see it: its simple commands and their forms.

docs/architecture.md §4, clause 2 of the one approval decision. :func:`shell_parts` splits a
command line into simple commands; :func:`command_forms` gives the forms of one simple command
that a rule is matched against: the text as written, and the command after the shell's own
unquoting (``r''m`` → ``rm``), without leading ``VAR=value`` assignments, with a program given
by path reduced to its name (``/bin/rm`` → ``rm``) and with well-known wrappers removed
(``command``, ``env``, ``sudo``, ``nice``, ``timeout 5``, ``xargs``, ``jobs -x`` …;
an unknown ``--long`` option read both as a flag and as taking the next word:
:mod:`goosectx.shell_unwrap`); the string of
``bash -c STRING``, ``env -S STRING``, ``eval``, ``trap``, ``compgen -C``, ``flock -c``,
``sg GROUP STRING`` is split and matched as commands of its own (``find -exec``, ``fd -x``,
tmux's and screen's commands and ``env -S STRING ARGS`` are read by
:mod:`goosectx.shell_wrappers`); a runner's command (``fakeroot``, ``chroot``,
``strace``, ``ssh``, ``docker exec`` …) and an interpreter's inline code are read by
:mod:`goosectx.shell_runners`, a shell's ``-c`` string and what builtins and prompt
variables run from stored text (``${x@P}`` is the lexer's) by
:mod:`goosectx.shell_builtins`. Words are bash's (:mod:`goosectx.shell_lexer`): a command
whose program bash names at run time or by a glob or brace expansion, or that
defines a function or an alias, is one the rules cannot read
(:attr:`CommandForms.unreadable`): never allowed by a rule, and asked about under shell
deny/ask rules. This matches what the command text shows; it is not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import takewhile

from goosectx.awk_program import AWK, awk_beyond, awk_commands
from goosectx.diff_targets import redirected_diff
from goosectx.inline_code_extra import any_inline_code
from goosectx.option_writes import output_beyond
from goosectx.protected_paths import LineDirs, Where, chdir_where
from goosectx.sed_script import SED, sed_beyond
from goosectx.shell_arith import arithmetic_reason
from goosectx.shell_assign import DECLARATIONS, binds_name, evaluated_operand
from goosectx.shell_builtins import (
    SHELLS,
    binds_names,
    builtin_lines,
    computed_name,
    printed_from,
    script_stream,
    sets_prompt,
    shell_script,
)
from goosectx.shell_deferred import run_time_words
from goosectx.shell_forms import CommandForms, Run
from goosectx.shell_git import variable_lines
from goosectx.shell_hidden import hidden_reason
from goosectx.shell_languages import sets_startup_command
from goosectx.shell_lexer import Part, Word, lex, unexpanded
from goosectx.shell_multicall import applet_words
from goosectx.shell_program import ASSIGNMENT, MAX_STEPS, after_keywords, program_argv
from goosectx.shell_remote import (
    REMOTE_CLIENTS,
    other_remote,
    remote_command,
    stdin_commands,
)
from goosectx.shell_reparse import hidden_code
from goosectx.shell_runners import (
    COMPUTED,
    CONTAINERS,
    LINE_RUNNERS,
    RUNNERS,
    SU_LIKE,
    SUBCOMMAND_RUNNERS,
    option_lines,
    runner_starts,
)
from goosectx.shell_sed import computed_script
from goosectx.shell_unwrap import WRAPPERS, inner_line, runner_readings, unwrap, watch_joins
from goosectx.shell_words import ASSIGNMENT_WORD, literal_name
from goosectx.shell_wrappers import make_text, started_commands
from goosectx.unmodelled_writes import REMOTE


# -- shell commands split into parts ------------------------------------------------------
def shell_parts(command: str) -> list[str]:
    """The simple commands of a shell command line, each as written, words joined by a space.

    Bash's reading (:func:`goosectx.shell_lexer.lex`): split on ``;`` ``&&`` ``||`` ``|``
    ``&`` ``(`` ``)`` and newlines outside quotes; the inside of ``$( )``, ``<( )`` and
    backticks (also inside double quotes) is split as commands of its own; a redirection
    (``>``, ``>>``, ``<``, ``2>``, ``&>``) and its target become a part ``> TARGET``. Empty
    parts are dropped.
    """
    return [p.text for p in lex(command) if p.text]


# -- the forms of one simple command -------------------------------------------------------
_SUBSCRIPT_RUNS = re.compile(r"\[[^\]]*(?:\$\(|`)")  # 'a[$(rm x)]': run by [[ -eq ]], $((x))
_MAX_DEPTH = 8
_QUOTED = re.compile(r"'[^'$`]*'|\"[^\"\\$`]*\"")  # quoted, no $ or ` even as text

@dataclass(slots=True)
class _Reading:
    """What the reading of one simple command collects (the fields of the forms it gives)."""

    forms: list[str]
    steps: list[tuple[str, bool, bool]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    code: list[tuple[str, str]] = field(default_factory=list)
    maybe: list[str] = field(default_factory=list)
    fed: bool = False  # Part.fed of the command read now (or of the one whose string it is)
    reparsed: list[str] = field(default_factory=list)  # eval "X=$Y": no exemption in them
    inner: list[str] = field(default_factory=list)  # every inner line (bash -c $'…' decoded)
    beyond: list[str] = field(default_factory=list)  # awk / sed beyond what a rule covers
    started: list[tuple[str, str, str]] = field(default_factory=list)  # CommandForms.started
    top: list[Word] = field(default_factory=list)  # the simple command's words (started's head)
    dirs: LineDirs | None = None  # where each part of the line runs (protected_paths)
    where: Where | None = None  # where the command read now runs
    remote: bool = False  # in a container or on another host (docker exec, ssh): no path here
    line: str = ""  # the whole line (patch <<'EOF': its diff is in it)
    here: str = ""  # Part.here of the simple command (not of its command strings')
    code_words: list[str] = field(default_factory=list)  # python3 -c '…' as written: not bash
    runs: list[Run] = field(default_factory=list)
    tried: bool = False  # reading a runner's tried starts (CommandForms.maybe)


def _computed(word: Word) -> bool:
    return word.expands or word.pattern


def _shown(value: str) -> str:
    """``value`` as one word of the allow form: quoted unless every character is plain."""
    if value and all(c.isprintable() and not c.isspace() and c not in "'\"\\" for c in value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def command_forms(part: Part, line: str = "", dirs: LineDirs | None = None) -> CommandForms:
    """The forms of one simple command of ``lex(line)`` (``dirs``: where each part runs)."""
    words = after_keywords(part.words, part.piped)
    r = _Reading([" ".join(w.raw for w in words)], fed=part.fed, dirs=dirs,
                 where=dirs.at(part.text) if dirs else None, top=words, line=line,
                 here=part.here)
    r.reasons += [part.unreadable] if part.unreadable else []
    _check_subscripts(words, r)
    _normalise(words, r, 0, leading=True)
    if (fed := part.input_of) is not None:  # ssh dev < cleanup.sh: what ssh reads runs there
        r.reasons += filter(None, [stdin_commands(after_keywords(fed.words, fed.piped),
                                                  f"each line of {part.words[-1].value}")])
    if part.input_of is not None and part.words[1:]:  # patch -p1 < x.diff: the files it names
        r.reasons += filter(None, [redirected_diff(
            [w.value for w in part.input_of.words], part.words[-1].value,
            dirs.at(part.input_of.text) if dirs else None, line)])
    r.reasons += hidden_code(r.reparsed, line)  # Y='x; rm f'; eval "echo $Y"
    # read x <f; (( x )): x='a[$(rm y)]' (not in a <<'EOF' body: bash expands nothing there)
    text = "\n".join([unexpanded(line) or part.text, *r.inner])
    for raw in r.code_words:  # python3 -c "print([x for x in xs][0])": python's, not bash's
        text = text.replace(raw, "''")
    r.reasons += filter(None, [arithmetic_reason(text)])
    unreadable = r.reasons[0] if r.reasons else None
    allow = None if unreadable or r.beyond else _allow_form(words)
    return CommandForms(tuple(dict.fromkeys(f for f in r.forms if f)), allow, tuple(r.steps),
                        unreadable, tuple(r.code), tuple(dict.fromkeys(f for f in r.maybe if f)),
                        tuple(r.inner), r.beyond[0] if r.beyond else None,
                        tuple(dict.fromkeys(r.started)), tuple(r.runs))


def _allow_form(words: list[Word]) -> str:
    """The unquoted form of ``words`` an allow rule matches (:attr:`CommandForms.words`)."""
    return " ".join(_shown(w.value) for w in words)


def _starts(starter: str, words: list[Word], r: _Reading) -> None:
    """Note that ``starter`` runs ``words`` (:attr:`CommandForms.started`), when there are any."""
    if words:
        at = next((i for i, w in enumerate(r.top) if w is words[0]), None)
        r.started.append((starter, _allow_form(words),
                          "" if at is None else _allow_form(r.top[:at + 1])))


def _add_line(line: str, r: _Reading, depth: int, written: bool = True,
              starter: str | None = None) -> None:
    """The forms of every part of an inner command line (``bash -c STRING``).

    ``written``: false when bash computed part of it (``bash -c "X=$Y"``: ``$Y``'s value is code).
    ``starter``: what runs the line (``bash``, ``env``), each of its parts noted as started.
    """
    r.reparsed += [] if written else [line]  # eval "$X": shell_reparse.hidden_code
    r.inner.append(line)
    if depth >= _MAX_DEPTH:
        r.reasons.append("its commands are nested too deeply to read")
        return
    outer, whole, r.line = r.where, r.line, f"{r.line}\n{line}"  # bash -c 'B=…; cp x $B/y'
    for part in lex(line):
        r.where = r.dirs.at(part.text, outer) if r.dirs else outer  # bash -c 'cd .git && …'
        words = after_keywords(part.words, part.piped)
        r.forms.append(" ".join(w.raw for w in words))
        if starter is not None:
            _starts(starter, words, r)
        if part.unreadable:
            r.reasons.append(part.unreadable)
        _check_subscripts(words, r)
        r.fed = r.fed or part.fed  # bash -c '. $f' <<<…: the string reads the same stream
        _normalise(words, r, depth + 1, leading=True)
    r.where, r.line = outer, whole


def _check_subscripts(words: list[Word], r: _Reading) -> None:
    """Once per simple command (its wrappers' and runners' suffixes hold no other words)."""
    if any(_SUBSCRIPT_RUNS.search(w.value) for w in words):  # x='a[$(rm y)]'; $((x))
        r.reasons.append("a quoted array subscript holds a command substitution, which bash "
                         "runs when the text is read as a number")
    set_by = words[:printed_from([w.value for w in words])]  # declare -p PS4='…': printed
    stored = [x for w in set_by if (x := binds_name(w.value) or sets_startup_command(w.value))]
    r.reasons += stored[:1]  # BASH_CMDS[ls]=/bin/rm; LESSOPEN=…, VIMINIT=…
    binder = binds_names([w.value for w in words])  # read PS4, not grep -rn ENV src
    prompt = next((v for w in set_by if (v := sets_prompt(w.value, _computed(w), binder))), None)
    if prompt:  # PS4='$(rm x)'; set -x / BASH_ENV='$(rm x)' bash -c …: bash expands its value
        r.reasons.append(f"it sets {prompt}, whose commands bash runs when it expands it")
    r.reasons += filter(None, [computed_name([(w.raw, w.value, _computed(w)) for w in words]),
                               evaluated_operand(words), make_text(words)])  # MAKEFLAGS=--eval=…


def _normalise(words: list[Word], r: _Reading, depth: int,  # noqa: C901, PLR0912
               leading: bool = False) -> None:
    """Append the forms of ``words``, one per step of normalisation.

    ``leading``: ``words`` start a simple command, where a ``NAME=value`` word is an assignment
    (``X=$(date) ls``): no program, whatever its value. After a wrapper or ``-exec`` such a
    word is the program (``command X=$Y`` runs a file named by ``$Y``).
    """
    words = list(words)
    reasons = r.reasons
    assigned = [w.value for w in takewhile(lambda w: ASSIGNMENT_WORD.match(w.raw), words)
                ] if leading else []  # GIT_CONFIG_KEY_0=… GIT_CONFIG_VALUE_0=… git
    while words:
        if len(r.steps) >= MAX_STEPS:
            reasons.append("it has too many wrappers and commands to read")
            return
        r.forms.append(" ".join(w.value for w in words))
        program = words[0].value
        assigns = ASSIGNMENT_WORD.match(words[0].raw) if leading and not r.reparsed else None
        named = literal_name(words[0]) if _computed(words[0]) and not r.reparsed else None
        computed = _computed(words[0]) and named is None and assigns is None
        r.steps.append((program, computed, any(_computed(w) for w in words[1:])))
        if assigns:  # not a program: bash sets a variable
            if re.search(r"[$`]", assigns[0]):  # a[$x]=1: its subscript is read as a number
                reasons.append("it assigns an array element whose subscript bash computes")
            for line in variable_lines([words[0].value], assigned):  # GIT_SSH_COMMAND='…' git
                _add_line(line, r, depth)
            words = words[1:]
            continue
        leading = False  # bash reads assignments only before the program
        if computed:
            reasons.append("its program is named at run time or by a glob or brace expansion")
        if ASSIGNMENT.match(program):
            words = words[1:]
            continue
        name = named or (program.rsplit("/", 1)[-1] if "/" in program else program)
        if name != program and name:
            words = [Word(name, name), *words[1:]]
            continue
        if (applet := applet_words(name, words[1:])) is not None:
            words = applet  # coreutils rm x, uu-rm x, grm x: shell_multicall
            continue
        if name == "alias" and any("=" in w.value for w in words[1:]):
            reasons.append("it defines an alias")
        if name in ("hash", "enable") and any(  # hash -p /bin/rm ls; enable -f x.so ls
                w.value.startswith("-") and ("p" if name == "hash" else "f") in w.value
                for w in words[1:]):
            reasons.append(f"it makes a program name run another file ({name} "
                           f"-{'p' if name == 'hash' else 'f'})")
        if any(w.value.startswith("BASH_FUNC_") for w in words):
            reasons.append("it defines a function for the bash it starts")  # env BASH_FUNC_x%%
        args = [w.value for w in words[1:]]
        r.runs.append((name, tuple(args), tuple(assigned), r.tried))  # deny_backstop
        fixed = not any(_computed(w) for w in words[1:])  # its inner lines are as written
        hidden = hidden_reason(name, words, fed=r.fed, where=r.where, remote=r.remote,
                               line=r.line, here=r.here if depth == 0 else "")
        if hidden:
            reasons.append(hidden)
        else:  # sort -o F: no allow rule covers writing F (option_writes)
            r.beyond += filter(None, [output_beyond(name, args)])
        r.where = chdir_where(name, args, r.where)  # env -C .git tee HEAD: its command's dir
        if name in SHELLS or name in SU_LIKE or name in ("eval", "trap", "env"):
            inner = inner_line(name, args)  # env: its -S STRING (shell_unwrap.env_split_line)
            if inner is not None:
                _add_line(inner, r, depth, fixed, name)
                return
            script = shell_script(args) if name in SHELLS else ""
            if script is None:
                reasons.append(f"{name} runs the commands it reads from its standard input")
            elif stream := script_stream(script, r.fed):  # bash <(…), bash /dev/fd/3
                reasons.append(f"{name} runs the commands it reads from {stream}")
        code = any_inline_code(name, args, r.fed)  # jruby -e, ghc -e: inline_code_extra
        if code is not None and any(w.expands and w.value in code for w in words[1:]) or (
                name in ("sed", "gsed") and computed_script(args, [w.expands for w in words[1:]])):
            code = COMPUTED  # python3 -c "$(cat x)", sed "$x": bash makes the code at run time
        if code is not None:
            r.code.append((name, code))
            r.code_words += [w.raw for w in words[1:] if depth == 0 and _QUOTED.fullmatch(
                w.raw) and w.value and w.value in code]  # bash reads nothing in them
        for line in awk_commands(args) if name in AWK else ():  # system("rm x"): bash -c's
            _add_line(line, r, depth, fixed)
        if name in AWK or name in SED:  # awk_program, sed_script: no allow rule covers more
            r.beyond += filter(None, ["its program is made at run time" if code == COMPUTED else
                                      awk_beyond(args) if name in AWK else sed_beyond(args)])
        if (far := other_remote(name, args)) is not None:  # gcloud compute ssh vm --command
            _remote_line(far[0], r, depth, fixed, name)
            return
        started = started_commands(name, args, r.fed, [_computed(w) for w in words[1:]])
        unwrapped = unwrap(name, words[1:]) if name in WRAPPERS else None
        reasons += filter(None, [started.unreadable, run_time_words(  # find {-exec,}; xargs env
            name, words[1:], program_argv, started, unwrapped[0] if unwrapped else None)])
        for line in [*option_lines(name, args), *builtin_lines(name, args), *started.lines]:
            _add_line(line, r, depth, fixed, None if name in DECLARATIONS else name)  # export
        for begin, end in started.slices:  # find -exec rm {} +: noted as `find -exec`
            _starts(f"{name} {args[begin - 1]}" if begin and args[begin - 1].startswith("-")
                    else name, words[1 + begin:1 + end], r)
            _normalise(words[1 + begin:1 + end], r, depth + 1)
        if started.slices or started.lines:
            return
        if name in RUNNERS:
            remote, r.remote = r.remote, r.remote or name in CONTAINERS or name in REMOTE
            _run_by(name, words[1:], r, depth)
            r.remote = remote
            return
        if unwrapped is None:
            return
        if sum(w.value.startswith("--") and "=" not in w.value for w in words) > 8:
            reasons.append(f"it gives {name} more long options than the rules read")
        if name == "watch" and watch_joins(args[:len(args) - len(unwrapped[0])]):
            for reading in unwrapped:  # watch -n1 'ls; rm x': one line, run by sh -c
                _add_line(" ".join(w.value for w in reading), r, depth, fixed, name)
            return
        for reading in unwrapped:  # env rm x: `rm x` needs an allow rule of its own
            _starts(name, reading, r)
        words, *others = unwrapped
        for other in others:  # a long option that may take the next word as its value
            _normalise(other, r, depth + 1)


def _run_by(name: str, words: list[Word], r: _Reading, depth: int) -> None:
    """The forms of the command a runner starts, read from each word where it may start.

    ssh's command lines are read as they are (:func:`_remote_by`), so are ``pee``'s (each
    operand a line ``sh -c`` runs) and ``nq``'s command (from its first operand: its options
    take no value); the other runners' candidates go to :attr:`_Reading.maybe` (a deny rule
    matching them asks).
    """
    args, written = [w.value for w in words], not any(_computed(w) for w in words)
    if name in REMOTE_CLIENTS:
        _remote_by(name, words, r, depth, written)
        return
    if name == "pee":  # pee 'rm x' cat: a deny rule on rm denies
        for value in args:
            if value[:1] != "-":
                _add_line(value, r, depth, written, name)
        return
    if name == "nq" and (at := next((i for i, a in enumerate(args) if a[:1] != "-"), None)
                         ) is not None:  # nq rm x: `rm x`
        _starts(name, words[at:], r)
        _normalise(words[at:], r, depth + 1)
        return
    starts = runner_starts(name, args, [_computed(w) for w in words])
    if starts is None:
        r.reasons.append(f"it gives {name} more words than the rules read")
        return
    verbs = SUBCOMMAND_RUNNERS.get(name, ())
    verb_at = next((i for i, a in enumerate(args) if a in verbs), None)
    starter = name if verb_at is None else f"{name} {args[verb_at]}"  # uv run pytest
    readings, reads = runner_readings(name, words, verb_at, starts) if bool(verbs) == (
        verb_at is not None) else ([], starts)  # reads: chrt 5 env … from env, not from 5
    for reading in readings:
        if not (name in LINE_RUNNERS and reading and any(c.isspace() for c in reading[0].value)):
            _starts(starter, reading, r)  # an allow rule must cover each: shell(uv run*) + pytest's
    before, tried, r.tried = len(r.forms), r.tried, True
    for start in reads:
        _normalise(words[start:], r, depth + 1)
    r.tried = tried
    if name in LINE_RUNNERS:  # parallel 'rm {}' ::: x, entr -s 'ls; rm x': a line of its own
        for value in args:
            if any(c.isspace() for c in value):
                _add_line(value, r, depth, written, starter)
    r.maybe += r.forms[before:]
    del r.forms[before:]


def _remote_line(line: str, r: _Reading, depth: int, written: bool, name: str) -> None:
    """A command line another host runs (``ssh dev 'cd /srv/app && make'``): its dirs not ours."""
    here, (r.dirs, r.where, r.remote) = (r.dirs, r.where, r.remote), (None, None, True)
    _add_line(line, r, depth, written, name)
    r.dirs, r.where, r.remote = here


def _remote_by(name: str, words: list[Word], r: _Reading, depth: int, written: bool) -> None:
    """The command lines ``ssh`` / ``autossh`` / ``mosh`` run, each a command ``name`` starts.

    :func:`goosectx.shell_remote.remote_command`: a local ``-o ProxyCommand=…`` as ``sh -c``'s
    string; the remote line as one (``ssh host 'cd x && rm y'``: each of its commands needs a
    rule of its own). Its words given apart (``ssh host git pull``) are noted as started with
    the line up to them, so ``shell(ssh host git pull*)`` covers them as a runner's rule that
    spells the program does.
    """
    found = remote_command(name, [w.value for w in words])
    for line in found.local:
        _add_line(line, r, depth, written, f"{name} -o" if name != "mosh" else name)
    if found.server is not None:  # mosh --server='rm -rf /srv' host
        _add_line(found.server, r, depth, written, name)
    if r.fed and (why := stdin_commands([Word(name, name), *words], "each line of its here-"
                                        "document or here-string" if r.here else "")):
        r.reasons.append(why)  # ssh dev <<'EOF' … / echo 'rm x' | ssh dev
    if found.remote is None or found.at is None:
        return
    before = len(r.started)
    _remote_line(found.remote, r, depth, written, name)
    at = next((i for i, w in enumerate(r.top) if w is words[found.at]), None)
    if at is not None and len(r.started) == before + 1 and len(words) - found.at > 1:
        starter, form, _head = r.started[before]  # ssh host git pull: one command, its words
        r.started[before] = (starter, form, _allow_form(r.top[:at + 1]))
