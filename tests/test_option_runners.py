"""Build tools, test runners, linters and compilers under allow rules (the fresh-eyes tester's
H4 and H6): an option that runs another program or takes settings from the command line, or
that writes a report, profile, cache or binary where it names, asks; the everyday lines run."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_reads_names_deletes import _verdict
from test_reads_names_deletes import project as project  # the fixture


@pytest.mark.parametrize("command", [
    "cargo test --offline --config \"target.x86_64-unknown-linux-gnu.runner=['sh','-c','id']\"",
    "cargo --config build.rustc-wrapper='./x' test",
    "cargo test --config=.cargo/other.toml",
    "cargo test -Zunstable-options",
    "go test -exec \"sh -c 'cd;cat .s*/i*a'\"",
    "go test -toolexec 'sh -c id'",
    "go test --toolexec=x ./...",
    "go vet -vettool=./x ./...",
    "go test -overlay=o.json ./...",
    "go build -ldflags=-extld=./x .",
    "go build -ldflags '-linkmode=external -extld=sh' .",
    "go test -gcflags=-cpuprofile=.git/HEAD .",
    "mypy --install-types --non-interactive",
    "mypy --python-executable ./x src",
    "python -m mypy --install-types src",
    "mypy @args.txt",
    "ruff check --config 'output-file = \"Makefile\"'",
])
def test_an_option_that_runs_a_program_or_takes_settings_asks(project: Path,
                                                              command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "ruff check -o Makefile",
    "ruff check -oMakefile .",
    "ruff check --output-file .git/HEAD",
    "ruff check --cache-dir=.git",
    "cargo test --offline -- --logfile .git/HEAD",
    "cargo test -- --logfile=Makefile",
    "go test -c -o .git/hooks/pre-commit",
    "go build -o Makefile .",
    *(f"go test -{flag}=.git/HEAD ./..." for flag in (
        "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "coverprofile",
        "outputdir", "test.cpuprofile")),
    "go test ./... -coverprofile .git/HEAD",
    "tsc --outFile Makefile",
    "tsc --outDir .git/hooks",
    "tsc -outdir .git",
    "tsc --out Makefile",
    "tsc --declarationDir .git",
    "tsc --tsBuildInfoFile .git/HEAD",
    "eslint -o Makefile .",
    "eslint --output-file=.git/HEAD src",
    "eslint --cache --cache-location .git/HEAD src",
    "prettier --cache-location=Makefile --check .",
    "mypy --junit-xml Makefile",
    "mypy --cache-dir .git src",
    "mypy --html-report .git/hooks src",
    "mypy --txt-report=docs src",
    "npx eslint -o Makefile .",
    "yarn eslint -o Makefile .",
    "yarn run eslint --output-file=.git/HEAD src",
    "yarn -s run -- tsc --outDir .git",
    "pnpm tsc --outFile Makefile",
    "bunx prettier --cache-location=Makefile --check .",
])
def test_an_option_writing_a_report_or_binary_asks(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "go test ./... -run X -v -count=1 -race",
    "go test -run TestX -timeout 30s ./pkg/...",
    "go build -ldflags='-s -w -X main.version=1.2.3' ./...",
    "go test -gcflags='all=-N -l' ./...",
    "go vet ./...",
    "cargo test --release",
    "cargo test -p core --all-features -- --nocapture --test-threads=1",
    "cargo +nightly test",
    "mypy src",
    "mypy --strict --cache-dir=/dev/null src",
    "python -m mypy --strict src",
    "tsc --noEmit",
    "tsc -p tsconfig.json --noEmit",
    "eslint src",
    "eslint --cache --max-warnings 0 src",
    "eslint -f json src",
    "ruff check .",
    "ruff check --fix --output-format=github src",
    "ruff check -o /dev/stdout .",
    "ruff format src",
    "ruff check --config ruff.toml src",
    "prettier --check --cache .",
    "prettier --write src",
    "black src",
    "npm test",
    "yarn test",
    "yarn eslint src",
    "pnpm run tsc --noEmit",
])
def test_the_everyday_lines_still_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


def test_the_reason_names_the_option(project: Path) -> None:
    from goosectx.option_writes import option_writes

    assert option_writes("cargo", ["test", "--config", "x=1"]) == (
        "cargo --config runs another program or takes settings its rule does not show")
    assert "go -cpuprofile" in str(option_writes("go", ["test", "-cpuprofile=.git/HEAD"]))
    assert "go -ldflags" in str(option_writes("go", ["build", "-ldflags=-extld=./x"]))


@pytest.mark.parametrize("command", [
    "go env -w GOFLAGS=-toolexec=/tmp/x",
    "go env -w CC=./evil",
    "go env --w=GOTOOLCHAIN=go1.99.0",
    "go env -u GOFLAGS",
])
def test_go_env_storing_settings_asks(project: Path, command: str) -> None:
    """``go env -w`` writes go's env file: every later (allowed) ``go test`` takes its flags."""
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "npm run lint -- -o .git/hooks/pre-commit",
    "npm test -- --outputFile=.git/hooks/pre-commit",
    "npm test -- ./.git/config.worktree",
    "yarn test --outputFile .git/hooks/post-checkout",
    "make test ARGS=-o.git/hooks/pre-push",
    "cargo test -- --logfile=.git/hooks/post-checkout",
    "pytest --my-plugin-out=.git/hooks/pre-commit",
    "make test PYTEST_ARGS=--basetemp=.git",
    "make test PYTEST_ARGS='--basetemp ./.git/'",
])
def test_git_config_or_a_hook_handed_to_a_script_asks(project: Path, command: str) -> None:
    """What ``npm run SCRIPT --`` passes on goes to a tool no table here reads: a git hook or
    git config among its words may be written (a hook is a command a later git runs), the git
    directory emptied (pytest's basetemp)."""
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "go env GOPATH", "go env -json", "npm test -- -t 'my test'", "make test ARGS=-v",
    "npm run lint -- --fix src", "ls .git/hooks", "cat .git/hooks/pre-commit.sample",
    "npm test -- .gitignore", "make build DESTDIR=.gitx", "npm test -- .github/workflows",
])
def test_reading_go_env_and_passing_plain_words_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason


@pytest.mark.parametrize("command", [
    "strings @args.txt",  # binutils reads more options and files from @FILE
    "pytest -q @args.txt", "python -m pytest @args.txt", "ruff check @args.txt",
    "pytest --pastebin=all",  # uploads the test output
    "date -s '2020-01-01'", "date --set=12:00", "date -us 12:00",
    "file -f list.txt", "file --files-from list.txt", "file -C -m magic",
    "tree -R -H . -L 1",  # writes 00Tree.html in every dir, .git too
    "go test -run X -test.testlogfile=Makefile ./...",
    "cargo test --target-dir .git",
    "npm test --cache=src", "npm test --logs-dir=.git/hooks",
])
def test_options_reading_argument_files_writing_or_setting_ask(project: Path,
                                                               command: str) -> None:
    """Tester A (round 4): `echo Xenv | tr X . | tee r; strings @r` printed .env; `pytest
    @args.txt` hid `--junitxml=Makefile`; `date -s` set the clock."""
    action, reason = _verdict(project, command)
    assert action == "ask", reason


@pytest.mark.parametrize("command", [
    "strings src/a.py", "date +%s", "date -d yesterday +%F", "date -u", "file src",
    "file -b --mime-type src/a.py", "tree -L 2", "tree -a -I node_modules", "npm test",
    "cargo test --release", "pytest -q -k 'a or b'",
])
def test_their_everyday_forms_run(project: Path, command: str) -> None:
    action, reason = _verdict(project, command)
    assert action == "run", reason
