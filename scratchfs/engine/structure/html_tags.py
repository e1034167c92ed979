"""A page's tags told as an HTML parser tokenizes them (HTML's tokenizer: libxml2 2.14's), to refuse, before the
parse, a tag whose attributes would cost the parse the square of their count: libxml2's HTML parser compares each
attribute's name with every one before it in its tag (40,000 of different names in one tag, 617 KB, took 1.9 s of
parse; 200,000, 3.2 MB, ran the text view and every select 9 s into their time limit)."""

from __future__ import annotations

import re

__all__ = ["MOST_ATTRIBUTES", "TooManyAttributes", "check_attributes"]

MOST_ATTRIBUTES = 1000
"""Most attributes of different names one tag of a page may hold: at this bound a page costs the parse at most about
0.3 s a MiB of such tags; a real tag holds tens."""
_BODY = r"(?:[^>=]+|=[\t\n\f\r ]*\"[^\"]*\"|=[\t\n\f\r ]*'[^']*'|=)*>?"
"""A tag's rest up to its ``>`` as HTML's tokenizer reads it: a value quoted right after its ``=`` may hold ``<`` and
``>``; a quote elsewhere, and ``<``, are characters of a name or an unquoted value; with no ``>``, the rest."""
_RAW_TEXT = "script|style|textarea|title|xmp|iframe|noembed|noframes"
"""Elements whose content is text to the tokenizer, up to their end tag (``<plaintext>``: the rest of the page)."""
_TOKENS = re.compile(
    r"<!--(?:->|>|.*?-->|.*)"  # a comment (<!--> and <!---> are whole ones; one left open, the rest)
    rf"|(?P<raw><(?P<name>{_RAW_TEXT})(?=[\t\n\f\r />]){_BODY})(?:.*?(?=</(?P=name))|.*)"  # its text
    r"|<plaintext(?=[\t\n\f\r />]).*"
    rf"|(?P<tag><[A-Za-z][^\t\n\f\r />]*{_BODY})"
    rf"|</[A-Za-z]{_BODY}"  # an end tag
    r"|<[!?/][^>]*>?",  # a bogus comment: <!x, <?x, </1 up to >
    re.DOTALL | re.IGNORECASE)
"""The page's markup as HTML's tokenizer reads it, one token a match: the tags' names are in no comment, bogus
comment or text of a <script>, <style>, <textarea>, <title>..."""
_QUOTED = re.compile(r"=[\t\n\f\r ]*(?:\"[^\"]*\"|'[^']*')")
_NAME = re.compile(r"[\t\n\f\r /]+([^\t\n\f\r />=]+)")
"""An attribute's name: after blank space or ``/``, up to blank space, ``/``, ``>`` or ``=``."""
_LONG_TAG = 2 * MOST_ATTRIBUTES
"""Characters a tag of more than :data:`MOST_ATTRIBUTES` attributes holds at least (a name and a space each)."""
_LONG_RUN = re.compile(f">[^>]{{{_LONG_TAG - 1}}}")
_LONG_START = re.compile(f"[^>]{{{_LONG_TAG - 1}}}")
"""A run of ``_LONG_TAG - 1`` characters but ``>`` (after one, or at the page's start): a long tag's, if no quoted
value holds a ``>``."""
_QUOTED_GT = re.compile(r"=[\t\n\f\r ]*(?:\"[^\">]*|'[^'>]*)>")
"""The start of a quoted value that holds a ``>`` (or of a quote never closed, as a tag's rest reads it), up to
its first ``>``: the one way a ``>`` is inside a tag (:data:`_BODY`)."""


class TooManyAttributes(ValueError):
    """A tag of the page holds more than :data:`MOST_ATTRIBUTES` attributes of different names (its message names
    its line and count and what to read instead)."""


def check_attributes(text: str) -> None:
    """Raise TooManyAttributes for the first tag of the page ``text`` holding more than :data:`MOST_ATTRIBUTES`
    attributes of different names (case-blind, as HTML's are), its tags found as HTML's tokenizer finds them
    (:data:`_TOKENS`): one regular expression's tokens, a Python step each; only a tag of :data:`_LONG_TAG`
    characters or more has its names counted. A page that can hold no such tag (:func:`_may_hold_long_tag`, three
    searches at C speed) is passed over before the tokens: 1.4 ms over the 512 KiB of
    fixtures/browser-rust-book.html, whose ``lxml`` parse takes 7.0 (0.07-0.21x the parse on the fixtures' pages,
    ``python bench/html_tags_cost.py``; the tokens' scan: 12.6 ms, 1.8-2.4x)."""
    if not _may_hold_long_tag(text):
        return
    for token in _TOKENS.finditer(text):
        if token.end() - token.start() >= _LONG_TAG:
            tag = token.group("tag") or token.group("raw")
            if tag is not None and len(tag) >= _LONG_TAG:
                _count(text, token.start(), tag)


def _may_hold_long_tag(text: str) -> bool:
    """Whether ``text`` may hold a tag of :data:`_LONG_TAG` characters or more (``False``: it holds none). Outside
    its quoted values a tag holds no ``>`` but its last (:data:`_BODY`), so a page in which no quoted value holds a
    ``>`` (:data:`_QUOTED_GT`: none, or ``True``) holds each tag within one run of characters between two ``>``
    (or the page's start or end): one of ``_LONG_TAG`` characters has a run of at least ``_LONG_TAG - 1``."""
    return bool(_LONG_START.match(text) or _LONG_RUN.search(text) or _QUOTED_GT.search(text))


def _count(text: str, at: int, tag: str) -> None:
    """Raise TooManyAttributes when ``tag`` (at ``at`` in ``text``) holds more than :data:`MOST_ATTRIBUTES`
    attributes of different names."""
    names = {name.lower() for name in _NAME.findall(_QUOTED.sub("=", tag))}
    if len(names) > MOST_ATTRIBUTES:  # (the tag's own name has no space before it)
        line = text.count("\n", 0, at) + 1
        raise TooManyAttributes(
            f"the page's tag at line {line:,} holds {len(names):,} attributes, more than the {MOST_ATTRIBUTES:,} the "
            "HTML reads take (libxml2's parser compares each with every one before it); read the page by range, "
            f"lines or match instead: line={line} reads from that tag")
