"""An ``/extension add`` command line's secret arguments: run as given, never shown or stored."""

from __future__ import annotations

from goosectx.cli.input_secrets import redact_added_envs
from goosectx.extensions.config import parse_flag_spec
from goosectx.secret_names import argv_secrets

GH = "ghp_" + "Qw3eR5tY7uI9oP1aS3dF5gH7jK9lZ1xC3vB5"
PASSWORD = "Tr0ub4dor3xyzzy"
TOKEN = "tok-" + "9f8e7d6c5b4a3210"
SPEC = f"python evil.py --token={TOKEN} --gh={GH} --password={PASSWORD} -p 8080 --port 9000"


def test_the_secret_arguments_are_not_shown_nor_stored_but_the_server_gets_them() -> None:
    config = parse_flag_spec(SPEC, (), origin="repl")
    assert config.args[-6:-4] == (f"--gh={GH}", f"--password={PASSWORD}")  # the real argv
    shown = config.command_line()
    stored = str(config.public())
    for secret in (GH, PASSWORD, TOKEN):
        assert secret not in shown and secret not in stored
    assert "-p 8080 --port 9000" in shown and "[REDACTED]" in shown


def test_the_history_entry_of_the_line_is_redacted() -> None:
    entry = redact_added_envs(f'/extension add "{SPEC}"')
    for secret in (GH, PASSWORD, TOKEN):
        assert secret not in entry
    assert entry.startswith("/extension add \"python evil.py --token=[REDACTED]")


def test_which_arguments_are_secrets() -> None:
    words = ["--api-key", "abcdefgh12345", "--client-secret=s3cr3tvalue", "--keyword=lookup",
             "-p", "hunter2hunter2", "--tokens=500000000", "--pass", "-x", f"--gh={GH}"]
    assert argv_secrets(words) == ["abcdefgh12345", "s3cr3tvalue", GH]
