"""Lenient parsing of the summariser's reply (DESIGN.md §4.2(3))."""

from __future__ import annotations

from goosectx.compaction.parse import extract_json, parse_note_list, parse_summary
from goosectx.compaction.summary import render_markdown


def test_plain_json_object_fills_every_field() -> None:
    text = """{"user_intent": "add a CLI", "technical_concepts": ["typer", "sqlite"],
    "files": [{"path": "cli.py", "summary": "new", "key_code": "app = typer.Typer()"}],
    "errors_and_fixes": ["ImportError: fixed by installing typer"],
    "problem_solving": "chose typer", "user_messages": ["add a CLI", "use typer"],
    "pending_tasks": ["docs"], "current_work": "writing tests", "next_step": "run pytest"}"""
    s = parse_summary(text)
    assert s is not None
    assert s.user_intent == "add a CLI"
    assert s.technical_concepts == ["typer", "sqlite"]
    assert (s.files[0].path, s.files[0].summary, s.files[0].key_code) == (
        "cli.py", "new", "app = typer.Typer()")
    assert s.pending_tasks == ["docs"] and s.next_step == "run pytest"
    md = render_markdown(s)
    assert md.startswith("# Conversation Summary")
    for title in ("## User intent", "## Technical concepts", "## Files", "## Errors and fixes",
                  "## Problem solving", "## User messages", "## Pending tasks",
                  "## Current work", "## Next step"):
        assert title in md


def test_last_fenced_block_wins_over_earlier_ones_and_prose() -> None:
    text = ('Here is a draft:\n```json\n{"user_intent": "draft"}\n```\n'
            'Better:\n```json\n{"user_intent": "final", "next_step": "ship"}\n```\nDone {x}.')
    s = parse_summary(text)
    assert s is not None and s.user_intent == "final" and s.next_step == "ship"


def test_a_fenced_summary_whose_fields_hold_code_fences_parses() -> None:
    """test29e: the prompt asks for a ```json block and key_code verbatim; a field holding a
    fenced bash line ended the block at its own fence, and the summary was rejected."""
    text = ('```json\n{"user_intent": "fix", "current_work": "Wrote:\\n```bash\\nmake\\n```",'
            ' "files": [{"path": "a.py", "key_code": "```python\\nx = 1\\n```"}]}\n```\n')
    s = parse_summary(text)
    assert s is not None and s.user_intent == "fix"
    assert s.current_work == "Wrote:\n```bash\nmake\n```"
    assert s.files[0].key_code == "```python\nx = 1\n```"
    broken = parse_summary('```json\n{"user_intent": "fix", "current_work": "x```\n```\n')
    assert broken is None  # a block that parses at no closing fence is still no summary


def test_unfenced_object_at_the_start_is_found_with_braces_in_strings() -> None:
    # Rule changed on purpose (issue 12, stricter acceptance): an unfenced object counts only
    # when it starts the reply (or follows </analysis>); mid-prose it may be a quoted example.
    text = '{"user_intent": "fix {braces} in \\"quotes\\"", "next_step": "x"} Hope it helps'
    s = parse_summary(text)
    assert s is not None and s.user_intent == 'fix {braces} in "quotes"'
    assert parse_summary("Sure! " + text) is None


def test_numbers_booleans_objects_in_lists_become_text() -> None:
    text = ('{"user_intent": 42, "current_work": true, "technical_concepts": [3.5, false, '
            '{"name": "asyncio", "why": "io"}, "  ", null, ["a", "b"]], '
            '"problem_solving": {"approach": "bisect", "result": "found"}, '
            '"next_step": ["first", "second"]}')
    s = parse_summary(text)
    assert s is not None
    assert s.user_intent == "42" and s.current_work == "true"
    assert s.technical_concepts == ["3.5", "false", "name: asyncio; why: io", "a\nb"]
    assert s.problem_solving == "approach: bisect; result: found"
    assert s.next_step == "first\nsecond"


def test_object_where_a_list_is_expected_and_file_shapes() -> None:
    text = ('{"errors_and_fixes": {"ImportError": "installed the package"}, '
            '"pending_tasks": "write docs", '
            '"files": {"a.py": "edited", "b.py": {"summary": "new", "code": "x = 1"}}}')
    s = parse_summary(text)
    assert s is not None
    assert s.errors_and_fixes == ["ImportError: installed the package"]
    assert s.pending_tasks == ["write docs"]
    assert [(f.path, f.summary, f.key_code) for f in s.files] == [
        ("a.py", "edited", ""), ("b.py", "new", "x = 1")]


def test_file_list_of_strings_and_blank_items_dropped() -> None:
    s = parse_summary('{"files": ["src/x.py", "", {"path": ""}, {"file": "y.py"}], '
                      '"user_messages": ["hi", "", "   "]}')
    assert s is not None
    assert [f.path for f in s.files] == ["src/x.py", "y.py"]
    assert s.user_messages == ["hi"]


def test_unknown_keys_are_kept_and_rendered() -> None:
    s = parse_summary('{"user_intent": "x", "open_questions": ["which db?"], "mood": "good"}')
    assert s is not None
    assert s.extra == {"open_questions": ["which db?"], "mood": "good"}
    md = render_markdown(s)
    assert "## Open questions" in md and "which db?" in md and "## Mood" in md


def test_truncated_json_gives_none_so_the_raw_text_is_kept() -> None:
    assert parse_summary('```json\n{"user_intent": "build it", "files": [{"path": "a.') is None
    assert parse_summary('{"user_intent": "build it", "next_step": "te') is None


def test_no_json_or_empty_object_gives_none() -> None:
    assert parse_summary("The user wanted a parser; it is done.") is None
    assert parse_summary("{}") is None
    assert parse_summary('["a", "b"]') is None


def test_trailing_comma_and_summary_wrapper_are_tolerated() -> None:
    s = parse_summary('{"summary": {"user_intent": "wrapped", "pending_tasks": ["a",],},}')
    assert s is not None and s.user_intent == "wrapped" and s.pending_tasks == ["a"]


def test_note_list_parsing() -> None:
    assert parse_note_list('```json\n["one", {"k": 1}, 7]\n```', 4) == [
        "one", "k: 1", "7", None]
    assert parse_note_list('Notes: ["a", "  ", "c"] thanks', 3) == ["a", None, "c"]
    assert parse_note_list('{"1": "first", "3": "third"}', 3) == ["first", None, "third"]
    assert parse_note_list("no json at all", 2) == [None, None]
    assert parse_note_list('["a", "multi\\nline   note"]', 2) == ["a", "multi line note"]


# -- stricter acceptance (issue 12, point 4) ------------------------------------------------
def test_an_object_with_only_unknown_keys_is_not_a_summary() -> None:
    assert parse_summary('{"status": "ok"}') is None
    assert parse_summary('```json\n{"status": "ok", "result": 3}\n```') is None
    assert parse_summary('{"user_intent": "", "pending_tasks": []}') is None


def test_json_only_inside_the_analysis_is_not_a_summary() -> None:
    reply = ('<analysis>The user wanted {"user_intent": "x"} — I will write it below.'
             '</analysis>\nSorry, I cannot summarise this.')
    assert parse_summary(reply) is None
    after = '<analysis>thinking {"user_intent": "wrong"}</analysis>\n{"user_intent": "right"}'
    parsed = parse_summary(after)
    assert parsed is not None and parsed.user_intent == "right"


def test_a_quoted_example_mid_prose_is_not_a_summary() -> None:
    reply = ('I would normally answer with an object such as {"user_intent": "example"}, '
             "but here is my summary in prose: the user fixed the parser.")
    assert parse_summary(reply) is None


def test_untagged_fence_and_leading_object_are_accepted() -> None:
    fenced = parse_summary('Here:\n```\n{"next_step": "run the tests"}\n```')
    leading = parse_summary('{"current_work": "the loader"} and some trailing words')
    assert fenced is not None and fenced.next_step == "run the tests"
    assert leading is not None and leading.current_work == "the loader"


def test_an_object_nested_past_the_limit_reads_as_an_ellipsis_once_per_level() -> None:
    deep = '{"a": ' * 40 + '"bottom"' + "}" * 40  # each level was read twice: 2⁴⁰ steps
    s = parse_summary(f'{{"user_intent": {deep}, "pending_tasks": [[[["x"]]]]}}')
    assert s is not None
    assert s.user_intent.startswith("a: a: a:") and s.user_intent.endswith("…")
    assert "bottom" not in s.user_intent
    assert s.pending_tasks == ["x"]  # a few levels are read through


def test_json_deeper_than_the_parser_recurses_is_no_summary_not_a_recursion_error() -> None:
    assert parse_summary('{"user_intent": ' + "[" * 5000 + "1" + "]" * 5000 + "}") is None


def test_the_first_object_that_closes_is_found_past_thousands_of_unclosed_ones() -> None:
    text = "".join(f'{{"k{i}": ' for i in range(5000)) + ' {"user_intent": "fix it"} '
    assert extract_json(text) == {"user_intent": "fix it"}
    assert extract_json('say {"a": "}{", "b": [1, {"c": 2}]} then {"d": 3}') == {
        "a": "}{", "b": [1, {"c": 2}]}


def test_fields_of_a_type_no_lenient_reading_fits_make_no_summary() -> None:
    assert parse_summary('{"user_intent": "x", "files": "notalist"}') is None
    assert parse_summary('{"user_intent": "x", "files": [3, "a.py"]}') is None
    assert parse_summary('{"user_intent": "x", "pending_tasks": 2}') is None
    assert parse_summary('{"user_intent": "x", "errors_and_fixes": true}') is None
    kept = parse_summary('{"user_intent": "x", "files": [null, "a.py"], "pending_tasks": null}')
    assert kept is not None and [f.path for f in kept.files] == ["a.py"]


def test_an_unknown_keys_nulls_are_left_out_and_booleans_read_as_json() -> None:
    s = parse_summary('{"user_intent": "x", "checks": [{"lint": null, "tests": true}, null]}')
    assert s is not None
    assert "## Checks\n\n- tests: true\n" in render_markdown(s)
