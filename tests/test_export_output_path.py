"""``sessions export -o``: goosectx's own files are refused, an unwritable path is one line.

An export written over ``sessions.db`` (or its WAL, a lock file, any file of the data dir, a
symlink or hard link to one) lost every session; a read-only or forbidden directory gave a
traceback. Each is now one line, exit 2, and nothing is written.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from test_cli_sessions import config_file, filled, goosectx  # noqa: F401  (the fixture)


def _refused(home: Path, target: Path) -> str:
    db = home / "sessions.db"
    before = db.read_bytes()
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", str(target))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "exported" not in proc.stderr
    assert db.read_bytes() == before
    listed = goosectx(home, "sessions", "list")
    assert listed.returncode == 0 and "bugfix" in listed.stdout
    return proc.stderr


def test_export_over_the_session_database_is_refused(filled, tmp_path):  # noqa: F811
    home, _ = filled
    line = _refused(home, home / "sessions.db")
    assert "goosectx's own" in line and "-o" in line
    for name in ("sessions.db-wal", "sessions.db-shm", "sessions.db-journal", "goosectx.log",
                 "locks/x.lock", "new.md"):
        _refused(home, home / name)
        assert not (home / name).exists() or name == "goosectx.log"


def test_a_symlink_or_hard_link_to_the_database_is_refused(filled, tmp_path):  # noqa: F811
    home, _ = filled
    link = tmp_path / "link.md"
    link.symlink_to(home / "sessions.db")
    _refused(home, link)
    hard = tmp_path / "hard.md"
    os.link(home / "sessions.db", hard)
    _refused(home, hard)
    assert hard.stat().st_ino == (home / "sessions.db").stat().st_ino


def test_an_ordinary_file_beside_it_is_still_written(filled, tmp_path):  # noqa: F811
    home, _ = filled
    out = tmp_path / "sessions.db"  # the same name elsewhere is the user's
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "please fix the bug" in out.read_text()


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="no /sys")
def test_a_forbidden_directory_is_one_line_exit_2(filled, tmp_path):  # noqa: F811
    home, _ = filled
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", "/sys/x.md")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("goosectx: error: cannot write /sys/x.md")
    assert "somewhere else" in proc.stderr


def test_a_read_only_file_system_is_one_line_exit_2(filled, tmp_path, capsys,  # noqa: F811
                                                     monkeypatch):
    from cli_support import run_cli

    home, _ = filled
    monkeypatch.setenv("GOOSECTX_HOME", str(home))

    def read_only(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    code, out, err = run_cli(capsys, "sessions", "export", "bugfix", "-o", str(tmp_path / "x.md"))
    assert code == 2, err
    assert err == (f"goosectx: error: cannot write {tmp_path / 'x.md'}: Read-only file system"
                   " — write the export somewhere else\n")
    assert list(tmp_path.glob("*x.md*")) == []


def test_an_existing_file_keeps_its_mode_and_a_new_one_is_private(filled, tmp_path):  # noqa: F811
    """Exporting over the user's 0644 file left a 0600 file; through a symlink, its target's."""
    home, _ = filled
    mine = tmp_path / "notes.md"
    mine.write_text("old\n")
    os.chmod(mine, 0o644)
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", str(mine))
    assert proc.returncode == 0, proc.stderr
    assert "please fix the bug" in mine.read_text()
    assert mine.stat().st_mode & 0o777 == 0o644
    link = tmp_path / "link.md"
    link.symlink_to(mine)
    os.chmod(mine, 0o640)
    proc = goosectx(home, "sessions", "export", "bugfix", "-f", "json", "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and mine.read_text().startswith("{")
    assert mine.stat().st_mode & 0o777 == 0o640
    new = tmp_path / "new.md"  # a new file: private (an export holds the conversation)
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", str(new))
    assert proc.returncode == 0, proc.stderr
    assert new.stat().st_mode & 0o777 == 0o600


def test_a_file_with_other_hard_links_is_named_in_one_line(filled, tmp_path):  # noqa: F811
    home, _ = filled
    mine = tmp_path / "notes.md"
    mine.write_text("old\n")
    other = tmp_path / "other-name.md"
    os.link(mine, other)
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", str(mine))
    assert proc.returncode == 0, proc.stderr
    assert "please fix the bug" in mine.read_text()
    assert other.read_text() == "old\n"  # the atomic write gives the name a new file
    warned = [line for line in proc.stderr.splitlines() if "hard link" in line]
    assert len(warned) == 1 and str(mine) in warned[0] and "old contents" in warned[0]


def test_an_empty_path_asks_for_a_file_name(filled, tmp_path):  # noqa: F811
    home, _ = filled
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", "")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "goosectx: error: -o '' is an empty path — give a file name\n"
    assert proc.stdout == ""


@pytest.mark.parametrize("blank", [" ", "  ", "\t"])
def test_a_blank_path_asks_for_a_file_name(filled, tmp_path, monkeypatch, blank):  # noqa: F811
    """``-o ' '`` wrote the export to a file named by a space in the current directory."""
    home, _ = filled
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", blank)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"goosectx: error: -o {blank!r} is a blank path (only spaces) — "
                           "give a file name\n")
    assert proc.stdout == "" and list(work.iterdir()) == []


def test_a_read_only_file_is_refused_and_left_as_it_was(filled, tmp_path):  # noqa: F811
    """An export over a 0444 file replaced it (the rename needs only the directory) and left
    the export read-only; the file's owner had marked it so. Refused, as root too."""
    home, _ = filled
    kept = tmp_path / "work" / "keep.md"
    kept.parent.mkdir()
    kept.write_text("old\n")
    os.chmod(kept, 0o444)
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", str(kept))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (f"goosectx: error: cannot write {kept}: it is read-only (mode 0444) "
                           "— make it writable first (chmod u+w), or write the export "
                           "somewhere else\n")
    assert kept.read_text() == "old\n" and kept.stat().st_mode & 0o777 == 0o444
    assert sorted(p.name for p in kept.parent.iterdir()) == ["keep.md"]  # no temp file left
    os.chmod(kept, 0o644)
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", str(kept))
    assert proc.returncode == 0, proc.stderr
    assert "please fix the bug" in kept.read_text()


@pytest.mark.skipif(not Path("/proc/version").is_file(), reason="no /proc")
def test_a_file_that_cannot_be_replaced_says_why(filled, tmp_path):  # noqa: F811
    home, _ = filled
    before = Path("/proc/version").read_text()
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", "/proc/version")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("goosectx: error: cannot write /proc/version: ")
    assert "cannot be replaced atomically" in proc.stderr and "/proc" in proc.stderr
    assert "somewhere else" in proc.stderr
    assert Path("/proc/version").read_text() == before


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_as_root_a_file_of_another_user_stays_theirs(filled, tmp_path):  # noqa: F811
    home, _ = filled
    theirs = tmp_path / "theirs.md"
    theirs.write_text("old\n")
    os.chown(theirs, 1234, 1234)
    os.chmod(theirs, 0o664)
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", str(theirs))
    assert proc.returncode == 0, proc.stderr
    st = theirs.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (1234, 1234, 0o664)
    assert "please fix the bug" in theirs.read_text()


def test_dash_and_dev_stdout_write_to_standard_output(filled, tmp_path,  # noqa: F811
                                                      monkeypatch):
    home, _ = filled
    monkeypatch.chdir(tmp_path)
    for target in ("-", "/dev/stdout"):  # goosectx() pipes stdout: /dev/stdout is a pipe
        proc = goosectx(home, "sessions", "export", "bugfix", "--format", "md", "-o", target)
        assert proc.returncode == 0, proc.stderr
        assert "please fix the bug" in proc.stdout
        assert not (tmp_path / "-").exists()


def _shared_dir(tmp_path: Path) -> Path:
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp: sticky, writable by everyone
    return shared


@pytest.mark.skipif(os.geteuid() != 0, reason="planting another user's symlink needs root")
def test_another_users_symlink_in_a_sticky_shared_dir_is_refused(filled, tmp_path):  # noqa: F811
    # Root exporting to /tmp/export.md, where another user planted a symlink to a file of
    # root's: the export must not replace that file (the kernel's fs.protected_symlinks
    # would refuse `echo > /tmp/export.md`; goosectx followed the link itself).
    home, _ = filled
    victim = tmp_path / "root-owned.conf"
    victim.write_text("IMPORTANT\n")
    link = _shared_dir(tmp_path) / "export.md"
    link.symlink_to(victim)
    os.lchown(link, 65534, 65534)  # nobody's
    line = _refused(home, link)
    assert f"refusing to write {link}: " in line and "uid 65534" in line, line
    assert "another path" in line
    assert victim.read_text() == "IMPORTANT\n" and link.is_symlink()
    # Reached through a symlink of our own, the planted one is still refused.
    ours = tmp_path / "mine.md"
    ours.symlink_to(link)
    _refused(home, ours)
    # A planted directory link on the way is refused as the kernel refuses it.
    planted_dir = link.parent / "exports"
    planted_dir.symlink_to(tmp_path)
    os.lchown(planted_dir, 65534, 65534)
    line = _refused(home, planted_dir / "root-owned.conf")
    assert f"{planted_dir} is a symbolic link" in line
    assert victim.read_text() == "IMPORTANT\n"


def test_our_own_symlink_in_a_sticky_shared_dir_is_still_followed(filled, tmp_path):  # noqa: F811
    home, _ = filled
    target = tmp_path / "notes.md"
    target.write_text("old\n")
    link = _shared_dir(tmp_path) / "export.md"
    link.symlink_to(target)
    proc = goosectx(home, "sessions", "export", "bugfix", "--format", "md", "-o", str(link))
    assert proc.returncode == 0, proc.stderr
    assert "please fix the bug" in target.read_text() and link.is_symlink()


def test_a_json_file_name_gets_json_without_format(filled, tmp_path):  # noqa: F811
    home, _ = filled
    out = tmp_path / "x.json"
    proc = goosectx(home, "sessions", "export", "bugfix", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["format"] == "goosectx-session"  # importable back
    md = tmp_path / "x.md"
    assert goosectx(home, "sessions", "export", "bugfix", "-o", str(md)).returncode == 0
    assert md.read_text().startswith("#")


def _unshare_prefix() -> list[str] | None:
    """``unshare`` for a private mount namespace (a user namespace too when not root)."""
    prefix = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-rm"]
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return prefix if probe.returncode == 0 else None


def _export_through_bind_mount(home: Path, source: Path, mount: Path, target: Path,
                               prefix: list[str]) -> subprocess.CompletedProcess[str]:
    """``sessions export -o target`` with ``source`` bind-mounted on ``mount`` (for it only)."""
    env = {**os.environ, "GOOSECTX_HOME": str(home), "GOOSECTX_CONFIG": config_file(home),
           "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("GOOSE_MODEL", None)
    script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
    return subprocess.run(
        [*prefix, "sh", "-c", script, "sh", str(source), str(mount), sys.executable, "-m",
         "goosectx", "sessions", "export", "bugfix", "-o", str(target)],
        env=env, capture_output=True, text=True, timeout=60)


def test_the_data_dir_reached_through_a_bind_mount_is_refused(filled, tmp_path):  # noqa: F811
    # The data dir mounted a second time (a container volume, another mount point): its
    # sessions.db there is the live database under another path, not a symlink, one hard link.
    # The export was renamed over it and every session was lost.
    prefix = _unshare_prefix()
    if prefix is None:
        pytest.skip("no private mount namespace here (unshare -m)")
    home, _ = filled
    (home / "locks").mkdir(exist_ok=True)
    db = home / "sessions.db"
    before = db.read_bytes()
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    loose = tmp_path / "bound.md"
    loose.touch()
    for source, mount, target in ((home, mnt, mnt / "sessions.db"),
                                  (home, mnt, mnt / "new.md"),  # a new file in the data dir
                                  (home / "locks", mnt, mnt / "x.lock"),
                                  (db, loose, loose)):  # the database file itself bound
        proc = _export_through_bind_mount(home, source, mount, target, prefix)
        assert proc.returncode == 2, (target, proc.stderr)
        assert proc.stderr.count("\n") == 1 and "goosectx's own" in proc.stderr, proc.stderr
        assert db.read_bytes() == before
        assert sorted(p.name for p in home.iterdir() if p.name.endswith(".md")) == []
    assert "bugfix" in goosectx(home, "sessions", "list").stdout
