"""The words a page of items carries about its own fields, said on the page that shows them rather than in the tool
definition a model carries on every turn: ``part`` (a piece of an item larger than a page, and how to join the
pieces), ``as_text`` (items given as their JSON text) and ``record`` and ``first`` of a jq read over records (the
record of the page's first output and that output's number among the record's outputs, when the page does not start
at the first output of the record the read started at). A page that has none of these fields gets no words.

:meth:`~scratchfs.engine.structure.paging.ItemPage.to_dict` adds them to the page's ``note``, so every measure of a
page counts them: the page is filled with room for them, never read again to make room.
"""

from __future__ import annotations

from typing import Any

_NOUNS = {"results": "output", "records": "record", "rows": "row", "elements": "element"}
"""The item a page's list (by its name) holds, in one word."""


def page_words(page: dict[str, Any], name: str, start: int | None = None, texts: bool = False) -> list[str]:
    """The clauses (short sentences, no final stop) a page's JSON object ``page`` (``{[record], first, [part],
    <name>: items, ..., [as_text]}``) needs to be read right: one for ``part`` (a piece of the item's own text when
    ``texts``, the items being strings -- an HTML element's text --, else of its compact JSON text: an XML element's
    object), one for ``as_text``, and, for jq outputs over records (``start``: the record the read started at, its
    ``record`` argument or its cursor's), one for ``record`` and ``first`` unless the page starts at output 1 of
    record ``start``. Never raises."""
    noun, first, words = _NOUNS.get(name, "item"), page.get("first"), []
    if start is not None and "record" in page and (first != 1 or page["record"] != start):
        words.append("`record`: the first output's record; `first`: its number among that record's outputs")
    if "part" in page:
        text = "text" if texts else "compact JSON text"
        words.append(f"`part`: a piece of {noun} {first}'s {text}, too large for a page: join the `part` of "
                     f"consecutive pages with this `first`, in order; it ends on the page whose `{name}` follow "
                     "it, at the end, or before a page whose `first` is higher")
    if page.get("as_text"):
        words.append(f"`as_text`: the {name} at these indexes (from 0) are their JSON text, a string: a number JSON "
                     "cannot carry exactly (1e400, NaN) or a lone surrogate escape")
    return words


def with_words(page: dict[str, Any], name: str, start: int | None = None, texts: bool = False) -> dict[str, Any]:
    """``page`` (changed in place and returned) with :func:`page_words`' clauses (``texts``: its items are strings,
    their parts pieces of that text) after its own ``note`` (``"; "`` between them), or in a ``note`` at its end when
    it has none. Never raises."""
    words = page_words(page, name, start, texts)
    if words:
        said = page.get("note")
        page["note"] = "; ".join([said, *words] if said else words)  # (an existing note keeps its place)
    return page


__all__ = ["page_words", "with_words"]
