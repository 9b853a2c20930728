"""``sessions list`` / ``sessions search`` columns: padded by display width, not characters.

A CJK character takes two terminal cells; padding by ``len()`` pushed every column after a
Chinese title one cell right per character (tester, wave 16).
"""

import os
import subprocess
import sys

from rich.cells import cell_len

from goosectx.conversation import Message
from goosectx.store import SessionStore

CJK_TITLE = "修复数据库连接池的内存泄漏问题"


def goosectx(home, *args):
    config = home / "none.toml"
    config.touch()
    env = {**os.environ, "GOOSECTX_HOME": str(home), "GOOSECTX_CONFIG": str(config),
           "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("GOOSE_MODEL", None)
    return subprocess.run([sys.executable, "-m", "goosectx", *args], env=env,
                          capture_output=True, text=True, timeout=60)



def test_list_aligns_columns_after_a_cjk_title(tmp_path):
    home = tmp_path / "home"
    store = SessionStore(home)
    for name, title in (("cjk", CJK_TITLE), ("en", "fix the parser"), ("mixed", "修复 parser")):
        session = store.create_session(tmp_path, name=name)
        store.append_message(session.id, Message.user(title))
    store.close()
    proc = goosectx(home, "sessions", "list")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(CJK_TITLE in line for line in lines)
    source_at = cell_len(lines[0][:lines[0].index("source")])
    for line in lines[1:]:  # every row's source cell starts under the header
        assert cell_len(line[:line.index("goosectx")]) == source_at, proc.stdout


def test_search_aligns_columns_after_a_cjk_title(tmp_path):
    home = tmp_path / "home"
    store = SessionStore(home)
    for name, title in (("cjk", CJK_TITLE + " parser"), ("en", "fix the parser")):
        session = store.create_session(tmp_path, name=name)
        store.append_message(session.id, Message.user(title))
    store.close()
    proc = goosectx(home, "sessions", "search", "parser")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    found_at = cell_len(lines[0][:lines[0].index("found in")])
    for line in lines[1:]:
        assert cell_len(line[:line.index("title, 1 message")]) == found_at, proc.stdout


def test_list_writes_the_message_count_with_thousands_separators(tmp_path):
    # tester 28b: the messages column printed 120000 while the other figures read 120,000
    home = tmp_path / "home"
    store = SessionStore(home)
    session = store.create_session(tmp_path, name="big")
    for i in range(1001):
        store.append_message(session.id, Message.user(f"m{i}"))
    store.close()
    proc = goosectx(home, "sessions", "list")
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if " big " in line)
    assert " 1,001 " in row and " 1001 " not in row, proc.stdout
