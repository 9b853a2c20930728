"""The option table lists each program once: a later entry for the same program (a spread
table's and a literal's) would silently replace the earlier one's options."""

from __future__ import annotations

import ast
from pathlib import Path

from goosectx import option_programs as option_table  # the table lives there


def test_no_program_is_listed_twice_in_the_option_table() -> None:
    tree = ast.parse(Path(option_table.__file__).read_text(encoding="utf-8"))
    table = next(node.value for node in tree.body if isinstance(node, ast.AnnAssign)
                 and isinstance(node.target, ast.Name) and node.target.id == "OPTIONS")
    assert isinstance(table, ast.Dict)
    listed: list[str] = []
    for key, value in zip(table.keys, table.values, strict=True):
        if key is None:  # **_WRITTEN_FILES, **dict.fromkeys(…): the spread table's programs
            spread = eval(compile(ast.Expression(value), "option_table", "eval"),  # noqa: S307
                          vars(option_table))
            listed += list(spread)
        else:
            assert isinstance(key, ast.Constant)
            listed.append(key.value)
    assert len(listed) > 50
    assert sorted({name for name in listed if listed.count(name) > 1}) == []
