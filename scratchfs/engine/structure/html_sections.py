"""What a CSS select of an HTML page whose matches are headings says: the select that gives the section under the
first one.

``select="#processmemoryusage"`` over Node.js's ``process`` page matched the heading's anchor (``<a class="mark"
id=...>#</a>``) and gave ``["[#](#processmemoryusage)"]``, nothing else: the text of the section the id names took
two more calls (a search of the text view for the heading's words, then a read from there; modeltask12). When every
match is a heading (``<h1>``-``<h6>``) or inside one and their texts are short (at most :data:`SHORT_CHARS`
characters together), the select's note names a select of the first match's heading and its following siblings up
to the next heading of the same or a higher level -- as cssselect writes it: ``H, H ~ :nth-child(-n+J)``, ``J`` the
place among its siblings of the last element before that heading (``:not()`` of a complex selector holding ``:is()``
is translated wrongly by cssselect 1.6, its ``or`` unparenthesized, and a nested ``:not()`` is refused), ``H`` the
heading by its id or the id in it (``h4:has(#event-exit)``). A heading with no id in it, or whose id another element
has too (``#a`` would select both sections), gets a search of the text view for its text instead. A heading wrapped
alone (GitHub's ``<div class="markdown-heading"><h2>Install</h2><a class="anchor">``) is its wrapper
(``div:has(> h2#install)``; GitHub's heading has no id, its anchor beside it has: ``div:has(>
a#user-content-install)``), as is one wrapped with its self-link's text or a lower heading after it: the section is
the wrapper's following siblings, up to one that is or holds the next
heading of the same or a higher level (before, the select gave the heading and its anchor alone). A section holding
text outside its elements (``<div><h2>Install</h2></div>loose text<p>pip</p>``; ``:nth-child`` selects elements
only) gets the text view's search too. It imports
nothing of ``scratchfs`` (the worker loads it by path)."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["SHORT_CHARS", "section_hint"]

SHORT_CHARS = 200
"""Most characters of the matches' texts, together, for which a select of headings names its section's select."""
_PLAIN_ID = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _heading(element: Any) -> Any:
    """The heading ``element`` is or is in (``None``: neither)."""
    if element.tag in _HEADINGS:
        return element
    return next(element.iterancestors(*_HEADINGS), None)


def section_hint(found: list, texts: list[str]) -> str | None:
    """The note of a select whose matches ``found`` (lxml elements; ``texts``: those of the reply's page) are
    headings or inside them, with short texts: the select (else the text-view search) that gives the section under
    the first one; ``None`` for any other select. Never raises for lxml elements."""
    if not found or len(found) > 8 or sum(map(len, texts)) > SHORT_CHARS:
        return None
    headings = [_heading(element) for element in found]
    if any(heading is None for heading in headings):
        return None
    heading = headings[0]
    level = int(heading.tag[1])
    block = _block(heading)
    siblings = [sibling for sibling in block.itersiblings() if isinstance(sibling.tag, str)]  # (elements: no
    # comment nor processing instruction, which :nth-child does not count)
    stop = next((at for at, sibling in enumerate(siblings) if _opens_section(sibling, level)), len(siblings))
    marked = _marked(block, heading)
    words = " ".join("".join(heading.itertext()).split())
    loose = _loose_text(block, siblings[stop] if stop < len(siblings) else None)
    if marked is None or not _plain_id(marked.get("id")) or block.getparent() is None or _shared(marked) or loose:
        why = " (text outside its elements, which a select does not give)" if loose else ""
        return (f"the matches are headings: the text under the first{why} is a search of the text view, "
                f'view="text", match={json.dumps(words[:80])}') if words else None
    chosen = _selector(block, heading, marked)
    before = sum(isinstance(sibling.tag, str) for sibling in block.itersiblings(preceding=True))
    last = before + stop + 1  # (1-based place among its parent's elements of the last sibling before the next heading)
    select = f"{chosen}, {chosen} ~ :nth-child(-n+{last})" if stop else chosen
    return (f"the matches are headings ({json.dumps(words[:80])}, {len(found)} in all): the section under the first, "
            f"the heading and its {stop} following elements up to the next heading of its level or higher, is "
            f"select={json.dumps(select)}")


def _block(heading: Any) -> Any:
    """The outermost element that holds ``heading`` and nothing else of text but self-links (GitHub's ``<div
    class="markdown-heading">``, a heading and its anchor; an anchor of ``#``) and lower headings after it (a
    wrapper of a heading and its subheading), below ``<body>``; ``heading`` itself when its parent holds more. The
    section is that element's following siblings: a heading wrapped alone has none of its own."""
    level, block = int(heading.tag[1]), heading
    while (parent := block.getparent()) is not None and parent.tag not in ("body", "html") and \
            not "".join(parent.xpath(_OUTSIDE)).strip() and \
            _first_of(list(parent.iter(*_HEADINGS)), heading, level):
        block = parent
    return block


_OUTSIDE = ".//text()[not(ancestor::h1 or ancestor::h2 or ancestor::h3 or ancestor::h4 or ancestor::h5 or " \
           "ancestor::h6 or ancestor::a[starts-with(@href, '#')] or ancestor::script or ancestor::style)]"
"""The texts of an element outside its headings, its self-links (``<a href="#install">``), scripts and styles."""


def _loose_text(block: Any, stop: Any) -> bool:
    """Whether text stands outside elements between ``block`` (a heading's, :func:`_block`) and ``stop`` (the
    sibling that opens the next section; ``None``: the parent's end) -- ``<div><h2>Install</h2></div>loose
    text<p>pip</p>``: a select of the siblings (``:nth-child`` counts elements) would leave it out."""
    if (block.tail or "").strip():
        return True
    for sibling in block.itersiblings():  # (comments too: text may follow one)
        if sibling is stop:
            return False
        if (sibling.tail or "").strip():
            return True
    return False


def _first_of(headings: list, heading: Any, level: int) -> bool:
    """Whether ``heading`` (of ``level``) is the first of ``headings`` (in document order) and the others lower."""
    return headings[0] is heading and all(int(inner.tag[1]) > level for inner in headings[1:])


def _marked(block: Any, heading: Any) -> Any:
    """The element whose id names ``block``: ``heading``, an element in it with an id, else (a wrapper) one in
    ``block`` outside it (GitHub's anchor: ``<a id="user-content-install">``, the heading having none); ``None``:
    no id."""
    if heading.get("id"):
        return heading
    inside = next((inner for inner in heading.iterdescendants() if inner.get("id")), None)
    if inside is not None or block is heading:
        return inside
    return next((inner for inner in block.iterdescendants() if inner.get("id") and _plain_id(inner.get("id"))), None)


def _opens_section(element: Any, level: int) -> bool:
    """Whether ``element`` (a sibling after a heading's block) is or holds a heading of ``level`` or higher: the
    next section's start, whether its heading stands alone or wrapped."""
    return any(int(inner.tag[1]) <= level for inner in element.iter(*_HEADINGS))


def _selector(block: Any, heading: Any, marked: Any) -> str:
    """The CSS selector of ``block`` (:func:`_block`: ``heading`` or what wraps it alone) by the id of ``marked``
    (``heading`` or an element in it): ``#id`` or ``h4:has(#id)``, else, for a wrapper, ``div:has(> h2#id)`` (its
    children down to the heading named, each a child: only the heading's own wrapper matches)."""
    ident = marked.get("id")
    if block is heading:
        return f"#{ident}" if marked is heading else f"{heading.tag}:has(#{ident})"
    if marked is not heading and heading not in marked.iterancestors():  # (an id beside the heading: its anchor's)
        heading = marked
    chain = [heading.tag]
    for ancestor in heading.iterancestors():
        if ancestor is block:
            break
        chain.append(ancestor.tag)
    path = " > ".join(chain[::-1])
    return f"{block.tag}:has(> {path}#{ident})" if marked is heading else f"{block.tag}:has(> {path} #{ident})"


def _shared(element: Any) -> bool:
    """Whether another element of ``element``'s document has its id too (a select of ``#id`` matches them all)."""
    return len(element.getroottree().xpath("//*[@id=$ident]", ident=element.get("id"))) > 1


def _plain_id(ident: str | None) -> bool:
    """Whether ``ident`` is written in a selector as ``#ident`` without escapes."""
    return ident is not None and _PLAIN_ID.fullmatch(ident) is not None
