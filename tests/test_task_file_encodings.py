"""A task file saved by a Windows editor: UTF-16 with a byte order mark, or UTF-8 with one.

``run -i task.txt`` refused a UTF-16 file as "not text (it holds NUL bytes): a binary file?";
it is now read as the text it is (its BOM says the encoding and byte order unambiguously). A
UTF-8 BOM at the start of a task file or of piped input reached the model as U+FEFF: it is
dropped. An @mentioned file (read by the file tools' reader, not this one) loses its UTF-8 BOM
too, and a UTF-16 one is not attached with a notice saying it is UTF-16 and how to convert it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fakeserver import FakeServer
from test_run_cmd import Run

from goosectx.cli.run_cmd import run_task
from goosectx.config import load_settings
from goosectx.errors import UsageError

TASK = "Résumé: fix the ✓ test\nthen run it\n"


def sent(server: FakeServer) -> str:
    return str(server.requests[-1]["messages"][-1]["content"])


@pytest.mark.parametrize("data", [b"\xff\xfe" + TASK.encode("utf-16-le"),
                                  b"\xfe\xff" + TASK.encode("utf-16-be"),
                                  b"\xef\xbb\xbf" + TASK.encode()],
                         ids=["utf-16-le", "utf-16-be", "utf-8-bom"])
def test_a_task_file_with_a_bom_reaches_the_model_as_its_text(
        fake_model: FakeServer, workdir: Path, data: bytes) -> None:
    (workdir / "task.txt").write_bytes(data)
    fake_model.add({"text": "done"})
    run = Run(input_file="task.txt")
    assert run.code == 0, run.err
    assert sent(fake_model) == TASK


def test_a_utf8_bom_on_stdin_is_dropped(fake_model: FakeServer, workdir: Path) -> None:
    fake_model.add({"text": "done"})
    out, err = io.StringIO(), io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbf" + TASK.encode()), encoding="utf-8")
    code = run_task(load_settings(), text=None, input_file="-", name=None, resume=None,
                    continue_=False, max_turns=None, output_format="text", mode=None,
                    model=None, stdin=stdin, stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert sent(fake_model) == TASK.rstrip()  # (the closing newline is no text)


def test_broken_utf16_is_refused_with_the_iconv_line(fake_model: FakeServer,
                                                     workdir: Path) -> None:
    (workdir / "task.txt").write_bytes(b"\xff\xfe" + "ok".encode("utf-16-le") + b"\x00\xd8")
    with pytest.raises(UsageError) as caught:
        Run(input_file="task.txt")
    assert caught.value.one_line() == (
        "task file task.txt starts as UTF-16 text but is not valid UTF-16 — convert it to "
        "UTF-8 first: iconv -f UTF-16 -t UTF-8 task.txt > task-utf8.txt")
    assert fake_model.requests == []


def test_mentioned_files_lose_a_utf8_bom_and_utf16_ones_say_so(
        fake_model: FakeServer, workdir: Path) -> None:
    (workdir / "bom.txt").write_bytes(b"\xef\xbb\xbfhello from bom\n")
    (workdir / "wide.txt").write_bytes(b"\xff\xfe" + "wide text\n".encode("utf-16-le"))
    fake_model.add({"text": "done"})
    run = Run(text="read @bom.txt and @wide.txt")
    assert run.code == 0, run.err
    sent_all = json.dumps(fake_model.requests[-1]["messages"], ensure_ascii=False)
    assert "hello from bom" in sent_all and "\ufeff" not in sent_all
    assert ("goosectx: @wide.txt: it is UTF-16 text, not UTF-8 — not attached; convert it: "
            "iconv -f UTF-16 -t UTF-8 wide.txt > wide-utf8.txt") in run.err.splitlines()
