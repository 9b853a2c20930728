"""A program that loads ``.env`` into what it runs reads it, as ``cat .env`` does.

Before, under an allow rule (``shell(*)``, ``shell(bun*)``) in smart_approve, ``cat .env``
asked but ``dotenv run -- CMD``, ``python -m dotenv list`` (it prints the file), ``node -r
dotenv/config x.js``, ``deno run --env-file x.ts``, ``docker compose config``, ``npx
dotenv-cli``, ``direnv exec . CMD`` and ``python -c "open('.e'+'nv').read()"`` ran unasked:
the secrets went to the tool process and to what it printed. A project without a ``.env`` runs
them as before, and so do programs that load ``.env`` by themselves (``bun test``, ``pipenv
run``, ``docker compose up``, ``flask run``): the command does not ask for the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_support import shell_verdict

from goosectx.permissions import PermissionRules
from goosectx.sensitive import sensitive_words

ALLOW_ALL = PermissionRules(allow=("shell(*)",))

LOADERS = [
    "python -m dotenv list",
    "python3 -X dev -m dotenv get API_KEY",
    "python -mdotenv run printenv API_KEY",
    "python3 -Im dotenv list",
    "python3 -I -E -m dotenv list",
    "python3 -m dotenv.cli run env",
    "uv run python -mdotenv run env",
    "dotenv run -- python app.py",
    "dotenv -- node app.js",
    "dotenv -v DEBUG=1 -- node app.js",
    "npx dotenv-cli -- node app.js",
    "npx -y dotenv-cli@7 -- node app.js",
    "npx @dotenvx/dotenvx run -- node app.js",
    "env-cmd node app.js",
    "node -r dotenv/config app.js",
    "node --require=dotenv/config app.js",
    "node --import dotenv/config app.js",
    "tsx -r dotenv/config app.ts",
    "deno run --env-file app.ts",
    "deno run --env app.ts",
    "docker compose config",
    "docker-compose -f compose.yml config",
    "podman compose config --services",
    "uv run dotenv run -- python app.py",
    "direnv exec . env",
    "direnv export bash",
    "python -c 'from dotenv import load_dotenv; load_dotenv(); import os; print(os.environ)'",
    """node -e "require('dotenv').config(); console.log(process.env)\"""",
    # round 31 (test31c): these ran under shell(*)
    """node -e "process.loadEnvFile(); console.log(process.env)\"""",
    "mocha -r dotenv/config test.js", "ava -r dotenv/config", "nodemon -r dotenv/config app.js",
    "vitest --setupFiles dotenv/config", "jest --setupFiles dotenv/config",
    "npx jest --setupFiles=dotenv/config", "godotenv env", "shdotenv env",
]
"""Commands that read ``.env`` without naming it."""

NAMED = [
    """python -c "print(open('.e'+'nv').read())\"""",
    """python3 -c "print(open('.e' 'nv').read())\"""",
    """perl -e 'open F, ".e" . "nv"; print <F>'""",
    """lua -e 'print(io.open(".e" .. "nv"):read("a"))'""",
    """node -e "console.log(require('fs').readFileSync('.e' + 'nv', 'utf8'))\"""",
    """python -c "print(open('\\x2eenv').read())\"""",
    """python3 -c "print(open('\\56env').read())\"""",
    """perl -e 'open F, ".\\x65nv"; print <F>'""",
    """perl -e 'open F, ".\\x{65}nv"; print <F>'""",
    """node -e "console.log(require('fs').readFileSync('\\x2eenv', 'utf8'))\"""",
    """node -e "console.log(require('fs').readFileSync('\\u002eenv', 'utf8'))\"""",
    "node --env-file=.env app.js",
    "uv run --env-file .env python app.py",
    "docker run --env-file .env img",
    "set -a; . ./.env",
    "source .env",
    "export $(cat .env | xargs)",
]
"""Commands that name ``.env`` in their text (some asked before too)."""

EVERYDAY = [
    "bun --version", "bun -v", "bun --no-env-file test", "bun --env-file=config.txt test",
    "python app.py", "python -m pytest -q", "python3 -m dotenv --help", "node app.js",
    "deno run app.ts", "deno test", "pipenv install", "pipenv lock", "docker compose version",
    "docker run img", "npm test", "cargo test", "make test", "pytest -q", "git status",
    """python -c "print('a' + 'b')\"""", "direnv allow",
    "bun run app.js", "bun test", "bunx vitest", "pipenv run python app.py", "pipenv shell",
    "docker compose up", "docker-compose run web", "podman compose up", "flask run",
    "python -m flask routes", "uv run flask run",
    "mocha test.js", "jest", "vitest run", "nodemon app.js", "mocha -r ts-node/register x.ts",
    """python -c "print('a\\x2eb')\"""",
]
"""Commands that read no ``.env`` though the project holds one."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".env").write_text("API_KEY=sk-live-9e8d7c6b5a4f3e2d1c0b\n")
    (tmp_path / "app.js").write_text("console.log(1)\n")
    return tmp_path


@pytest.mark.parametrize("command", LOADERS + NAMED)
def test_a_env_read_asks_under_an_allow_rule(project: Path, command: str) -> None:
    verdict = shell_verdict(ALLOW_ALL, command, "smart_approve", working_dir=project)
    assert verdict.action == "ask", verdict.reason


@pytest.mark.parametrize("command", LOADERS)
def test_the_question_names_the_file_and_the_loader(project: Path, command: str) -> None:
    verdict = shell_verdict(ALLOW_ALL, command, "smart_approve", working_dir=project)
    assert ".env" in verdict.reason and "sensitive file" in verdict.reason, verdict.reason


@pytest.mark.parametrize("command", LOADERS + EVERYDAY)
def test_without_a_env_they_run(tmp_path: Path, command: str) -> None:
    (tmp_path / "app.js").write_text("console.log(1)\n")
    (tmp_path / ".env.example").write_text("API_KEY=\n")  # a template holds no secret
    verdict = shell_verdict(ALLOW_ALL, command, "smart_approve", working_dir=tmp_path)
    assert verdict.action == "run", verdict.reason


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_commands_run_beside_a_env(project: Path, command: str) -> None:
    verdict = shell_verdict(ALLOW_ALL, command, "smart_approve", working_dir=project)
    assert verdict.action == "run", verdict.reason


def test_direnv_reads_the_envrc_of_the_dir_it_is_given(tmp_path: Path) -> None:
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / ".envrc").write_text("export API_KEY=x\n")
    assert [word for word, _shown in sensitive_words("direnv exec svc env", tmp_path)] == [
        "svc/.envrc"]
    assert list(sensitive_words("direnv exec . env", tmp_path)) == []


def test_compose_reads_the_env_of_its_project_directory(tmp_path: Path) -> None:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / ".env").write_text("API_KEY=x\n")
    assert [w for w, _ in sensitive_words("docker compose -f deploy/compose.yml config",
                                          tmp_path)] == ["deploy/.env"]
    assert [w for w, _ in sensitive_words("docker compose --project-directory deploy config",
                                          tmp_path)] == ["deploy/.env"]
    assert list(sensitive_words("docker compose config", tmp_path)) == []


def test_dotenv_in_inline_code_finds_the_env_above(project: Path) -> None:
    (project / "src").mkdir()
    verdict = shell_verdict(ALLOW_ALL, "cd src && python -c 'import dotenv; dotenv.load_dotenv()'",
                            "smart_approve", working_dir=project)
    assert verdict.action == "ask", verdict.reason
    assert ".env (python's inline code loads it)" in verdict.reason  # src/../.env


def test_an_allow_rule_naming_the_file_covers_it(project: Path) -> None:
    rules = PermissionRules(allow=("shell(dotenv run -- node app.js)",
                                   "shell(dotenv -e .env run -- node app.js)"))
    assert shell_verdict(rules, "dotenv -e .env run -- node app.js", "smart_approve",
                         working_dir=project).action == "run"
    assert shell_verdict(rules, "dotenv run -- node app.js",
                         "smart_approve", working_dir=project).action == "ask"


DOTENV_RUN = PermissionRules(allow=("shell(dotenv run*)", "shell(dotenv -q*)", "shell(node*)"))


@pytest.mark.parametrize("command", ["dotenv run -- node app.js", "dotenv run node app.js",
                                     "dotenv run --override -- node app.js",
                                     "dotenv -q always run -- node app.js"])
def test_dotenv_run_is_judged_by_the_program_after_it(tmp_path: Path, command: str) -> None:
    # python-dotenv's `run` is its subcommand, not the program: it said "dotenv runs run".
    verdict = shell_verdict(DOTENV_RUN, command, "smart_approve", working_dir=tmp_path)
    assert verdict.action == "run", verdict.reason
    alone = shell_verdict(PermissionRules(allow=("shell(dotenv*)",)), command, "smart_approve",
                          working_dir=tmp_path)
    assert alone.action == "ask" and "dotenv runs node," in alone.reason, alone.reason
    (tmp_path / ".env").write_text("API_KEY=x\n")  # what it loads: asked, as ever
    loaded = shell_verdict(DOTENV_RUN, command, "smart_approve", working_dir=tmp_path)
    assert loaded.action == "ask" and ".env" in loaded.reason, loaded.reason


@pytest.mark.parametrize("command", ["dotenv run -- rm -rf src", "dotenv run rm -rf src",
                                     "dotenv -e .env -v K=1 -- rm -rf src",
                                     "dotenv -- run rm -rf src", "dotenv -c -- rm -rf src",
                                     "dotenv run -- node x.js; rm -rf src"])
def test_what_dotenv_runs_is_never_covered_by_its_own_rule(tmp_path: Path,
                                                           command: str) -> None:
    rules = PermissionRules(allow=("shell(dotenv*)", "shell(node*)"), deny=("shell(rm*)",))
    verdict = shell_verdict(rules, command, "smart_approve", working_dir=tmp_path)
    assert verdict.action != "run" and "rm" in verdict.reason, verdict.reason
