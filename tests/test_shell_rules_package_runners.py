"""Package runners' commands are read like ``uv run``'s: a deny rule matching them asks.

fresh21 #19: under ``--mode auto --deny 'shell(rm *)'``, ``npx rm f``, ``npm exec -- rm f``,
``uvx``, ``pnpm exec``, ``yarn exec``, ``bunx``, ``pipx run`` … ran the denied program.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_auto_denying_rm
from rules_support import action_under_deny_rm as verdict

RUNNERS = [
    "npx rm f", "npx -y rm f", "npm exec -- rm f", "npm x rm f", "npm exec --package=x -- rm f",
    "pnpm exec rm f", "pnpm dlx rm f", "pnpx rm f", "yarn exec rm f", "yarn dlx rm f",
    "bunx rm f", "bun x rm f", "uvx rm f", "uvx --from x rm f", "pipx run rm f",
    "mise exec node@20 -- rm f", "mise x -- rm f", "asdf exec rm f", "pixi run rm f",
    "tox exec -e py -- rm f", "nix run nixpkgs#coreutils -- rm f",
    "nix shell nixpkgs#hello --command rm f", "devbox run rm f",
    "docker-compose exec web rm f", "docker compose exec web rm f",
    "podman-compose run web rm f", "dotenv -- rm f", "dotenv -e .env rm f", "op run -- rm f",
    "aws-vault exec prod -- rm f",
]


SHELL_STRINGS = ["npm exec -c 'rm f'", "npm exec --call='rm f'", "npm x -c 'rm f'",
                 "pnpm exec -c 'rm f'", "pnpm -c exec 'rm f'", "pnpm exec --shell-mode 'rm f'",
                 "pnpm dlx -c 'rm f'", "yarn exec 'rm f'"]


@pytest.mark.parametrize("command", SHELL_STRINGS)
def test_a_shell_string_a_package_manager_runs_is_read_like_sh_c(command: str) -> None:
    assert verdict(command) == "deny", command


@pytest.mark.parametrize("command", RUNNERS)
def test_a_package_runners_command_is_asked_about_under_a_deny_rule(command: str) -> None:
    assert verdict(command) == "ask", command


EVERYDAY = ["npx prettier --check .", "npx jest", "npx tsc --noEmit", "uvx ruff check .",
            "pnpm exec vitest run", "yarn exec eslint src", "bunx tsc", "pipx run black .",
            "npm install", "npm run build", "npm test", "docker-compose up -d",
            "docker compose logs web", "mise install", "nix build", "op read op://x/y",
            "npm exec -c 'eslint .'", "yarn exec jest", "npm run build"]


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_package_commands_still_run(command: str) -> None:
    assert verdict(command) == "run", command


def test_run_keeps_the_file_npx_or_npm_exec_would_remove(  # type: ignore[no-untyped-def]
        fake_model, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_auto_denying_rm(fake_model, workdir, capsys,
                        ["npx rm v1", "npm exec -- rm v2", "uvx rm v3"])
