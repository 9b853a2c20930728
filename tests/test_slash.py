"""The slash-command parser: pure, no terminal."""

from __future__ import annotations

import pytest

from goosectx.cli import slash


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("/help", slash.Help()),
        ("/exit", slash.Exit()),
        ("/quit", slash.Exit()),
        ("  /EXIT  ", slash.Exit()),
        ("/compact", slash.Compact(None)),
        ("/compact keep the file list", slash.Compact("keep the file list")),
        ("/compact --extractive", slash.Compact(None, extractive=True)),
        ("/compact  --Extractive  keep the file list",
         slash.Compact("keep the file list", extractive=True)),
        ("/compact keep --extractive out", slash.Compact("keep --extractive out")),
        ("/clear", slash.Clear()),
        ("/mode", slash.Mode(None)),
        ("/mode auto", slash.Mode("auto")),
        ("/mode smart-approve", slash.Mode("smart_approve")),
        ("/model", slash.Model(None)),
        ("/model openai/gpt-4o-mini", slash.Model("openai/gpt-4o-mini")),
        ("/usage", slash.ShowUsage()),
        ("/context", slash.ShowContext()),
        ("/sessions", slash.Sessions()),
        ("/resume", slash.Sessions()),
        ("/resume bugfix", slash.Resume("bugfix")),
        ("/resume 'my task'", slash.Resume("my task")),  # fresh21b #01: names with a blank
        ('/resume "my task"', slash.Resume("my task")),
        ("/resume my\\ task", slash.Resume("my task")),
        ("/resume my task", slash.Resume("my task")),
        ("/history", slash.History("user")),
        ("/history agent", slash.History("agent")),
        ("/history USER", slash.History("user")),
    ],
)
def test_commands_parse_to_their_dataclass(line: str, expected: slash.SlashCommand) -> None:
    assert slash.parse_slash(line) == expected


@pytest.mark.parametrize(
    "line",
    ["hello", "what does /etc/hosts hold?", "/etc/hosts is odd", "//compact is a word", ""],
)
def test_prompts_are_not_commands(line: str) -> None:
    assert slash.parse_slash(line) is None


@pytest.mark.parametrize("line", ["/exit now", "/quit please", "/clear all"])
def test_a_command_that_takes_no_argument_refuses_one(line: str) -> None:
    result = slash.parse_slash(line)
    assert isinstance(result, slash.Invalid) and "takes no argument" in result.message


def test_double_slash_sends_a_leading_slash() -> None:
    assert slash.unescape_prompt("//compact me") == "/compact me"
    assert slash.unescape_prompt("plain") == "plain"


def test_unknown_command_gets_a_hint_with_the_closest_name() -> None:
    result = slash.parse_slash("/compcat")
    assert isinstance(result, slash.Invalid)
    assert "unknown command /compcat" in result.message
    assert "/compact" in result.hint


def test_unknown_command_without_a_close_match_still_points_at_help() -> None:
    result = slash.parse_slash("/frobnicate")
    assert isinstance(result, slash.Invalid)
    assert "/help" in result.hint


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("/mode yolo", "auto, approve, smart_approve, chat"),
        ("/history everything", "/history agent"),
        ("/clear now", "/clear alone"),
        ("/model a b", "one model name"),
        ("/resume 'a b", "a quote is not closed"),
    ],
)
def test_bad_arguments_are_invalid_with_a_hint(line: str, fragment: str) -> None:
    result = slash.parse_slash(line)
    assert isinstance(result, slash.Invalid)
    assert fragment in result.message + " " + result.hint


def test_every_listed_command_parses() -> None:
    for info in slash.COMMANDS:
        assert not isinstance(slash.parse_slash(info.name), slash.Invalid), info.name


@pytest.mark.parametrize("arg", ["١٢", "１２", "1e308", "1e3", "inf", "nan", "0", "-5",
                                 "1000001", "5 dollars", "1,000"])
def test_max_cost_takes_only_a_plain_decimal_amount_in_range(arg: str) -> None:
    command = slash.parse_slash(f"/max-cost {arg}")
    assert isinstance(command, slash.Invalid)
    assert "above 0 and up to 1,000,000, in digits 0-9" in command.message  # the range, said
    assert command.hint == "e.g. /max-cost 5"


@pytest.mark.parametrize(("arg", "usd"), [("12", 12.0), ("$0.25", 0.25), (".5", 0.5),
                                          ("1000000", 1_000_000.0), ("0.000001", 0.000001)])
def test_max_cost_accepts_plain_amounts(arg: str, usd: float) -> None:
    assert slash.parse_slash(f"/max-cost {arg}") == slash.MaxCost(usd)
