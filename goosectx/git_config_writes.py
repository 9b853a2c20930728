"""Commands that write where a later command runs what they wrote, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. A line in
git's config (``core.pager``, a ``!`` alias, ``core.hooksPath``) or a hook is a command a later
git runs, which the rules cannot read (:mod:`goosectx.shell_git` reads the ones the command
line shows); git's own files hold the repository; a virtualenv's or ``node_modules``' files
are code a later allowed command runs. :func:`writes_git_config` tells a command that writes
one (``echo … >> .git/config``, ``tee .git/./hooks/pre-commit``, ``cd .git && tee HEAD``,
``cp h .git/hooks/x``, ``find . -fprint .git/hooks/pre-commit``, ``tee .venv/bin/activate``):
the paths are judged by :mod:`goosectx.protected_paths`. What the command text shows, not a
sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.option_table import JUDGED_OUTPUT, Does, Hit, option_hits, own_cache, table_name
from goosectx.protected_paths import (
    Where,
    copies_as_links,
    git_dirs,
    names_git_dir,
    protected_write,
)
from goosectx.sed_script import SED, backups, in_place_files
from goosectx.shell_dirs import chdir_dirs
from goosectx.shell_git import git_subcommand
from goosectx.shell_given import socat_files
from goosectx.shell_options import WGET_VALUED, long_option, short_value
from goosectx.shell_remote import local_writes
from goosectx.shell_wrappers import cmake_tool
from goosectx.written_names import SENSITIVE, created, sensitive_or_outside, url_names

_COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "scp"})
_TARS = frozenset({"tar", "gtar", "bsdtar"})
PASSES_ON = frozenset({
    "npm", "pnpm", "yarn", "bun", "npx", "bunx", "deno", "make", "gmake", "cmake", "just", "task",
    "cargo", "go", "pytest", "py.test", "tox", "nox", "poetry", "uv", "hatch", "pdm", "rake",
    "bundle", "gradle", "gradlew", "./gradlew", "mvn", "./mvnw", "mvnw", "composer"})
"""Programs that hand their words on to project scripts or tools whose options no table here
reads (``npm run lint -- -o F``, ``make test ARGS=-oF``, ``cmake -DARGS=…``, ``cargo test --
…``)."""
_WRITTEN = (Does.OUTPUT, Does.INTO, Does.WRITES)
_COPY_SUBCOMMANDS = frozenset({"docker", "podman", "nerdctl", "kubectl", "oc"})
"""``docker cp SRC DEST``: DEST is a local path unless it names a container (``c:/x``)."""
_REMOTE = re.compile(r"[^/\s]+:")
_SECOND_OPERAND = frozenset({"lz4", "lz4c", "unlz4"})
"""Compressors whose second operand is the file they write (``lz4 -d IN OUT``)."""
_SHORT_GLUED = re.compile(r"-[A-Za-z]")
_VALUED = {"truncate": ("-s", "-r", "--size", "--reference"),
           "touch": ("-d", "-r", "-t", "--date", "--reference")}
_SCRIPT_EDITORS = {"perl": ("eE", "MmIFlxC0dDV"), "ruby": ("e", "rIFxC0EWKTU")}
"""Interpreters whose ``-i[SUFFIX]`` edits their operands in place, as ``sed -i`` does: the
letters taking their code as the next word, those taking a value (the rest of the word)."""
_VI = frozenset({"vi", "vim", "nvim", "ex", "view", "vimdiff", "gvim", "nano", "emacs"})
"""Editors: the files they open are theirs to write (``vim -c wq F``, ``ex -sc x F``)."""
_VI_VALUED = frozenset({"-c", "--cmd", "-S", "-s", "-u", "-U", "-i", "-T", "-w", "-W", "-t",
                        "-q", "--eval", "-l", "--load", "--funcall", "-f"})
_EX_WRITE = re.compile(r"(?:^|[|:])\s*(?:w(?:r(?:i(?:te?)?)?)?|sav(?:e(?:as?)?)?|wq|x(?:it?)?|"
                       r"up(?:d(?:a(?:te?)?)?)?|exi(?:t)?)!?\s+(?:>>\s*)?([^\s|]+)")
"""An ex command that writes a file it names (``-c 'w! F'``, ``+'saveas F'``, ``wq F``)."""
_MODE = re.compile(r"[0-7]+|(?:[ugoa]*[-+=][rwxXstugo]*,?)+")
_GIT_PLUMBING = frozenset({
    "receive-pack", "upload-pack", "upload-archive", "fetch-pack", "send-pack", "http-backend",
    "daemon", "shell", "unpack-objects", "index-pack", "remote-ext", "remote-fd"})
"""git's transport plumbing: it writes a repository (``git receive-pack DIR``) from what its
input or a remote sends, or serves one and runs what its config says."""
_REMOVERS = frozenset({"rm", "rmdir", "unlink", "shred", "srm", "trash", "trash-put"})
"""Programs that remove their operands: judged when one is the git directory or in it."""
MODELLED = frozenset({">", ">>", "tee", "dd", "truncate", "touch", "chmod", "cpio", "socat",
                      "unrar", "rar", "pax", "curl", "wget", "plutil", *_COPIERS, *_TARS, *SED,
                      *_SCRIPT_EDITORS, *_VI, *PASSES_ON, *_REMOVERS})
"""The programs :func:`writes_git_config` reads the written paths of (git's own: its
subcommands), for :mod:`goosectx.unmodelled_writes`."""


def writes_git_config(name: str, args: list[str], where: Where | None = None) -> str | None:
    """Why a command writes where a later command runs what it wrote, or ``None``.

    The paths it writes: a redirection ``> PATH`` / ``>> PATH`` (``name`` is the operator),
    ``tee``'s files, ``dd of=PATH``, the file or dir an option writes to (``find -fprint
    PATH``, ``cp -t DIR``: :attr:`goosectx.option_table.Does.OUTPUT`, ``INTO``, ``WRITES``),
    the dir ``curl -O`` and ``wget`` save into when no option names one
    (:func:`_saves_here`), the target of ``cp``, ``install``, ``ln``, ``rsync`` (its last
    operand), every operand of ``mv`` (it removes its sources: ``mv .git/HEAD x``), what
    ``ln`` links a name to (``ln -s .git/hooks h; tee h/pre-commit``: a write through the
    name lands there, a link the decision cannot see yet) and every operand of
    ``truncate`` and ``touch`` (``touch .git/hooks/x`` makes a hook), the files ``chmod``
    changes and ``sed -i``, ``perl -i`` and ``ruby -i`` edit (their backups too: ``sed
    -i'.git/hooks/*' p f`` keeps one as ``.git/hooks/f``), the files an editor opens (``vim -c
    wq .git/config``), the dir ``git worktree add`` makes and ``cpio -p`` copies into, a
    virtualenv made in the git directory (``python3 -m venv .git``; ``venv .venv`` is its own
    to write), each
    judged by
    :func:`goosectx.protected_paths.protected_write` in the dirs of ``where``
    (``.git/./hooks/x``, ``cd .git && tee HEAD``, ``.venv/lib/…/x.pth``); and any word, ``=``
    value or short option's glued value that names the git directory or a path in it, given to a
    program of :data:`PASSES_ON` (``npm run lint -- -o .git/hooks/pre-commit``, ``make test
    PYTEST_ARGS=--basetemp=.git``: pytest empties its basetemp; ``cd .git && make ARGS=-oHEAD``:
    judged in the dirs of ``where`` too).
    """
    if name == "git" and where is not None:  # git -C .git archive -o hooks/x: -C as env's
        where = Where(where.root, chdir_dirs("env", args[:git_subcommand(args)], where.dirs))
    if name == "git" and (sub := args[git_subcommand(args):][:1]) and sub[0] in _GIT_PLUMBING:
        return (f"git {sub[0]} serves or writes a repository from what a remote or its input "
                "sends (refs, objects, the hooks it runs): what it writes is not shown")
    if name == "git" and args[git_subcommand(args):][:1] == ["fast-import"] and any(
            long_option(a, "--allow-unsafe-features") for a in args):
        return ("git fast-import --allow-unsafe-features writes the files its input names "
                "(feature export-marks=PATH): what it writes is not shown")
    found = list(option_hits(name, args))  # (python -m pytest, gh release download: theirs)
    hits = [hit for hit in found if hit.value is not None and (
        hit.does is not Does.INTO or name not in _TARS or _extracts(args))]  # tar -c -C D reads
    removed: list[str] = []
    verb, secret = "removes", None
    if name in (">", ">>", "tee"):
        paths = [a for a in args if not a.startswith("-") or name != "tee"]
    elif name == "dd":
        paths = [a[3:] for a in args if a.startswith("of=")]
    elif name in _COPIERS:  # cp -t DIR a b: DIR (below); mv .git/HEAD x removes its sources
        operands = [a for a in args if not a.startswith("-")]
        into = any(hit.does is Does.INTO for hit in hits)
        paths = [] if into else operands[-1:]
        links = name == "ln" or name == "cp" and copies_as_links(args)  # cp -al .git g
        removed = operands if name == "mv" or links and into else operands[:-1] if links else []
        verb = "links a name to" if links else verb  # ln -s .git/hooks h; tee h/x
    elif name in ("truncate", "touch"):  # truncate -s0 .git/index, touch .git/hooks/x
        paths = [a for k, a in enumerate(args) if not a.startswith("-") and (
            k == 0 or args[k - 1] not in _VALUED[name])]
    elif name == "chmod":  # chmod +x .git/hooks/pre-commit: a hook made to run
        paths, removed, verb = [], _mode_operands(args), "changes the mode of"
    elif name in SED:
        paths = in_place_files(name, args)  # sed -i s/x/y/ .git/config
    elif name in _SCRIPT_EDITORS:
        paths = _edited_in_place(name, args)  # perl -pi -e s/x/y/ .git/config
    elif name == "git" or name == "cpio":  # git worktree add D, cpio -p D: D is written into
        paths = _destination(name, args) or created(name, args)  # git init D, clone U D
    elif name in _REMOVERS:  # rm -rf .git/../.git, rmdir .git/refs/x: the repository itself
        paths, removed = [], [a for a in args if a[:1] != "-" and names_git_dir([a], where)]
    elif name == "plutil":  # plutil -convert xml1 F rewrites F, -o F writes F
        paths = [a for k, a in enumerate(args) if a[:1] != "-" and (
            k == 0 or args[k - 1] not in ("-convert", "-e", "-insert", "-replace",
                                          "-remove", "-extract", "-type"))]
    elif name in _COPY_SUBCOMMANDS and args[:1] == ["cp"]:  # docker cp c:/x .git/hooks/y
        paths = [a for a in args[1:] if not a.startswith("-")][-1:]
        paths = [p for p in paths if not _REMOTE.match(p)]  # kubectl cp x pod:/y: not here
    elif name == "ar":  # ar rcs .git/hooks/pre-commit a.o: the archive it writes
        paths = _ar_archive(args)
    elif name in _SECOND_OPERAND:  # lz4 -d x .git/hooks/pre-commit: its output file
        paths = [a for a in args if not a.startswith("-")][1:2]
    elif name == "socat":  # socat - CREATE:.git/hooks/x,perm=0755
        paths = socat_files(args)
    elif name in ("ssh", "autossh"):  # ssh -E .git/config host: its log, socket, known hosts
        paths = local_writes(name, args)
    elif (venv := table_name(name, args))[0] in ("venv", "virtualenv"):  # python3 -m venv .git
        paths = [a for a in venv[1] if a[:1] != "-" and names_git_dir([a], where)]  # not .venv
    elif extracted := _extracted_into(*venv):  # unrar x a.rar .git/hooks/ (venv: its table)
        paths = extracted
    elif name == "pax" and _pax_renames(args):  # pax -r -s ',^,.git/,': names it makes up
        return ("pax -r -s renames the files it extracts: it may write anywhere, a git hook or "
                "config too")
    elif name in _VI:  # vim -c wq .git/config, ex -sc '%d|x' .git/HEAD: an editor's files
        paths = [a for k, a in enumerate(args) if a[:1] not in ("-", "+") and (
            k == 0 or args[k - 1] not in _VI_VALUED)]
        paths += [m.group(1) for k, a in enumerate(args) if a[:1] == "+" or k and args[
            k - 1] in ("-c", "--cmd") for m in _EX_WRITE.finditer(a.lstrip("+"))]
    elif archive := created(name, args):  # zip .git/hooks/x a, tar -czf .git/x a, 7z a A
        paths = archive
    elif name in ("curl", "wget"):  # cd .git && curl -O URL: the dir, and the URL's names
        paths = url_names(name, args, found, _saves_here(name, found))
        secret = next((p for p in paths if sensitive_or_outside(p, where) == SENSITIVE), None)
    else:
        paths = []
    paths += [str(hit.value) for hit in hits if hit.does in _WRITTEN and (
        hit.value != "-" or name not in JUDGED_OUTPUT) and not own_cache(hit)]  # wget -O-
    caches = [str(hit.value) for hit in hits if own_cache(hit)]  # in node_modules/.cache
    tops = git_dirs(where) if paths or removed or caches else ()  # once for all the paths
    for path, done in [*((p, "writes") for p in paths), *((p, verb) for p in removed)]:
        if why := protected_write(name, path, where, done, tops):
            return why
    if why := next(filter(None, (protected_write(name, c, where, tops=tops, cache=True)
                                 for c in caches)), None):
        return why
    if name in ("curl", "wget") and secret is not None:  # curl -O https://x/.env: the URL's
        return f"{name} writes {secret}, the name its URL gives, which {SENSITIVE}"
    if name in PASSES_ON and not cmake_tool(name, args) and names_git_dir(  # cmake -E: backstop
            [path for word in args for path in _named(word)], where):
        return (f"it hands the git directory or a file in it to what {name} runs, whose options "
                "the rules do not read: it may write a hook or git config, or empty it")
    return None


def _extracted_into(name: str, args: list[str]) -> list[str]:
    """Where an extractor whose target is an operand writes, or ``[]``.

    ``unrar x A [FILES] DIR/`` (each operand after the archive is judged), ``python -m
    zipfile|tarfile -e A DIR``.
    """
    operands = [a for a in args if not a.startswith("-")]
    if name in ("unrar", "rar") and operands[:1] and operands[0] in ("x", "e"):
        return operands[2:]
    if name in ("zipfile", "tarfile") and args[:1] and args[0] in ("-e", "--extract"):
        return args[2:3]
    return []


def _ar_archive(args: list[str]) -> list[str]:
    """The archive ``ar ARGS`` writes (``ar rcs A x.o``, ``ar -rcs``, ``ar mb X A x.o``), or ``[]``.

    The first operand after the key letters, past ``a``/``b``/``i``'s member and ``N``'s count;
    only a key that writes it (``r``, ``q``, ``d``, ``m``, ``s``): ``ar t A`` reads.
    """
    key, skip = "", False
    operands: list[str] = []
    for word in args:
        if skip:
            skip = False
        elif word[:2] == "--":  # --plugin P, --target T, --output D (or =V)
            skip = "=" not in word and word in ("--plugin", "--target", "--output")
        elif word[:1] == "-" and word != "-X32_64" and not operands:
            key += word[1:]
        elif not key:
            key = word
        else:
            operands.append(word)
    if not any(letter in key for letter in "rqdms"):
        return []
    skipped = any(letter in key for letter in "abi") + ("N" in key)
    return operands[skipped:skipped + 1]


def _pax_renames(args: list[str]) -> bool:
    """True when ``pax ARGS`` extracts (``-r``) with ``-s`` rewriting the names it writes."""
    letters = ""
    for i, word in enumerate(args):
        if word.startswith("-") and word != "--":
            short = short_value(args, i, "bfopsxtT")
            letters += short.flags + (short.letter or "")
    return "r" in letters and "s" in letters


def _saves_here(name: str, hits: list[Hit]) -> bool:
    """True when ``name`` saves what it fetches in the dir it runs in, under a name it picks.

    ``curl -O``/``-J``/``--remote-name-all`` (:attr:`~goosectx.option_table.Does.HERE`) but
    with ``--output-dir``, ``wget`` but with ``-O``/``-P``: the dir or file named is judged.
    """
    if name == "curl":
        return any(hit.does is Does.HERE for hit in hits) and not any(
            hit.does is Does.INTO for hit in hits)
    return name == "wget" and not any(hit.does is Does.INTO or long_option(
        hit.word, "--output-document") or hit.word[:2] != "--" and next(
        (c for c in hit.word[1:] if c in WGET_VALUED), "") == "O" for hit in hits)


def _edited_in_place(name: str, args: list[str]) -> list[str]:
    """The files ``perl|ruby -i[SUFFIX] … ARGS`` edits in place and their backups.

    Every word but an option and ``-e``'s code (more than the files: a script's name or an
    argument changes nothing unless it names a protected path); none without ``-i``. A letter
    of :data:`_SCRIPT_EDITORS` taking a value (``-Mstrict``, ``-rset``) ends its cluster.
    """
    suffix: str | None = None
    operands: list[str] = []
    code = False
    codes, valued = _SCRIPT_EDITORS[name]
    for word in args:
        if code or word[:1] != "-" or word == "-":
            operands += [] if code else [word]
            code = False
            continue
        cluster = word[1:] if word[:2] != "--" else ""
        at = next((k for k, c in enumerate(cluster) if c in codes or c in valued or c == "i"), -1)
        if cluster[at:at + 1] == "i":
            suffix = cluster[at + 1:] or suffix or ""
        code = cluster[at:] in tuple(codes)  # -pe CODE: the next word is code
    if suffix is None:
        return []
    return [*operands, *(backup for file in operands for backup in backups(file, suffix))]


def _extracts(args: list[str]) -> bool:
    """True when ``tar ARGS`` extracts: its ``-C DIR`` is where it writes.

    ``x`` in its first cluster or a short one, ``--extract``, ``--get``; creating, ``-C`` is
    where it reads.
    """
    return any(long_option(a, "--extract") or long_option(a, "--get") or a[:2] != "--" and (
        k == 0 or a[:1] == "-") and "x" in a.partition("=")[0] for k, a in enumerate(args))


def _destination(name: str, args: list[str]) -> list[str]:
    """The dir ``git worktree add DIR`` makes, ``cpio -p DIR`` copies into, ``git mv``'s target.

    And the dir ``git worktree move WT DIR`` moves a worktree's files to, the file ``git
    merge-file CURRENT BASE OTHER`` rewrites (not with ``-p``).
    """
    operands = [a for a in args if not a.startswith("-")]
    if name == "cpio":
        passes = any(a[:2] != "--" and a[:1] == "-" and "p" in a or long_option(
            a, "--pass-through") for a in args)
        return operands[-1:] if passes else []
    at = git_subcommand(args)
    if args[at:at + 1] == ["mv"]:  # git mv run.sh .git/hooks/pre-commit: its last operand
        return [a for a in args[at + 1:] if not a.startswith("-")][-1:]
    if args[at:at + 1] == ["merge-file"] and not {"-p", "--stdout"} & set(args[at + 1:]):
        rest = args[at + 1:]  # git merge-file .git/config BASE OTHER rewrites its first file
        return next(([a] for k, a in enumerate(rest) if a[:1] != "-" and (
            k == 0 or rest[k - 1] != "-L")), [])
    if args[at:at + 2] == ["worktree", "move"]:  # git worktree move wt .git/hooks: its files
        return [a for a in args[at + 2:] if not a.startswith("-")][1:2]
    if args[at:at + 2] != ["worktree", "add"]:
        return []
    rest = args[at + 2:]
    return next(([a] for k, a in enumerate(rest) if not a.startswith("-") and (
        k == 0 or rest[k - 1] not in ("-b", "-B", "--reason"))), [])


def _mode_operands(args: list[str]) -> list[str]:
    """The files ``chmod ARGS`` changes: its operands but the mode (none with ``--reference``)."""
    operands = [a for a in args if not a.startswith("-") or _MODE.fullmatch(a)]
    return operands[0 if any(long_option(a, "--reference") for a in args) else 1:]


def _named(word: str) -> list[str]:
    """The paths ``word`` may name for a script whose options are unknown.

    The whole word, what follows each ``=`` (``--outputFile=P``, ``ARGS=--basetemp=P``) and
    what follows a short option (``-oP``, ``ARGS=-oP``).
    """
    parts = word.split("=")
    values = ["=".join(parts[i:]) for i in range(len(parts))]
    return values + [v[2:] for v in values if _SHORT_GLUED.match(v)]
