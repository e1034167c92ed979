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
import heapq
import re
from collections import Counter
from itertools import islice
from typing import Any

import cssselect

__all__ = ["MOST_CLOSE", "MOST_HINT_CHARS", "MOST_LIKE", "MOST_LOOKED", "miss_hint", "selector_names"]

MOST_LIKE = 4
"""Most ids (classes) a hint names as like one the page lacks."""
MOST_HINT_CHARS = 600
"""Most characters of a hint."""
MOST_LOOKED = 6
"""Most ids and classes of a selector a hint looks for alike ones of (a selector of 1,024 characters names hundreds;
each look is a pass over the page's names, and a hint of 600 characters shows few): those past it are named alone."""
MOST_CLOSE = 5_000
"""Most of a page's names (the first, in page order, of at most :data:`_CLOSE_CHARS` characters) a look compares
letter by letter (:func:`difflib.get_close_matches`, some microseconds a name) when none holds the name's letters."""
_CLOSE_CHARS = 200
_SHOWN_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6", "main", "article", "section", "nav", "table", "form", "input",
               "select", "textarea", "button", "pre", "ul", "ol", "dl", "a", "img", "p")
"""Elements a hint counts when the selector names one the page lacks: what a page's reads are made of."""
_NOT_ALNUM = re.compile(r"[^0-9a-z]")
_KINDS = {cssselect.parser.Hash: ("id", "#"), cssselect.parser.Class: ("class_name", "."),
          cssselect.parser.Element: ("element", "")}
_ATTRIBUTES = {("id", "="): "#", ("class", "~="): ".", ("class", "="): "."}
"""Attribute selectors that name an id or a class a match must hold: ``[id=x]``, ``[class~=x]`` and ``[class=x]``
(the whole attribute ``x``: a page with no class ``x`` has none), with no namespace or case flag."""
_NOT_REQUIRED = (cssselect.parser.Negation, cssselect.parser.Matching, cssselect.parser.SpecificityAdjustment)
"""Parts whose names a match may lack: ``:not(...)``'s, ``:is(...)``'s and ``:where(...)``'s lists."""


def _key(name: str) -> str:
    return _NOT_ALNUM.sub("", name.lower())


def selector_names(selector: str) -> list[tuple[str, str]]:
    """The ids (``("#", id)``), classes (``(".", class)``) and element names (``("", name)``) ``selector`` names, in
    its order, once each, as CSS reads them (cssselect's parse: ``#a\\:b`` is the id ``a:b``, ``.x\\31 23`` the class
    ``x123``; ``[id=x]`` the id ``x``, ``[class~=x]`` the class, :data:`_ATTRIBUTES`), outside the lists of
    ``:not()``, ``:is()`` and ``:where()`` (a match may lack those) and attribute values (``:has()``'s when it holds
    one). Empty for a selector that does not parse. Never raises."""
    try:
        stack: list[Any] = [each.parsed_tree for each in reversed(cssselect.parse(selector))]
    except Exception:  # (a selector the worker ran parses; never raise from a note)
        return []
    names: dict[tuple[str, str], None] = {}
    while stack:  # (a selector's parts nest, the last written outermost: each part's inner selector is said first)
        node = stack.pop()
        if isinstance(node, tuple):
            names[node] = None
            continue
        kind = _KINDS.get(type(node))
        inner = getattr(node, "parsed_tree", None) or getattr(node, "selector", None)
        later = getattr(node, "subselector", None)
        arguments = getattr(node, "arguments", None)  # (a :has()'s: one is required, of several any)
        if isinstance(node, cssselect.parser.Relation) and len(arguments) == 1:
            later = arguments[0][1]
        if later is not None and not isinstance(node, _NOT_REQUIRED):
            stack.append(later)
        if kind is not None and getattr(node, kind[0], None):
            stack.append((kind[1], str(getattr(node, kind[0]))))
        elif isinstance(node, cssselect.parser.Attrib) and node.namespace is None and node.flag is None and \
                (mark := _ATTRIBUTES.get((str(node.attrib).lower(), node.operator))) and node.value is not None:
            stack.append((mark, str(node.value.value)))
        if inner is not None:
            stack.append(inner)
    return list(names)


class _Alike:
    """A page's ids (or classes), in page order, and the look for those like a name: their letters-and-digits keys
    made at the first look, once (one pass over the names; each look then one pass over the keys)."""

    def __init__(self, names: dict[str, None]) -> None:
        self.names = names
        self.keys: dict[str, list[str]] | None = None

    def like(self, name: str) -> list[str]:
        """Up to :data:`MOST_LIKE` names like ``name``: the same letters and digits but for case and punctuation
        (``process-memoryUsage`` is ``processmemoryusage``) first, then those holding them or held in them,
        nearest in length first (``.c77777`` before ``.c7`` for ``.c77777x``); else
        :func:`difflib.get_close_matches`'s among :data:`MOST_CLOSE` of them."""
        if self.keys is None:
            self.keys = {}
            for each in self.names:
                self.keys.setdefault(_key(each), []).append(each)
        key = _key(name)
        same = [(abs(len(held) - len(key)), len(each), each) for held, group in self.keys.items()
                if key and held and (key in held or held in key) for each in group]
        if same:
            return [each for *_, each in heapq.nsmallest(MOST_LIKE, same)]
        if len(name) > _CLOSE_CHARS:
            return []
        close = list(islice((each for each in self.names if len(each) <= _CLOSE_CHARS), MOST_CLOSE))
        return difflib.get_close_matches(name, close, MOST_LIKE, 0.6)


def miss_hint(tree: Any, selector: str) -> str:
    """The note of a select of ``selector`` that matched nothing in ``tree`` (an lxml HTML document): each id
    (``#x``), class (``.x``) and element name it names (:func:`selector_names`) that the page lacks, with those alike
    it holds (``#x``, ``.x``; for the first :data:`MOST_LOOKED` of them), or with the page's counts of common elements
    (:data:`_SHOWN_TAGS`) for a name it lacks; or, when it holds them all, that their combination matches nothing
    (when the selector names none, ``[data-x=y]``, that it names none).
    At most :data:`MOST_HINT_CHARS` characters. Its cost: one walk over the page's elements, and per id or class
    looked for one pass over the page's distinct ones. Never raises for an lxml document."""
    ids: dict[str, None] = {}
    classes: dict[str, None] = {}
    tags: Counter[str] = Counter()
    for element in tree.iter():
        if not isinstance(element.tag, str):
            continue
        tags[element.tag.lower()] += 1
        ids[element.get("id") or ""] = None
        classes.update(dict.fromkeys((element.get("class") or "").split()))
    ids.pop("", None)
    names = selector_names(selector)
    said: list[str] = []
    for mark, held, word in (("#", ids, "id"), (".", classes, "class")):
        alike = _Alike(held)
        for name in (name for kind, name in names if kind == mark and name not in held):
            like = alike.like(name) if len(said) < MOST_LOOKED else []
            plural = "classes" if word == "class" else "ids"
            said.append(f"no {word} {name!r}" + (f" ({plural} like it: {', '.join(mark + each for each in like)})"
                                                 if like else ""))
    lacking = [name for kind, name in names if not kind and name.lower() not in tags]
    if lacking:
        held_tags = ", ".join(f"{tags[tag]:,} {tag}" for tag in _SHOWN_TAGS if tags[tag])
        said.append(f"no <{'> or <'.join(lacking)}> element" + (f" (it holds {held_tags})" if held_tags else ""))
    if not said and not names:
        return ("nothing matches: the selector names no id, class or element to look for (its attribute values or "
                "pseudo-classes are not on the page: a browser's DOM may differ from the page as written)")
    if not said:
        return ("nothing matches, though the page holds each id, class and element the selector names: their "
                "combination is not on it (a browser's DOM may differ from the page as written)")[:MOST_HINT_CHARS]
    text = "nothing matches: the page has " + "; ".join(said)
    return text if len(text) <= MOST_HINT_CHARS else text[: MOST_HINT_CHARS - 3] + "..."
