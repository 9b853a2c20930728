"""``@``-completion of an extension resource: the server-given URI is inserted quoted when
it must be (a space, a closing bracket at its end, a line break), so the line reads back as
the same reference, and a URI that would put a raw control or invisible character into the
line (a terminal escape, a bidi override) is not offered at all."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from goosectx.cli.repl_extensions import ResourceCompleter
from goosectx.cli.sanitize import terminal_safe
from goosectx.extensions.mentions import resource_words


def _complete(typed: str, *uris: str) -> list[Any]:
    resources = [SimpleNamespace(uri=uri, name=f"res\x1b[2J{i}") for i, uri in enumerate(uris)]
    status = SimpleNamespace(name="demo", resources=resources)
    repl = SimpleNamespace(extensions=SimpleNamespace(statuses=lambda: [status]))
    return list(ResourceCompleter(repl).get_completions(Document(typed),  # type: ignore[arg-type]
                                                        CompleteEvent()))


@pytest.mark.parametrize("uri", [
    "file:///my notes.txt", "file:///draft(1)", "note://a\"b\\c", "file:///x.", "memo://two\nlines",
    "file:///tab\there"])
def test_the_inserted_reference_reads_back_as_the_same_resource(uri: str) -> None:
    (completion,) = _complete("read @de", uri)
    line = f"read {completion.text} please"
    assert resource_words(line, {"demo"}) == [("demo", uri)]
    assert terminal_safe(completion.text) == completion.text  # nothing raw in the line


def test_a_plain_uri_is_inserted_as_it_is() -> None:
    (completion,) = _complete("read @demo:fi", "file:///notes.txt")
    assert completion.text == "@demo:file:///notes.txt"
    assert resource_words(f"read {completion.text}.", {"demo"}) == [("demo", "file:///notes.txt")]


def test_a_uri_with_a_terminal_escape_or_bidi_override_is_not_offered() -> None:
    got = _complete("@de", "file:///ok.txt", "x://\x1b]0;owned\x07", "x://a\u202etxt")
    assert [c.text for c in got] == ["@demo:file:///ok.txt"]
    shown = "".join(text for c in got for _s, text, *_ in [*c.display, *c.display_meta])
    assert "\x1b" not in shown and "\u202e" not in shown and "res" in shown
