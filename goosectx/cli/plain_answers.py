"""What a typed line answers at plain mode's approval question (no key presses to read).

Plain mode (piped input, ``TERM=dumb``, ``NO_COLOR``) reads whole lines, so a person types
words: the keys (``y``, ``a``, ``n``, ``c``; ``p`` and ``s`` for a shell call's rule) and the
usual ways of saying yes or no ("yes please", "sure", "go ahead", "no thanks"). Only a whole
line counts, case, spaces and end punctuation aside: "yes, but use python" answers nothing. A
line that answers nothing is re-asked with :data:`NOT_AN_ANSWER` — never taken as a denial,
which would ask for a reason and take the user's next line as it.
The real terminal's one-key answers are :mod:`goosectx.cli.approval_keys`.
"""

from __future__ import annotations

NOT_AN_ANSWER = "what you typed is not an answer and was not sent — type {keys} (or yes, no…) " \
    "and Enter"
"""The hint under a line that answers nothing (``keys``: ``"y, a, n or c"``)."""

_WORDS: dict[str, tuple[str, ...]] = {
    "allow_once": ("y", "yes", "yeah", "yep", "yup", "ok", "okay", "sure", "allow", "go",
                   "go ahead", "yes please", "yes go ahead", "ok go ahead", "sure go ahead",
                   "do it", "run it", "proceed", "approve", "approved", "fine", "alright",
                   "all right"),
    "always_allow": ("a", "always", "always allow", "yes always"),
    "deny": ("n", "no", "nope", "nah", "deny", "no thanks", "no thank you", "don't", "dont",
             "do not", "don't run it", "do not run it", "reject", "refuse"),
    "cancel": ("c", "cancel", "stop", "abort"),
}
_DECISIONS = {word: decision for decision, words in _WORDS.items() for word in words}


def parse_approval_answer(answer: str, *, rule: bool = False) -> str | None:
    """The decision a typed line names, or ``None`` when it answers nothing.

    Accepted: the whole line, any case, its spaces squeezed and its end punctuation (``.``,
    ``!``, ``,``) dropped, is one of the words of :data:`_WORDS`; with ``rule`` also ``p``
    (``allow_rule``) and ``s`` (``save_rule``).
    """
    word = " ".join(answer.lower().replace("’", "'").replace(",", " ").split()).rstrip(".!")
    if rule and word in ("p", "s"):
        return "allow_rule" if word == "p" else "save_rule"
    return _DECISIONS.get(word)
