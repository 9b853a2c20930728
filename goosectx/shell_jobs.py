"""Job schedulers: ``at``, ``batch`` and ``crontab`` run commands the command line does not show.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_command` reads a command for the shell's permission rules. Like ``sh``
with no ``-c``, ``at TIME`` and ``batch`` read the job's commands from their standard input
(``echo 'rm f' | at now``, ``at now < job.sh``) or from ``-f FILE``, and ``crontab`` installs
a table of commands from a file or standard input (``crontab -``, ``crontab jobs.txt``), to be
run later by cron. The rules see none of that text: :func:`scheduled_job` says why, and the
command is unreadable (asked about under shell deny/ask rules). Listing, showing or removing
jobs (``at -l``, ``at -c 3``, ``atq``, ``atrm 3``, ``crontab -l``, ``crontab -r``) runs
nothing. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.shell_options import short_value

_VALUED = {"at": "qft", "batch": "qft", "crontab": "usn"}
"""Options that take a value (``at -q b``, ``at -f job.sh``, ``crontab -u me``)."""
_NO_JOB = {"at": "lrdcV", "batch": "lrdcV", "crontab": "lreicTVhx"}
"""Flags with which nothing is scheduled: list, remove, show a job, print the version
(``crontab -e`` edits the table in your editor: an editor variable is read where it is set)."""


def scheduled_job(name: str, args: list[str]) -> str | None:
    """Why ``name`` (``at``, ``batch``, ``crontab``) schedules commands the rules cannot read.

    ``None`` for another program, or when it lists, shows or removes jobs.
    """
    valued = _VALUED.get(name)
    if valued is None:
        return None
    source = "its standard input"
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--" or not word.startswith("-") or word == "-":
            if name == "crontab" and word not in ("-", "--"):
                source = f"the file {word}"  # crontab FILE
            i += 1
            continue
        short = short_value(args, i, valued)
        if any(flag in _NO_JOB[name] for flag in short.flags):
            return None
        if short.letter == "f" and name != "crontab":
            source = f"the file {short.value}"  # at -f job.sh now
        i = short.next
    return f"{name} schedules the commands it reads from {source}, to run later"
