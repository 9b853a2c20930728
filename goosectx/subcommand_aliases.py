"""The other names a tool's subcommand goes by, for deny and ask rules.

docs/architecture.md §4, clause 2 of the one approval decision. A rule on a subcommand is
written one way (``shell(npm install*)``, ``shell(pip install*)``, ``shell(docker rm*)``,
``shell(helm uninstall*)``, ``shell(terraform destroy*)``, ``shell(git push*)``); the tool
takes the same command under other names: ``npm i``, ``npm add`` (and npm's own typo forms
``npm isntall``), ``pip3``, ``python3 -m pip``, ``uv pip``, ``docker container rm``, ``docker
image push``, ``docker-compose``, ``helm delete``, ``terraform apply -destroy``, ``git subtree
push`` (which runs ``git push``). :func:`equal_forms` gives a command's forms under each
other name, so a deny or ask rule written with any of them catches all; an allow rule still
matches the command as written. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

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
_PIP = re.compile(r"pip(?:3(?:\.\d+)?)?")


def _program_forms(words: list[str]) -> list[list[str]]:
    """``words`` under the other names of its program: ``python3 -m pip`` / ``pip3`` → ``pip``."""
    name = words[0].rsplit("/", 1)[-1]
    if _PYTHON.fullmatch(name) and words[1:3] == ["-m", "pip"]:
        rest = words[3:]
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
    if name in _DOCKERS:
        if (short := _MANAGED.get((sub, rest[0] if rest else ""))) is not None:
            out.append([words[0], short, *rest[1:]])
        out += [[words[0], *long, *rest] for long in [_TOP_LEVEL.get(sub)] if long]
    elif name == "terraform" and sub == "apply" and "-destroy" in rest:
        out.append([words[0], "destroy", *(w for w in rest if w != "-destroy")])
    elif name == "git" and sub == "subtree" and rest[:1] == ["push"]:
        out.append([words[0], "push", *rest[1:]])  # git-subtree runs git push
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
