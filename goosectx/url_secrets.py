"""The credentials a configured URL holds, made known secrets of the process.

An ``api_base`` or an extension's ``uri`` may carry a password (``http://bob:PASS@host``) or
a key in its query (``?key=…``, ``&access_token=…``). :func:`goosectx.redaction.redact_urls`
hides them where the whole URL is shown, but an error about the URL may quote only a piece
of one: httpx read ``bob:Tr0ub[4dorSecretPart99]xy@`` as an IPv6 host and said
``'4dorSecretPart99' does not appear to be an IPv4 or IPv6 address``. So each such value,
its percent-decoded form and each 8+ character run of it between URL punctuation is given to
:func:`goosectx.redaction.remember_secret` when the URL is read (the config's ``api_base``,
an extension's ``uri``): :func:`~goosectx.redaction.redact_known` — a provider's error, the
``--debug`` log — then redacts it wherever it appears. See docs/architecture.md §2
(redaction).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import unquote

from goosectx.redaction import key_like_param, remember_secret
from goosectx.secret_names import MIN_SECRET_CHARS, is_secret, secret_name

_RUN = re.compile(r"[^\s\[\]:@/?#%&=]{" + str(MIN_SECRET_CHARS) + ",}")
"""A run of a value between the characters a URL parser splits on (``[``, ``]``, ``:``…)."""


def _forms(value: str) -> list[str]:
    """``value``, its percent-decoded form and each long run of either."""
    found: list[str] = []
    for form in dict.fromkeys((value, unquote(value))):
        found += [form, *_RUN.findall(form)]
    return found


def url_secrets(url: str) -> list[str]:
    """The password and key-like query (or fragment) values of ``url``, in every form.

    A password under 8 characters would shred ordinary text redacted wherever it appears
    (``pw12``): its whole userinfo is listed instead (``bob:pw12``, or with the host,
    ``me:pw@db.local``), so a message quoting the URL without its scheme hides it too.

    Parsed by hand as :func:`goosectx.redaction.redact_urls` does (what it hides on screen is
    what becomes known here); ``urlsplit`` would read a bracket in a password as a host's.
    """
    if "://" not in url:
        return []
    text, _, fragment = url.strip().partition("://")[2].partition("#")
    text, _, query = text.partition("?")
    userinfo, at, host = text.split("/", 1)[0].rpartition("@")
    found: list[str] = []
    if at and ":" in userinfo:
        password = userinfo.split(":", 1)[1]
        found += _forms(password)
        if len(unquote(password)) < MIN_SECRET_CHARS:  # too short to redact alone: with its user
            found += [u if len(u) >= MIN_SECRET_CHARS else f"{u}@{host}"
                      for u in dict.fromkeys((userinfo, unquote(userinfo)))]
    for part in (query, fragment):
        for param in part.split("&"):
            name, eq, value = param.partition("=")
            if eq and value and key_like_param().fullmatch(name):
                found += _forms(value)
    return list(dict.fromkeys(found))


_TOKEN_WORD = re.compile(r"(?=[^\s]*[0-9])(?=[^\s]*[A-Za-z])[A-Za-z0-9_\-+/=.~]{20,}")
"""A word an opaque token is made of: 20+ key characters, letters and digits mixed (not
``application/json``, ``text/event-stream``, ``gzip, deflate``)."""


def credential_header(name: str, value: str) -> bool:
    """True when the header ``name: value`` carries a credential.

    By its name (``Authorization``, ``Proxy-Authorization``, ``Cookie``, ``X-API-Key``,
    ``X-Auth-Token``, ``Private-Token``, ``*-Secret``: :func:`goosectx.secret_names.secret_name`
    read with ``-`` as ``_``, or :func:`goosectx.redaction.key_like_param`), or by its value
    (``Bearer …``, a vendor's key, a URL with a password, a token-like word). ``Accept:
    application/json`` does not: its value would be redacted everywhere it appears.
    """
    return (secret_name(name.strip().replace("-", "_").upper())
            or bool(key_like_param().fullmatch(name.strip())) or is_secret("", value)
            or any(_TOKEN_WORD.fullmatch(word) for word in value.split()))


def credential_values(headers: Mapping[str, str]) -> list[str]:
    """The values of ``headers`` that carry a credential (:func:`credential_header`)."""
    return [value for name, value in headers.items() if credential_header(name, value)]


def header_secrets(value: str) -> list[str]:
    """A header's value (``Bearer TOKEN``) and each 12+ character word of it (the token)."""
    return [value, *(w for w in value.split() if len(w) >= 12)]


def remember_url_secrets(urls: Iterable[str | None] = (), headers: Iterable[str] = ()) -> None:
    """Make the credentials of ``urls`` and the values of ``headers`` known secrets."""
    for url in urls:
        for value in url_secrets(url) if url else ():
            remember_secret(value)
    for header in headers:
        for value in header_secrets(header):
            remember_secret(value)
