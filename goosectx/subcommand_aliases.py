"""The other names a tool's subcommand goes by, for deny and ask rules.

docs/architecture.md §4, clause 2 of the one approval decision. A rule on a subcommand is
written one way (``shell(npm install*)``, ``shell(pip install*)``, ``shell(docker rm*)``,
``shell(helm uninstall*)``, ``shell(terraform destroy*)``, ``shell(git push*)``); the tool
takes the same command under other names: ``npm i``, ``npm add`` (and npm's own typo forms
``npm isntall``; ``npm it`` runs ``npm install``), ``pip3``, ``python3 -I -m pip`` (pip's
options before its subcommand skipped), ``uv pip``, ``docker container rm`` / ``remove``,
``docker image push``, ``docker-compose``, ``helm delete``, ``terraform apply -destroy`` /
``--destroy=true``, ``git subtree [-P lib] push`` (which runs ``git push``).
:func:`equal_forms` gives a command's forms under each other name, so a deny or ask rule
written with any of them catches all; an allow rule still matches the command as written.
What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.code_options import python_module

_GROUPS: dict[str, tuple[tuple[str, ...], ...]] = {
    "npm": (
        ("install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal",
         "isntall", "add"),
        ("uninstall", "unlink", "remove", "rm", "r", "un"),
        ("ci", "clean-install", "ic", "install-clean", "isntall-clean"),
        ("install-test", "it"), ("exec", "x"), ("run", "run-script", "rum", "urn"),
        ("test", "tst", "t"), ("update", "up", "upgrade", "udpate"), ("link", "ln")),
    "pnpm": (("install", "i"), ("remove", "rm", "uninstall", "un"), ("update", "up", "upgrade"),
             ("exec", "x")),
    "cargo": (("build", "b"), ("check", "c"), ("doc", "d"), ("run", "r"), ("test", "t"),
              ("remove", "rm")),
    "helm": (("uninstall", "un", "delete", "del"), ("list", "ls")),
    "brew": (("uninstall", "remove", "rm"), ("list", "ls"), ("update", "up")),
}
"""Per program, groups of subcommand names that run the same command (the tools' own docs)."""
_CONTAINER = frozenset({
    "attach", "commit", "cp", "create", "diff", "exec", "export", "kill", "logs", "pause",
    "port", "rename", "restart", "rm", "run", "start", "stats", "stop", "top", "unpause",
    "update", "wait"})
_IMAGE = frozenset({"build", "history", "import", "load", "pull", "push", "save", "tag"})
_MANAGED = {("container", "ls"): "ps", ("image", "rm"): "rmi", ("image", "ls"): "images",
            **{("container", name): name for name in _CONTAINER},
            **{("image", name): name for name in _IMAGE}}
"""``docker container rm`` is ``docker rm``: a management command and the top-level one."""
_TOP_LEVEL = {short: list(long) for long, short in _MANAGED.items()}
_DOCKERS = frozenset({"docker", "podman", "nerdctl"})
_PYTHON = re.compile(r"python(?:3(?:\.\d+)?)?")
_SUBTREE_VALUED = frozenset({"-P", "--prefix", "-m", "--message", "-b", "--branch", "--onto"})
"""git subtree's options that take the next word as their value (``git subtree -P lib push``)."""
_DESTROY = frozenset({"-destroy", "--destroy", "-destroy=true", "--destroy=true"})
_PIP = re.compile(r"pip(?:3(?:\.\d+)?)?")


def _after_options(words: list[str], valued: frozenset[str]) -> int:
    """The index of the first word of ``words`` that is no option nor an option's value."""
    k = 0
    while k < len(words) and words[k].startswith("-") and words[k] != "-":
        k += 2 if words[k] in valued else 1
    return k


def _python_module(words: list[str]) -> tuple[str, list[str]] | None:
    """``python -I -m pip install x`` / ``python3 -mpip install x`` → ``("pip", [install, x])``.

    :func:`goosectx.code_options.python_module`, the one reader of python's options.
    """
    return python_module(words[1:])


def _program_forms(words: list[str]) -> list[list[str]]:
    """``words`` under the other names of its program: ``python3 -m pip`` / ``pip3`` → ``pip``.

    pip's global options before its subcommand are skipped (``pip -q install``), as
    :func:`goosectx.shell_subcommands.subcommand_forms` does for ``pip`` itself.
    """
    name = words[0].rsplit("/", 1)[-1]
    module = _python_module(words) if _PYTHON.fullmatch(name) else None
    if module is not None and _PIP.fullmatch(module[0]):
        rest = module[1]
        sub = _after_options(rest, frozenset())
        if 0 < sub < len(rest):  # python3 -m pip -q install x: also pip install x
            return [[pip, *r] for pip in ("pip", "pip3") for r in (rest, rest[sub:])]
    elif name == "uv" and words[1:2] == ["pip"]:
        rest = words[2:]
    elif name in _DOCKERS and words[1:2] == ["compose"]:
        return [["docker-compose", *words[2:]]]
    elif name == "docker-compose":
        return [["docker", "compose", *words[1:]]]
    elif _PIP.fullmatch(name):
        rest = words[1:]
    else:
        return []
    return [[pip, *rest] for pip in ("pip", "pip3") if [pip, *rest] != words]


def _subcommand_forms(words: list[str]) -> list[list[str]]:
    """``words`` with its subcommand under each of its other names."""
    name, sub, rest = words[0].rsplit("/", 1)[-1], words[1], words[2:]
    out = [[words[0], other, *rest] for group in _GROUPS.get(name, ()) if sub in group
           for other in group if other != sub]
    if name == "npm" and sub in {"it", "install-test"}:
        out += [[words[0], "install", *rest]]  # npm it runs npm install, then npm test
    if name in _DOCKERS and rest[:1] == ["remove"]:  # docker volume remove v: remove is rm
        named = [words[0], sub, "rm", *rest[1:]]
        return [*out, named, *_subcommand_forms(named)]
    if name in _DOCKERS:
        if (short := _MANAGED.get((sub, rest[0] if rest else ""))) is not None:
            out.append([words[0], short, *rest[1:]])
        out += [[words[0], *long, *rest] for long in [_TOP_LEVEL.get(sub)] if long]
    elif name == "terraform" and sub == "apply" and not _DESTROY.isdisjoint(rest):
        out.append([words[0], "destroy", *(w for w in rest if w not in _DESTROY)])
    elif name == "git" and sub == "subtree" and (
            k := _after_options(rest, _SUBTREE_VALUED)) < len(rest) and rest[k] == "push":
        out.append([words[0], "push", *rest[k + 1:]])  # git-subtree runs git push
    return out


def equal_forms(form: str) -> list[str]:
    """The forms of ``form`` (one simple command, words separated by spaces) under other names.

    ``npm i x`` gives ``npm install x``, ``npm add x`` …; ``python3 -m pip install x`` gives
    ``pip install x`` and ``pip3 install x``; ``docker container rm c`` gives ``docker rm c``
    and ``docker rm c`` gives ``docker container rm c``. Empty when the program has none.
    """
    words = form.split(" ")
    if len(words) < 2:
        return []
    programs = [words, *_program_forms(words)]
    found = [other for named in programs for other in [named, *_subcommand_forms(named)]
             if len(other) > 1]
    return list(dict.fromkeys(" ".join(other) for other in found if other != words))
