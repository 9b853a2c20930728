"""The import's one check for secrets (issue #14's speed) never lets one through.

``sessions import`` checks all of a session's strings at once
(:meth:`goosectx.redaction.Redactor.changes_none`) and scrubs them one by one only when that
check may have seen a secret. Each case below puts a secret somewhere, in some form, and
asserts the check does not pass it: the import stores exactly what scrubbing each string
stores (compared with the check turned off), and the secret is gone.
"""

from __future__ import annotations

import base64
import random
import sys
import urllib.parse
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from test_security_secrets import encoded_forms, percent_forms

import goosectx.cli.import_secrets as import_secrets
import goosectx.redaction_check as redaction_check
from goosectx.attachment import Attachment
from goosectx.config import Settings
from goosectx.conversation import Conversation, Message
from goosectx.message import MessageMetadata
from goosectx.parts import (
    Part,
    SystemNotification,
    TextContent,
    ThinkingContent,
    ToolRequest,
    ToolResponse,
)
from goosectx.redaction import REDACTED, Redactor
from goosectx.session import Session
from goosectx.usage import LedgerEntry, Usage

K = "sk-live-Prefilter42xy"
CLEAN = ["print('%d%%' % 50)", "a=1&b=%zz", "x" * 300, "naïve café\u00a0ok", "", "ünï €"]


def _forms(secret: str) -> dict[str, str]:
    forms = {**encoded_forms(secret), **{f"percent {k}": v
                                         for k, v in percent_forms(secret).items()}}
    forms["split by a space"] = secret[:6] + " " + secret[6:]
    forms["split by CRLF"] = secret[:9] + "\r\n" + secret[9:]
    forms["split by a file separator"] = secret[:5] + "\x1c" + secret[5:]
    for space in ("\u00a0", "\u2003", "\u3000", "\x85"):
        forms[f"split by U+{ord(space):04X}"] = secret[:7] + space + secret[7:]
    forms["base64 split by a newline"] = "\n".join(
        base64.b64encode(secret.encode()).decode()[i:i + 5] for i in range(0, 28, 5))
    forms["quote_plus"] = urllib.parse.quote_plus(secret)
    return forms


FORMS = _forms(K)


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("where", ["alone", "first", "last", "middle", "at its start",
                                   "at its end"])
def test_no_form_of_a_secret_passes_the_check(form: str, where: str) -> None:
    redact = Redactor([K])
    text = {"alone": FORMS[form], "at its start": FORMS[form] + " then",
            "at its end": "then " + FORMS[form]}.get(where, f"x {FORMS[form]} y")
    texts = {"first": [text, *CLEAN], "last": [*CLEAN, text]}.get(
        where, [*CLEAN[:3], text, *CLEAN[3:]])
    assert redact(text) != text  # (the form is one the redactor replaces)
    assert not redact.changes_none(texts)


def test_clean_texts_pass_the_check() -> None:
    assert Redactor([K]).changes_none(CLEAN)
    assert Redactor([K]).changes_none([])
    assert Redactor([]).changes_none([K])  # no secret: nothing to redact


def test_an_escape_cut_by_the_end_of_a_text_does_not_hide_the_next() -> None:
    # "%a1" across the two texts would read as one escape and eat the secret's first two
    # characters; each text is decoded alone.
    secret = "a1b2c3d4e5f6"
    text = secret[:-1] + "%" + f"{ord(secret[-1]):02x}"
    assert Redactor([secret])(text) != text
    assert not Redactor([secret]).changes_none(["see x%", text])
    assert not Redactor([secret]).changes_none(["see x=", text])


def test_a_secret_after_a_full_batch_is_seen() -> None:
    filler = "y" * (redaction_check.BATCH_CHARS - 2)
    assert not Redactor([K]).changes_none([filler, K])
    assert not Redactor([K]).changes_none([filler, "z" * 10, "q", K])
    assert not Redactor([K]).changes_none(["w" * (3 * redaction_check.BATCH_CHARS), K])


@pytest.mark.parametrize("secret", ["pässwörd-geheim-42", "pässwörd-Ωmega-42", "ключ-секрет-1"])
@pytest.mark.parametrize("around", ["ascii", "latin-1", "wide"])
def test_a_non_ascii_secret_is_seen_in_any_text(secret: str, around: str) -> None:
    other = {"ascii": "plain", "latin-1": "café", "wide": "漢字 €"}[around]
    quoted = urllib.parse.quote(secret, safe="")
    for form in (secret, quoted, secret[:4] + urllib.parse.quote(secret[4:]),
                 secret[:5] + "\n" + secret[5:]):
        assert Redactor([secret])(form) != form
        assert not Redactor([secret]).changes_none([other, f"{other} {form} {other}", other])


def test_the_whitespace_squeezed_out_is_str_splits() -> None:
    found = {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}
    listed = {chr(b) for b in redaction_check.ASCII_SPACE} | set(redaction_check.WIDE_SPACE)
    assert listed == found


def test_random_texts_agree_with_redacting_each() -> None:
    rng = random.Random(14)
    secret = "Ab9%=z-Q_8/+xy"  # a % and an = of its own, base64's +/ in its forms
    redact = Redactor([secret])
    pieces = [*_forms(secret).values(), "%", "%%", "=", "%4", "%41", "=3D", " ", "\n", "\0",
              "\u00a0", "é", "Ω", "A", "b9", "xy", "41", "ok"]
    seen = 0
    for _ in range(600):
        texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))
                 for _ in range(rng.randint(1, 4))]
        if any(redact(t) != t for t in texts):
            seen += 1
            assert not redact.changes_none(texts), texts
    assert seen > 100  # (the cases do hold secrets)


# -- the import: every place a session holds a string -------------------------------------

When = datetime(2025, 8, 28, 12, 57, 8, tzinfo=UTC)


def _session(where: str, value: str, tmp: Path) -> Session:
    """A small session holding ``value`` at ``where`` (``value`` alone when ``where`` is "")."""
    def at(place: str, default: str = "plain") -> str:
        return value if place == where else default

    parts: list[Part] = [
        TextContent(at("text")),
        ToolRequest(at("tool id", "call_1"), at("tool name", "shell"),
                    {at("argument key", "command"): [at("argument value")]},
                    at("parse error", "") or None, at("raw arguments", "") or None),
        ThinkingContent(at("reasoning"), at("signature")),
        SystemNotification("inline", at("notice")),
        Attachment("file", at("attachment source", "a.txt"), at("media type", "text/plain"),
                   text=at("attachment text")),
        Attachment("resource", "r:x", "application/octet-stream",
                   data=b"\0\xff" + at("attachment bytes").encode()),
    ]
    reply = [ToolResponse(at("tool id", "call_1"), at("tool output"), False,
                          at("diff", "") or None)]
    extra: dict[str, Any] = {at("record key", "source_uuid"): at("record value"),
                             "copy_of": at("copy_of", "m1")}
    messages = [Message("assistant", tuple(parts),
                        MessageMetadata(extra=extra, compaction_id=at("compaction id", "c1")),
                        id=at("message id", "m1"), created=When),
                Message("user", tuple(reply), MessageMetadata(hidden_by=at("hidden by", "c1")),
                        id="m2", created=When)]
    session = Session(at("session id", "20250828_125708_aaaa"), at("name", "src"),
                      tmp / at("working dir", "w"), at("model", "openai/gpt-4o"), When, When,
                      conversation=Conversation(messages), title=at("title", "t"))
    session.metadata = {at("metadata key", "source"): {"nested": [at("metadata value")]}}
    session.state.pause_reason = at("pause reason", "")
    session.ledger.entries.append(LedgerEntry(Usage(), at("ledger model", "openai/gpt-4o"),
                                              created=When))
    return session


def _snapshot(session: Session) -> Any:
    return (session.id, session.name, session.title, session.model, str(session.working_dir),
            session.metadata, session.state.to_dict(), session.ledger.entries,
            [(m.id, m.content, m.metadata) for m in session.conversation.messages])


PLACES = ["text", "tool id", "tool name", "argument key", "argument value", "parse error",
          "raw arguments", "reasoning", "signature", "notice", "attachment source",
          "media type", "attachment text", "attachment bytes", "tool output", "diff",
          "record key", "record value", "copy_of", "message id", "compaction id", "hidden by",
          "session id", "name", "working dir", "model", "title", "metadata key", "metadata value", "pause reason",
          "ledger model"]


def _imported(make: Callable[[], Session], check: bool,
              monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], Any]:
    with monkeypatch.context() as patch:
        patch.setattr(import_secrets, "new_session_id", lambda created: "20250828_125708_bbbb")
        if not check:  # each string scrubbed: what the import stored before the check
            patch.setattr(import_secrets, "_holds_none", lambda *args: False)
        session = make()
        notes = import_secrets.redact_secrets([session], Settings())
        return notes, _snapshot(session)


@pytest.mark.parametrize("form", ["literal", "folded", "base64+1", "percent dashes",
                                  "split by U+00A0"])
@pytest.mark.parametrize("where", PLACES)
def test_an_import_stores_what_scrubbing_each_string_stores(
        where: str, form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", K)
    value = f"v {FORMS[form]} w" if form != "literal" else K
    checked = _imported(lambda: _session(where, value, tmp_path), True, monkeypatch)
    each = _imported(lambda: _session(where, value, tmp_path), False, monkeypatch)
    assert checked == each
    if where == "attachment bytes" and not value.isascii():
        return  # (bytes read as Latin-1: U+00A0 in UTF-8 is "Â" and a space, no longer one)
    assert checked[0] != [""]  # the note names what held the secret
    assert K not in repr(checked[1])


def test_a_clean_import_is_left_as_it_was(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", K)
    checked = _imported(lambda: _session("", "", tmp_path), True, monkeypatch)
    assert checked == _imported(lambda: _session("", "", tmp_path), False, monkeypatch)
    assert checked[0] == [""]


@pytest.mark.parametrize("where", ["tool id", "tool name", "message id", "copy_of",
                                   "compaction id", "hidden by"])
def test_an_id_holding_a_redaction_mark_is_renamed_as_before(
        where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # no secret in it: the scrub still writes an id's [REDACTED] as REDACTED (a provider
    # takes ids of letters, digits, _ and -)
    monkeypatch.setenv("DEPLOY_TOKEN", K)
    value = f"call_{REDACTED}_1"
    checked = _imported(lambda: _session(where, value, tmp_path), True, monkeypatch)
    assert checked == _imported(lambda: _session(where, value, tmp_path), False, monkeypatch)
    assert value not in repr(checked[1])


def test_a_compaction_id_holding_a_secret_still_names_the_messages_it_hid(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # an undo finds the messages a compaction hid by its id: both are renamed alike
    monkeypatch.setenv("DEPLOY_TOKEN", K)
    session = _session("", "", tmp_path)
    messages = session.conversation.messages
    for i, m in enumerate(messages):
        messages[i] = replace(m, metadata=replace(m.metadata, compaction_id=f"c_{K}",
                                                  hidden_by=f"c_{K}" if i else None))
    notes = import_secrets.redact_secrets([session], Settings())
    assert notes != [""] and K not in repr(_snapshot(session))
    first, second = (m.metadata for m in session.conversation.messages)
    assert first.compaction_id == second.compaction_id == second.hidden_by == "c_REDACTED"


# -- the redactor's quick check itself ----------------------------------------------------

@pytest.mark.parametrize("before", ["100%", "100%%", "a%=", "%", "%%%"])
def test_a_secret_percent_encoded_after_a_percent_sign_is_redacted(before: str) -> None:
    # "%%41…" is a literal % and then the escape of "A": the quick check decoded "%%" as one
    # character and skipped the escape, so the secret was kept
    secret = "Abcdefgh-key"
    text = f"{before}%41bcdefgh-key and"
    assert Redactor([secret])(text) == f"{before}{REDACTED} and"
    assert not Redactor([secret]).changes_none(["x", text])


@pytest.mark.parametrize("before", ["upload 100% ", "upload 100%\n", "100%\t", "a % "])
@pytest.mark.parametrize("escaped", ["ab%2fcdEFGHijklMNOP%2bqrs", "ab/cdEFGHijklMNOP%2Bqrs"])
def test_a_percent_sign_and_whitespace_before_an_encoded_secret_hide_nothing(
        before: str, escaped: str) -> None:
    # the quick check squeezed "% ab" into the escape "%ab" and so missed the secret after it
    secret = "ab/cdEFGHijklMNOP+qrs"
    text = before + escaped
    assert Redactor([secret])(text) == before + REDACTED
    assert not Redactor([secret]).changes_none(["x", text, "y"])


def test_a_secret_not_valid_utf8_is_redacted_without_a_crash() -> None:
    # a variable's invalid byte reaches Python as a lone surrogate (surrogateescape)
    secret = "ghp_\udce9abcdefgh"
    redact = Redactor([secret])
    assert redact(f"token {secret} end") == f"token {REDACTED} end"
    assert redact("ghp_%E9abcdefgh") == REDACTED
    assert not redact.changes_none(["x", f"token {secret}"])
