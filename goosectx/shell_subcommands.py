"""A command's subcommand behind the program's own options, for deny and ask rules.

docs/architecture.md §4, clause 2 of the one approval decision. A rule on a subcommand
(``shell(git push*)``, ``shell(kubectl delete*)``) is written as the program, then the
subcommand; the program's global options may stand between them (``git -C . push``,
``git -c k=v push``, ``kubectl -n prod delete pod x``, ``cargo +nightly publish``,
``terraform -chdir=infra destroy``). :func:`subcommand_forms` gives the forms with a run of
leading options (and the word after each, which may be its value) left out, for deny and ask
rules only: an allow rule still matches the command as written. ``git-push`` (a git-core
path) reads as ``git push``. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

MAX_SKIPPED = 8
"""At most this many leading words are tried as options (and their values)."""


def _is_option(word: str) -> bool:
    return len(word) > 1 and word[0] in "-+" and word != "--"


def subcommand_forms(form: str) -> list[str]:
    """Forms of ``form`` (one simple command, words separated by spaces) without leading options.

    A word after an option may be that option's value or the subcommand, so every stop in the
    run of options is tried: ``git -C . push origin`` gives ``git . push origin`` and ``git
    push origin``. A word that is neither an option nor right after one ends the run (``git log
    --grep push`` gives nothing), as does ``--``. A git alias set on the command line (``git -c
    alias.p=push p``) reads as what it stands for (``git push``; a ``!rm f`` alias is a command
    line :mod:`goosectx.shell_git` reads).
    Empty when nothing could be left out.
    """
    words = form.split(" ")
    if not words or not words[0]:
        return []
    out: list[str] = []
    program = words[0].rsplit("/", 1)[-1]
    if program.startswith("git-") and len(program) > 4:  # /usr/lib/git-core/git-push
        words = ["git", program[4:], *words[1:]]
        out.append(" ".join(words))
    aliases: dict[str, str] = {}
    i, after_option = 1, False
    while i < len(words) and i <= MAX_SKIPPED:
        word = words[i]
        if _is_option(word):
            after_option = "=" not in word
        elif after_option:
            after_option = False
            name, eq, value = word.partition("=")
            if eq and name.lower().startswith("alias.") and words[i - 1] == "-c":
                aliases[name[6:].lower()] = value
        else:
            break
        i += 1
        if i < len(words) and not _is_option(words[i]) and words[i] != "--":
            out.append(" ".join([words[0], *words[i:]]))
            alias = aliases.get(words[i].lower())
            if alias is not None and program == "git" and not alias.startswith("!"):
                out.append(" ".join([f"git {alias}", *words[i + 1:]]))  # `!…`: shell_git's
    return list(dict.fromkeys(f for f in out if f != form))
