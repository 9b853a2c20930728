"""An imported key written as a list of its characters or bytes, or a run of 13+ of them.

A live tool output has these redacted (``env_secrets.tool_output_redactor``: the key's
encodings, then a list of its characters or bytes read as the key, then each run of 13+ of
its characters); an import scrubbed its messages with the first step only, so ``sessions
show`` printed ``['s', 'k', '-', …]``, ``73:6b:2d:…`` and a 20-character piece, and the title
was cut from the first request holding one (test28f HIGH 1). The import now redacts each of
them wherever a tool output would, in every place a session holds a string.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import cli
from import_support import write_jsonl
from store_support import assert_not_in_sessions_db
from test_import_codex_user_shell import record
from test_import_secret_prefilter import PLACES, _imported, _session

from goosectx.config import Settings
from goosectx.env_secrets import tool_output_redactor

K = "sk-test-Zq8vR2mN4pL7xW1yT6uB3cD9eF0gH5jK"
PIECE = K[10:30]  # 20 characters: no encoding of the key, a run of its characters
FORMS = {
    "python list": str(list(K)),
    "JSON list": json.dumps(list(K)),
    "hex with colons": ":".join(f"{b:02x}" for b in K.encode()),
    "upper hex with dashes": "-".join(f"{b:02X}" for b in K.encode()),
    "0x bytes": ", ".join(f"0x{b:02x}" for b in K.encode()),
    "a 20-character piece": PIECE,
}


def _rollout(path: Path, text: str) -> Path:
    """A Codex rollout holding ``text`` in its request, a tool output and the answer."""
    return write_jsonl(path, [
        record("session_meta", {"id": "r1", "cwd": "/proj/app"}),
        record("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"look at {text}"}]}),
        record("response_item", {"type": "function_call", "name": "shell", "call_id": "c1",
                                  "arguments": json.dumps({"command": ["cat", "k"]})}, 1),
        record("response_item", {"type": "function_call_output", "call_id": "c1",
                                  "output": f"key: {text}\n"}, 2),
        record("response_item", {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": f"it is {text}"}]}, 3)])


@pytest.mark.parametrize("form", list(FORMS))
def test_an_imported_key_as_a_list_or_a_piece_is_never_shown_or_stored(
        form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", K)
    text = FORMS[form]
    assert tool_output_redactor(Settings())(text) != text  # (a live tool output hides it)
    out, err = cli(capsys, "sessions", "import", str(_rollout(tmp_path / "keys.jsonl", text)),
                   "--name", "keys1")
    assert "a secret of this environment was redacted in 2 text parts, 1 tool output" in err
    shown = cli(capsys, "sessions", "show", "keys1")[0]
    listed = cli(capsys, "sessions", "list", "--json")[0]
    exported = cli(capsys, "sessions", "export", "keys1", "-f", "json")[0]
    for seen in (out + err, shown, listed, exported):
        assert text not in seen and PIECE not in seen
    assert shown.count("[REDACTED]") == 3  # the request, the tool output, the answer
    title = json.loads(listed)[0]["title"]  # made of the request after the scrub
    assert title.startswith("look at ") and "[REDACTED]" in title
    assert_not_in_sessions_db(text)
    assert_not_in_sessions_db(PIECE)


@pytest.mark.parametrize("form", ["python list", "hex with colons", "a 20-character piece"])
@pytest.mark.parametrize("where", PLACES)
def test_every_place_of_an_import_is_scrubbed_of_a_list_or_a_piece(
        where: str, form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the one quick check of a session passes none of them (its result equals scrubbing
    # each string), and scrubbing leaves none
    monkeypatch.setenv("DEPLOY_TOKEN", K)
    value = f"v {FORMS[form]} w"
    checked = _imported(lambda: _session(where, value, tmp_path), True, monkeypatch)
    each = _imported(lambda: _session(where, value, tmp_path), False, monkeypatch)
    assert checked == each
    assert checked[0] != [""]  # the note names what held it
    assert FORMS[form] not in repr(checked[1]) and PIECE not in repr(checked[1])
