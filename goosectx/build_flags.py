"""Flags variables that hand a compiler, rustc or go an option that runs a program.

docs/architecture.md §4, clause 2 of the one approval decision: part of
:func:`goosectx.shell_languages.sets_startup_command` (an assignment on the line or in
``env``/``export``) and :func:`goosectx.option_values.make_settings` (``make NAME=VALUE``).
``CFLAGS=-fplugin=x.so make``, ``make CFLAGS=-fplugin=x.so``, ``RUSTFLAGS='-C linker=rm' cargo
build``, ``GOFLAGS=-toolexec=./x go test ./...`` hand the build's compiler, rustc or go an
option that loads a library or runs a program (:data:`goosectx.option_table.OPTIONS`'
:attr:`~goosectx.option_table.Does.RUNS` entries of ``cc``, ``rustc`` and ``go``), as the
option on their own command line does (``gcc -fplugin=x.so``, ``rustc -C linker=rm``, ``go build
-toolexec ./x`` ask). The value's words are read as that program's; plain flags (``-O2 -g``,
``-Clinker-plugin-lto``, ``-race``) run nothing more. What the command text shows, not a sandbox.

Core module: no printing.
"""

from __future__ import annotations

import re

from goosectx.option_table import Does, option_hits

_PROGRAMS = (
    (re.compile(r"(?:CGO_)?(?:C|CXX|CPP|LD|F|FC|OBJC|OBJCXX|AS|HOST_C|HOST_CXX)FLAGS"), "gcc"),
    (re.compile(r"(?:CARGO_BUILD_|CARGO_ENCODED_)?RUST(?:DOC)?FLAGS|CARGO_TARGET_\w+_RUSTFLAGS"),
     "rustc"),
    (re.compile(r"GOFLAGS"), "go"),
)
"""The flags variables and the program whose options each holds."""


def flags_run(variable: str, value: str) -> str | None:
    """Why ``VARIABLE=VALUE`` hands a build an option that runs a program, or ``None``."""
    program = next((name for pattern, name in _PROGRAMS if pattern.fullmatch(variable)), None)
    if program is None:
        return None
    words = value.replace("\x1f", " ").split()  # CARGO_ENCODED_RUSTFLAGS: 0x1f-separated
    hit = next((hit for hit in option_hits(program, ["build", *words] if program == "go" else
                                           words) if hit.does is Does.RUNS), None)
    return None if hit is None else (
        f"{variable} hands {program} {hit.word}, which loads or runs a program the rules do not "
        "read")


def assignment_runs(word: str) -> str | None:
    """:func:`flags_run` of an assignment word ``NAME=VALUE`` (``NAME+=VALUE`` too)."""
    name, equals, value = word.partition("=")
    return flags_run(name.removesuffix("+"), value) if equals else None
