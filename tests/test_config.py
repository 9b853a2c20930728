import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import run_cli

from goosectx.config import load_settings
from goosectx.errors import ConfigError


@pytest.fixture(autouse=True)
def no_user_config(tmp_path, monkeypatch):
    (tmp_path / "empty.toml").touch()
    monkeypatch.setenv("GOOSECTX_CONFIG", str(tmp_path / "empty.toml"))


@pytest.mark.parametrize(
    ("value", "ratio", "enabled"),
    [("0", 0.0, False), ("1", 1.0, False), ("0.5", 0.5, True), ("1.5", 1.5, False), ("-2", -2.0, False)],
)
def test_threshold_value_classes(value, ratio, enabled):
    s = load_settings(environ={"GOOSE_AUTO_COMPACT_THRESHOLD": value})
    assert s.threshold_ratio == ratio
    assert s.auto_compaction_enabled is enabled
    assert s.source("threshold_ratio") == "env GOOSE_AUTO_COMPACT_THRESHOLD"


def test_threshold_unset_is_default():
    s = load_settings(environ={})
    assert s.threshold_ratio == 0.8 and s.auto_compaction_enabled
    assert s.source("threshold_ratio") == "default"


@pytest.mark.parametrize(
    ("var", "value", "expect"),
    [
        ("GOOSE_AUTO_COMPACT_THRESHOLD", "abc", "must be a number between 0 and 1"),
        ("GOOSE_AUTO_COMPACT_THRESHOLD", "nan", "must be a number"),
        ("GOOSE_CONTEXT_LIMIT", "lots", "whole number of tokens from 1,000"),
        ("GOOSE_CONTEXT_LIMIT", "0", "whole number of tokens from 1,000"),
        ("GOOSE_MAX_TURNS", "-3", "whole number from 1 to 1,000,000"),
        ("GOOSE_MODE", "yolo", "one of auto, approve, smart_approve, chat"),
        ("GOOSE_TOOL_PAIR_SUMMARIZATION", "maybe", "one of true, false"),
        ("GOOSE_TOOL_CALL_CUTOFF", "ten", "whole number"),
    ],
)
def test_bad_env_values_name_the_variable_and_range(var, value, expect):
    with pytest.raises(ConfigError) as exc:
        load_settings(environ={var: value})
    line = exc.value.one_line()
    assert var in line and repr(value) in line and expect in line
    assert exc.value.exit_code == 2


def test_env_overrides_config_file(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('model = "openai/a"\nauto_compact_threshold = 0.6\n[models."openai/a"]\ncontext_limit = 9000\n')
    s = load_settings(cfg, environ={"GOOSE_MODEL": "openai/b"})
    assert s.model == "openai/b" and s.source("model") == "env GOOSE_MODEL"
    assert s.threshold_ratio == 0.6 and s.source("threshold_ratio").startswith("config ")
    assert s.model_config("openai/a").context_limit == 9000


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("model = [", "not valid TOML"),
        ("modle = 'x'", "unknown key 'modle'"),
        ("auto_compact_threshold = 'high'", "auto_compact_threshold"),
        ('[models."a"]\ncontext = 5', "unknown key 'context'"),
        ('[models."a"]\ncontext_limit = -5', "context_limit"),
    ],
)
def test_bad_config_file(tmp_path, text, expect):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_settings(cfg, environ={})
    assert expect in exc.value.one_line()


def test_missing_config_path_is_an_error(tmp_path):
    with pytest.raises(ConfigError):
        load_settings(tmp_path / "nope.toml", environ={})


def test_data_dir_that_is_a_file(tmp_path):
    f = tmp_path / "f"
    f.write_text("")
    with pytest.raises(ConfigError) as exc:
        load_settings(environ={"GOOSECTX_HOME": str(f)})
    assert "not a directory" in str(exc.value)


@pytest.mark.parametrize("env", [{"GOOSE_AUTO_COMPACT_THRESHOLD": "abc"}, {"GOOSE_MAX_TURNS": "x"}])
def test_cli_prints_one_line_and_exits_2(env, tmp_path):
    import os

    full = {**os.environ, **env, "GOOSECTX_HOME": str(tmp_path / "h")}
    proc = subprocess.run([sys.executable, "-m", "goosectx", "sessions", "list"], env=full,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert list(env)[0] in lines[0]
    assert not (tmp_path / "h").exists()


def test_malformed_config_via_cli(tmp_path):
    import os

    cfg = tmp_path / "bad.toml"
    cfg.write_text("model = ")
    proc = subprocess.run([sys.executable, "-m", "goosectx", "--config", str(cfg), "info"],
                          env={**os.environ, "GOOSECTX_HOME": str(tmp_path / "h")},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "not valid TOML" in proc.stderr and "Traceback" not in proc.stderr


def test_config_file_that_is_not_utf8(tmp_path):
    cfg = tmp_path / "bin.toml"
    cfg.write_bytes(b"\xff\xfe model = 'x'")
    with pytest.raises(ConfigError) as exc:
        load_settings(cfg, environ={})
    assert "not UTF-8" in exc.value.one_line()


def test_config_env_path_that_is_a_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("GOOSECTX_CONFIG", str(tmp_path))
    with pytest.raises(ConfigError) as exc:
        load_settings(environ={})
    assert "is a directory" in exc.value.one_line()


def test_a_relative_data_dir_in_the_config_file_is_under_the_files_dir(tmp_path, monkeypatch):
    """Sessions stay where the config says whichever dir goosectx runs in (it followed the
    current dir: a run in one project, then an empty `sessions list` in another)."""
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "config.toml").write_text('data_dir = "reldata"\n')
    for where in (tmp_path, conf):
        monkeypatch.chdir(where)
        settings = load_settings(conf / "config.toml", environ={})
        assert settings.data_dir == conf / "reldata"
    with pytest.raises(ConfigError) as exc:  # the environment's has no file to be under
        load_settings(conf / "config.toml", environ={"GOOSECTX_HOME": "envdata"})
    assert f"GOOSECTX_HOME={conf / 'envdata'}" in exc.value.one_line()


@pytest.mark.parametrize("value", ["10", "999", "100_000_001", "99999999999999999999"])
def test_a_context_limit_outside_the_sane_range_names_the_range(value):
    with pytest.raises(ConfigError) as exc:
        load_settings(environ={"GOOSE_CONTEXT_LIMIT": value})
    line = exc.value.one_line()
    assert "GOOSE_CONTEXT_LIMIT" in line and "from 1,000 to 100,000,000" in line
    assert repr(value) in line


@pytest.mark.parametrize(("value", "tokens"), [("1000", 1000), ("100_000_000", 100_000_000)])
def test_a_context_limit_at_either_end_of_the_range_is_taken(value, tokens):
    assert load_settings(environ={"GOOSE_CONTEXT_LIMIT": value}).context_limit_tokens == tokens


@pytest.mark.parametrize("text", ["context_limit = 10", '[models."a"]\ncontext_limit = 10'])
def test_a_config_file_context_limit_outside_the_range_names_the_range(tmp_path, text):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_settings(cfg, environ={})
    assert "context_limit" in exc.value.one_line()
    assert "from 1,000 to 100,000,000" in exc.value.one_line()


def test_the_threshold_error_says_what_every_number_does():
    with pytest.raises(ConfigError) as exc:
        load_settings(environ={"GOOSE_AUTO_COMPACT_THRESHOLD": "abc"})
    line = exc.value.one_line()
    assert "any other number" in line and "turns it off" in line
    assert "0 or 1 disables" not in line  # said as if only 0 and 1 did


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_variable_is_as_if_unset(value):
    s = load_settings(environ={"GOOSE_CONTEXT_LIMIT": value, "GOOSE_AUTO_COMPACT_THRESHOLD": value})
    assert s.context_limit_tokens is None and s.threshold_ratio == 0.8
    assert s.source("threshold_ratio") == "default"


@pytest.mark.parametrize("value", ["-3", '"lots"'])
def test_a_bad_count_that_may_be_zero_says_zero_is_allowed(tmp_path, value):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"keep_user_tokens = {value}\n")
    with pytest.raises(ConfigError) as exc:
        load_settings(cfg, environ={})
    line = exc.value.one_line()
    assert line.startswith("keep_user_tokens in ") and "must be a whole number of at least 0" in line
    cfg.write_text("keep_user_tokens = 0\n")
    assert load_settings(cfg, environ={}).keep_user_tokens == 0


def test_a_top_level_key_typed_below_a_model_table_says_where_it_goes(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``mode = "auto"`` appended below the README's ``[models."…"]`` table: TOML puts it in
    that table; the error listed the table's keys, read as "mode is not a valid key"."""
    config = tmp_path / "ci.toml"
    config.write_text('model = "openai/fake"\n[models."openai/fake"]\n'
                      'api_base = "http://127.0.0.1:9/v1"\nmode = "auto"\n')
    code, out, err = run_cli(capsys, "--config", str(config), "info")
    assert (code, out) == (2, "")
    assert err == (f"goosectx: error: {config}: 'mode' is not a key of [models.\"openai/fake\"]: "
                   "it is a top-level key, and a key below a [table] header belongs to that "
                   "table — move mode = … above the first [table] of the file\n")


@pytest.mark.parametrize(
    ("text", "table"),
    [
        ('model = "openai/a"\n[models."openai/a"]\napi_base = "http://x/v1"\nmode = "auto"\n',
         '[models."openai/a"]'),
        ('[permissions]\nallow = ["shell(ls*)"]\nmax_turns = 5\n', "[permissions]"),
        ('[extensions.git]\ncmd = "git-mcp"\nshell_timeout_s = 9\n', "[extensions.git]"),
    ],
)
def test_a_top_level_key_below_a_table_says_to_move_it_up(tmp_path, text, table):
    """A key appended at the end of the file lands in the last table (fresh20a finding 11)."""
    import os

    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    key = text.strip().splitlines()[-1].split(" =")[0]
    proc = subprocess.run([sys.executable, "-m", "goosectx", "--config", str(cfg), "info"],
                          env={**os.environ, "GOOSECTX_HOME": str(tmp_path / "h")},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"goosectx: error: {cfg}: ") or line.startswith(
        f"goosectx: error: {table} in {cfg}: ")
    assert line.endswith(f"{key!r} is not a key of {table}: it is a top-level key, and a key "
                         "below a [table] header belongs to that table — move "
                         f"{key} = … above the first [table] of the file"), line


def test_a_key_no_table_knows_still_lists_the_tables_valid_keys(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[models."a"]\ncontext = 5\n')
    with pytest.raises(ConfigError) as exc:
        load_settings(cfg, environ={})
    assert "valid keys: api_base" in exc.value.one_line()
    assert "top-level" not in exc.value.one_line()


def test_a_config_of_blank_lines_and_comments_reads_as_empty(tmp_path, monkeypatch):
    """Only an empty file skips the TOML parser: one of blanks and comments still parses."""
    config = tmp_path / "c.toml"
    config.write_text("\n  \n# nothing set yet\n")
    monkeypatch.setenv("GOOSECTX_CONFIG", str(config))
    assert load_settings().model is None
    config.write_bytes(b"\r")  # a lone carriage return is no TOML
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings()
