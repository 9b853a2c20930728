"""Secrets (issue 15, point 4): the key stays out of child processes, /proc and the store.

Child processes get a scrubbed environment; goosectx makes itself non-dumpable so a
same-user child cannot read ``/proc/<goosectx>/environ``; as root each shell call runs in its
own PID namespace. Tool output is redacted of each secret in the listed encodings.
"""

from __future__ import annotations

import base64
import os
import secrets
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FAKE_MODEL
from extension_support import DEMO_SERVER, demo_spec
from fakeserver import FakeServer
from unprivileged_support import as_nobody

from goosectx.config import Settings
from goosectx.isolation import namespaces_available
from goosectx.redaction import REDACTED, Redactor
from goosectx.tools.builtin import tool_env

KEY = "sk-proj-" + secrets.token_urlsafe(30)


@pytest.mark.parametrize("name", ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GH_PAT",
                                  "GITLAB_PAT_RW", "STRIPE_KEY", "SSH_PASSPHRASE",
                                  "GOOGLE_APPLICATION_CREDENTIALS", "NPM_TOKEN"])
def test_extended_secret_names_are_dropped(name: str) -> None:
    assert tool_env(Settings(), {name: "v", "PATH": "/bin"}) == {"PATH": "/bin"}


def test_a_url_with_a_password_is_dropped_and_redacted() -> None:
    url = "postgres://app:s3cr3t-pass-word@db.internal/app"
    env = {"DATABASE_URL": url, "HOMEPAGE": "https://example.org/a:b", "PATH": "/bin"}
    assert tool_env(Settings(), env) == {"HOMEPAGE": "https://example.org/a:b", "PATH": "/bin"}
    from goosectx.secret_names import secret_values
    redact = Redactor(secret_values(env))
    assert "s3cr3t" not in redact(f"connecting with s3cr3t-pass-word to {url}")


def encoded_forms(secret: str) -> dict[str, str]:
    data = secret.encode()
    forms = {"literal": secret, "reversed": secret[::-1], "hex": data.hex(),
             "HEX": data.hex().upper(), "url": urllib.parse.quote(secret, safe="") + "%7E"}
    for shift, prefix in enumerate((b"", b"x", b"xy")):
        forms[f"base64+{shift}"] = base64.b64encode(prefix + data + b"!").decode()
        forms[f"base64url+{shift}"] = base64.urlsafe_b64encode(prefix + data + b"?").decode()
    forms["wrapped"] = base64.encodebytes(b"z" * 70 + data).decode()  # newlines every 76
    forms["folded"] = "\n".join(secret[i:i + 7] for i in range(0, len(secret), 7))
    forms["spaced hex"] = " ".join(data.hex()[i:i + 4] for i in range(0, 2 * len(data), 4))
    return forms


def core_of(secret: str) -> list[str]:
    """Substrings any leak of ``secret`` in the listed forms would contain (for the store check)."""
    data = secret.encode()
    cores = [secret[4:-4], secret[::-1][4:-4], data.hex()[8:-8]]
    for prefix in (b"", b"x", b"xy"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            cores.append(encode(prefix + data)[8:-8].decode())
    return cores


@pytest.mark.parametrize("form", list(encoded_forms(KEY)))
def test_each_listed_encoding_is_redacted(form: str) -> None:
    text = f"before {encoded_forms(KEY)[form]} after"
    redacted = Redactor([KEY])(text)
    assert REDACTED in redacted
    squeezed = "".join(redacted.split())
    assert not any(core in squeezed for core in core_of(KEY))
    assert redacted.startswith("before ")


@pytest.mark.parametrize("form", [f for f in encoded_forms(KEY) if f.startswith("base64")])
def test_the_whole_base64_run_around_an_encoded_key_is_redacted(form: str) -> None:
    # the groups the key shares with its neighbours carry bits of it too (``MjM=``)
    assert Redactor([KEY])(f"x {encoded_forms(KEY)[form]}\ny") == f"x {REDACTED}\ny"
    plain = base64.b64encode(KEY.encode()).decode()  # printf "$KEY" | base64
    assert Redactor([KEY])(f"{plain}\n") == f"{REDACTED}\n"


def percent_forms(secret: str) -> dict[str, str]:
    """``secret`` with some or all of its characters percent-encoded, hex in either case."""
    data = secret.encode()
    middle = len(secret) // 2
    return {"all upper": "".join(f"%{b:02X}" for b in data),
            "all lower": "".join(f"%{b:02x}" for b in data),
            "dashes": secret.replace("-", "%2D"),
            "one letter": f"{secret[:middle]}%{ord(secret[middle]):02X}{secret[middle + 1:]}",
            "alternate, mixed case": "".join(
                (f"%{ord(ch):02X}" if i % 4 == 0 else f"%{ord(ch):02x}") if i % 2 else ch
                for i, ch in enumerate(secret)),
            "folded": "\n".join(
                "".join(f"%{b:02x}" for b in data)[i:i + 20]
                for i in range(0, 3 * len(data), 20))}


@pytest.mark.parametrize("form", list(percent_forms("sk-test-LEAKCHECK123")))
def test_any_percent_encoding_of_the_key_is_redacted(form: str) -> None:
    key = "sk-test-LEAKCHECK123"
    encoded = percent_forms(key)[form]
    text = f"url=https://x/?api_key={encoded}&v=1 done"
    wrapped = "\n" * encoded.count("\n")  # a folded form keeps its line count
    assert Redactor([KEY, key])(text) == f"url=https://x/?api_key={REDACTED}{wrapped}&v=1 done"


def test_a_non_ascii_key_percent_encoded_is_redacted() -> None:
    key = "pässwörd-Ωmega-42"
    encoded = urllib.parse.quote(key, safe="")
    mixed = key[:4] + urllib.parse.quote(key[4:])  # "päss" + the rest UTF-8 encoded
    for form in (encoded, encoded.lower(), mixed):
        assert Redactor([key])(f"a {form} b") == f"a {REDACTED} b"


def test_clean_text_is_unchanged() -> None:
    text = "hello\x00 world\n" * 1000
    assert Redactor([KEY])(text) is text


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory any user can write (for a goosectx run as an unprivileged user)."""
    path = Path(tempfile.mkdtemp(prefix="goosectx-sec-"))
    path.chmod(0o777)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def run_goosectx(server: FakeServer, cwd: Path, home: Path, *prefix: str,
                 extension: str | None = None) -> subprocess.CompletedProcess[str]:
    (home / "config.toml").touch()
    (home / "config.toml").chmod(0o644)  # readable by the unprivileged user too
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GOOSECTX_HOME": str(home / "data"),
           "GOOSECTX_CONFIG": str(home / "config.toml"), "GOOSE_MODEL": FAKE_MODEL,
           "OPENAI_API_BASE": server.base_url, "OPENAI_API_KEY": KEY,
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    flags = ["--with-extension", extension] if extension else []
    return subprocess.run([*prefix, "goosectx", "run", "--mode", "auto", *flags, "-t", "go"],
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


PROC_PROBE = ("n=0; for f in /proc/[0-9]*/environ /proc/$PPID/environ; do "
              "tr '\\0' '\\n' < $f 2>/dev/null | grep -q \"^OPENAI_API_KEY=\" && n=$((n+1)); "
              "done; echo \"key readable in $n places\"; env | grep -c OPENAI_API_KEY")


def tool_outputs(server: FakeServer) -> list[str]:
    return [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]


def test_the_key_is_not_readable_through_proc_as_an_unprivileged_user(
    fake_server: FakeServer, open_dir: Path
) -> None:
    fake_server.add({"tool_calls": [{"name": "shell", "arguments": {"command": PROC_PROBE}}]},
                    {"text": "done"})
    done = run_goosectx(fake_server, open_dir, open_dir, *as_nobody())
    assert done.returncode == 0, done.stderr
    assert tool_outputs(fake_server)[0].startswith("key readable in 0 places\n0\n")


@pytest.mark.skipif(os.geteuid() != 0 or not namespaces_available(),
                    reason="needs root and a kernel that allows unshare --pid --mount-proc")
def test_the_key_is_not_readable_through_proc_as_root(
    fake_server: FakeServer, tmp_path: Path
) -> None:
    # Root ignores non-dumpable: only the PID namespace keeps goosectx out of /proc.
    job = f"sleep {300 + secrets.randbelow(10**6) / 10**6:.6f}"
    fake_server.add(
        {"tool_calls": [{"name": "shell", "arguments": {
            "command": f"{PROC_PROBE}; cat /proc/$PPID/environ; ls /proc; "
                       f"{job} >/dev/null 2>&1 & echo started"}}]},
        {"tool_calls": [{"name": "shell", "arguments": {
            "command": f"ps -eo args | grep -cx '{job}'"}}]},
        {"text": "done"})
    done = run_goosectx(fake_server, tmp_path, tmp_path)
    assert done.returncode == 0, done.stderr
    probe, later = tool_outputs(fake_server)
    assert probe.startswith("key readable in 0 places\n0\n"), probe
    assert KEY not in probe and REDACTED not in probe
    assert "started" in probe
    assert later.startswith("1\n"), later  # the background job outlived its call
    # goosectx has exited: its namespace, and the job in it, are gone.
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                assert (entry / "cmdline").read_bytes() != job.replace(" ", "\0").encode() + b"\0"
            except OSError:
                pass


PEEK = {"tool_calls": [{"name": "demo__peek_environ",
                        "arguments": {"variable": "OPENAI_API_KEY"}}]}


@pytest.mark.skipif(os.geteuid() != 0 or not namespaces_available(),
                    reason="needs root and a kernel that allows unshare --pid --mount-proc")
def test_an_extension_server_cannot_read_the_key_as_root(
    fake_server: FakeServer, tmp_path: Path
) -> None:
    # The server scans every /proc/<pid>/environ it can see (and its parent's) for the key.
    fake_server.add(PEEK, {"text": "done"})
    done = run_goosectx(fake_server, tmp_path, tmp_path, extension=demo_spec())
    assert done.returncode == 0, done.stderr
    (seen,) = tool_outputs(fake_server)
    assert seen.startswith("OPENAI_API_KEY in 0 of "), seen
    # Its own PID namespace: only its pid 1 and itself, not the host's processes.
    assert int(seen.rsplit("; ", 1)[1].split()[0]) <= 3, seen


def server_spec_for_anyone() -> str | None:
    """The demo server run by a system Python of our version (the venv's interpreter may sit
    where an unprivileged user cannot execute it) with the venv's packages, or None."""
    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is None:
        return None
    version = subprocess.run([system, "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True, check=False).stdout.strip()
    if version != str(sys.version_info[:2]):
        return None
    return f"PYTHONPATH={sysconfig.get_paths()['purelib']} {system} {DEMO_SERVER}"


def test_an_extension_server_cannot_read_the_key_as_an_unprivileged_user(
    fake_server: FakeServer, open_dir: Path
) -> None:
    prefix = as_nobody()
    spec = server_spec_for_anyone()
    if spec is None:
        pytest.skip("needs a system python3 of this version (the venv's may not be executable "
                    "by an unprivileged user)")
    fake_server.add(PEEK, {"text": "done"})
    done = run_goosectx(fake_server, open_dir, open_dir, *prefix, extension=spec)
    assert done.returncode == 0, done.stderr
    (seen,) = tool_outputs(fake_server)
    assert seen.startswith("OPENAI_API_KEY in 0 of "), seen


def test_no_encoding_of_the_key_reaches_the_provider_or_the_store(
    fake_server: FakeServer, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    forms = encoded_forms(KEY)
    (work / "leak.txt").write_text("\n".join(forms.values()) + "\n")
    fake_server.add({"tool_calls": [{"name": "shell", "arguments": {"command": "cat leak.txt"}},
                                    {"name": "text_editor",
                                     "arguments": {"command": "view", "path": "leak.txt"}}]},
                    {"text": "done"})
    done = run_goosectx(fake_server, work, tmp_path)
    assert done.returncode == 0, done.stderr
    outputs = "".join("".join(text.split()) for text in tool_outputs(fake_server))
    assert outputs.count(REDACTED) >= 2 * len(forms)
    stored = b"".join(p.read_bytes() for p in (tmp_path / "data").rglob("*") if p.is_file())
    stored_text = "".join(stored.decode("utf-8", "replace").split())
    for core in core_of(KEY):
        assert core not in outputs and core not in stored_text
