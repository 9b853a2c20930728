"""Passwords in ``*_PWD``, ``*_PW`` and ``*PASS`` variables, and Stripe, SendGrid and JWT values,
stay out of the shell tool's environment and its output (goosectx/secret_names.py).

``PWD``, ``OLDPWD``, a ``*_PWD`` holding a directory and everyday words and paths are left as
they are.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goosectx.config import Settings
from goosectx.env_secrets import make_redactor
from goosectx.redaction import REDACTED
from goosectx.secret_names import WELL_KNOWN_KEY, argv_secrets
from goosectx.tools.builtin import make_tool_context, tool_env
from goosectx.tools.shell import ShellTool

PASSWORDS = {
    "MYSQL_PWD": "my-sql-pass-4471", "SSHPASS": "ssh-pass-9923", "PGPASS": "pg-pass-0071",
    "DB_PWD": "db-pwd-secret-1", "MY_APP_PW": "app-pw-secret-2", "LDAP_BIND_PW": "ldap-bind-3",
}
STRIPE = "sk_live_51HqLyjWDarjtT1zdp7dc4eC39"
VENDOR_KEYS = {
    "PAYMENTS": STRIPE,
    "STRIPE_RESTRICTED": "rk_live_51HqLyjWDarjtT1zdp7dcXyZ09",
    "BILLING_TEST": "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "MAIL": "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",
    "SESSION_DATA": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
                    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "HOOK_CHECK": "whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH",
}
HERE = str(Path(__file__).resolve().parent)
"""A directory every run has (a ``*_PWD`` naming one is a working directory)."""
KEPT = {
    "PWD": "/home/u/project", "OLDPWD": "/home/u", "HOST_PWD": HERE,
    "CACHE_BYPASS": "enabled-for-tests", "PGPASSFILE": "/home/u/.pgpass",
    "COMPASS": "north-by-northwest", "PATH": "/usr/bin:/bin", "SSH_ASKPASS": "/usr/bin/ksshaskpass",
    "SPEC": "sk_test_helpers.py", "CONFIG": "SG.config.yaml", "TOKENIZER_DIR": "/opt/sk_live_data",
}


def test_passwords_and_vendor_keys_are_dropped_and_directories_and_words_kept() -> None:
    env = tool_env(Settings(), {**PASSWORDS, **VENDOR_KEYS, **KEPT})
    assert env == KEPT


def test_the_shell_tool_shows_none_of_them(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name, value in {**PASSWORDS, **VENDOR_KEYS, **KEPT}.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "leak.txt").write_text(
        "".join(f"{name} was {value}\n" for name, value in {**PASSWORDS, **VENDOR_KEYS}.items())
        + "".join(f"{name} is {value}\n" for name, value in KEPT.items()), encoding="utf-8")
    ctx = make_tool_context(Settings(data_dir=tmp_path / "data"), tmp_path)
    for command in ("env", "cat leak.txt"):
        output = ShellTool().run({"command": command}, ctx).output
        for value in {**PASSWORDS, **VENDOR_KEYS}.values():
            assert value not in output
    output = ShellTool().run({"command": "cat leak.txt"}, ctx).output
    assert output.count(REDACTED) == len(PASSWORDS) + len(VENDOR_KEYS)
    for name, value in KEPT.items():
        assert f"{name} is {value}\n" in output  # (a directory, a word, a path: as they are)
    env = ShellTool().run({"command": "env"}, ctx).output
    assert f"HOST_PWD={HERE}\n" in env and "\nPWD=" in env  # (bash sets OLDPWD itself)


def test_the_redactor_lists_the_values_and_leaves_the_words() -> None:
    redact = make_redactor(Settings(), {**PASSWORDS, **VENDOR_KEYS, **KEPT})
    assert set(redact.secrets) >= {*PASSWORDS.values(), *VENDOR_KEYS.values()}
    text = ("cd /home/u/project && pytest tests/sk_test_helpers.py -k SG.config.yaml "
            "--basetemp /srv/app  # compass north-by-northwest, cache bypass\n")
    assert redact(text) == text


@pytest.mark.parametrize("word", [
    "sk_test_helpers", "sk_live_mode_enabled_for_every_user", "rk_live_", "SG.config",
    "SG.abc.def", "eyJhbGciOiJIUzI1NiJ9", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.",
    "/usr/lib/python3/sk_test_data", "whsec_short", "tests/test_sk_live_keys.py"])
def test_ordinary_words_are_no_vendor_key(word: str) -> None:
    assert WELL_KNOWN_KEY.search(word) is None


def test_a_password_option_of_these_names_is_read_from_a_command_line() -> None:
    words = ["mysql", "--db-pwd", "hunter2hunter2", "--ldap-bind-pw=secret-bind-1",
             "--bypass", "cache-layer-x", f"--card={STRIPE}"]
    assert argv_secrets(words) == ["hunter2hunter2", "secret-bind-1", STRIPE]


def test_a_pwd_holding_a_path_to_no_directory_is_a_password(tmp_path: Path) -> None:
    """``MYSQL_PWD`` is MySQL's password variable, and a password may start with ``/``; a
    working directory (``HOST_PWD=$PWD``) names a directory that is there. Chosen so: a
    ``*_PWD``/``*_PW`` value naming no directory is taken for a password (hidden from tools,
    redacted), one naming a directory is left as it is — a hidden directory name costs a
    user little, a shown password costs them the password."""
    password = "/xK9mq7Lp2vR"
    env = {"MYSQL_PWD": password, "LDAP_BIND_PW": "/nope/s3cret-42", "HOST_PWD": str(tmp_path),
           "INIT_PWD": str(tmp_path / "gone")}
    assert tool_env(Settings(), env) == {"HOST_PWD": str(tmp_path)}
    redact = make_redactor(Settings(), env)
    shown = redact(f"mysql -p{password} in {tmp_path}")
    assert shown == f"mysql -p{REDACTED} in {tmp_path}"
