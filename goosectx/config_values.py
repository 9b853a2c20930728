"""Parsers for single settings values: one-line errors that name the key and what it expects.

Used by goosectx/config.py and the extension settings; see docs/architecture.md §2.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Literal

from goosectx.errors import ConfigError

ApprovalMode = Literal["auto", "approve", "smart_approve", "chat"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = ("auto", "approve", "smart_approve", "chat")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


TOP_LEVEL_KEYS = frozenset((
    "model", "compaction_model", "mode", "auto_compact_threshold", "context_limit", "max_turns",
    "tool_pair_summarization", "tool_call_cutoff", "data_dir", "allow_secret_env",
    "shell_timeout_s", "tool_output_max_chars", "models", "request_deadline_s",
    "keep_recent_ratio", "keep_user_tokens", "summary_result_chars", "summary_facts_tokens",
    "extensions", "tool_budget_ratio", "show_reasoning", "mention_max_tokens", "max_cost_usd",
    "shell_escape_to_model", "permissions"))
"""The keys of the config file's top level (above its first ``[table]`` line)."""


def top_level_key_error(prefix: str, table: str, key: str) -> ConfigError | None:
    """The error for ``key`` found in ``table`` when it is a top-level key, else ``None``.

    Such a key was most likely appended at the end of the file, below a table: TOML puts
    every key under a ``[table]`` header into that table. The error says so and to move the
    key up. ``prefix``: what the message starts with (``"FILE: "``, or ``""``).
    """
    if key not in TOP_LEVEL_KEYS:
        return None
    return ConfigError(f"{prefix}{key!r} is not a key of {table}: it is a top-level key, and "
                       "a key below a [table] header belongs to that table",
                       f"move {key} = … above the first [table] of the file")


def fail(key: str, value: object, expected: str) -> ConfigError:
    """The one-line error for a bad value: the key, what it expects, what it got."""
    return ConfigError(f"{key} must be {expected}; got {value!r}")


def parse_ratio(key: str, value: object) -> float:
    """Parse a threshold: any finite number (outside (0, 1) disables auto-compaction).

    Raises:
        ConfigError: not a number.
    """
    expected = ("a number between 0 and 1 to compact at that share of the context limit "
                "(any other number, such as 0 or 1, turns it off)")
    if isinstance(value, bool):
        raise fail(key, value, expected)
    try:
        ratio = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise fail(key, value, expected) from None
    if not math.isfinite(ratio):
        raise fail(key, value, expected)
    return ratio


def parse_share(key: str, value: object) -> float:
    """Parse a share of the context limit: a number from 0 to 0.9.

    Raises:
        ConfigError: not a number in [0, 0.9].
    """
    expected = "a number from 0 to 0.9 (a share of the context limit)"
    if isinstance(value, bool):
        raise fail(key, value, expected)
    try:
        share = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise fail(key, value, expected) from None
    if not 0.0 <= share <= 0.9:
        raise fail(key, value, expected)
    return share


def parse_count(key: str, value: object) -> int:
    """Parse a whole number ≥ 0 (raises ConfigError otherwise, saying 0 is allowed)."""
    if value in (0, "0"):
        return 0
    try:
        return parse_positive_int(key, value)
    except ConfigError:
        raise fail(key, value, "a whole number of at least 0") from None


def parse_positive_int(key: str, value: object) -> int:
    """Parse a whole number ≥ 1 (``_`` separators allowed).

    Raises:
        ConfigError: not a whole number ≥ 1.
    """
    if isinstance(value, bool):
        raise fail(key, value, "a whole number of at least 1")
    try:
        number = int(str(value).replace("_", "").strip()) if not isinstance(value, int) else value
    except ValueError:
        raise fail(key, value, "a whole number of at least 1") from None
    if number < 1:
        raise fail(key, value, "a whole number of at least 1")
    return number


MAX_TURNS = 1_000_000
"""The most model calls a turn may be allowed: ``--max-turns``, ``GOOSE_MAX_TURNS`` and
``max_turns`` in the config file take 1 to this."""
MAX_TURNS_EXPECTED = f"a whole number from 1 to {MAX_TURNS:,}"
_WHOLE_TEXT = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*")


def parse_max_turns(key: str, value: object, hint: str | None = None) -> int:
    """Parse a bound on model calls per turn: 1 to :data:`MAX_TURNS`, as ``--max-turns`` takes.

    Text must be ASCII digits (``_`` between them allowed); a number from the config file
    (TOML) must be an integer, not ``5.0``.

    Raises:
        ConfigError: anything else, saying the range; ``hint`` (the fix) is added to it.
    """
    if isinstance(value, str) and _WHOLE_TEXT.fullmatch(value.strip()):
        number: int | None = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        number = None
    if number is None or not 1 <= number <= MAX_TURNS:
        raise ConfigError(fail(key, value, MAX_TURNS_EXPECTED).message, hint)
    return number


MIN_CONTEXT_LIMIT_TOKENS = 1_000
MAX_CONTEXT_LIMIT_TOKENS = 100_000_000
"""The context limits goosectx takes: below 1,000 the system prompt alone is over it; no model
reads 100 million tokens."""


def parse_context_limit(key: str, value: object) -> int:
    """Parse a context limit in tokens: a whole number in the range above.

    Raises:
        ConfigError: anything else, saying the range.
    """
    expected = (f"a whole number of tokens from {MIN_CONTEXT_LIMIT_TOKENS:,} to "
                f"{MAX_CONTEXT_LIMIT_TOKENS:,}")
    try:
        tokens = parse_positive_int(key, value)
    except ConfigError:
        raise fail(key, value, expected) from None
    if not MIN_CONTEXT_LIMIT_TOKENS <= tokens <= MAX_CONTEXT_LIMIT_TOKENS:
        raise fail(key, value, expected)
    return tokens


def parse_positive_float(key: str, value: object) -> float:
    """Parse a number > 0.

    Raises:
        ConfigError: not a positive number.
    """
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise fail(key, value, "a number greater than 0") from None
    if isinstance(value, bool) or not math.isfinite(number) or number <= 0:
        raise fail(key, value, "a number greater than 0")
    return number


MAX_COST_USD = 1_000_000.0
"""The largest spending cap goosectx takes, US dollars."""
COST_USD_EXPECTED = "a number of US dollars above 0 and up to 1,000,000, in digits 0-9"
_COST_TEXT = re.compile(r"\$?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def parse_cost_usd(key: str, value: object, hint: str | None = None) -> float:
    """Parse a spending cap: 0 < amount ≤ :data:`MAX_COST_USD`.

    Text must be a plain decimal in ASCII digits (``5``, ``0.25``, ``$5``): no exponent, no
    ``inf``, no other scripts' digits (Python's ``float`` takes ``١٢`` as 12). A number from the
    config file (TOML) is taken as it is, within the range.

    Raises:
        ConfigError: anything else; ``hint`` (the fix) is added to it.
    """
    if isinstance(value, str) and _COST_TEXT.fullmatch(value.strip()):
        number = float(value.strip().removeprefix("$"))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    else:
        number = math.nan
    if not 0 < number <= MAX_COST_USD:  # nan fails too
        raise ConfigError(fail(key, value, COST_USD_EXPECTED).message, hint)
    return number


def parse_bool(key: str, value: object) -> bool:
    """Parse true/false/yes/no/on/off/1/0 (any case).

    Raises:
        ConfigError: anything else.
    """
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise fail(key, value, "one of true, false, yes, no, on, off, 1, 0")


def parse_mode(key: str, value: object) -> ApprovalMode:
    """Parse an approval mode.

    Raises:
        ConfigError: not one of ``auto``, ``approve``, ``smart_approve``, ``chat``.
    """
    text = str(value).strip().lower().replace("-", "_")
    for mode in APPROVAL_MODES:
        if text == mode:
            return mode
    raise fail(key, value, "one of " + ", ".join(APPROVAL_MODES))


def parse_str(key: str, value: object) -> str:
    """Parse a non-empty string (raises ConfigError otherwise)."""
    if not isinstance(value, str) or not value.strip():
        raise fail(key, value, "a non-empty string")
    return value.strip()


CONFIG_MAX_BYTES = 1 << 20
"""The most of a config file read (1 MiB): ``/dev/zero`` or an endless pipe is refused, not
read until memory runs out."""


def read_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file (a pipe too); every failure is a one-line ConfigError naming the file."""
    try:
        with path.open("rb") as fh:
            data = fh.read(CONFIG_MAX_BYTES + 1)
    except IsADirectoryError:
        raise ConfigError(
            f"config file {path} is a directory", "point --config at a file"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    if len(data) > CONFIG_MAX_BYTES:
        raise ConfigError(f"config file {path} is over {CONFIG_MAX_BYTES >> 20} MiB",
                          "point --config or GOOSECTX_CONFIG at the TOML config file")
    if not data:  # an empty file is an empty table: no TOML parser loaded for it
        return {}
    import tomllib  # here: a run without a config file never parses TOML

    try:
        return tomllib.loads(data.decode())
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"config file {path} is not UTF-8 text (byte {exc.start})",
            "save it as UTF-8, or move it aside",
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"config file {path} is not valid TOML: {exc}", "fix the line named, or move the file"
        ) from None
    except RecursionError:
        raise ConfigError(
            f"config file {path} nests arrays or tables too deeply to read",
            "fix the file, or move it aside",
        ) from None
