"""The facts merged into a summary are cut to their budget the same way however they are counted.

``merge_facts`` finds how many rounds of dropping (the oldest command, error, constraint and
to-do item a round) make the facts fit by counting each line once
(``_rounds_by_lines``) rather than the whole text after every round (``_rounds_by_texts``):
the facts a user gets must be the very same. Generated facts lines mix words, numbers,
punctuation runs, slashes, backticks, trailing spaces, other scripts and emoji, and long
texts (counted in parts past 4,096 characters).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goosectx.compaction import facts_fit
from goosectx.compaction.facts import merge_facts
from goosectx.compaction.facts_fit import (
    MAX_LINE_CHARS,
    fit_facts,
    pieces,
    render,
    rounds_by_lines,
    rounds_by_texts,
    titled,
)
from goosectx.conversation import Message
from goosectx.tokens import TokenCounter

COUNTERS = {"o200k_base": TokenCounter(), "cl100k_base": TokenCounter("gpt-4")}
_ATOMS = st.sampled_from([
    "a", "word", "Src", "x9", "42", "1234567", " ", "  ", "\t", "\r", "`", "``", "/", "./",
    "src/app.py", ":", "::", "-", "--", "#", "##", "...", "!", "?)", "'s", "'ll", "é", "ß",
    "日本語", "😀", "→", "|", "&&", ";", ">", "\\", "\u00a0", "\u2028", "\x85",
])
_LINE = st.lists(_ATOMS, max_size=30).map(lambda atoms: "- " + "".join(atoms))
_LINES = st.lists(_LINE, max_size=12)


def _long(lines: list[str], times: int) -> list[str]:
    """``lines`` repeated with a number each: facts texts past 4,096 characters."""
    return [f"{line} {n}" for n in range(times) for line in lines]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sections=st.lists(_LINES, min_size=5, max_size=5), times=st.sampled_from([1, 1, 40]),
       encoding=st.sampled_from(sorted(COUNTERS)))
def test_a_facts_text_counts_as_the_sum_of_its_lines(sections: list[list[str]], times: int,
                                                      encoding: str) -> None:
    sections_titled = titled(*(_long(lines, times) for lines in sections))
    counter = COUNTERS[encoding]
    text = render(sections_titled)
    assert "".join(pieces(sections_titled)) == text
    assert sum(counter.count_text(p) for p in pieces(sections_titled)) == counter.count_text(text)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paths=_LINES, dropped=st.lists(_LINES, min_size=4, max_size=4),
       times=st.sampled_from([1, 6]), max_tokens=st.integers(1, 900),
       encoding=st.sampled_from(sorted(COUNTERS)), keep=st.sampled_from([(), (2,), (0, 3)]))
def test_the_rounds_dropped_are_those_counting_text_by_text_finds(
        paths: list[str], dropped: list[list[str]], times: int, max_tokens: int,
        encoding: str, keep: tuple[int, ...]) -> None:
    dropped = [_long(lines, times) for lines in dropped]
    if not any(dropped):
        dropped[0] = ["- one"]
    counter = COUNTERS[encoding]
    rounds = rounds_by_lines(paths, dropped, max_tokens, counter, keep)
    assert rounds is not None
    assert rounds == rounds_by_texts(paths, dropped, max_tokens, counter, keep)


def test_a_line_that_breaks_the_conditions_is_counted_text_by_text() -> None:
    counter = COUNTERS["o200k_base"]
    for odd in ("- two\nlines", "- " + "x" * MAX_LINE_CHARS):
        assert rounds_by_lines([], [[odd, "- b"], [], [], []], 5, counter) is None
    assert rounds_by_lines([], [["- a", "- b"], [], [], []], 5,
                            TokenCounter("text-davinci-003")) is None  # p50k: not additive


def test_the_newest_constraints_and_commands_are_kept_within_the_budget(monkeypatch) -> None:
    head: list[Message] = []
    for n in range(300):
        head += [Message.user(f"step {n}: you must keep module_{n} stable"),
                 Message.assistant(f"done {n}")]
    counter = TokenCounter()
    out = merge_facts("SUMMARY", head, max_tokens=400, counter=counter)
    facts_text = out.split("SUMMARY\n\n", 1)[1].rstrip("\n")
    assert counter.count_text(facts_text) <= 400
    assert "- step 299: you must keep module_299 stable" in out
    assert "- step 0: you must keep module_0 stable" not in out
    # Counted text by text, the facts come out the same.
    monkeypatch.setattr(facts_fit, "rounds_by_lines", lambda *args: None)
    assert merge_facts("SUMMARY", head, max_tokens=400, counter=TokenCounter()) == out


def test_constraints_go_only_after_every_command_and_then_the_oldest_first() -> None:
    counter = TokenCounter()
    commands = [f"- shell `make step{n}`" for n in range(30)]
    constraints = [f"- you must keep module_{n} stable" for n in range(30)]
    roomy = fit_facts([], [[], commands, constraints, []], 400, counter)
    assert all(c in roomy for c in constraints)  # the oldest commands went instead
    assert commands[-1] in roomy and commands[0] not in roomy
    tight = fit_facts([], [[], commands, constraints, []], 60, counter)
    assert "Commands run" not in tight and constraints[-1] in tight
    assert constraints[0] not in tight and counter.count_text(tight) <= 60
