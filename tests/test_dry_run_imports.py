"""What ``compact --dry-run`` loads to print its plan (issue 14: it costs about one load), and
what every command loads at start-up.

The plan counts the next request's system prompt and tool schemas: it reads the built-in
tools' definitions (data), not their implementations, and the figures it prints are the
same as with the tools loaded.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from compaction_support import chat, tool_pair, words

from goosectx.config import load_settings
from goosectx.conversation import Message
from goosectx.store import SessionStore
from goosectx.text_counts import VERSION, text_key
from goosectx.tools.builtin import default_registry
from goosectx.tools.definitions import BuiltinDefinitions


def saved_session(name: str = "work") -> str:
    store = SessionStore(load_settings().data_dir)
    try:
        session = store.create_session(Path.cwd(), name=name)
        for m in [*chat(4), *tool_pair(words(400)), Message.user("now write the docs")]:
            store.append_message(session.id, m)
        return session.id
    finally:
        store.close()


def test_the_dry_run_counts_the_tools_the_real_request_sends() -> None:
    """The definitions a dry run reads are the tools' own: same names, same schemas."""
    defined, registry = BuiltinDefinitions(), default_registry()
    assert defined.names() == registry.names() == ["shell", "text_editor", "tree"]
    assert defined.schemas() == registry.schemas()
    assert defined.instructions() == [] and defined.deferred == () and defined.settled


def test_kept_counts_keep_their_keys() -> None:
    """A count kept by an earlier build is found again: the key is still SHA-256 of it."""
    want = hashlib.sha256(f"{VERSION}\0o200k_base\0a text é".encode()).hexdigest()
    assert text_key("o200k_base", "a text é") == want


def test_a_dry_run_loads_no_tool_no_openssl_hash_and_no_toml_parser() -> None:
    """Once the counts are stored (an earlier dry run's), the plan is printed without the
    tools' implementations, ``hashlib`` (OpenSSL's, loaded with the tokenizer), a TOML
    parser for an empty config file, what only a model call streams, nor the store's
    migrations (the database is up to date), locks (a dry run takes none), search, the
    redaction (the session's name, ``work``, is too short to hold a secret), or ``base64``
    (no attachment's bytes are read), nor the encoding (every count is kept or stored: the
    re-sent requests' heading too)."""
    code = ("import sys\nfrom goosectx.cli.app import main\n"
            "try:\n    main(['compact', 'work', '--dry-run'])\nexcept SystemExit as e:\n"
            "    assert e.code == 0, e.code\n"
            "print(sorted(m for m in sys.modules if m.startswith(('goosectx.tools.', "
            "'hashlib', 'tomllib', 'goosectx.providers.stream_items', 'queue', "
            "'goosectx.store.migrations', 'goosectx.store.locks', "
            "'goosectx.store.search_hit', 'goosectx.redaction', 'goosectx.env_secrets', "
            "'base64', 'binascii', 'tiktoken'))))\n")
    saved_session()
    for _ in range(2):  # the first counts the session and stores the counts
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 0, proc.stderr
    assert "Dry run: no model was called" in proc.stdout
    assert proc.stdout.splitlines()[-1] == "['goosectx.tools.definitions']"


def test_help_as_typed_opens_no_session_store() -> None:
    """``goosectx --help`` through the console script's path (stdin set up for UTF-8 text)
    loads neither the session store nor the messages it holds."""
    code = ("import sys\nsys.argv = ['goosectx', '--help']\nfrom goosectx.cli.app import main\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert e.code in (0, None), e.code\n"
            "print(sorted(m for m in ('goosectx.store', 'goosectx.session') "
            "if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Usage" in proc.stdout and proc.stdout.splitlines()[-1] == "[]"
