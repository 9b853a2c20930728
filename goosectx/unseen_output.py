"""An imported command whose output holds secrets this machine cannot know to redact.

docs/architecture.md §4 (secrets). goosectx's own shell runs with the secrets taken out of its
environment (``tools/builtin.tool_env``): a live ``!env``, ``!printenv`` or ``!cat
/proc/self/environ`` prints none, and what else it prints is redacted of this machine's
secrets. A command of an imported transcript (a Codex user's ``!env``) ran with the whole
environment of another process, maybe another machine: its output may hold any key, known
here or not. So such a command, and one that prints a stored credential (``gh auth token``),
is the user's only on import, as one naming a sensitive file is
(:func:`goosectx.sensitive_shell.sensitive_words`).

Core module: no printing.
"""

from __future__ import annotations

import re
from pathlib import Path

from goosectx.secret_names import secret_name
from goosectx.shell_dirs import command_dirs, command_words
from goosectx.shell_unwrap import WRAPPERS, unwrap
from goosectx.shell_words import Word

_ENVIRON = re.compile(r"/proc/(?:self|thread-self|\d+|\$\$|\$\{?[A-Za-z_]\w*\}?)(?:/task/[^/]+)?"
                      r"/environ")
"""A process's environment as a file (``/proc/self/environ``, ``/proc/$PID/environ``)."""
_DUMPS = {"env": (), "printenv": (), "export": ("-p",), "declare": ("-x", "-p", "-xp", "-px"),
          "typeset": ("-x", "-p", "-xp", "-px"), "set": ()}
"""Programs that print the environment when given no operand but these options."""
_CREDENTIAL_PRINTERS: tuple[tuple[str, ...], ...] = (
    ("gh", "auth", "token"), ("glab", "auth", "token"), ("gcloud", "auth", "print-access-token"),
    ("gcloud", "auth", "print-identity-token"), ("aws", "configure", "export-credentials"),
    ("aws", "ecr", "get-login-password"), ("az", "account", "get-access-token"),
    ("heroku", "auth:token"), ("doctl", "auth", "token"), ("vault", "print", "token"),
    ("op", "read"), ("pass", "show"), ("security", "find-generic-password"),
    ("security", "find-internet-password"),
)
"""Commands that print a credential from a store of their own (a keyring, ``hosts.yml``)."""
_SHOW_TOKEN = frozenset({"-t", "--show-token"})
"""``gh auth status -t``: the token in its report."""


def unseen_secret_output(command: str, working_dir: Path, *,
                         environment: bool = True) -> str | None:
    """Why ``command``'s imported output may hold a secret not known here, or ``None``.

    Each part of the line, wrappers looked through (``sudo env``): an environment dump
    (``env``, ``printenv`` alone or of a secret-looking name, ``export -p``, ``declare -x``,
    ``set`` alone), a read of ``/proc/…/environ``, or a credential printer
    (:data:`_CREDENTIAL_PRINTERS`; ``gh auth status --show-token``). ``environment=False``:
    credential printers only — a live ``!env`` runs with the secrets taken out of its
    environment, but a live ``!gh auth token`` prints the token from gh's own store.
    """
    for part, _dirs in command_dirs(command, working_dir):
        if environment and any(_ENVIRON.fullmatch(word.value) for word in part.words):
            return "it read a process's environment"
        words = command_words(part.words)
        for _ in range(8):  # wrappers looked through: sudo env, nice printenv
            name = words[0].value.rsplit("/", 1)[-1] if words else ""
            ran = unwrap(name, words[1:])[:1] if name in WRAPPERS else []
            if environment and name in _DUMPS and _dumps(name, [w.value for w in words[1:]],
                                                         ran):
                return f"{name} printed the environment it ran in"
            if not ran or not ran[0]:
                break
            words = ran[0]
        values = (name, *(word.value for word in words[1:]))  # /usr/bin/gh as gh
        for printer in _CREDENTIAL_PRINTERS:
            if values[:len(printer)] == printer:
                return f"{' '.join(printer)} printed a credential"
        if values[:3] == ("gh", "auth", "status") and _SHOW_TOKEN & set(values[3:]):
            return "gh auth status printed a token"
    return None


def _dumps(name: str, args: list[str], ran: list[list[Word]]) -> bool:
    """True when ``name args`` prints the environment (or a secret variable's value).

    ``ran``: what ``env`` runs (``env X=1 make``: make, no dump).
    """
    if name == "printenv":
        operands = [a for a in args if not a.startswith("-")]
        return not operands or any(secret_name(a) for a in operands)
    if name == "env":
        return not (ran and ran[0])
    return all(a in _DUMPS[name] for a in args)
