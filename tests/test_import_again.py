"""A second import of the same source conversation, whatever file it comes in, is refused.

goose keeps a session in its ``sessions.db`` and exports it as JSON: both name the session's
goose id, and importing the second after the first made a silent duplicate (the content hash
differs). Hand-written goose files (shapes as in test_import_formats).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_support import run_cli as run
from test_import_formats import goose_db


def goose_export(path: Path, session_id: str, text: str = "task 1") -> Path:
    """``goose session export --format json`` of one short session."""
    path.write_text(json.dumps({
        "id": session_id, "name": f"Task {session_id}", "working_dir": "/work",
        "created_at": "2026-08-05 21:01:00", "updated_at": "2026-08-05 21:01:30",
        "conversation": [
            {"role": "user", "content": [{"type": "text", "text": text}], "created": 1785964761},
            {"role": "assistant", "content": [{"type": "text", "text": "done"}],
             "created": 1785964762}]}))
    return path


def sessions(capsys: pytest.CaptureFixture[str]) -> list[dict]:
    code, out, _ = run(capsys, "sessions", "list", "--json")
    assert code == 0
    return json.loads(out)


def test_a_goose_session_imported_from_the_db_is_refused_from_its_json_export(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = goose_db(tmp_path / "sessions.db")
    code, _, err = run(capsys, "sessions", "import", str(db), "--session", "s1")
    assert code == 0, err
    (first,) = sessions(capsys)
    code, out, err = run(capsys, "sessions", "import", str(goose_export(tmp_path / "s1.json",
                                                                         "s1")))
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert f"s1.json holds goose session s1, already imported as session {first['id']}" in err
    assert "--force" in err
    assert len(sessions(capsys)) == 1
    # --force makes the second copy on purpose
    code, out, err = run(capsys, "sessions", "import", str(tmp_path / "s1.json"), "--force")
    assert code == 0 and "imported" in out, err
    assert len(sessions(capsys)) == 2


def test_a_goose_export_then_the_whole_db_imports_only_the_sessions_not_imported_yet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "sessions", "import",
                         str(goose_export(tmp_path / "s2.json", "s2", "task 2")), "--name", "two")
    assert code == 0, err
    code, out, err = run(capsys, "sessions", "import", str(goose_db(tmp_path / "sessions.db")))
    assert code == 0, err
    assert out.count("imported ") == 1 and "goose-db session s1" in out, out
    assert "note: goose session s2 was already imported as session" in err and "(two)" in err
    assert [s["title"] for s in sessions(capsys)].count("task 2") == 1
    # the same export again under another name: refused, as every session of it is here
    copy = shutil.copy(tmp_path / "s2.json", tmp_path / "copy-of-s2.json")
    code, out, err = run(capsys, "sessions", "import", str(copy))
    assert code == 2 and "already imported" in err and "(two)" in err, err
    assert len(sessions(capsys)) == 2


def test_a_removed_import_can_be_imported_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = goose_export(tmp_path / "s1.json", "s1")
    assert run(capsys, "sessions", "import", str(export), "--name", "one")[0] == 0
    assert run(capsys, "sessions", "remove", "one", "--yes")[0] == 0
    code, _, err = run(capsys, "sessions", "import", str(goose_db(tmp_path / "g.db")))
    assert code == 0 and "already imported" not in err, err
    assert len(sessions(capsys)) == 2


def test_two_imports_of_one_file_at_once_keep_one_session(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Six ``sessions import`` of one file at once made 2-3 copies (tester B): each passed the
    "already imported" check before any had saved. The one that saved second takes its
    session back and is refused like any second import."""
    export = goose_export(tmp_path / "s9.json", "s9")
    code, _, err = run(capsys, "sessions", "import", str(export))
    assert code == 0, err
    (first,) = sessions(capsys)
    import goosectx.cli.import_checks as checks

    # the second import's checks ran before the first import had saved anything
    monkeypatch.setattr(checks, "already_imported", lambda store, kept, *_: [])
    calls: list[int] = []
    real = checks.refuse_second_import

    def racing(*args: object) -> None:
        calls.append(1)
        if len(calls) > 1:  # the check after saving sees the first import's session
            real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(checks, "refuse_second_import", racing)
    code, out, err = run(capsys, "sessions", "import", str(export))
    assert code == 2 and out == "", (out, err)
    assert f"s9.json was already imported as session {first['id']}" in err
    assert [s["id"] for s in sessions(capsys)] == [first["id"]]
