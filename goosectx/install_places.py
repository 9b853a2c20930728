"""The dirs an installer's environment names: ``GOBIN=.git/hooks go install …`` writes a hook.

docs/architecture.md §4, clause 2 of the one approval decision: part of how
:mod:`goosectx.shell_hidden` reads a command for the shell's permission rules. A variable the
line gives an installer, naming the dir it installs into, is judged as the option it mirrors
(``pip install --target``, ``cargo install --root``): each value by
:func:`goosectx.protected_paths.protected_write` (the git directory, a virtualenv,
``node_modules``). Set before the program, by ``export`` or handed on by ``env``/``sudo``.
What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

from goosectx.option_table import table_name
from goosectx.protected_paths import Where, protected_write
from goosectx.shell_unwrap import HANDS_ON, handed
from goosectx.unmodelled_writes import line_assignments

PLACES: dict[str, tuple[str, ...]] = {
    "go": ("GOBIN", "GOPATH"),  # go install writes $GOBIN/NAME, else $GOPATH/bin/NAME
    "pip": ("PIP_TARGET", "PIP_PREFIX", "PIP_ROOT", "PIP_SRC"),  # as --target, --prefix …
    "pip3": ("PIP_TARGET", "PIP_PREFIX", "PIP_ROOT", "PIP_SRC"),
    "cargo": ("CARGO_INSTALL_ROOT",),  # cargo install writes its bin/ there
}
"""Per installer, the variables naming a dir it writes the programs it installs into."""
_ANY = frozenset(name for names in PLACES.values() for name in names)


def install_environment(name: str, args: list[str], where: Where | None,
                        line: str) -> str | None:
    """Why an installer, given the variables ``line`` sets, writes a protected dir, or ``None``.

    ``name ARGS``: the installer (``python3 -m pip`` is pip), given the line's assignments
    (``GOBIN=D go install``, ``export GOBIN=D; go install``), or a wrapper handing them on
    (``env GOBIN=D go install``, :func:`goosectx.shell_unwrap.handed`: judged whatever it runs).
    """
    if name in HANDS_ON:
        given = [tuple(word.split("=", 1)) for word in handed(name, args)]
        variables = _ANY
    elif (variables := frozenset(PLACES.get(table_name(name, args)[0], ()))) and line:
        given = [(key, value) for key, values in line_assignments(line, computed=True).items()
                 for value in values]
    else:
        return None
    for key, *value in given:
        if key in variables and value and (why := protected_write(name, value[0], where)):
            return f"it sets {key}, the dir it installs into: {why}"
    return None
