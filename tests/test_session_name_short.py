"""A session name too short to hold a secret is shown without building a redactor.

``Session.display_name`` skips the redaction (its modules and set-up: ~4 ms of a ``compact
--dry-run``) for a name shorter than :data:`goosectx.session.SHORTEST_REDACTED`. The bound is
derived here from the redaction's own constants, and no redaction of the known secrets —
each form, a key's run of characters, a key as a list, escapes — changes a shorter text.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goosectx.redaction import REDACTED, Redactor
from goosectx.redaction_fragments import FRAGMENT_MIN_CHARS, WithPieces
from goosectx.secret_names import MIN_SECRET_CHARS
from goosectx.session import SHORTEST_REDACTED, Session

SECRET = "Q7vX2mK9pL4nR8sT1wY6zA3b"


def named(name: str) -> Session:
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    return Session(id="20260102_030405_abcd", name=name, working_dir=Path("/work/project"),
                   model=None, created=now, updated=now)


def test_the_bound_is_the_shortest_secret_redacted() -> None:
    """Every redaction replaces a secret of at least MIN_SECRET_CHARS characters (a key's
    run: FRAGMENT_MIN_CHARS), and a secret that long is redacted: the bound is that one."""
    assert SHORTEST_REDACTED == min(MIN_SECRET_CHARS, FRAGMENT_MIN_CHARS)
    shortest = SECRET[:MIN_SECRET_CHARS]
    assert WithPieces(Redactor([shortest]))(shortest) == REDACTED
    assert Redactor([shortest[:-1]]).secrets == []  # one shorter is no secret


def pieces(secret: str) -> list[str]:
    """Texts under the bound made of ``secret``: its start, reversed, spaced, escaped, encoded."""
    raw = secret.encode()
    whole = [secret, secret[::-1], secret.upper(), " ".join(secret), raw.hex(),
             "".join(f"%{b:02X}" for b in raw), "".join(f"\\x{b:02x}" for b in raw),
             "\x1b[0m".join(secret), ",".join(secret), ", ".join(str(b) for b in raw)]
    return [t[:n] for t in whole for n in range(1, SHORTEST_REDACTED)]


def test_no_redaction_changes_a_piece_of_a_secret_shorter_than_the_bound() -> None:
    for length in range(1, len(SECRET) + 1):
        secret = SECRET[:length]
        redact = WithPieces(Redactor([secret, SECRET]))
        for text in pieces(secret):
            assert redact(text) == text, (secret, text)


@given(st.integers(min_value=1, max_value=len(SECRET)), st.data())
def test_no_redaction_changes_a_text_shorter_than_the_bound(length: int,
                                                            data: st.DataObject) -> None:
    secret = SECRET[:length]
    text = data.draw(st.text(alphabet=secret + " %\\x\x1b[0m,", max_size=SHORTEST_REDACTED - 1))
    assert WithPieces(Redactor([secret, SECRET]))(text) == text


def test_a_short_name_is_shown_as_stored_and_a_secret_as_long_as_the_bound_redacted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    shortest = SECRET[:SHORTEST_REDACTED]
    monkeypatch.setenv("DEPLOY_TOKEN", shortest)
    assert named(shortest).display_name == "redacted"
    assert named(f"x{shortest}").display_name == "xredacted"
    assert named(shortest[:-1]).display_name == shortest[:-1]
    assert named("scale").display_name == "scale"
