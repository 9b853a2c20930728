"""A vendor's key in an innocently named variable is a secret: kept from tools, redacted."""

from __future__ import annotations

import pytest

from goosectx.config import Settings
from goosectx.env_secrets import make_redactor
from goosectx.secret_names import is_secret, secret_values
from goosectx.tools.builtin import tool_env

KEYS = [
    "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
    "gho_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8",
    "github_pat_11ABCDEFG0" + "x" * 20 + "_" + "Yz9" * 10,
    "sk-test-Zq8vN3kLm5Pw7Rt2Yx4Hb6Jd9Fg1",
    "sk-ant-api03-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9",
    "sk-proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0",
    "xoxb-1234567890-0987654321-AbCdEfGhIjKl",
    "glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn",
    "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz1234",
    "AKIAIOSFODNN7EXAMPLE",
    "ASIA" + "Q2W3E4R5T6Y7U8I9",
    "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "npm_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx9",
]


@pytest.mark.parametrize("key", KEYS)
def test_a_well_known_key_under_any_name_is_kept_from_tools_and_redacted(key: str) -> None:
    env = {"GHX": key, "PATH": "/usr/bin"}
    assert is_secret("GHX", key)
    assert "GHX" not in tool_env(Settings(), env) and "PATH" in tool_env(Settings(), env)
    assert key in secret_values(env)
    assert make_redactor(Settings(), env)(f"echo $GHX -> {key}") == "echo $GHX -> [REDACTED]"


def test_a_key_inside_a_longer_value_is_registered_alone() -> None:
    key = KEYS[0]
    assert key in secret_values({"OPTS": f"--user me --auth {key} --verbose"})


@pytest.mark.parametrize("value", [
    "sk-learn", "sk-this-is-a-long-branch-name-here", "AKIA", "AKIAshort", "ghp_short",
    "hf_transfer", "/usr/local/bin:/usr/bin", "xoxb-", "npm_config_cache",
    "en_US.UTF-8", "AIzaSy-too-short", "glpat-", "my-github_pat_note",
])
def test_ordinary_values_are_not_taken_for_keys(value: str) -> None:
    assert not is_secret("SOME_VAR", value)
    assert secret_values({"SOME_VAR": value}) == []
