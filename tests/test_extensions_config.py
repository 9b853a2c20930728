"""Extension settings, flag specs, the child environment and tool-name mapping (no servers)."""

from __future__ import annotations

import json

import pytest
from store_support import assert_not_in_sessions_db

from goosectx.errors import ConfigError
from goosectx.extensions.config import (
    child_env,
    parse_flag_spec,
    parse_remote_spec,
    parse_table,
    parse_tables,
)
from goosectx.extensions.names import TOOL_NAME_RE, map_tool_names, model_tool_name


def test_stdio_table_defaults_and_values() -> None:
    cfg = parse_table("git", {"cmd": "uvx", "args": ["mcp-server-git"], "envs": {"A": "b"},
                              "env_keys": ["GITHUB_TOKEN"], "trusted": True})
    assert (cfg.type, cfg.cmd, cfg.args, cfg.timeout_s, cfg.startup_timeout_s) == (
        "stdio", "uvx", ("mcp-server-git",), 300.0, 30.0)
    assert cfg.enabled and cfg.trusted and cfg.env_keys == ("GITHUB_TOKEN",)


def test_http_table() -> None:
    cfg = parse_table("web", {"type": "streamable_http", "uri": "http://127.0.0.1:9/mcp",
                              "headers": {"Authorization": "Bearer sekret-value-123"},
                              "timeout_s": 5})
    assert cfg.type == "streamable_http" and cfg.timeout_s == 5.0


@pytest.mark.parametrize(("name", "table", "fragment"), [
    ("git", {"cmd": "x", "colour": 1}, "unknown key 'colour'"),
    ("git", {"args": ["x"]}, "cmd must be a non-empty string"),
    ("git", {"type": "sse", "uri": "http://x"}, "type must be"),
    ("web", {"type": "streamable_http", "uri": "ftp://x"}, "is not an http(s) URL"),
    ("web", {"type": "streamable_http", "uri": "http://x", "cmd": "y"}, "stdio servers only"),
    ("a__b", {"cmd": "x"}, "extension names"),
    ("git", {"cmd": "x", "timeout_s": 0}, "greater than 0"),
    ("git", {"cmd": "x", "envs": ["A=b"]}, "table of strings"),
])
def test_bad_tables_are_one_line_errors(name: str, table: dict[str, object],
                                        fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_table(name, table, "config.toml")
    assert fragment in info.value.one_line()
    assert "\n" not in info.value.one_line()


def test_flag_spec_envs_name_and_args() -> None:
    cfg = parse_flag_spec("TZ=UTC DEBUG=1 uvx mcp-server-time --local-timezone UTC")
    assert cfg.name == "time" and cfg.cmd == "uvx"
    assert cfg.args == ("mcp-server-time", "--local-timezone", "UTC")
    assert dict(cfg.envs) == {"TZ": "UTC", "DEBUG": "1"} and cfg.origin == "flag"
    assert parse_flag_spec("npx -y @modelcontextprotocol/server-everything").name == "everything"
    assert parse_flag_spec("python3 tests/demo_server.py", ["demo"]).name == "demo_2"
    with pytest.raises(ConfigError):
        parse_flag_spec("A=1")
    with pytest.raises(ConfigError):
        parse_flag_spec('cmd "unbalanced')


def test_remote_spec() -> None:
    cfg = parse_remote_spec("https://user:pw@tools.example.com/github/mcp")
    assert cfg.type == "streamable_http" and cfg.name == "github"
    assert "pw" not in json.dumps(cfg.public())
    assert parse_remote_spec("http://127.0.0.1:8000/mcp").name == "remote"
    with pytest.raises(ConfigError):
        parse_remote_spec("not a url")


def test_public_settings_hold_no_secret_values() -> None:
    cfg = parse_table("git", {"cmd": "x", "envs": {"GH_TOKEN": "ghp_supersecret123"},
                              "env_keys": ["OPENAI_API_KEY"]})
    web = parse_table("web", {"type": "streamable_http", "uri": "http://h/mcp",
                              "headers": {"Authorization": "Bearer abcdefgh12345"}})
    text = json.dumps([cfg.public(), web.public()])
    assert "ghp_supersecret123" not in text and "abcdefgh12345" not in text
    assert "GH_TOKEN" in text and "Authorization" in text


def test_child_env_is_scrubbed() -> None:
    environ = {"PATH": "/bin", "HOME": "/h", "LANG": "C.UTF-8", "OPENAI_API_KEY": "sk-123456789",
               "AWS_SECRET_ACCESS_KEY": "x" * 20, "GITHUB_TOKEN": "ghp_abcdefghij",
               "RANDOM_VAR": "1"}
    cfg = parse_table("git", {"cmd": "x", "envs": {"EXTRA": "v"}, "env_keys": ["GITHUB_TOKEN"]})
    env = child_env(cfg, environ)
    assert env == {"PATH": "/bin", "HOME": "/h", "LANG": "C.UTF-8",
                   "GITHUB_TOKEN": "ghp_abcdefghij", "EXTRA": "v"}


def test_tool_names_are_provider_safe_and_stable() -> None:
    assert model_tool_name("git", "git_status") == "git__git_status"
    assert model_tool_name("my.ext", "get weather/now") == "my_ext__get_weather_now"
    long = model_tool_name("everything", "x" * 100)
    assert TOOL_NAME_RE.match(long) and len(long) == 64
    assert long == model_tool_name("everything", "x" * 100)
    assert long != model_tool_name("everything", "x" * 99 + "y")
    mapping = map_tool_names("e", ["a.b", "a_b", "a-b"], taken={"shell"})
    # The valid a_b keeps its name although a.b comes first; the rewritten a.b is suffixed.
    assert mapping["a_b"] == "e__a_b" and mapping["a-b"] == "e__a-b"
    assert mapping["a.b"].startswith("e__a_b_") and len(set(mapping.values())) == 3
    assert list(mapping) == ["a.b", "a_b", "a-b"]
    assert all(TOOL_NAME_RE.match(v) for v in mapping.values())


def test_tables_sorted_by_name() -> None:
    assert list(parse_tables({"b": {"cmd": "x"}, "a": {"cmd": "y"}})) == ["a", "b"]


def test_mcp_is_imported_only_under_extensions() -> None:
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "goosectx"
    pattern = re.compile(r"^\s*(from|import)\s+(mcp|mcp_types)\b", re.MULTILINE)
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if pattern.search(p.read_text()) and p.parent.name != "extensions"]
    assert offenders == []
    # Importing the package's front modules loads no mcp code.
    import subprocess
    import sys
    code = ("import sys; import goosectx.extensions.manager, goosectx.extensions.source, "
            "goosectx.extensions.config, goosectx.cli.extensions_cmd; "
            "assert 'mcp' not in sys.modules, 'mcp imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_config_example_documents_every_extension_key() -> None:
    from pathlib import Path

    from goosectx.config import load_settings
    from goosectx.extensions.config import _KEYS, resolve_configs

    example = Path(__file__).resolve().parents[1] / "config.example.toml"
    settings = load_settings(example)
    configs = resolve_configs(settings.extensions.tables)
    assert {c.type for c in configs} == {"stdio", "streamable_http"}
    text = example.read_text()
    assert [key for key in sorted(_KEYS)
            if f"\n{key} =" not in text and f"\n# {key} =" not in text] == []
    assert "\ntool_budget_ratio =" in text


@pytest.mark.parametrize(("mode", "trusted", "read_only", "action"), [
    ("smart_approve", True, True, "run"),      # a trusted server's read-only claim counts
    ("smart_approve", False, True, "ask"),     # an untrusted server's claim does not
    ("smart_approve", True, False, "ask"),
    ("smart_approve", None, True, "run"),      # a built-in read-only tool is unaffected
    ("auto", False, False, "run"),
    ("approve", True, True, "ask"),
    ("chat", True, True, "deny"),
])
def test_approval_clause_for_extension_annotations(mode: str, trusted: bool | None,
                                                   read_only: bool, action: str) -> None:
    from pathlib import Path

    from goosectx.approval import ApprovalContext, decide

    verdict = decide(ApprovalContext(mode=mode, tool_name="git__git_status",  # type: ignore[arg-type]
                                     read_only=read_only, working_dir=Path("/w"),
                                     extension_trusted=trusted))
    assert verdict.action == action
    # "always allow" for that one tool still applies to an untrusted server
    always = decide(ApprovalContext(mode="smart_approve", tool_name="git__git_status",
                                    read_only=True, working_dir=Path("/w"),
                                    always_allowed=frozenset({"git__git_status"}),
                                    extension_trusted=False))
    assert always.action == "run"


def test_resume_brings_back_flag_extensions_without_secrets() -> None:
    from goosectx.extensions.config import resume_configs

    plain = parse_flag_spec("uvx mcp-server-time")
    secret = parse_flag_spec("TOKEN=abcdefghijk npx -y @scope/server-github")
    configured = parse_table("git", {"cmd": "uvx", "args": ["mcp-server-git"]})
    gone = parse_table("old", {"cmd": "x"})
    stored = [c.public() for c in (plain, secret, configured, gone)]
    added, notices, absent = resume_configs(stored, [configured])
    assert [(c.name, c.cmd, c.args) for c in added] == [("time", "uvx", ("mcp-server-time",))]
    text = "\n".join(notices)
    assert "extension github was added with a flag" in text and "--with-extension" in text
    assert "abcdefghijk" not in text
    assert "extension old was in this session's config but is no longer configured" in text
    assert sorted(absent) == ["github", "old"]


def test_migration_5_stores_a_sessions_extensions(tmp_path) -> None:
    from goosectx.store import SessionStore

    store = SessionStore(tmp_path / "d")
    try:
        session = store.create_session(tmp_path)
        cfg = parse_flag_spec("TOKEN=abcdefghijkl uvx mcp-server-git")
        store.save_extensions(session.id, [cfg.public()])
        assert [r["name"] for r in store.load_extensions(session.id)] == ["git"]
        store.save_extensions(session.id, [])
        assert store.load_extensions(session.id) == []
    finally:
        store.close()
    assert_not_in_sessions_db("abcdefghijkl", tmp_path / "d")


@pytest.mark.parametrize(("spec", "name"), [
    ("env python3 /x/evil.py", "evil"),
    ("env -i -u HOME FOO=1 -C /tmp node /x/demo.js", "demo"),
    ("node /n/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js /tmp",
     "filesystem"),
    ("npx -y @modelcontextprotocol/server-filesystem /tmp", "filesystem"),
    ("python3 /srv/weather/src/main.py", "weather"),
    ("env", "env"),
])
def test_names_follow_what_a_launcher_runs(spec: str, name: str) -> None:
    assert parse_flag_spec(spec).name == name


@pytest.mark.parametrize("keys", ['envs = { "A=B" = "v" }', 'env_keys = ["A=B"]',
                                  'envs = { "A\\u001b[2J" = "v" }'])
def test_a_variable_name_that_cannot_be_one_is_a_config_error_naming_it(
        tmp_path, capsys: pytest.CaptureFixture[str], keys: str) -> None:
    """``envs = { "A=B" = "v" }`` once passed the config and the server then failed with
    "error: ValueError: illegal environment variable name" (no key, no fix)."""
    from cli_support import run_cli

    config = tmp_path / "c.toml"
    config.write_text(f'[extensions.x]\ncmd = "srv"\n{keys}\n')
    code, out, err = run_cli(capsys, "--config", str(config), "extensions", "list")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    field = keys.split(" ")[0]
    assert f"[extensions.x] {field}: " in err and "is not a variable name" in err, err
    assert "letters, digits and _" in err and "\x1b" not in err


def test_a_nul_in_an_envs_value_is_a_config_error_naming_the_variable(
        tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    """``envs = { A = "v\u0000" }`` passed the config; the server then failed with "error:
    ValueError: embedded null byte" (tester 14c): one line naming the key, exit 2."""
    from cli_support import run_cli

    config = tmp_path / "c.toml"
    config.write_text('[extensions.x]\ncmd = "srv"\nenvs = { A = "v\\u0000" }\n')
    code, out, err = run_cli(capsys, "--config", str(config), "extensions", "list")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "[extensions.x] envs: the value of A holds a NUL character" in err, err
