"""The cheap test before the constraint search never hides a constraint line.

The facts' constraint scan (:func:`goosectx.compaction.facts.constraint_lines`) runs the
``CONSTRAINT`` search only on texts and lines :func:`may_name_constraint` lets through; the
test is written for speed (an ASCII text is tested against the ASCII hints only), so a user
constraint written with any letters — CJK words, a long s, a dotted capital I, a Kelvin sign
that lower-cases to ``k`` — must still reach the search.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from goosectx.compaction.carry import CONSTRAINT, may_name_constraint
from goosectx.compaction.facts import constraint_lines
from goosectx.conversation import Message

_PIECES = ["must", "MUST", "never", "don't", "do not", "always", "only", "avoid", "stick to",
           "without", "please use", "target Python 3.8", "keep lines at 79", "; no walrus",
           "不要", "必須", "禁止", "しないで", "必ず", "ſtick to", "ONLİ", "\u212aeep it short",
           "keep going", "no one", "ok", " ", "\n", "x", "é", "İ", "ſ"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=6), max_size=8).map("".join))
@example("\u212aEEP lines at 79")  # the Kelvin sign lower-cases to an ASCII k
@example("MUſT be fast")
@example("禁止 using eval")
def test_every_text_the_search_matches_passes_the_cheap_test(text: str) -> None:
    if CONSTRAINT.search(text):
        assert may_name_constraint(text)


def test_a_constraint_in_cjk_or_with_a_kelvin_sign_is_listed() -> None:
    """What the user sees: the constraint lines the facts list for such requests."""
    assert constraint_lines(Message.user("请勿修改 vendor/ 目录\n谢谢")) == ("请勿修改 vendor/ 目录",)
    assert constraint_lines(Message.user("\u212aEEP lines at 79 columns")) == (
        "\u212aEEP lines at 79 columns",)


_CHANGE_PIECES = ["Forget what I said", "FORGET THE 79 character LIMIT", "Never Mind", "no longer",
                  "ANY MORE", "From Now On", "instead of", "you MAY now", "is LIFTED", "keep it",
                  "must", "ſcratch that", "İgnore that", "\u212aeep", " ", "x", "\n", "\r", "\r\n",
                  "\x0c", "\u2028", "é", "TypeError: ", "```\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_CHANGE_PIECES) | st.text(max_size=6), max_size=10).map("".join))
@example("Forget what I said about tabs")  # the pattern's own capital I
@example("keep lines at 79\nFORGET THE 79 CHARACTER LIMIT")
def test_a_rule_change_is_found_in_any_letter_case(text: str) -> None:
    """What the facts list: each prose line that states a rule or (in a text that changes one)
    changes one, whatever its letter case — an ASCII text is searched lower-cased."""
    from goosectx.compaction.constraint_change import _NOT_PROSE, CHANGE, request_lines
    from goosectx.compaction.facts import _is_constraint

    if "```" in text or "~~~" in text:  # fenced code: its lines are left out (tested elsewhere)
        return
    changes = CHANGE.search(text) is not None
    expected = tuple(line.strip() for line in text.splitlines() if line.strip() and (
        _is_constraint(line.strip()) or changes and CHANGE.search(line.strip()))
        and not _NOT_PROSE.match(line.strip()))
    assert request_lines(text, _is_constraint) == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES + ["KEEP IT", " under", "Please Target", "and no eval",
                                           "(no", "No, I", "TARGET C++ 17", "dON'T"])
                | st.text(max_size=6), max_size=8).map("".join))
@example("You MUST use Python")
@example("TARGET Python 3.8")
@example("and NO globals")
@example("No, I meant the other one")
@example("MUſT be fast")
def test_the_constraint_test_lists_the_lines_the_search_matches(text: str) -> None:
    """The lines listed as constraints are those the case-insensitive ``CONSTRAINT`` search
    matches: an ASCII line is tested lower-cased, by its word branch first (a dry run then
    compiles only that branch), the others by the search itself."""
    from goosectx.compaction.carry import is_constraint

    for line in [text, *text.splitlines()]:
        assert is_constraint(line) == (CONSTRAINT.search(line) is not None), line


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_CHANGE_PIECES) | st.text(max_size=6), max_size=8).map("".join))
@example("İgnore that rule")  # İ lower-cases to i + a combining dot
@example("ſcratch that")  # the long s
def test_every_text_the_change_search_matches_passes_its_cheap_test(text: str) -> None:
    """dry27d's note: ``may_change`` said no to 'İgnore that', which ``CHANGE`` matches, so the
    facts could miss a request that changes a rule."""
    from goosectx.compaction.constraint_change import CHANGE, may_change

    if CHANGE.search(text):
        assert may_change(text)
