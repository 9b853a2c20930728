"""``goosectx info`` shows every setting with where its value came from (README: "goosectx
info shows each setting and where its value came from"); tester 12 found eleven missing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_support import run_cli

CONFIG = """\
keep_recent_ratio = 0.3
keep_user_tokens = 5000
summary_result_chars = 3000
summary_facts_tokens = 1200
show_reasoning = false
shell_escape_to_model = false
tool_output_max_chars = 20000
tool_budget_ratio = 0.25
tool_call_cutoff = 40
mention_max_tokens = 9000
shell_timeout_s = 90
request_deadline_s = 300
allow_secret_env = ["MY_TOKEN"]
[permissions]
allow = ["shell(git status*)"]
ask = ["shell(git push*)"]
deny = ["shell(rm *)"]
"""

ROWS = [("keep recent ratio", "0.3"), ("keep user tokens", "5,000"),
        ("summary result chars", "3,000"), ("summary facts tokens", "1,200"),
        ("show reasoning", "off"), ("shell escape to model", "off"),
        ("tool output max chars", "20,000"), ("tool budget ratio", "0.25"),
        ("tool call cutoff", "40"), ("mention max tokens", "9,000"),
        ("shell timeout", "90 s"), ("request deadline", "300 s"),
        ("allow secret env", "MY_TOKEN"), ("allow rules", "shell(git status*)"),
        ("ask rules", "shell(git push*)"), ("deny rules", "shell(rm *)")]


def row(out: str, name: str) -> str:
    found = [line for line in out.splitlines() if re.match(rf"{re.escape(name)}\s{{2,}}", line)]
    assert len(found) == 1, (name, out)
    return found[0]


def test_info_shows_every_setting_from_the_config_file_with_its_source(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path]) -> None:
    config = isolated_env["config"]
    config.write_text(CONFIG)
    code, out, err = run_cli(capsys, "info")
    assert code == 0, err
    for name, value in ROWS:
        line = row(out, name)
        assert f"  {value}" in line and line.endswith(f"[config {config}]"), line


def test_info_shows_the_defaults_and_the_environment_as_sources(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSECTX_KEEP_RECENT_RATIO", "0.4")
    monkeypatch.setenv("GOOSECTX_SHOW_REASONING", "false")
    code, out, err = run_cli(capsys, "info")
    assert code == 0, err
    assert row(out, "keep recent ratio").endswith("0.4  [env GOOSECTX_KEEP_RECENT_RATIO]")
    assert row(out, "show reasoning").endswith("off  [env GOOSECTX_SHOW_REASONING]")
    assert "min(8,000, 0.1 × context limit)  [default]" in row(out, "keep user tokens")
    assert "0.1 × context limit  [default]" in row(out, "mention max tokens")
    assert row(out, "tool output max chars").endswith(
        "0.1 × context limit × 4 (at most 40,000)  [default]")
    assert row(out, "deny rules").endswith("(none)  [default]")
    assert row(out, "allow secret env").endswith("(none)  [default]")
    assert row(out, "tool call cutoff").endswith("by formula  [default]")


MODEL_TABLE = """\
model = "openai/local"
[models."openai/local"]
context_limit = 32000
max_output_tokens = 4096
api_base = "http://user:hunter2pass@127.0.0.1:8080/v1?key=abc123secret"
api_key_env = "LOCAL_KEY"
tool_choice = "required\\u001b[31m"
supports_vision = "yes"
manages_own_context = false
[models."openai/other"]
context_limit = 9000
"""


def test_info_shows_the_configured_models_own_settings(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path]) -> None:
    """``[models."NAME"]`` settings were not in ``info`` at all; now the configured model's
    are, from its table, with credentials in ``api_base`` and escape codes made harmless."""
    config = isolated_env["config"]
    config.write_text(MODEL_TABLE)
    code, out, err = run_cli(capsys, "info")
    assert code == 0, err
    source = f'[config {config}, [models."openai/local"]]'
    for name, value in (("model context limit", "32,000 tokens"),
                        ("model max output tokens", "4,096"),
                        ("model api base", "http://user:[REDACTED]@127.0.0.1:8080/v1?key=[REDACTED]"),
                        ("model api key env", "LOCAL_KEY"),
                        ("model tool choice", "required\u241b[31m"),
                        ("model supports vision", "yes"),
                        ("model manages own context", "no")):
        assert row(out, name).endswith(f"  {value}  {source}"), row(out, name)
    assert "hunter2pass" not in out and "abc123secret" not in out and "\x1b" not in out
    assert "9,000" not in out  # another model's table


def test_info_says_when_the_model_has_no_table(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path]) -> None:
    isolated_env["config"].write_text('model = "openai/local"\n')
    code, out, err = run_cli(capsys, "info")
    assert code == 0, err
    assert row(out, "model settings").endswith(
        '(none: no [models."openai/local"] table)  [config ' + str(isolated_env["config"]) + "]")


@pytest.mark.parametrize("where", ["before", "after"])
def test_info_shows_the_model_and_mode_given_as_flags(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path], where: str) -> None:
    """``goosectx --model M --mode auto info`` showed the config's model, its limit and the
    default mode as if the flags were not there (``--max-cost`` was shown); ``info --model``
    was "No such option"."""
    isolated_env["config"].write_text(
        'model = "openai/big"\n[models."openai/big"]\ncontext_limit = 50000\n'
        '[models."openai/small"]\ncontext_limit = 9000\n')
    flags = ["--model", "openai/small", "--mode", "auto"]
    code, out, err = run_cli(capsys, *(flags + ["info"] if where == "before" else
                                       ["info", *flags]))
    assert code == 0, err
    assert row(out, "model").endswith("  openai/small  [--model]")
    assert re.search(r"\s9,000 tokens\s", row(out, "context limit")), out
    assert row(out, "approval mode").endswith("  auto  [--mode]")


def test_info_refuses_a_bad_mode_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run_cli(capsys, "info", "--mode", "yolo")
    assert code == 2 and err.startswith("goosectx: error: --mode") and "auto" in err, err


def test_a_models_own_context_limit_wins_over_the_top_level_one_as_the_docs_say(
        capsys: pytest.CaptureFixture[str], isolated_env: dict[str, Path]) -> None:
    """fresh26 A4: config.example.toml said the top-level ``context_limit`` applies "for every
    model, overriding the per-model value", but ``info`` showed the ``[models."…"]`` value (as
    DESIGN §3's precedence has it); the README's precedence list left the top-level key out."""
    config = isolated_env["config"]
    config.write_text('model = "openai/gpt-4o-mini"\ncontext_limit = 50000\n'
                      '[models."openai/gpt-4o-mini"]\ncontext_limit = 100000\n')
    code, out, err = run_cli(capsys, "info")
    assert code == 0, err
    assert row(out, "context limit").endswith(
        '100,000 tokens  [config [models."openai/gpt-4o-mini"]]')
    config.write_text('model = "openai/gpt-4o-mini"\ncontext_limit = 50000\n')
    code, out, err = run_cli(capsys, "info")
    assert code == 0, err
    assert row(out, "context limit").endswith(f"50,000 tokens  [config {config}]")
    root = Path(__file__).resolve().parents[1]
    example = (root / "config.example.toml").read_text()
    assert "overriding the per-model value" not in example
    assert ('GOOSE_CONTEXT_LIMIT → [models."…"] context_limit → this → litellm → 128,000'
            in example)
    readme = " ".join((root / "README.md").read_text().split())
    assert ('`GOOSE_CONTEXT_LIMIT` → the model\'s `context_limit` in the config (its '
            '`[models."…"]` table) → the top-level `context_limit` (main model only) → '
            "litellm's model info → 128,000" in readme)
