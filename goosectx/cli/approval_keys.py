"""The approval question's key line and its one-key answer (prompt-toolkit, the real terminal).

``⚑ Run shell? [y] allow once  [a] …`` is drawn under the call (``cli/approval_view.py``) and
answered with one key; on the real terminal only a deliberate key press counts
(:mod:`goosectx.cli.answer_guard`). Plain mode reads typed words instead
(:mod:`goosectx.cli.plain_answers`, ``cli/terminal.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import clear_typeahead, get_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output
from prompt_toolkit.utils import get_cwidth

from goosectx.approval import ApprovalDecision
from goosectx.cli.answer_guard import DROPPED_HINT, AnswerGuard, keys_help
from goosectx.cli.approval_view import VIEW_KEY
from goosectx.cli.prompt import PROMPT_STYLE
from goosectx.cli.sanitize import APPROVAL_MARKER, terminal_safe

DENY_AT_ONCE = "deny_at_once"
"""What Ctrl-D answers: deny, with no reason asked (a typed line would become the reason)."""

APPROVAL_KEYS: tuple[tuple[str, ApprovalDecision, str], ...] = (
    ("y", "allow_once", "allow once"),
    ("a", "always_allow", "always allow (this tool, until you exit)"),
    ("n", "deny", "deny"),
    ("c", "cancel", "cancel the turn"),
)


READ_ONLY_ALWAYS = "always allow (this tool's read-only calls, until you exit)"
"""``a``'s label at a read-only call (a ``text_editor view``): the tool's edits still ask."""


def approval_keys(rule: str | None, *, read_only: bool = False
                  ) -> tuple[tuple[str, str, str], ...]:
    """The keys of one approval question: with a shell rule, ``p`` and ``s`` for it too.

    ``read_only``: the call changes nothing, so ``a`` allows the tool's read-only calls only.
    """
    keys = tuple((key, decision, READ_ONLY_ALWAYS if read_only and key == "a" else label)
                 for key, decision, label in APPROVAL_KEYS)
    if rule is None:
        return keys
    return (keys[0],
            ("p", "allow_rule", f"always allow {rule} (until you exit)"),
            ("s", "save_rule", "… and save it to your config"),
            *keys[1:])


def ask_approval(
    tool_name: str, *, must_view: bool = False, rule: str | None = None,
    read_only: bool = False, input: Input | None = None, output: Output | None = None,
    guard: bool = False, dropped: bool = False,
) -> str:
    """Ask with one key press whether a tool call may run (the call is drawn before this).

    Keys: ``y`` allow once, ``a`` always allow, ``n`` deny, ``c`` / Ctrl-C / Esc cancel the
    turn; Ctrl-D denies at once (:data:`DENY_AT_ONCE`: no reason asked). With ``must_view``
    (a long call shown folded), ``v`` returns
    ``"view"`` and ``y`` / ``a`` only remind the user to look at the whole call first. With
    ``rule`` (a shell call's command prefix) also ``p`` (always allow that rule until exit)
    and ``s`` (and save it to the config file). ``read_only``: ``a`` says it allows the
    tool's read-only calls only (:func:`approval_keys`).

    With ``guard`` (the real terminal) only a deliberate key answers
    (:mod:`goosectx.cli.answer_guard`): prompt-toolkit's type-ahead is dropped first, keys
    right after the question is drawn and bursts of keys (typing) are dropped with a hint, and
    keys left over when the question ends are dropped too (never sent as a message).
    ``dropped``: the caller already dropped keys typed before the question (the hint says so).

    Returns:
        The decision, ``allow_rule`` / ``save_rule``, or ``"view"``.
    """
    keys = KeyBindings()
    hint: list[tuple[str, str]] = []
    choices = [(VIEW_KEY, "view the whole call")] if must_view else []
    choices += [(key, label) for key, _decision, label in approval_keys(rule,
                                                                       read_only=read_only)]
    answers = AnswerGuard(keys_help([key for key, _label in choices]),
                          dropped=dropped) if guard else None

    def on(key: str, act: Callable[[KeyPressEvent], None]) -> None:
        def handler(event: KeyPressEvent) -> None:
            if answers is None:
                act(event)
            else:
                answers.press(event.app, lambda: act(event))
        keys.add(key)(handler)

    for key, decision, _label in approval_keys(rule):
        allows = decision in ("allow_once", "always_allow", "allow_rule", "save_rule")
        for variant in {key, key.upper()}:
            if must_view and allows:
                on(variant, lambda event: _remind(event, hint))
            else:
                on(variant, _exit_with(decision))
    if must_view:
        for variant in (VIEW_KEY, VIEW_KEY.upper()):
            on(variant, _exit_with("view"))
    if answers is not None:  # any other key: typing, not an answer
        guarded = answers
        keys.add(Keys.Any)(lambda event: guarded.press(event.app, None))
        keys.add("enter")(lambda event: guarded.confirm(event.app))
    keys.add("c-c")(lambda event: event.app.exit(result="cancel"))
    # SIGINT while the question runs (SIGTERM / SIGHUP become one: cli/exit_signals.py) is a
    # key of its own to the application, not Ctrl-C's c-c.
    keys.add("<sigint>")(lambda event: event.app.exit(result="cancel"))
    keys.add("escape", eager=True)(lambda event: event.app.exit(result="cancel"))
    keys.add("c-d")(lambda event: event.app.exit(result=DENY_AT_ONCE))

    def text() -> FormattedText:
        width = get_app().output.get_size().columns
        guarded: list[tuple[str, str]] = []
        if answers is not None and answers.hint:
            guarded = [("class:approval.question", f"\n{APPROVAL_MARKER} {answers.hint}")]
        return FormattedText(approval_key_line(tool_name, choices, width) + hint + guarded)

    app: Application[str] = Application(
        layout=Layout(Window(FormattedTextControl(text), dont_extend_height=True,
                             wrap_lines=True)),
        key_bindings=keys,
        style=PROMPT_STYLE,
        erase_when_done=True,
        after_render=answers.drawn if answers is not None else None,
        input=input,
        output=output,
    )
    if answers is None:
        return app.run()
    if get_typeahead(app.input):  # typed behind the last message, before this question
        answers.hint = DROPPED_HINT.format(keys=answers.keys)
    try:
        return app.run()
    finally:
        answers.cancel()
        clear_typeahead(app.input)  # the rest of what was typed is no message


def approval_key_line(tool_name: str, choices: list[tuple[str, str]], width: int
                      ) -> list[tuple[str, str]]:
    """``⚑ Run shell? [y] allow once  [a] …`` laid out in lines of at most ``width`` cells.

    Every line starts with the marker (the question's lines are recognisable by it) and a
    key is never parted from its label; a label too long for a line of its own (a rule built
    from the model's command) is cut with ``…`` — the call itself is shown whole above.
    """
    lead = f"{APPROVAL_MARKER} "
    out: list[tuple[str, str]] = [("class:approval.marker", lead),
                                  ("class:approval.question", f"Run {terminal_safe(tool_name)}? ")]
    used = get_cwidth(lead) + get_cwidth(out[1][1])
    room = max(8, width - get_cwidth(lead) - 2)  # a continuation line's, after its indent
    for key, label in choices:
        item = f"[{key}] {_cut_cells(terminal_safe(label), room - len(key) - 3)}  "
        if used + get_cwidth(item.rstrip()) > width and used > get_cwidth(lead) + 2:
            out += [("", "\n"), ("class:approval.marker", lead), ("", "  ")]
            used = get_cwidth(lead) + 2
        out += [("class:approval.key", f"[{key}]"),
                ("class:approval.text", item[len(key) + 2:])]
        used += get_cwidth(item)
    return out


def _cut_cells(text: str, cells: int) -> str:
    """``text`` in at most ``cells`` screen cells, ending with ``…`` when it was cut."""
    if get_cwidth(text) <= cells:
        return text
    out, used = [], 0
    for char in text:
        width = get_cwidth(char)
        if used + width > cells - 1:
            break
        out.append(char)
        used += width
    return "".join(out) + "…"


def _exit_with(result: str) -> Callable[[KeyPressEvent], None]:
    """A key's action that ends the question with ``result``."""
    return lambda event: event.app.exit(result=result)


def _remind(event: KeyPressEvent, hint: list[tuple[str, str]]) -> None:
    """``y`` / ``a`` before a long call was viewed whole: say so, do not approve."""
    hint[:] = [("class:approval.question",
                f"\n{APPROVAL_MARKER} press {VIEW_KEY} to see the whole call first")]
    event.app.invalidate()
