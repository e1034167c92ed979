"""Whether a JSON document's start never closes within a text, told without parsing it: a sample cut from a large
array or object (a spill's 512 KiB of 2 MiB) or a content cut by a tool's output cap parses to its end to fail,
one parse each time a shape asks (as one document, as a stream's first, as a line) -- 40 ms a parse of 512 KiB of
``[[1,2],[3]], `` (helper jsonopen1). Its brackets outside strings, kept at C speed and their matched pairs taken
away, tell it instead."""

from __future__ import annotations

import re

__all__ = ["SHALLOW", "never_closed"]

SHALLOW = 100
"""Most nesting told without a parse: a document nested this deep may be one the parser cannot follow (a
RecursionError to tell, not a ValueError), so it is parsed."""

_CLOSERS = {"[": "]", "{": "}"}
_QUOTED_RE = re.compile(rb'"[^"]*"')  # (a string that holds brackets, once all but its quotes and brackets are gone)
_ESCAPE_RE = re.compile(rb'\\[\\"]')  # (an escaped backslash or quote, paired from the left as the parser pairs them)
_NOT_KEPT = bytes(byte for byte in range(256) if byte not in b'[]{}"')


def never_closed(text: str) -> bool:
    """Whether ``text`` starts with ``[`` or ``{`` that no closer in ``text`` matches, nested less than
    :data:`SHALLOW` deep throughout: a parse of its first document then raises a ValueError that is not "Extra
    data" (never a RecursionError). ``False`` where it may close, or nests deeper. Never raises.

    A document that closes is valid JSON up to its closer, where every ``"`` outside a string opens one and every
    ``\\`` in a string escapes the next character: its escapes and its strings taken away from the left, as the
    parser reads them, leave its brackets, which pair up to its closer. So where the brackets after the first,
    their adjacent pairs taken away (``[]`` and ``{}``, again and again), hold no closer, none closes the first."""
    closer = _CLOSERS.get(text[:1])
    if closer is None:
        return False
    if closer not in text and text.count("[") + text.count("{") < SHALLOW:  # (an array of numbers or strings cut)
        return True
    kept = text.encode("utf-8", "surrogatepass")
    kept = _ESCAPE_RE.sub(b"", kept)  # (one scan: two replaces of 512 KiB of JSON were 1.9 ms, this 0.23 ms)
    kept = kept.translate(None, _NOT_KEPT).replace(b'""', b"")  # (a string without brackets: two quotes together)
    if b'"' in kept:  # (strings that hold brackets; a quote left over opens a string never closed: the end)
        kept = _QUOTED_RE.sub(b"", kept).split(b'"', 1)[0]
    rest = kept[1:]
    for passes in range(SHALLOW // 2):  # (each pass takes away at most two levels of nesting)
        paired = rest.replace(b"[]", b"").replace(b"{}", b"")
        if len(paired) == len(rest):
            return b"]" not in rest and b"}" not in rest and 1 + len(rest) + 2 * passes < SHALLOW
        rest = paired
    return False
