"""A command's subcommand behind the program's own options, for deny and ask rules.

docs/architecture.md §4, clause 2 of the one approval decision. A rule on a subcommand
(``shell(git push*)``, ``shell(kubectl delete*)``) is written as the program, then the
subcommand; the program's global options may stand between them (``git -C . push``,
``git -c k=v push``, ``kubectl -n prod delete pod x``, ``cargo +nightly publish``,
``terraform -chdir=infra destroy``). :func:`subcommand_forms` gives the forms with a run of
leading options (and the word after each, which may be its value) left out, for deny and ask
rules only: an allow rule still matches the command as written. ``git-push`` (a git-core
path) reads as ``git push``, ``git-send-pack`` / ``git-http-push`` as the ``git push`` they
stand for (:data:`goosectx.git_autocorrect.STANDS_FOR`). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.git_autocorrect import STANDS_FOR
from goosectx.shell_git import git_subcommand

MAX_SKIPPED = 8
"""At most this many leading words are tried as options (and their values)."""


def _is_option(word: str) -> bool:
    return len(word) > 1 and word[0] in "-+" and word != "--"


def subcommand_forms(form: str) -> list[str]:
    """Forms of ``form`` (one simple command, words separated by spaces) without leading options.

    A word after an option may be that option's value or the subcommand, so every stop in the
    run of options is tried: ``git -C . push origin`` gives ``git . push origin`` and ``git
    push origin``. A word that is neither an option nor right after one ends the run (``git log
    --grep push`` gives nothing), as does ``--``. git's own options are read as git reads them,
    however many (``git -c a=1 … -c e=5 push``). (A git alias, ``git -c alias.p=push p``, is
    read by :func:`goosectx.shell_git.git_lines` as the git command line it stands for.)
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
        if program[4:] in STANDS_FOR:  # git-send-pack x: git push x
            out.append(" ".join(["git", STANDS_FOR[program[4:]], *words[2:]]))
    i, after_option = 1, False
    while i < len(words) and i <= MAX_SKIPPED:
        word = words[i]
        if _is_option(word):
            after_option = "=" not in word
        elif after_option:
            after_option = False
        else:
            break
        i += 1
        if i < len(words) and not _is_option(words[i]) and words[i] != "--":
            out.append(" ".join([words[0], *words[i:]]))
    if program == "git":  # git's own options however many (its aliases: shell_git's lines)
        at = 1 + git_subcommand(words[1:])
        out += [" ".join(["git", *words[at:]])] if at < len(words) else []
    return list(dict.fromkeys(f for f in out if f != form))
