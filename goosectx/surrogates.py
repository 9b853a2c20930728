r"""Text made valid Unicode: surrogate pairs joined into their character, lone ones U+FFFD.

A provider escaping non-ASCII (``\ud83d\ude00``), an MCP tool or an import can give a ``str``
holding surrogates, which no UTF-8 writer, store or strict JSON reader (jq) accepts. The one
repair, shared by the provider's stream (:mod:`goosectx.providers.openai_format`) and the
print path's JSON (:func:`goosectx.cli.sanitize.json_safe`), so neither imports the other.
"""

from __future__ import annotations


def whole_text(text: str) -> str:
    """``text`` with each surrogate pair joined into its character and lone surrogates U+FFFD.

    Text without any surrogate is returned as it is (ASCII without encoding it).
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text
