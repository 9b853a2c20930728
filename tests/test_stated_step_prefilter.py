"""The cheap tests before the stated-step search never hide a stated next step.

:func:`goosectx.compaction.stated_step.stated_step` runs its pattern only on answers where a
"next" starts a line or follows a sentence and is followed on its line by a colon or "I'll"
(the two forms a next step is stated in); most of a long session's answers stop before the
search. Whatever the letters and line breaks, the step the facts list is the one the search
alone finds.
"""

from __future__ import annotations

from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from goosectx.compaction import stated_step as stated

_PIECES = ["Next: ", "NEXT STEPS:", "next step is ：", "Next, I'll ", "next I WILL ", "Next, İ'll ",
           "next, ı will ", ". Next up: x", "**Next**: y", "- next:", "Next, i am going to ",
           "next i plan to ", "next", "Next", "\n", "\r\n", " ", ":", "x", "é", "```\n"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES) | st.text(max_size=5), max_size=10).map("".join))
@example("All done. Next, İ'll rename add to plus")  # a dotted capital I: not lower-cased
@example("Next step is\ttabbed :  rename it")
def test_the_step_is_the_one_the_search_alone_finds(text: str) -> None:
    with mock.patch.object(stated, "_may_state", lambda _text: True):
        expected = stated.stated_step(text)
    assert stated.stated_step(text) == expected
