"""A key split between two parts of one reply is redacted in both, wherever the reply goes.

Each part of a reply (its reasoning, its answer, two text parts, two tool calls' arguments)
was redacted alone: a key whose start ends the reasoning and whose last 30+ characters start
the answer showed that tail in ``goosectx run``'s output, the session and its exports, since a
key's tail alone is no form of it. What is asserted is what the user can read: the terminal,
the store's files, the Markdown and JSON exports, the live deltas.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from cli_support import cli
from fakeserver import FakeServer
from store_support import assert_not_in_sessions_db

from goosectx.message import Message
from goosectx.parts import TextContent, ThinkingContent, ToolRequest
from goosectx.providers.base import StreamItem, TextDelta, ThinkingDelta
from goosectx.redaction import Redactor
from goosectx.redaction_reply import redacted_reply

KEY = "sk-proj-Q7vX2mK9pL4sR6yH1zzTwqAbCdEfGh0123456789UvWxYzKlMnOp"
TAIL = KEY[-32:]  # the answer starts with it: no form of the key on its own


def test_a_key_split_between_reasoning_and_answer_reaches_no_output_store_or_export(
        fake_model: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    fake_model.add({"reasoning": "the key they gave is " + KEY[:-32],
                    "text": TAIL + " is what I will not repeat.", "chunk_chars": 7})
    out, err = cli(capsys, "run", "-t", "hi", "--name", "split")
    assert "is what I will not repeat." in out
    exported_md, _ = cli(capsys, "sessions", "export", "split")
    exported_json, _ = cli(capsys, "sessions", "export", "split", "-f", "json")
    shown, _ = cli(capsys, "sessions", "show", "split")
    for text in (out, err, exported_md, exported_json, shown):
        assert TAIL[:16] not in text and TAIL[-16:] not in text, text
    assert "[REDACTED] is what I will not repeat." in exported_md
    assert_not_in_sessions_db(TAIL[-16:])


def _stream(items: Sequence[StreamItem]) -> list[str]:
    """The deltas ``stream_reply`` yields for ``items`` (reasoning ones marked ``R:``)."""
    from test_stream_secret_tail import _stream_items

    return _stream_items(items, KEY)


@pytest.mark.parametrize("cut", [12, 20, 28])
def test_a_key_split_between_reasoning_and_answer_never_shows_its_tail_live(cut: int) -> None:
    items = [ThinkingDelta("the key is "), ThinkingDelta(KEY[:cut]),
             *(TextDelta(KEY[i:i + 9]) for i in range(cut, len(KEY), 9)),
             TextDelta(" and that is all.")]
    shown = _stream(items)
    answer = "".join(d for d in shown if not d.startswith("R:"))
    assert answer == "[REDACTED] and that is all."
    assert not any(KEY[-16:] in d or KEY[cut:cut + 16] in d for d in shown), shown


def test_a_key_split_between_answer_and_reasoning_never_shows_its_tail_live() -> None:
    items = [TextDelta("the key is " + KEY[:-30]), ThinkingDelta(KEY[-30:] + " hmm."),
             TextDelta(" Done.")]
    shown = _stream(items)
    assert not any(KEY[-16:] in d for d in shown), shown
    assert "".join(d[2:] for d in shown if d.startswith("R:")) == "[REDACTED] hmm."


def test_a_word_across_reasoning_and_answer_is_shown_as_it_is() -> None:
    shown = _stream([ThinkingDelta("so the answer is sk-pr"), TextDelta("ocess it now.")])
    assert "".join(d[2:] for d in shown if d.startswith("R:")) == "so the answer is sk-pr"
    assert "".join(d for d in shown if not d.startswith("R:")) == "ocess it now."


@pytest.mark.parametrize("kinds", [("thinking", "text"), ("text", "text")])
def test_a_key_split_between_two_parts_of_a_reply_is_stored_redacted_in_both(
        kinds: tuple[str, str]) -> None:
    made = {"thinking": ThinkingContent, "text": TextContent}
    first, second = made[kinds[0]], made[kinds[1]]
    message = Message("assistant", (first("it is " + KEY[:-31]), second(KEY[-31:] + " — no.")))
    stored = redacted_reply(message, Redactor([KEY]))
    texts = [p.text for p in stored.content if isinstance(p, TextContent | ThinkingContent)]
    assert texts == ["it is [REDACTED]", "[REDACTED] — no."]


def test_a_key_split_between_two_tool_calls_arguments_is_run_and_stored_redacted() -> None:
    message = Message("assistant", (
        ToolRequest("c1", "shell", {"command": "echo " + KEY[:-30]}),
        ToolRequest("c2", "shell", {"command": KEY[-30:] + " > key.txt"})))
    stored = redacted_reply(message, Redactor([KEY]))
    commands = [p.arguments["command"] for p in stored.content
                if isinstance(p, ToolRequest) and p.arguments]
    assert commands == ["echo [REDACTED]", "[REDACTED] > key.txt"]


def test_parts_that_only_touch_a_keys_start_are_left_as_they_are() -> None:
    message = Message("assistant", (ThinkingContent("keys start sk-proj-"),
                                    TextContent("Q7 is a quarter, not a key.")))
    assert redacted_reply(message, Redactor([KEY])) is message


def test_a_redactor_that_only_lists_its_secrets_is_read_joined_too() -> None:
    # the REPL's recorder and the extensions' redactor wrap a Redactor: their ``secrets``
    # are what the joins are looked for by
    from goosectx.recorder import DraftRedact

    wrapped = DraftRedact(lambda: Redactor([KEY]))
    message = Message("assistant", (ThinkingContent("it is " + KEY[:-31]),
                                    TextContent(KEY[-31:] + " — no.")))
    stored = redacted_reply(message, wrapped)
    assert [p.text for p in stored.content if isinstance(p, TextContent | ThinkingContent)] == [
        "it is [REDACTED]", "[REDACTED] — no."]


def test_at_every_cut_no_twelve_characters_of_the_key_show_live_or_stored() -> None:
    def pieces(text: str, size: int) -> list[str]:
        return [text[i:i + size] for i in range(0, len(text), size)]

    for cut in range(1, len(KEY)):
        reasoning, answer = "the key is " + KEY[:cut], KEY[cut:] + " ok."
        shown = _stream([*map(ThinkingDelta, pieces(reasoning, 5)),
                         *map(TextDelta, pieces(answer, 7))])
        stored = redacted_reply(Message("assistant", (ThinkingContent(reasoning),
                                                      TextContent(answer))), Redactor([KEY]))
        for text in ("".join(d.removeprefix("R:") for d in shown), repr(stored.content)):
            assert not any(KEY[k:k + 12] in text for k in range(len(KEY) - 11)), (cut, text)
            assert " ok." in text and "the key is " in text


def test_a_key_split_between_answer_and_reasoning_is_stored_redacted_where_the_parts_lie(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # text, reasoning, text streams as one reasoning part and one text part: the key's start
    # (in the text) and its rest (starting the reasoning) are no longer side by side
    from agent_harness import make_harness
    from test_stream_secret_tail import Items

    from goosectx.config import Settings

    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    items = [TextDelta("the key is " + KEY[:-30]), ThinkingDelta(KEY[-30:] + " hmm."),
             TextDelta(" Done.")]
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=Items(items))
    h.turn("hi")
    reply = [m for m in h.stored() if m.role == "assistant"][-1]
    assert reply.text == "the key is [REDACTED] Done."
    kept = repr(reply.content)
    assert KEY[-16:] not in kept and KEY[:20] not in kept and "hmm." in kept


def test_the_repls_screen_never_shows_the_tail_of_a_key_split_by_the_answer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from agent_harness import make_harness
    from rich.console import Console
    from test_stream_secret_tail import Items

    from goosectx.cli.render import TranscriptRenderer
    from goosectx.config import Settings

    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    items = [ThinkingDelta("I see " + KEY[:20]), ThinkingDelta(KEY[20:-32]),
             TextDelta(TAIL[:10]), TextDelta(TAIL[10:] + " is not for you."),
             TextDelta(" Bye.")]
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=Items(items))
    buf = io.StringIO()
    renderer = TranscriptRenderer(Console(file=buf, width=100, no_color=True), plain=True)
    h.turn("hi", on_event=renderer.handle)
    renderer.settle()
    out = buf.getvalue()
    assert [m for m in h.stored() if m.role == "assistant"][-1].text == (
        "[REDACTED] is not for you. Bye.")
    assert TAIL[:12] not in out and TAIL[-12:] not in out and "is not for you. Bye." in out


def test_a_key_bounced_between_reasoning_and_answer_shows_no_16_characters_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # start in the reasoning, middle in the answer, rest back in the reasoning: no join has
    # it whole, but the runs of its characters are redacted, live and stored
    from agent_harness import make_harness
    from test_stream_secret_tail import Items

    from goosectx.config import Settings

    monkeypatch.setenv("DEPLOY_TOKEN", KEY)
    items = [ThinkingDelta("hello there " + KEY[:5]), TextDelta(KEY[5:22]),
             ThinkingDelta(KEY[22:] + " words"), TextDelta(" after.")]
    shown = _stream(items)
    h = make_harness(tmp_path, Settings(data_dir=tmp_path / "data"), provider=Items(items))
    h.turn("hi")
    stored = [m for m in h.stored() if m.role == "assistant"][-1]
    for text in (*shown, *(p.text for p in stored.content
                           if isinstance(p, TextContent | ThinkingContent))):
        assert not any(KEY[k:k + 16] in text for k in range(len(KEY) - 15)), text
    assert "".join(d for d in shown if not d.startswith("R:")).endswith(" after.")
    assert "".join(d[2:] for d in shown if d.startswith("R:")).endswith(" words")


def test_a_reply_quoting_13_characters_of_a_key_has_them_redacted_the_rest_kept() -> None:
    message = Message("assistant", (TextContent(f"it ends in …{KEY[-20:]}, see the docs"),))
    assert redacted_reply(message, Redactor([KEY])).text == "it ends in …[REDACTED], see the docs"
    quoted = Message("assistant", (TextContent(f"it ends in …{KEY[-13:]}"),))
    assert redacted_reply(quoted, Redactor([KEY])).text == "it ends in …[REDACTED]"
    short = Message("assistant", (TextContent(f"it ends in …{KEY[-11:]}"),))
    assert redacted_reply(short, Redactor([KEY])) is short  # 11 say too little


def test_a_reply_naming_a_url_secrets_scheme_and_host_is_left_as_it_is() -> None:
    # DATABASE_URL's start is ordinary text; its password is what is secret (listed alone)
    redact = Redactor(["postgres://app:Xk29vLq8Zt5wQ9rB@db.internal:5432/prod", "Xk29vLq8Zt5wQ9rB"])
    message = Message("assistant", (TextContent(
        "connect with postgres://app:PASSWORD@db.internal:5432/prod as before"),))
    assert redacted_reply(message, redact) is message
