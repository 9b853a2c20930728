"""What the REPL draws as it opens on a session, before its first prompt.

The banner (version, session, model and where it came from, mode, auto-compaction), then one
line each: the note for ``--continue`` that found nothing to continue here (a new session
started instead), the session's start warnings (``cli.start_warnings``) and the permission
rules' (``cli.repl_extensions``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from goosectx.cli import repl_extensions, reports
from goosectx.cli.start_warnings import nothing_to_continue, start_warnings

if TYPE_CHECKING:
    from goosectx.cli.repl import Repl


def draw_opening(repl: Repl) -> None:
    """Draw ``repl``'s banner and its opening notes and warnings."""
    model_name = repl.loader.model_name
    settings = repl.settings
    repl.renderer.print(reports.banner(
        repl.session, model=model_name, mode=repl.mode, resumed=repl.resumed,
        mode_restored=repl.mode_restored,
        model_note=repl.model_choice.note("/model") if repl.model_choice else "",
        auto_compaction=reports.auto_compaction_note(
            settings, manages_own_context=settings.model_config(model_name).manages_own_context,
            paused=repl.session.state.auto_compaction_paused),
        plain=repl.io.plain))
    if repl.opened is not None and (note := nothing_to_continue(repl.opened)) is not None:
        repl.renderer.notice(f"note: {note}", style="yellow")
    for warning in start_warnings(repl.session, resumed=repl.resumed):
        repl.renderer.notice(f"warning: {warning}", style="yellow")
    for warning in repl_extensions.rule_warnings(repl):
        repl.renderer.notice(f"warning: {warning}", style="yellow")
