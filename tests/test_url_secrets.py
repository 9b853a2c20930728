"""A key inside ``api_base`` (userinfo or a ``?key=`` query, as some proxies want) is not
printed: "could not connect to http://user:KEY@…" showed it on stderr and in the json /
stream-json result. A URL's password and key-like query values are redacted whether or not
they equal a known key; the host stays, so the line still says where."""

from __future__ import annotations

import json

import pytest
from fakeserver import FakeServer
from reliability_support import assert_one_line_error, clean_env, cli

KEY = "sk-test-LEAKCHECK123"
UNKNOWN = "hunter2-not-a-known-key"


def _unreachable() -> str:
    with FakeServer() as server:
        base: str = server.base_url  # closed when the run starts: nothing listens there
    return base.split("://", 1)[1].split("/", 1)[0]


@pytest.mark.parametrize("secret", [KEY, UNKNOWN])
def test_a_key_in_api_base_is_redacted_on_stderr_and_in_json(tmp_path, work, secret):
    hostport = _unreachable()
    config = tmp_path / "config.toml"
    config.write_text('model = "openai/fake"\n[models."openai/fake"]\n'
                      f'api_base = "http://user:{secret}@{hostport}/v1?key={secret}&v=2"\n')
    env = clean_env(tmp_path / "home", GOOSECTX_CONFIG=str(config), OPENAI_API_KEY=KEY)
    proc = cli(env, "run", "-t", "hi", cwd=work)
    line = assert_one_line_error(1, proc.returncode, proc.stderr, "could not connect to",
                                 hostport)
    assert secret not in proc.stderr and "[REDACTED]" in line, line
    for fmt in ("json", "stream-json"):
        proc = cli(env, "run", "--output-format", fmt, "-t", "hi", cwd=work)
        assert proc.returncode == 1
        assert secret not in proc.stdout and secret not in proc.stderr, proc.stdout
        last = json.loads(proc.stdout.strip().splitlines()[-1] if fmt == "stream-json"
                          else proc.stdout)
        assert "could not connect to" in last["error"] and hostport in last["error"]


def test_urls_in_text_lose_passwords_and_key_like_query_values():
    from goosectx.redaction import redact_urls

    text = ("see https://bob:pw-123456@h.example/v1?api_key=abcd&key=k1&token=t2&model=m "
            "and http://h2:80/x?sig=s3#frag, plain http://h3/v1")
    got = redact_urls(text)
    for secret in ("pw-123456", "abcd", "k1", "t2", "s3"):
        assert secret not in got
    assert "https://bob:[REDACTED]@h.example/v1?api_key=[REDACTED]" in got
    assert "model=m" in got and "plain http://h3/v1" in got and "#frag" in got


def test_ordinary_query_values_are_left_alone():
    # only a parameter whose name is (or ends in) a secret's word is redacted (tester 14c:
    # max_tokens, keyword, monkey, tokenizer, passive and auth=basic all came out redacted)
    from goosectx.redaction import redact_urls

    ordinary = ("http://h/v1?max_tokens=100&keyword=foo&monkey=banana&tokenizer=llama3"
                "&passive=1&auth=basic")
    assert redact_urls(ordinary) == ordinary
    got = redact_urls("http://h/cb?x-goog-api-key=k1&Access_Token=t2#access_token=t3&state=s")
    for secret in ("k1", "t2", "t3"):
        assert secret not in got
    assert "state=s" in got


def test_a_password_in_api_base_is_not_in_the_debug_log(tmp_path, work):
    hostport = _unreachable()
    config = tmp_path / "config.toml"
    config.write_text('model = "openai/fake"\n[models."openai/fake"]\n'
                      f'api_base = "http://user:{UNKNOWN}@{hostport}/v1?token={UNKNOWN}"\n')
    home = tmp_path / "home"
    env = clean_env(home, GOOSECTX_CONFIG=str(config), OPENAI_API_KEY=KEY)
    proc = cli(env, "--debug", "run", "-t", "hi", cwd=work)
    assert proc.returncode == 1, proc.stderr
    log = (home / "goosectx.log").read_text()
    assert hostport in log and UNKNOWN not in log
