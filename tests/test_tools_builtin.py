"""The built-in registry, the tool context made from settings, and output capping."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from goosectx.config import ModelConfig, Settings
from goosectx.tools.builtin import default_registry, make_tool_context, tool_env
from goosectx.tools.output import OutputStream, cap_text
from goosectx.tools.shell import ShellTool

SECRET = "ghp_0123456789abcdefXYZ"


def test_default_registry_offers_the_three_tools_with_object_schemas() -> None:
    registry = default_registry()
    assert registry.names() == ["shell", "text_editor", "tree"]
    for schema in registry.schemas():
        assert schema["description"]
        assert schema["parameters"]["type"] == "object"
        assert set(schema["parameters"].get("required", [])) <= set(
            schema["parameters"]["properties"])


def test_make_tool_context_takes_limits_from_settings(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", shell_timeout_s=7.5,
                        tool_output_max_chars=1234)
    cancel = threading.Event()
    ctx = make_tool_context(settings, tmp_path, cancel)
    assert ctx.timeout_s == 7.5
    assert ctx.max_output_chars == 1234
    assert ctx.cancel is cancel
    assert ctx.working_dir == tmp_path
    assert ctx.overflow_dir == tmp_path / "data" / "tool-output"
    assert ctx.overflow_dir.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "github_token", "MY_SECRET_THING",
                                  "DB_PASSWORD", "Client_Secret"])
def test_secret_looking_names_are_dropped(name: str) -> None:
    env = tool_env(Settings(), {name: "value", "PATH": "/bin"})
    assert env == {"PATH": "/bin"}


def test_allowed_and_configured_names(tmp_path: Path) -> None:
    settings = Settings(allow_secret_env=("GITHUB_TOKEN",),
                        models={"openai/x": ModelConfig(api_key_env="LLM_CRED")})
    env = tool_env(settings, {"GITHUB_TOKEN": "t", "LLM_CRED": "k", "HOME": "/root"})
    assert env == {"GITHUB_TOKEN": "t", "HOME": "/root"}


def test_redact_covers_env_secrets_and_configured_keys(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    monkeypatch.setenv("LLM_CRED", "k-long-configured-key")
    settings = Settings(data_dir=tmp_path, models={"m": ModelConfig(api_key_env="LLM_CRED")})
    ctx = make_tool_context(settings, tmp_path)
    assert ctx.redact(f"a {SECRET} b k-long-configured-key") == "a [REDACTED] b [REDACTED]"
    assert "GITHUB_TOKEN" not in ctx.env and "LLM_CRED" not in ctx.env


def test_stream_decodes_a_character_split_across_reads(tmp_path: Path) -> None:
    stream = OutputStream("stdout", 100, tmp_path)
    data = "héllo €".encode()
    for i in range(len(data)):
        stream.feed(data[i : i + 1])
    stream.close()
    assert stream.text(100) == "héllo €"


def test_stream_redacts_a_secret_split_across_reads(tmp_path: Path) -> None:
    stream = OutputStream("stdout", 50, tmp_path, redact=lambda t: t.replace(SECRET, "[R]"))
    data = ("x" * 9000 + SECRET + "y" * 9000).encode()
    cut = 9000 + len(SECRET) // 2
    stream.feed(data[:cut])
    stream.feed(data[cut:])
    stream.close()
    assert stream.path is not None
    assert stream.path.read_text() == "x" * 9000 + "[R]" + "y" * 9000


def test_cap_text_never_exceeds_the_cap() -> None:
    text = "z" * 500
    for cap in (10, 100, 499, 500):
        assert len(cap_text(text, cap, "narrow it")) <= cap
    assert cap_text(text, 500, "narrow it") == text
    assert "narrow it" in cap_text(text, 200, "narrow it")


def test_an_extensions_variables_are_not_in_the_tool_env(tmp_path: Path) -> None:
    # env_keys = ["ACME_SERVICE"] hands a server a credential whose name does not look secret.
    settings = Settings(data_dir=tmp_path)
    settings.extensions.tables = {
        "acme": {"cmd": "acme-mcp", "env_keys": ["ACME_SERVICE"], "envs": {"ACME_AUTH": "v"}},
        "off": {"cmd": "x", "enabled": False, "env_keys": ["OFF_CRED"]}}
    settings.extensions.flags = (("WIDGET_CRED=abc npx widget-mcp --port=1",), ())
    environ = {"ACME_SERVICE": "s3cr3t-value", "ACME_AUTH": "other", "OFF_CRED": "c",
               "WIDGET_CRED": "w", "HOME": "/root", "PATH": "/bin"}
    assert tool_env(settings, environ) == {"HOME": "/root", "PATH": "/bin"}
    settings.allow_secret_env = ("ACME_SERVICE",)  # the way to let the shell see one
    assert tool_env(settings, environ)["ACME_SERVICE"] == "s3cr3t-value"


def test_a_shell_call_does_not_see_an_extensions_env_key(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ACME_SERVICE", "acme-credential-value-123")
    monkeypatch.setenv("PLAIN_SETTING", "visible")
    settings = Settings(data_dir=tmp_path / "data")
    settings.extensions.tables = {"acme": {"cmd": "acme-mcp", "env_keys": ["ACME_SERVICE"]}}
    ctx = make_tool_context(settings, tmp_path)
    result = ShellTool().run({"command": "env"}, ctx)
    assert "PLAIN_SETTING=visible" in result.output
    assert "ACME_SERVICE" not in result.output
