"""Under ``shell(tar -tf*)`` (list an archive), what tar runs or writes beyond listing asks.

``tar -tf dist.tar --index-file=Makefile`` overwrote the Makefile with the listing
(``--volno-file`` writes too), an archive named ``HOST:FILE`` makes tar run ``rsh``/``ssh`` to
that host, and ``-I PROG`` / ``--use-compress-program``, ``--checkpoint-action=exec=…``,
``--rsh-command``, ``-F``/``--info-script`` run a command of their own, which needs an allow
rule of its own (docs/architecture.md §4).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.option_writes import option_writes
from goosectx.permissions import PermissionRules

RULES = PermissionRules(allow=("shell(tar -tf*)", "shell(gzip*)"))


def _verdict(work: Path, command: str) -> tuple[str, str]:
    verdict = shell_verdict(RULES, command, "smart_approve", working_dir=work)
    return verdict.action, verdict.reason


@pytest.mark.parametrize(("command", "said"), [
    ("tar -tf x.tar -I 'sh -c \"rm -rf src; cat\"'", "tar runs sh"),
    ("tar -tf x.tar --use-compress-program='rm -rf src'", "tar runs rm"),
    ("tar -tf x.tar --use=sh", ""),  # sh reads its commands from tar's data
    ("tar -tf x.tar --checkpoint=1 --checkpoint-action=exec='touch y'", "tar runs touch"),
    ("tar -tf x.tar --rsh-command=/bin/rm", "tar runs /bin/rm"),
    ("tar -tf x.tar -F 'rm x'", "tar runs rm"),
    ("tar -tf x.tar --info-script=x.sh", "tar runs x.sh"),
    ("tar -tf x.tar --index-file=Makefile", ""), ("tar -tf x.tar --index=Makefile", ""),
    ("tar -tf x.tar --volno-file=Makefile", ""), ("tar -tf host:x.tar", ""),
    ("tar -tf user@host:/x.tar", ""), ("tar -tf x.tar --file=host:x.tar", ""),
])
def test_what_tar_runs_or_writes_beyond_listing_asks(tmp_path: Path, command: str,
                                                     said: str) -> None:
    action, reason = _verdict(tmp_path, command)
    assert action == "ask", reason
    assert said in reason, reason


@pytest.mark.parametrize(("args", "said"), [
    (["-tf", "x.tar", "--index-file=Makefile"], "tar --index-file writes its output"),
    (["-tf", "x.tar", "--volno=Makefile"], "tar --volno writes its output"),
    (["-tf", "host:x.tar"], "tar's archive host:x.tar is on another host"),
    (["tvf", "u@h:/x.tar"], "tar's archive u@h:/x.tar is on another host"),
    (["-t", "--file", "h:x.tar", "-v"], "h:x.tar is on another host"),
])
def test_the_approval_question_says_why(args: list[str], said: str) -> None:
    assert said in (option_writes("tar", args) or ""), args


@pytest.mark.parametrize("command", [
    "tar -tf x.tar", "tar -tf x.tar.gz -I gzip", "tar -tf x.tar --index-file=/dev/stdout",
    "tar -tf ./a:b.tar", "tar -tf x.tar --force-local -f a:b.tar", "tar -tf src/x.tar docs",
    "tar -tf x.tar --file=y.tar",  # --file itself, no prefix of --files-from
])
def test_plain_listing_still_runs(tmp_path: Path, command: str) -> None:
    action, reason = _verdict(tmp_path, command)
    assert action == "run", reason
