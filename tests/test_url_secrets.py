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


def debug_run(tmp_path, work, api_base: str) -> tuple[str, str]:
    """``goosectx --debug run -t hi`` with ``api_base``: (its stderr, its debug log)."""
    config = tmp_path / "config.toml"
    config.write_text(f'model = "openai/fake"\n[models."openai/fake"]\napi_base = "{api_base}"\n')
    home = tmp_path / "home"
    env = clean_env(home, GOOSECTX_CONFIG=str(config), OPENAI_API_KEY=KEY)
    proc = cli(env, "--debug", "run", "-t", "hi", cwd=work)
    assert proc.returncode == 1, proc.stderr
    return proc.stderr, (home / "goosectx.log").read_text()


def test_a_password_in_api_base_is_not_in_the_debug_log(tmp_path, work):
    hostport = _unreachable()
    _, log = debug_run(tmp_path, work, f"http://user:{UNKNOWN}@{hostport}/v1?token={UNKNOWN}")
    assert hostport in log and UNKNOWN not in log


BRACKETED = "Tr0ub[4dorSecretPart99]xy"
"""A password httpx reads as an IPv6 host: its error quotes the part between the brackets."""


def test_a_piece_of_an_api_base_password_quoted_by_an_error_is_not_shown_or_logged(
        tmp_path, work):
    # tester 28b: "'4dorSecretPart99' does not appear to be an IPv4 or IPv6 address" on
    # stderr and 4x in goosectx.log, while `info` showed the URL as bob:[REDACTED]@
    stderr, log = debug_run(tmp_path, work, f"http://bob:{BRACKETED}@127.0.0.1:1/v1")
    assert "does not appear to be an IPv4 or IPv6 address" in stderr  # the same error
    for shown in (stderr, log):
        assert "4dorSecretPart99" not in shown and "[REDACTED]" in shown


@pytest.mark.parametrize("url, secrets", [
    ("http://bob:Pa55[inBracketsXYZ]q@h:1/v1", ["Pa55[inBracketsXYZ]q", "inBracketsXYZ"]),
    ("https://h/v1?api_key=Qk9CLXNlY3JldA&model=gpt&token=tok%2Fen-123456",
     ["Qk9CLXNlY3JldA", "tok%2Fen-123456", "tok/en-123456"]),
    ("https://h/cb#access_token=frag-token-9876", ["frag-token-9876"]),
])
def test_every_form_of_a_url_credential_is_redacted_by_redact_known(url, secrets):
    from goosectx.redaction import redact_known
    from goosectx.url_secrets import remember_url_secrets

    text = "the server said: " + " / ".join(secrets) + " (model gpt, host h)"
    assert secrets[-1] in redact_known(text)  # not known before the URL is read
    remember_url_secrets([url])
    got = redact_known(text)
    assert all(s not in got for s in secrets) and "model gpt, host h" in got, got


def test_a_remote_extensions_url_password_and_header_become_known():
    from goosectx.errors import ConfigError
    from goosectx.extensions.config import parse_remote_spec, parse_table
    from goosectx.redaction import redact_known

    said = "bad host 'xtPassInside77' for hdr-token-0123456789"
    assert redact_known(said) == said
    with pytest.raises(ConfigError) as bad:  # it was a ValueError quoting the piece
        parse_remote_spec("http://me:e[xtPassInside77]@127.0.0.1:9/mcp")
    assert "xtPassInside77" not in str(bad.value) and "%5B" in str(bad.value.hint)
    parse_remote_spec("http://me:e%5BxtPassInside77%5D@127.0.0.1:9/mcp")
    parse_table("api", {"type": "streamable_http", "uri": "http://127.0.0.1:9/mcp",
                        "headers": {"Authorization": "Bearer hdr-token-0123456789"}})
    assert redact_known(said) == "bad host '[REDACTED]' for [REDACTED]"


@pytest.mark.parametrize(("url", "quoted", "piece"), [
    ("http://bob:pw12@127.0.0.1:9/v1", "cannot connect to bob:pw12@127.0.0.1:9", "pw12"),
    ("https://me:q7@proxy.local/v1", "Invalid URL me:q7@proxy.local/v1: refused", "q7"),
    ("https://anna:p%40s@h/v1", "bad userinfo 'anna:p@s' for h", "p@s"),
])
def test_a_short_api_base_password_quoted_with_its_user_is_redacted_not_the_word(
        tmp_path, url, quoted, piece):
    # a password under 8 characters is not a known secret alone (it would shred text
    # redacted everywhere): its URL's userinfo is, so an error quoting the URL without its
    # scheme shows neither on the terminal nor in the log
    import logging

    from goosectx.config import load_settings
    from goosectx.log import _RedactingFilter
    from goosectx.providers.litellm_errors import translate_error

    def logged(text: str) -> str:  # the line the debug log gets
        record = logging.LogRecord("goosectx", logging.INFO, __file__, 1, text, None, None)
        _RedactingFilter().filter(record)
        return record.getMessage()

    config = tmp_path / "config.toml"
    config.write_text(f'model = "openai/fake"\n[models."openai/fake"]\napi_base = "{url}"\n')
    load_settings(config, {"HOME": str(tmp_path)})
    error, _ = translate_error(RuntimeError(quoted), model="openai/fake", where=url,
                               key_env="OPENAI_API_KEY")
    assert piece not in str(error) and "[REDACTED]" in str(error), str(error)
    assert piece not in logged(f"request failed: {quoted}")
    ordinary = f"the word {piece} in a file"
    assert logged(ordinary) == ordinary
