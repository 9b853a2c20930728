"""An archive extracted in the project is judged by the names it holds (round 31, test31c).

Before, in auto mode under a deny rule, ``tar xf a.tar`` and ``unzip a.zip`` of an archive
holding ``.git/hooks/pre-commit`` ran (the hook ran at the next commit), and so did ``tar xCf
.git a.tar``, ``cd .git && tar xf ../a.tar`` and ``cd .git && cpio -idm < a.cpio``. The
members of an archive in the project are now read and judged as write targets below the dir
it extracts into, and that dir too (docs/architecture.md §4); a release extracted into
``build/`` runs.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from rules_support import ALLOW_ALL_DENY_RM, DENY_RM, shell_verdict

from goosectx import archive_members
from goosectx.archive_members import extraction
from goosectx.permissions import PermissionRules


def _tar(path: Path, *members: str, link: tuple[str, str] | None = None) -> None:
    with tarfile.open(path, "w:gz" if path.suffix == ".tgz" else "w") as archive:
        for name in members:
            info = tarfile.TarInfo(name)
            info.size = 2
            archive.addfile(info, io.BytesIO(b"x\n"))
        if link is not None:
            info = tarfile.TarInfo(link[0])
            info.type, info.linkname = tarfile.SYMTYPE, link[1]
            archive.addfile(info)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "build").mkdir()
    _tar(tmp_path / "a.tar", "README", ".git/hooks/pre-commit")
    _tar(tmp_path / "a.tgz", "./.git/config")
    _tar(tmp_path / "venv.tar", ".venv/lib/python3.12/site-packages/x.pth")
    _tar(tmp_path / "link.tar", "README", link=("hooks", ".git/hooks"))
    _tar(tmp_path / "rel.tar", "rel-1.0/README", "rel-1.0/src/main.c")
    with zipfile.ZipFile(tmp_path / "a.zip", "w") as archive:
        archive.writestr(".git/hooks/pre-commit", "x")
    with zipfile.ZipFile(tmp_path / "rel.zip", "w") as archive:
        archive.writestr("rel-1.0/README", "x")
    (tmp_path / "hooksdir").symlink_to(".git/hooks")
    _tar(tmp_path / "through.tar", "hooksdir/pre-commit")
    (tmp_path / "a.cpio").write_bytes(b"")
    (tmp_path / "bad.tar").write_bytes(b"not an archive at all" * 40)
    return tmp_path


@pytest.mark.parametrize("command", [
    "tar xf a.tar", "tar -xf a.tar", "tar --extract --file=a.tar", "tar -xzf a.tgz",
    "tar xf venv.tar", "tar xf link.tar", "tar xf through.tar", "gtar -x -f a.tar", "unzip a.zip",
    "unzip -o a.zip -d build", "python3 -m zipfile -e a.zip build", "7z x a.zip", "jar xf a.zip",
    "tar xCf .git rel.tar", "tar -xf rel.tar -C .git/hooks", "cd .git && tar xf ../rel.tar",
    "cd .git && cpio -idm < ../a.cpio", "cd .git && unzip ../rel.zip",
    "tar xf bad.tar", "tar --transform=s,^,.git/, -xf rel.tar",
])
def test_an_extraction_that_may_write_a_protected_path_asks(project: Path, command: str) -> None:
    for rules in (DENY_RM, ALLOW_ALL_DENY_RM):
        verdict = shell_verdict(rules, command, "auto", working_dir=project)
        assert verdict.action == "ask", (command, verdict.reason)


@pytest.mark.parametrize(("command", "said"), [
    ("tar xf a.tar", "tar writes .git/hooks/pre-commit: a hook"),
    ("unzip a.zip", "unzip writes .git/hooks/pre-commit: a hook"),
    ("tar xf bad.tar", "tar extracts bad.tar, whose names cannot be read here"),
])
def test_the_question_names_the_member(project: Path, command: str, said: str) -> None:
    assert said in shell_verdict(DENY_RM, command, "auto", working_dir=project).reason


@pytest.mark.parametrize("command", [
    "tar xf rel.tar -C build", "tar xf rel.tar", "tar -xf rel.tar --directory=build",
    "unzip -o rel.zip -d build", "tar tf a.tar", "unzip -l a.zip", "tar cf out.tar build",
    "tar --strip-components=1 -xf a.tar", "curl -sL https://example.com/r.tgz | tar xz -C build",
    "cpio -idm < a.cpio", "tar xf missing.tar -C build",
])
def test_everyday_extractions_still_run(project: Path, command: str) -> None:
    verdict = shell_verdict(DENY_RM, command, "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason
    allowed = PermissionRules(allow=("shell(*)",))
    assert shell_verdict(allowed, command, "smart_approve", working_dir=project).action == "run"


def test_a_release_of_many_files_is_read_and_runs(project: Path) -> None:
    _tar(project / "big.tgz", *(f"rel-1.0/src/d{i % 50}/f{i}.c" for i in range(3000)))
    verdict = shell_verdict(DENY_RM, "tar xzf big.tgz -C build", "auto", working_dir=project)
    assert verdict.action == "run", verdict.reason
    _tar(project / "big.tgz", *(f"rel-1.0/src/f{i}.c" for i in range(3000)), ".git/config")
    verdict = shell_verdict(DENY_RM, "tar xzf big.tgz", "auto", working_dir=project)
    assert "tar writes .git/config" in verdict.reason


def test_an_archive_that_unpacks_past_the_limit_is_given_up_and_asks(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive_members, "MAX_UNPACKED_BYTES", 100_000)
    with tarfile.open(project / "bomb.tgz", "w:gz") as archive:
        info = tarfile.TarInfo("zeros")
        info.size = 1_000_000
        archive.addfile(info, io.BytesIO(bytes(info.size)))
    verdict = shell_verdict(DENY_RM, "tar xzf bomb.tgz -C build", "auto", working_dir=project)
    assert verdict.action == "ask" and "takes too long to list" in verdict.reason


@pytest.mark.parametrize(("name", "args", "archive", "into"), [
    ("tar", ["xCf", ".git", "a.tar"], "a.tar", ".git"),
    ("tar", ["-xzf", "a.tgz", "-C", "d"], "a.tgz", "d"),
    ("tar", ["-x", "-fa.tar", "-Cd"], "a.tar", "d"),
    ("tar", ["xz"], None, "."),
    ("unzip", ["-q", "a.zip", "-d", "d"], "a.zip", "d"),
    ("jar", ["xf", "a.jar"], "a.jar", "."),
    ("cpio", ["-idm", "-D", "d"], None, "d"),
])
def test_the_extraction_read_from_the_words(name: str, args: list[str], archive: str | None,
                                            into: str) -> None:
    found = extraction(name, args)
    assert found is not None and (found.archive, found.into) == (archive, into)
