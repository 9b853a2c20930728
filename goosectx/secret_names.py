"""Which environment variables hold a secret, by name or by value.

docs/architecture.md §4 (secrets). A variable is secret when its name matches
:data:`SECRET_NAME` (``*_API_KEY``, ``*_TOKEN``, ``*SECRET*``, ``*PASSWORD*``, ``*WEBHOOK*``,
``*_AUTH_*``, ``*COOKIE*``, ``*_PAT``, ``*_PWD``, ``*PASS``, …) or its value is a URL with a
password (``postgres://user:pw@host/db``) or a token for its user name, a ``Bearer``/``Basic``
header value or a Slack/Discord webhook URL (:data:`SECRET_VALUE`) or a vendor's key format
(``ghp_…``, ``sk-…``, ``AKIA…``: :data:`WELL_KNOWN_KEY`) or holds a connection string's
``AccountKey=``/``Password=`` or a SAS ``sig=`` (:data:`CONNECTION_SECRET`). Secret variables
never reach a child process (``tools/builtin.py``) and their values are redacted
(:mod:`goosectx.redaction`).

Core module: no printing.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping

MIN_SECRET_CHARS = 8
"""Shorter values are not redacted (they would shred ordinary output)."""

_PW = r"_PWD?(?=_|$)"
"""A ``_PWD`` or ``_PW`` part after another (:data:`SECRET_NAME`, :data:`_PW_PART`)."""
SECRET_NAME = re.compile(
    r"(_API_KEY|APIKEY|_ACCESS_KEY|_PRIVATE_KEY|_KEY$|_TOKEN|^TOKEN$|SECRET|PASSWORD|PASSWD"
    r"|PASSPHRASE|CREDENTIAL|_PAT$|_PAT_|^PAT$|WEBHOOK|COOKIE|BEARER|SESSION_?KEY|SIGNATURE"
    r"|SIGNING|(?:^|_)(?:AUTH|AUTHORIZATION|AUTHN|AUTHZ|PASS|PRIVATE)(?:_|$)|" + _PW +
    r"|(?<!BY)(?<!COM)(?<!ASK)PASS$)",
    re.IGNORECASE)
"""Names of variables whose value is a secret (case-insensitive search): ``_PWD`` and ``_PW``
as a part after another (``MYSQL_PWD``, ``LDAP_BIND_PW``; not ``PWD`` or ``OLDPWD``, the
working directories) and a name ending in ``PASS`` (``SSHPASS``, ``PGPASS``; not ``BYPASS``
or ``SSH_ASKPASS``, a program) too."""
_PW_PART = re.compile(_PW, re.IGNORECASE)
NOT_SECRET_NAMES = frozenset({"SSH_AUTH_SOCK"})
"""Names :data:`SECRET_NAME` matches that hold no secret (a socket path)."""
URL_WITH_PASSWORD = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:([^\s/@]+)@", re.IGNORECASE)
"""A URL with a password in it; group 1 is the password."""
SECRET_VALUE = re.compile(
    r"^\s*(?:(?:Bearer|Basic|Token)\s+(\S{8,})\s*$"  # an Authorization header's value
    r"|\S*://(?:hooks\.slack\.com/services|(?:\w+\.)?discord(?:app)?\.com/api/webhooks)/\S+"
    r"|[a-z][a-z0-9+.-]*://([^\s:/@]{16,})@\S*)",  # a token as a URL's user name
    re.IGNORECASE)
"""A value that is a secret whatever its name; group 1 or 2 is the token in it."""
WELL_KNOWN_KEY = re.compile(
    r"(?<![A-Za-z0-9_-])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{50,250}"
    r"|sk-(?=[A-Za-z0-9_-]*[0-9])(?:ant-|proj-)?[A-Za-z0-9_-]{20,250}|xox[abprs]-[A-Za-z0-9-]{10,250}"
    r"|glpat-[A-Za-z0-9_-]{20,250}|hf_[A-Za-z0-9]{30,250}|(?:AKIA|ASIA)[A-Z0-9]{16}"
    r"|AIza[A-Za-z0-9_-]{35}|npm_[A-Za-z0-9]{36}"
    r"|(?:sk|rk)_(?:live|test)_(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{20,250}|whsec_[A-Za-z0-9]{32,250}"
    r"|SG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{40,50}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})(?![A-Za-z0-9_-])")
"""A vendor's key format (GitHub ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_`` and
``github_pat_``, OpenAI and Anthropic ``sk-``/``sk-proj-``/``sk-ant-``, Slack ``xoxb-``…,
GitLab ``glpat-``, Hugging Face ``hf_``, AWS ``AKIA``/``ASIA`` key ids, Google ``AIza``, npm
``npm_``, Stripe ``sk_live_``/``sk_test_``/``rk_live_``/``rk_test_`` with a digit and its
webhook ``whsec_``, SendGrid ``SG.…….……``, a signed JWT ``eyJ….eyJ….…``), each with its length
and characters: a value that is one (or holds one as a word) is a secret whatever its
variable's name (``GHX=ghp_…``). Ordinary values are too short or hold other characters
(``sk-1``, ``sk-learn``, ``AKIA`` alone, ``sk_test_helpers.py``, ``SG.config``)."""
CONNECTION_SECRET = re.compile(
    r"(?:^(?=.*;)|;)\s*(?:AccountKey|SharedAccessKey|Password|Pwd)\s*=\s*(\{[^}]+\}|[^;]*[^;\s])"
    r"|[?&]sig=([^&#\s]+)", re.IGNORECASE)
"""A connection string's key or password part (``AccountKey=…;``, ``SharedAccessKey=…``,
``Password=…``, ``Pwd={…}``; in a value with a ``;``) or a SAS URL's ``sig=`` signature: a
value holding one is a secret whatever its variable's name
(``AZURE_STORAGE_CONNECTION_STRING``, ``ODBC_DSN``, ``AZURE_SAS_URL``); group 1 or 2 is the
secret part."""


SECRET_FILE_NAME = "its name holds a secret: rename it to mention it"
"""What an ``@`` mention of a file whose name holds a secret says (the message is redacted
first: ``@[REDACTED].md`` names no file), and the ``@`` menu's note beside such a name."""


def secret_name(name: str) -> bool:
    """True when the variable called ``name`` holds a secret, by its name alone."""
    return bool(SECRET_NAME.search(name)) and name.upper() not in NOT_SECRET_NAMES


def named_secret(name: str, value: str) -> bool:
    """True when ``name`` says ``value`` is a secret (:func:`secret_name`).

    But for a directory: a name secret only by its ``_PWD``/``_PW`` part holding the absolute
    path of a directory that is there (``HOST_PWD=/home/me/app``, a working directory as
    ``PWD`` is) is not one. A value that names none is a password that starts with ``/``
    (``MYSQL_PWD=/xK9…``, MySQL's password variable): hiding a directory's name costs a
    user little, showing a password costs them the password.
    """
    if not secret_name(name):
        return False
    return not (value.startswith("/") and _PW_PART.search(name) is not None
                and not secret_name(_PW_PART.sub("", name)) and os.path.isdir(value))


def is_secret(name: str, value: str) -> bool:
    """True when ``name=value`` holds a secret (by its name, a URL password or its value)."""
    return named_secret(name, value) or bool(
        URL_WITH_PASSWORD.search(value) or SECRET_VALUE.match(value)
        or WELL_KNOWN_KEY.search(value) or CONNECTION_SECRET.search(value))


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Secret values in ``environ`` (8+ characters), longest first.

    For a URL with a password, a bearer header, a URL with a token for its user name or a
    connection string's key (:data:`CONNECTION_SECRET`) both the whole value and the
    password, token or key are listed.
    """
    env = os.environ if environ is None else environ
    values: set[str] = set()
    for name, value in env.items():
        if named_secret(name, value):
            values.add(value)
        for match in URL_WITH_PASSWORD.finditer(value):
            values.update((value, urllib.parse.unquote(match.group(1)), match.group(1)))
        if found := SECRET_VALUE.match(value):
            values.update(v for v in (value.strip(), *found.groups()) if v)
        values.update(match.group() for match in WELL_KNOWN_KEY.finditer(value))
        for match in CONNECTION_SECRET.finditer(value):  # the whole string and its key
            part = match.group(1) or match.group(2)
            values.update((value, part, part.strip("{}"), urllib.parse.unquote(part)))
    return sorted((v for v in values if len(v) >= MIN_SECRET_CHARS), key=len, reverse=True)


_OPTION = re.compile(r"--?([A-Za-z][A-Za-z0-9_-]*)(?:=(.*))?", re.DOTALL)


def argv_secrets(words: list[str]) -> list[str]:
    """Secrets written on a command line: option values and well-known keys (8+ characters).

    The value of an option whose name looks secret (``--token=…``, ``--password …``,
    ``--api-key=…``, ``--client-secret …``: :data:`SECRET_NAME` read with ``-`` as ``_``),
    in the same word after ``=`` or in the next, and each word that holds a vendor's key
    (:data:`WELL_KNOWN_KEY`, ``--gh=ghp_…``). Not ``-p`` (a port, a path or a profile as
    often as a password).
    """
    found: list[str] = []
    for i, word in enumerate(words):
        found += (m.group() for m in WELL_KNOWN_KEY.finditer(word))
        option = _OPTION.fullmatch(word)
        if option is None or len(option.group(1)) < 3 or not secret_name(
                option.group(1).replace("-", "_").upper()):
            continue
        value = option.group(2) if option.group(2) is not None else (
            words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("-") else "")
        found.append(value)
    return [v for v in found if len(v) >= MIN_SECRET_CHARS]

