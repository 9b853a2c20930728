"""A model's summary fields never come back as goosectx's facts "(from the transcript)".

A summary reply named a file no tool touched (``ghost.py``, "deleted by rm") and an error no
tool gave; the next compaction's summary came back empty. What the model is sent next must not
list either under a heading marked "(from the transcript)", while a file a tool did write
stays listed through every compaction (as a fact, or in an extractive summary's own list).
"""

from __future__ import annotations

import json

from compaction_support import REQUEST, chat, collect, make_session, manager, tool_pair, words

from goosectx.conversation import Message
from goosectx.providers.scripted import ScriptedProvider
from goosectx.session import Session

INVENTED = {
    "user_intent": "fix the parser",
    "files": [{"path": "ghost.py", "summary": "deleted by rm"}],
    "errors_and_fixes": ["TypeError: invented by the model, still failing"],
    "next_step": "go on",
}
WINDOW = {"keep_recent_ratio": 0.0, "keep_user_tokens": 0}


def marked(text: str) -> str:
    """The lines under each ``## … (from the transcript)`` heading of ``text``."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line.endswith("(from the transcript)")
        elif inside and line.strip():
            out.append(line)
    return "\n".join(out)


def _sent(session: Session) -> str:
    return "\n".join(m.text for m in session.conversation.agent_view())


def test_model_files_and_errors_are_never_facts_of_the_next_compaction() -> None:
    session = make_session([Message.user("Fix the parser."),
                            *tool_pair("ok", name="write_file",
                                       args={"path": "real.py", "content": "x = 1\n"}),
                            *chat(6, 200), Message.user("go on")])
    model = ScriptedProvider([json.dumps(INVENTED), "{}", "{}"], context_limit_tokens=8000)
    views = []
    for n in range(3):
        collect(manager(session, model, **WINDOW).compact(REQUEST, strategy="llm",
                                                          instructions="x"))
        views.append(_sent(session))
        for m in [*tool_pair(words(600), args={"command": f"pytest -q -k step{n}"}),
                  *chat(2, 200), Message.user(f"go on {n}")]:
            session.conversation.append(m)
    assert "ghost.py" in views[0]  # the model's own list, shown as its own
    assert "real.py" in marked(views[0])  # the model's summary did not name it
    assert "ghost.py" not in views[1] + views[2]  # the extractive ones: no made-up file
    for view in views:
        facts = marked(view)
        assert "`real.py`: written" in view, view  # a file a tool wrote stays listed
        assert "ghost.py" not in facts and "invented by the model" not in facts, (facts, view)
