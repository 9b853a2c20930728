"""apt's configuration options and dpkg's options that run shell commands.

fresh22 #21, #22: ``apt-get -o APT::Update::Pre-Invoke::='rm victim' update`` and ``dpkg
--pre-invoke='rm victim' --configure -a`` ran ``rm`` under ``run --mode auto --deny 'shell(rm
*)'``. An apt option that sets a key whose commands apt runs (or a configuration file) is now
asked about; dpkg's command lines are read. Everyday apt and dpkg commands keep running.
"""

from __future__ import annotations

import pytest
from rules_support import action_under_deny_rm


@pytest.mark.parametrize("command", [
    "apt-get -o APT::Update::Pre-Invoke::='rm v' update",
    "apt-get -o 'APT::Update::Pre-Invoke::=\"rm v\"' update",
    "sudo apt -oDPkg::Post-Invoke::=x install foo", "apt-get --option=DPkg::Pre-Install-Pkgs::=x",
    "apt-get install -y --option Dpkg::Options::=--pre-invoke=x foo",
    "apt-get -qqo Acquire::http::Proxy-Auto-Detect=./x update", "aptitude -o Dir::Bin::dpkg=x",
    "apt-get -o Dir=/tmp/root update", "apt-get -o Dir::Etc::parts=./conf.d update",
    "apt-get -o Binary::apt-get::APT::Update::Post-Invoke-Success::=x update",
    "apt-get -o APT::Key::GPGVCommand=x update", "apt-get -c ./apt.conf update",
    "apt-get --config-file=x.conf install foo", "apt-get -o \"$OPT\" update",
])
def test_apt_options_that_may_run_commands_ask(command: str) -> None:
    assert action_under_deny_rm(command) == "ask", command


@pytest.mark.parametrize("command", [
    "dpkg --pre-invoke='rm v' --configure -a", "dpkg --post-invoke 'rm v' -i x.deb",
    "sudo dpkg --status-logger='rm v' -i x.deb",
])
def test_dpkg_command_lines_are_read(command: str) -> None:
    assert action_under_deny_rm(command) == "deny", command


@pytest.mark.parametrize("command", [
    "apt-get update", "apt-get install -y foo", "sudo apt-get -qq -y install foo",
    "apt-get -o Dpkg::Options::=--force-confold -o Acquire::Retries=3 install foo",
    "apt-get update -o Dir::Etc::sourcelist=sources.list.d/x.list -o Dir::Etc::sourceparts=-",
    "apt-get -t bookworm-backports install foo", "apt-cache policy foo", "dpkg -l",
    "dpkg -i x.deb", "dpkg --configure -a", "apt-get remove rm",
])
def test_everyday_apt_and_dpkg_commands_run(command: str) -> None:
    assert action_under_deny_rm(command) == "run", command
