"""Which pager ``/show N`` runs, and whether it gets colour codes (``cli/pager.py``)."""

from __future__ import annotations

import shutil

import pytest

from goosectx.cli.pager import choose_pager

TERM = {"TERM": "xterm-256color", "PATH": "/usr/bin:/bin"}


@pytest.mark.skipif(shutil.which("less") is None, reason="needs less")
def test_less_by_default_shows_colours_with_less_r() -> None:
    chosen = choose_pager(TERM)
    assert chosen is not None and chosen.command == "less"
    assert chosen.env["LESS"] == "-R" and chosen.styles


@pytest.mark.parametrize(("env", "styles", "less"), [
    ({"PAGER": "less"}, True, "-R"),  # LESS unset: -R given
    ({"PAGER": "less", "LESS": "-FX"}, False, "-FX"),  # the user's LESS kept: no codes sent
    ({"PAGER": "less", "LESS": "-FRX"}, True, "-FRX"),
    ({"PAGER": "less -R", "LESS": "-X"}, True, "-X"),
    ({"PAGER": "/usr/bin/less", "LESS": "--quit-if-one-screen"}, False, None),
    ({"PAGER": "less", "LESS": "--RAW-CONTROL-CHARS"}, True, None),
    ({"PAGER": "sed s/^/PAGED:/"}, True, None),
    ({"PAGER": "less", "TERM": "dumb"}, False, None),
])
def test_a_pager_gets_colour_codes_only_when_it_shows_them(env: dict[str, str], styles: bool,
                                                           less: str | None) -> None:
    chosen = choose_pager({**TERM, **env})
    assert chosen is not None and chosen.command == env["PAGER"]
    assert chosen.styles is styles
    if less is not None:
        assert chosen.env["LESS"] == less
