"""The git commands a git subcommand may run as, for permission rules.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_git` reads a git command line. A subcommand git does not know runs as the
one git guesses when ``help.autocorrect`` is set (on the line, in the environment or in a
config file the rules do not read): ``git psuh origin`` pushes. :func:`runs_as` gives the
commands a subcommand could be autocorrected to, scored as git's ``help.c`` scores them, and
the commands that do another's work under their own name (``git send-pack`` and ``git
http-push`` push). What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

COMMON = frozenset({
    "add", "bisect", "branch", "clone", "commit", "diff", "fetch", "grep", "init", "log",
    "merge", "mv", "pull", "push", "rebase", "reset", "restore", "rm", "show", "status",
    "switch", "tag"})
"""git's common commands (``git help``): a unique prefix of one is autocorrected to it."""
GIT_COMMANDS = COMMON | frozenset({
    "am", "annotate", "apply", "archimport", "archive", "backfill", "blame", "bugreport",
    "bundle", "cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format",
    "checkout", "checkout-index", "cherry", "cherry-pick", "citool", "clean", "column",
    "commit-graph", "commit-tree", "config", "count-objects", "credential", "credential-cache",
    "credential-store", "cvsexportcommit", "cvsimport", "cvsserver", "daemon", "describe",
    "diagnose", "diff-files", "diff-index", "diff-pairs", "diff-tree", "difftool",
    "fast-export", "fast-import", "fetch-pack", "filter-branch", "fmt-merge-msg",
    "for-each-ref", "for-each-repo", "format-patch", "fsck", "fsck-objects", "fsmonitor--daemon",
    "gc", "get-tar-commit-id", "gitk", "gitweb", "gui", "hash-object", "help", "hook",
    "http-backend", "http-fetch", "http-push", "imap-send", "index-pack", "init-db",
    "instaweb", "interpret-trailers", "last-modified", "ls-files", "ls-remote", "ls-tree",
    "mailinfo", "mailsplit", "maintenance", "merge-base", "merge-file", "merge-index",
    "merge-one-file", "merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index",
    "name-rev", "notes", "p4", "pack-objects", "pack-redundant", "pack-refs", "patch-id",
    "prune", "prune-packed", "quiltimport", "range-diff", "read-tree", "receive-pack",
    "reflog", "refs", "remote", "remote-ext", "remote-fd", "remote-ftp", "remote-ftps",
    "remote-http", "remote-https", "repack", "replace", "replay", "repo", "request-pull",
    "rerere", "rev-list", "rev-parse", "revert", "scalar", "send-email", "send-pack",
    "sh-i18n--envsubst", "shell", "shortlog", "show-branch", "show-index", "show-ref",
    "sparse-checkout", "stage", "stash", "stripspace", "submodule", "subtree", "svn",
    "symbolic-ref", "unpack-file", "unpack-objects", "update-index", "update-ref",
    "update-server-info", "upload-archive", "upload-pack", "var", "verify-commit",
    "verify-pack", "verify-tag", "version", "whatchanged", "worktree", "write-tree"})
"""The commands git ships (``git help -a``)."""
EXTERNAL = frozenset({
    "lfs", "annex", "flow", "filter-repo", "crypt", "secret", "absorb", "machete",
    "branchless", "town", "imerge", "revise", "extras", "sizer", "secrets", "credential-manager",
    "credential-osxkeychain", "credential-libsecret", "credential-wincred"})
"""Well-known commands installed as ``git-NAME`` programs: run as themselves, not guessed at."""
STANDS_FOR = {"send-pack": "push", "http-push": "push"}
"""Commands that do another's work under their own name: ``git send-pack REMOTE REF``
pushes as ``git push REMOTE REF`` does."""
_SIMILARITY_FLOOR = 7
"""git's ``SIMILARITY_FLOOR``: a guess scored at it or above is never run."""
_LONGEST = max(map(len, GIT_COMMANDS))


def _distance(typed: str, candidate: str) -> int:
    """The cost of editing ``typed`` into ``candidate``, as git's ``levenshtein(…, 0, 2, 1, 3)``.

    A swap of neighbours costs 0, a substitution 2, a character added to ``typed`` 1, one left
    out of it 3.
    """
    row0 = [0] * (len(candidate) + 1)
    row1 = list(range(len(candidate) + 1))  # additions cost 1 each
    for i, char in enumerate(typed):
        row2 = [(i + 1) * 3] + [0] * len(candidate)
        for j, other in enumerate(candidate):
            cost = row1[j] + 2 * (char != other)
            if i and j and typed[i - 1] == other and char == candidate[j - 1]:
                cost = min(cost, row0[j - 1])
            row2[j + 1] = min(cost, row1[j + 1] + 3, row2[j] + 1)
        row0, row1 = row1, row2
    return row1[-1]


def runs_as(sub: str) -> list[str]:
    """The git commands ``git SUB`` may run as.

    Those of :data:`STANDS_FOR`, or for a subcommand git does not ship, the one it autocorrects
    to: the best-scored (a prefix of one common command only, else the fewest edits), when no
    other scores as well and it scores under git's floor.
    """
    if sub in STANDS_FOR:
        return [STANDS_FOR[sub]]
    if not sub or sub.startswith("-") or sub in GIT_COMMANDS or sub in EXTERNAL or (
            len(sub) > _LONGEST + _SIMILARITY_FLOOR // 3):
        return []  # each character past the longest command costs 3: scored past the floor
    scores = {c: 0 if c in COMMON and c.startswith(sub) else _distance(sub, c) + 1
              for c in GIT_COMMANDS}
    best = sorted(scores, key=scores.__getitem__)[:2]
    unique = scores[best[0]] < scores[best[1]]
    return best[:1] if unique and scores[best[0]] < _SIMILARITY_FLOOR else []
