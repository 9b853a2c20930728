"""The tree tool: .gitignore respected, .git skipped, depth and cap honoured."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from goosectx.tools.base import ToolContext
from goosectx.tools.tree import TreeTool


def make(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    make(root, {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".gitignore": "*.log\nbuild/\n!keep.log\n",
        "README.md": "",
        "app.log": "",
        "keep.log": "",
        "build/out.bin": "",
        "src/main.py": "",
        "src/.gitignore": "generated_*.py\n!generated_ok.py\n",
        "src/generated_x.py": "",
        "src/generated_ok.py": "",
        "src/pkg/deep/deeper/leaf.py": "",
        "src/debug.log": "",
    })
    return root


def listing(ctx: ToolContext, **arguments: object) -> str:
    result = TreeTool().run(arguments, ctx)
    assert not result.is_error, result.output
    return result.output


def test_tree_respects_gitignore_and_skips_git(repo: Path) -> None:
    ctx = ToolContext(working_dir=repo)
    assert listing(ctx, depth=10) == "\n".join([
        f"{repo}/",
        "  src/",
        "    pkg/",
        "      deep/",
        "        deeper/",
        "          leaf.py",
        "    .gitignore",
        "    generated_ok.py",
        "    main.py",
        "  .gitignore",
        "  keep.log",
        "  README.md",
    ])


def test_listing_a_subdirectory_applies_the_repository_root_gitignore(repo: Path) -> None:
    ctx = ToolContext(working_dir=repo)
    output = listing(ctx, path="src", depth=1)
    assert "debug.log" not in output  # ignored by the root .gitignore's *.log
    assert "generated_x.py" not in output
    assert "  main.py" in output
    assert "  pkg/ (1 entries, deeper than depth)" in output


def test_depth_limits_levels_and_counts_what_is_below(repo: Path) -> None:
    ctx = ToolContext(working_dir=repo)
    output = listing(ctx, depth=2)
    assert "    pkg/ (1 entries, deeper than depth)" in output
    assert "deeper" not in output.replace("deeper than depth", "")


def test_output_is_capped_with_a_count_of_what_was_left_out(tmp_path: Path) -> None:
    make(tmp_path, {f"file_{i:04}.txt": "" for i in range(500)})
    ctx = ToolContext(working_dir=tmp_path, max_output_chars=1_000)
    output = listing(ctx)
    assert len(output) <= 1_000
    shown = sum(1 for line in output.splitlines() if line.startswith("  file_"))
    assert f"[... {500 - shown:,} more entries not shown" in output


def test_a_newline_in_a_name_is_shown_escaped_and_cannot_forge_an_entry(tmp_path: Path) -> None:
    (tmp_path / "new\n  forged.txt").write_text("")
    (tmp_path / "dir\rx").mkdir()
    (tmp_path / "plain name 日本.txt").write_text("")
    (tmp_path / "link\nname").symlink_to("tar\nget")
    output = listing(ToolContext(working_dir=tmp_path))
    assert output.splitlines()[1:] == ["  dir\\rx/", "  link\\nname -> tar\\nget",
                                       "  new\\n  forged.txt", "  plain name 日本.txt"]


def test_missing_directory_and_bad_depth_are_errors(tmp_path: Path) -> None:
    ctx = ToolContext(working_dir=tmp_path)
    assert TreeTool().run({"path": "nope"}, ctx).is_error
    assert TreeTool().run({"depth": 0}, ctx).is_error
    assert TreeTool().run({"depth": "2"}, ctx).is_error


def test_tree_is_read_only() -> None:
    assert TreeTool().is_read_only({})


def test_an_entry_that_cannot_be_read_is_marked_and_the_rest_listed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a root-owned 0700 docker volume, /proc/1/fd/0: tree(1) lists the rest and marks them
    make(tmp_path, {"a/x.txt": "", "locked/secret.txt": "", "deep/locked2/y.txt": "",
                    "z.txt": ""})
    (tmp_path / "fd").symlink_to("x.txt")
    locked = {str(tmp_path / "locked"), str(tmp_path / "deep" / "locked2"), str(tmp_path / "fd")}
    scandir, readlink = os.scandir, os.readlink

    def named(path: Any, dir_fd: int | None) -> str:
        """The path a call names (tree opens directories and lists them by descriptor)."""
        if isinstance(path, int):
            return readlink(f"/proc/self/fd/{path}")
        if dir_fd is not None:
            return os.path.join(readlink(f"/proc/self/fd/{dir_fd}"), path)
        return os.fspath(path)

    def denied(real: Any) -> Any:
        def call(path: Any, *args: Any, **kwargs: Any) -> Any:
            if named(path, kwargs.get("dir_fd")) in locked:
                raise PermissionError(13, "Permission denied", named(path, kwargs.get("dir_fd")))
            return real(path, *args, **kwargs)
        return call

    monkeypatch.setattr(os, "scandir", denied(scandir))
    monkeypatch.setattr(os, "readlink", denied(readlink))
    result = TreeTool().run({"depth": 2}, ToolContext(working_dir=tmp_path))
    assert not result.is_error, result.output
    assert result.output.splitlines() == [
        f"{tmp_path}/",
        "  a/",
        "    x.txt",
        "  deep/",
        "    locked2/ (cannot list: Permission denied)",
        "  locked/ (cannot list: Permission denied)",
        "  fd -> ? (cannot read the link: Permission denied)",
        "  z.txt",
    ]


def test_a_root_that_cannot_be_listed_is_an_error_saying_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(path: Any) -> Any:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "scandir", denied)
    result = TreeTool().run({}, ToolContext(working_dir=tmp_path))
    assert result.is_error and result.output == f"{tmp_path} cannot be listed: Permission denied"


def test_a_huge_subdirectory_does_not_hide_the_top_level(tmp_path: Path) -> None:
    """Depth-first, a 20,000-file directory spent the whole cap and the files beside it were
    never listed, the hint not saying the top level was cut."""
    big = tmp_path / "big"
    big.mkdir()
    for i in range(20_000):
        (big / f"f{i:05}.txt").touch()
    make(tmp_path, {"README.md": "", "setup.py": "", "src/app.py": ""})
    output = listing(ToolContext(working_dir=tmp_path, max_output_chars=4_000))
    lines = output.splitlines()
    assert lines[1:4] == ["  big/", "    f00000.txt", "    f00001.txt"]
    for name in ("  src/", "    app.py", "  README.md", "  setup.py"):
        assert name in lines, output
    shown = sum(1 for line in lines if line.startswith("    f"))
    assert lines[-1].startswith(f"[... {20_000 - shown:,} more entries not shown (big/ "
                                f"{20_000 - shown:,}); list a subdirectory"), lines[-1]
    assert len(output) <= 4_000


def test_a_cut_top_level_is_named_in_the_hint(tmp_path: Path) -> None:
    make(tmp_path, {f"file_{i:04}.txt": "" for i in range(500)})
    output = listing(ToolContext(working_dir=tmp_path, max_output_chars=1_000))
    assert "more entries not shown (the top level " in output.splitlines()[-1]
