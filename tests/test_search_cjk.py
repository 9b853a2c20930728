"""CJK words in ``/search`` and ``sessions search``: a word inside a run of CJK text is found.

SQLite's unicode61 tokenizer reads a whole run of CJK characters as one token, so searching
数据库 in 我们的数据库配置 found nothing (and the plain scan, which wants whole words, agreed).
A search word with CJK characters now matches as a substring, with and without the full-text
index; latin words still match whole words (``lex`` does not find ``lexer``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_support import cli
from test_repl import CTRL_D, ENTER, World, world  # noqa: F401 - the REPL fixture

from goosectx.conversation import Message
from goosectx.store import SessionStore

FILLER = "很" * 1500


@pytest.mark.parametrize("index", [True, False], ids=["fts5", "scan"])
def test_repl_search_finds_a_cjk_word_inside_a_run(
        world: World, monkeypatch: pytest.MonkeyPatch, index: bool) -> None:  # noqa: F811
    if not index:  # as with a SQLite without FTS5: the transcript is scanned
        monkeypatch.setattr(SessionStore, "search_available", lambda self: False)
    for message in (Message.user("我们的数据库配置有问题"),
                    Message.assistant("请检查数据库的连接字符串, then run the lexer"),
                    Message.user("データベースの設定を確認して"),
                    Message.assistant("데이터베이스를 확인하세요"),
                    Message.user(f"{FILLER}端口号{FILLER}")):
        world.store.append_message(world.session.id, message)
    world.session = world.stored()
    out = world.run("".join(f"/search {words}" + ENTER for words in (
        "数据库", "配置", "数据库 lexer", "データベース", "데이터베이스", "端口号", "lex", "缓存",
    )) + CTRL_D)
    text = " ".join(out.split())
    assert "2 messages of this session match '数据库'" in text
    assert "1 message of this session matches '配置'" in text
    assert "1 message of this session matches '数据库 lexer'" in text
    assert "1 message of this session matches 'データベース'" in text
    assert "1 message of this session matches '데이터베이스'" in text
    assert "1 message of this session matches '端口号'" in text
    assert out.count("很") < 120  # the excerpt of a long CJK run is a few words' worth
    assert "No message of this session mentions 'lex'" in text
    assert "No message of this session mentions '缓存'" in text


def test_sessions_search_finds_a_cjk_word_in_titles_and_messages(
        work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore(Path(os.environ["GOOSECTX_HOME"]))
    try:
        for name, messages in (
                ("alpha", [Message.user("我们的数据库配置有问题"), Message.assistant("好的")]),
                ("beta", [Message.user("hello"), Message.assistant("请检查数据库连接")]),
                ("gamma", [Message.user("nothing here"), Message.assistant("没有")])):
            session = store.create_session(work, name=name)
            for message in messages:
                store.append_message(session.id, message)
    finally:
        store.close()
    hits = json.loads(cli(capsys, "sessions", "search", "数据库", "--json")[0])
    assert sorted(h["name"] for h in hits) == ["alpha", "beta"]
    assert next(h for h in hits if h["name"] == "alpha")["in_title"] is True
    beta = next(h for h in hits if h["name"] == "beta")
    assert beta["message_hits"] == 1 and beta["match"]["message"] == 2
    out, _ = cli(capsys, "sessions", "search", "连接")
    assert "beta" in out and "alpha" not in out and "请检查数据库连接" in out
    assert "No session mentions '缓存'." in cli(capsys, "sessions", "search", "缓存")[0]
    assert "No session mentions 'hell'." in cli(capsys, "sessions", "search", "hell")[0]
