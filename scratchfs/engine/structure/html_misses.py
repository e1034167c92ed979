"""What a CSS select of an HTML page that matched nothing says: which of its ids, classes and element names the page
lacks, and the ones it holds that are like them -- selectors that would hit.

A select of no match was ``{"matches": 0, "elements": []}`` and nothing else: ``select="#process-memoryusage"``
over Node.js's ``process`` page (whose id is ``processmemoryusage``) left the model to guess again (modeltask12). The
hint is made in the HTML worker from the tree the select ran over, only when it matched nothing: one walk over the
page's elements (their ids, classes and names), at most :data:`MOST_LIKE` alike of each, the note at most
:data:`MOST_HINT_CHARS` characters. It imports nothing of ``scratchfs`` (the worker loads it by path).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from typing import Any

__all__ = ["MOST_HINT_CHARS", "MOST_LIKE", "miss_hint"]

MOST_LIKE = 4
"""Most ids (classes) a hint names as like one the page lacks."""
MOST_HINT_CHARS = 600
"""Most characters of a hint."""
_SHOWN_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6", "main", "article", "section", "nav", "table", "form", "input",
               "select", "textarea", "button", "pre", "ul", "ol", "dl", "a", "img", "p")
"""Elements a hint counts when the selector names one the page lacks: what a page's reads are made of."""
_NOT_NAMES = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\[[^\]]*\]|::?[\w-]+(?:\([^)]*\))?")
"""Quoted strings, attribute conditions and pseudo-classes of a selector: no id, class or element name in them."""
_ID, _CLASS = re.compile(r"#([\w-]+)"), re.compile(r"\.([\w-]+)")
_TAG = re.compile(r"(?<![#.\w-])([A-Za-z][\w-]*)")


def _key(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.lower())


def _like(name: str, names: set[str]) -> list[str]:
    """Up to :data:`MOST_LIKE` of ``names`` like ``name``: the same letters and digits but for case and punctuation
    (``process-memoryUsage`` is ``processmemoryusage``) first, then those holding them or held in them, shortest
    first; else :func:`difflib.get_close_matches`'s."""
    key = _key(name)
    same = sorted(each for each in names if key and (key in _key(each) or _key(each) in key) and _key(each))
    same.sort(key=lambda each: (_key(each) != key, len(each)))
    return same[:MOST_LIKE] or difflib.get_close_matches(name, sorted(names), MOST_LIKE, 0.6)


def miss_hint(tree: Any, selector: str) -> str:
    """The note of a select of ``selector`` that matched nothing in ``tree`` (an lxml HTML document): each id
    (``#x``), class (``.x``) and element name it names that the page lacks, with those alike it holds (``#x``,
    ``.x``), or with the page's counts of common elements (:data:`_SHOWN_TAGS`) for a name it lacks; or, when it
    holds them all, that their combination matches nothing. At most :data:`MOST_HINT_CHARS` characters."""
    bare = _NOT_NAMES.sub(" ", selector)
    ids: set[str] = set()
    classes: set[str] = set()
    tags: Counter[str] = Counter()
    for element in tree.iter():
        if not isinstance(element.tag, str):
            continue
        tags[element.tag.lower()] += 1
        if element.get("id"):
            ids.add(element.get("id"))
        classes.update((element.get("class") or "").split())
    said: list[str] = []
    for name in dict.fromkeys(_ID.findall(bare)):
        if name not in ids:
            like = _like(name, ids)
            said.append(f"no id {name!r}" + (f" (ids like it: {', '.join('#' + each for each in like)})" if like
                                            else ""))
    for name in dict.fromkeys(_CLASS.findall(bare)):
        if name not in classes:
            like = _like(name, classes)
            said.append(f"no class {name!r}" + (f" (classes like it: {', '.join('.' + each for each in like)})"
                                                if like else ""))
    lacking = [name for name in dict.fromkeys(_TAG.findall(bare)) if name.lower() not in tags]
    if lacking:
        held = ", ".join(f"{tags[tag]:,} {tag}" for tag in _SHOWN_TAGS if tags[tag])
        said.append(f"no <{'> or <'.join(lacking)}> element" + (f" (it holds {held})" if held else ""))
    if not said:
        return ("nothing matches, though the page holds each id, class and element the selector names: their "
                "combination is not on it (a browser's DOM may differ from the page as written)")[:MOST_HINT_CHARS]
    text = "nothing matches: the page has " + "; ".join(said)
    return text if len(text) <= MOST_HINT_CHARS else text[: MOST_HINT_CHARS - 3] + "..."
