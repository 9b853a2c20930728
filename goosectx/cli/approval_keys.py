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
from goosectx.cli.input_guard import guard_input
from goosectx.cli.prompt import PROMPT_STYLE
from goosectx.cli.prompt_safe import guard_escape_input
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
    guard_escape_input(keys)  # a colour sequence typed here: dropped, no traceback

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
    guard_input(app.input)  # ESC [ K, an OSC title typed: dropped whole, not an Escape
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
    key is never parted from its label. A label too long for a line of its own (a rule
    built from the model's command: what ``p`` / ``s`` will allow) is wrapped, never cut: its
    further lines hang under its first word (:func:`_wrap_cells`), and the next key starts a
    line of its own.
    """
    lead = f"{APPROVAL_MARKER} "
    indent = "  "
    out: list[tuple[str, str]] = [("class:approval.marker", lead),
                                  ("class:approval.question", f"Run {terminal_safe(tool_name)}? ")]
    line_start = get_cwidth(lead) + len(indent)  # where a continuation line's text starts
    used = get_cwidth(lead) + get_cwidth(out[1][1])
    room = max(8, width - line_start)  # a continuation line's
    sep = ""

    def new_line(hang: str = "") -> None:
        out.extend([("", "\n"), ("class:approval.marker", lead), ("", indent + hang)])

    for key, label in choices:
        head, text = f"[{key}] ", terminal_safe(label)
        item_cells = get_cwidth(head) + get_cwidth(text)
        if used + len(sep) + item_cells > width and used > line_start:
            new_line()
            used, sep = line_start, ""
        out += [("class:approval.key", f"{sep}[{key}]")]
        used += len(sep)
        if used + item_cells <= width:
            out.append(("class:approval.text", f" {text}"))
            used, sep = used + item_cells, "  "
            continue
        hang = " " * get_cwidth(head)
        parts = _wrap_cells(text, width - used - len(hang), room - len(hang))
        out.append(("class:approval.text", f" {parts[0]}"))
        for part in parts[1:]:
            new_line(hang)
            out.append(("class:approval.text", part))
        used, sep = width + 1, ""  # the next key starts a line of its own
    return out


def _wrap_cells(text: str, first_cells: int, cells: int) -> list[str]:
    """``text`` as lines of at most ``first_cells`` (the first) and ``cells`` screen cells.

    Broken where a word ends; a word longer than a line after its last ``-`` or ``/`` that
    fits (``docker-compose-`` / ``up``), else where the line is full. Nothing is dropped
    but the spaces at a break.
    """
    lines: list[str] = []
    rest, limit = text, max(1, first_cells)
    while get_cwidth(rest) > limit:
        fit, used = 0, 0
        for char in rest:
            used += get_cwidth(char)
            if used > limit:
                break
            fit += 1
        fit = max(1, fit)
        space = fit if fit < len(rest) and rest[fit] == " " else rest.rfind(" ", 0, fit)
        if space > 0:
            lines.append(rest[:space].rstrip(" "))
            rest = rest[space:].lstrip(" ")
        else:
            joint = max(rest.rfind("-", 0, fit), rest.rfind("/", 0, fit))
            at = joint + 1 if joint > 0 else fit
            lines.append(rest[:at])
            rest = rest[at:]
        limit = max(1, cells)
    return [*lines, rest] if rest or not lines else lines


def _exit_with(result: str) -> Callable[[KeyPressEvent], None]:
    """A key's action that ends the question with ``result``."""
    return lambda event: event.app.exit(result=result)


def _remind(event: KeyPressEvent, hint: list[tuple[str, str]]) -> None:
    """``y`` / ``a`` before a long call was viewed whole: say so, do not approve."""
    hint[:] = [("class:approval.question",
                f"\n{APPROVAL_MARKER} press {VIEW_KEY} to see the whole call first")]
    event.app.invalidate()
