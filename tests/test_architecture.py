"""The layer rules of docs/architecture.md §1, checked on the source: the core never imports
an adapter or a terminal library, and no module grows past the size limit."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "goosectx"
FORBIDDEN_IN_CORE = (
    "goosectx.cli", "goosectx.importers", "goosectx.extensions",
    "goosectx.providers.litellm_provider", "goosectx.providers.litellm_stream",
    "goosectx.providers.litellm_call", "goosectx.providers.litellm_errors",
    "goosectx.providers.litellm_credentials",
    "litellm", "mcp", "rich", "prompt_toolkit",
)
MAX_MODULE_LINES = 420
def core_modules() -> list[Path]:
    """compaction/, the message model (conversation, message, parts), approval* and agent."""
    paths = [*PACKAGE.glob("compaction/**/*.py"), *PACKAGE.glob("conversation*.py"),
             PACKAGE / "message.py", PACKAGE / "parts.py", *PACKAGE.glob("approval*.py"),
             *PACKAGE.glob("approval/**/*.py"), *PACKAGE.glob("agent*.py")]
    return sorted(set(paths))


def imported_names(source: str, package: str) -> list[tuple[int, str]]:
    """Every module an import statement in ``source`` names (lazy imports too), with its line.

    ``from a.b import c`` yields both ``a.b`` and ``a.b.c`` (``c`` may be a module); relative
    imports are resolved against ``package``, the dotted package the module lives in.
    """
    tree = ast.parse(source)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            out.append((node.lineno, base))
            out.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
    return out


def forbidden_imports(path: Path) -> list[str]:
    """``path:line imports name`` for each import of a forbidden module or its submodules."""
    rel = path.relative_to(ROOT)
    package = ".".join(rel.with_suffix("").parts[:-1])
    names = imported_names(path.read_text(encoding="utf-8"), package)
    return [f"{rel}:{line} imports {name}" for line, name in names
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN_IN_CORE)]


def test_core_modules_import_no_adapter_and_no_terminal_library() -> None:
    modules = core_modules()
    assert PACKAGE / "compaction" / "manager.py" in modules and len(modules) > 10
    offenders = [hit for path in modules for hit in forbidden_imports(path)]
    assert offenders == []


def test_the_import_check_sees_every_form_of_a_forbidden_import() -> None:
    source = ("import rich.console\n"
              "from goosectx.providers import litellm_provider\n"
              "def f():\n    from ..importers.actions import x\n"
              "from goosectx.cli.sanitize import clean\n"
              "from .summary import render_markdown\n"
              "from goosectx.conversation import Message\n")
    names = [name for _, name in imported_names(source, "goosectx.compaction")]
    assert "goosectx.compaction.summary" in names
    bad = {n for n in names if any(n == b or n.startswith(b + ".") for b in FORBIDDEN_IN_CORE)}
    assert bad == {"goosectx.cli.sanitize", "goosectx.cli.sanitize.clean",
                   "goosectx.importers.actions", "goosectx.importers.actions.x",
                   "goosectx.providers.litellm_provider", "rich.console"}


def modules_over_limit() -> set[str]:
    return {str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
            if len(p.read_text(encoding="utf-8").splitlines()) > MAX_MODULE_LINES}


def test_no_module_exceeds_the_limit() -> None:
    assert modules_over_limit() == set()


def test_the_print_path_imports_no_provider_module() -> None:
    """``cli/sanitize.py`` shares its surrogate repair with the provider's stream through the
    neutral ``surrogates.py``, never by importing a provider module."""
    path = PACKAGE / "cli" / "sanitize.py"
    names = [name for _, name in imported_names(path.read_text(encoding="utf-8"), "goosectx.cli")]
    assert "goosectx.surrogates" in names
    assert [n for n in names if n.startswith("goosectx.providers")] == []
