"""HTML pages told from a sample, for :mod:`scratchfs.api.shape`: the title and headings as the page's text (decoded
as the text view decodes the page, character references resolved, markup and white space as a browser renders
them), and how much of the sample is text."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from itertools import islice

from scratchfs.api.shape_words import clip, kib, plural, scoped, shape_limit, short_name
from scratchfs.engine.structure.html_codec import decode_as, page_codec

__all__ = ["MOST_HEADINGS", "MOST_TAGS", "heading_counts", "html_shape", "level_counts", "sample_codec"]

_LAST_CODEC: list[tuple[bytes, str] | None] = [None]  # (sample_codec's last sample and its codec)
_LAST_HEADINGS: list[tuple[bytes, list[tuple[str, str]], bool] | None] = [None]  # (_page_headings' last sample's)

# The elements are found as `<(NAME)\b[^>]*>(.*?)</\1\s*>` (DOTALL, IGNORECASE) would find them, by _elements: that
# regex scans from every opener to the end when no closer follows, quadratic in a hostile page's openers (128 KiB of
# `<title>`: 40 s of a spill's shape; tests/test_hostile20_shapes.py)
_TITLE_OPEN = re.compile(rb"<(title)", re.IGNORECASE)  # (its attributes, [^>]*>, then; `</TITLE\n>` closes it)
_SCRIPT_OPEN = re.compile(rb"<(script|style)\b", re.IGNORECASE)
_PRE_OPEN = re.compile(rb"<(pre)\b", re.IGNORECASE)
_HEADING_OPEN = re.compile(rb"<(h[1-6])\b", re.IGNORECASE)
_TAG_RE = re.compile(rb"<[^>]*>")  # (run by _tags_replaced, over the bytes up to the last `>`)
_BREAK_RE = re.compile(rb"<br\b[^>]*>", re.IGNORECASE)
_HEADINGS = 12  # most headings an HTML shape lists
MOST_HEADINGS = 1_000
"""Most heading elements (``<h1>`` to ``<h6>``) of a page :func:`html_shape` looks at: each is a few Python steps (4 us:
512 KiB of ``<h1>x</h1>``, 52,428 of them, took 195 ms; helper hostilecpu2); past them it says "at least" the count
of those with text (a real page's 512 KiB hold a few hundred)."""
_CLOSERS: dict[bytes, re.Pattern[bytes]] = {}  # (each element name's closer, compiled once)


def _elements(page: bytes, opener: re.Pattern[bytes], tagged: bool) -> Iterator[tuple[bytes, int, int, int, int]]:
    """``(name, start, body start, body end, end)`` of each element ``opener`` (its name, lower case, in group 1)
    starts, in order, as ``finditer`` of ``OPENER[^>]*>(.*?)</NAME\\s*>`` (``tagged``; else without ``[^>]*>``)
    finds them (DOTALL, IGNORECASE), in time linear in ``page``: a name with no closer after one opener has none
    after a later one (it is not looked for again), and the ``>`` ending a run of openers is looked for once."""
    pos, gt, dead = 0, -1, set()
    while (found := opener.search(page, pos)) is not None:
        name, body = found.group(1).lower(), found.end()
        if name in dead:
            pos = found.start() + 1
            continue
        if tagged:
            if gt < body:  # (else no `>` lies between this opener and the one found last)
                gt = page.find(b">", body)
                if gt < 0:
                    return
            body = gt + 1
        closer = _CLOSERS.get(name)
        if closer is None:
            closer = _CLOSERS.setdefault(name, re.compile(rb"</" + re.escape(name) + rb"\s*>", re.IGNORECASE))
        close = closer.search(page, body)
        if close is None:
            dead.add(name)
            pos = found.start() + 1
            continue
        yield name, found.start(), body, close.start(), close.end()
        pos = close.end()


def _tags_replaced(tag: re.Pattern[bytes], by: bytes, page: bytes) -> bytes:
    """``tag.sub(by, page)`` for a ``tag`` whose matches end at a ``>`` (their first after their start), in linear
    time: run over the bytes up to the last ``>`` alone (past it a ``<`` scans to the end for none, each in turn)."""
    stop = page.rfind(b">") + 1
    return tag.sub(by, page[:stop]) + page[stop:]


_REFERENCE_RE = re.compile(r"&(#[0-9]+;|#[xX][0-9a-fA-F]+;|[^\t\n\f <&#;]{1,32};)")  # (one ending in `;`)


def _unescaped(text: str) -> str:
    """:func:`html.unescape` of ``text``, at C speed where every ``&`` but the last starts one same reference ending
    in ``;`` (``unescape`` calls a Python function per reference: 512 KiB of ``&#1;`` took 82 ms, of ``&amp;`` 38;
    helper hostilecpu2): that reference is then each match of ``unescape``'s pattern before the last ``&`` (a match
    holds one ``&``, so none is skipped inside another, and stops at its first ``;``), replaced as a literal by its
    text; the rest (a reference a sample cuts) is unescaped apart, as no match before it reads into it."""
    last = text.rfind("&")
    if last > 0:
        head = text[:last]
        first = _REFERENCE_RE.search(head)
        if first is not None and head.count(first.group()) == head.count("&"):
            return head.replace(first.group(), html.unescape(first.group())) + html.unescape(text[last:])
    return html.unescape(text)


def _page_text(raw: bytes, codec: str) -> str:
    """Markup-free bytes of a page as its text: decoded, character references resolved (``&mdash;``, ``&#13;``:
    :func:`html.unescape`, as a browser reads them), white space collapsed. ``&nbsp;`` (blank space, collapsed too)
    is replaced first: ``unescape`` calls a function for each reference, 20 ms over ``pydoc``'s 512 KiB of them."""
    return " ".join(_references_resolved(raw, codec).split())


def _references_resolved(raw: bytes, codec: str) -> str:
    """``raw`` decoded, ``&nbsp;`` made a space and the other character references resolved (:func:`_unescaped`):
    the text :func:`_page_text` collapses and :func:`_page_text_bytes` counts."""
    return _unescaped(decode_as(raw, codec).replace("&nbsp;", " "))


_SPLIT_ASCII = b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "  # (the ASCII characters str.split parts words at)
_BLANK_OR_NOT = bytes.maketrans(bytes(range(128)), bytes(32 if c in _SPLIT_ASCII else 120 for c in range(128)))


def _page_text_bytes(raw: bytes, codec: str) -> int:
    """``len(_page_text(raw, codec).encode("utf-8", "replace"))``, counted at C speed where the text is ASCII: its
    bytes not blank and one between each two words (the words were split into a list: 9 ms over 512 KiB of
    ``<a `` -- 174,000 words; helper hostilecpu1)."""
    text = _references_resolved(raw, codec)
    if not text.isascii():
        return len(" ".join(text.split()).encode("utf-8", "replace"))
    marks = text.encode("ascii").translate(_BLANK_OR_NOT)
    words = marks.count(b" x") + marks.startswith(b"x")
    return len(marks) - marks.count(b" ") + max(0, words - 1)


# A block element's tag, run over the page in lower case: its name's alternation ignoring case cost 28 ms over 512 KiB
# of `<a ` (tried at every `<`; helper hostilecpu1), as each tag's Python step did over a page of them (107 ms of `<p>`)
_BLOCK_RE = re.compile(rb"<(/?)(div|ul|ol|li|p|h[1-6]|pre|br|tr|table|dt|dd|dl|blockquote|figure|section|article|"
                       rb"header|footer|nav|main|aside|hr|form|address|details|summary|caption|fieldset)(?=[\s/>])")
_TEXT_RE = re.compile(rb"(?:^|>)[^<]*[^\s<]")  # text outside a tag
_MARGIN_RE = re.compile(rb"<(?=/?(?:p|h[1-6]|figure)[\s/>])")  # a paragraph's, a heading's, a figure's (one `<`)
_LIST_RE = re.compile(rb"<[uo]l[\s/>]")  # (no list opened: no line indented)
_PRE_RE = re.compile(rb"<pre[\s/>]")
_PADDING = {b"ul": 4, b"ol": 4}  # spaces the view indents the lines inside one (inscriptis's profile; a div: none)
MOST_TAGS = 16_384
"""Most ``<`` of a page whose text :func:`html_shape` measures whole (each a regex's step, a block element's tag past
the first list a Python one: 512 KiB of ``<ul><li>x</ul>``, 104,000 of them, took 73 ms, 16,384 take 12 ms); a page
holding more (the Rust book's 512 KiB holds 13,500, generated documentation's 37,000, sqlite3 -html's 95,000) is
measured on its start that holds about so many, its text scaled to the page's size."""


def _layout_bytes(page: bytes) -> tuple[int, list[int]]:
    """``(bytes, indents)``: the bytes the text view adds to the words of ``page`` (its scripts and styles removed)
    by its layout -- each line's indent (4 spaces a list it is in, a list item's bullet written in
    them), the blank lines around paragraphs and headings (counted at C speed) -- and the indent of each ``<pre>``
    in order, whose every line the view indents so. A line starts wherever text follows a block element's tag: each
    tag from the first list's on is looked at in turn (those before it are indented by none)."""
    low = page.lower()
    kept = len(_MARGIN_RE.findall(low))
    first = _LIST_RE.search(low)
    if first is None:
        return kept, [0] * len(_PRE_RE.findall(low))
    indent, seen, indents = 0, first.start(), [0] * len(_PRE_RE.findall(low, 0, first.start()))
    for found in _BLOCK_RE.finditer(low, first.start()):
        closing, tag = found.group(1), found.group(2)
        if indent and _TEXT_RE.search(low, seen, found.start()):
            kept += indent
        seen = found.end()
        if tag in _PADDING:
            indent = max(0, indent - _PADDING[tag]) if closing else indent + _PADDING[tag]
        elif not closing and tag == b"pre":
            indents.append(indent)
    return kept, indents


def _text_bytes(sample: bytes, codec: str) -> int:
    """The UTF-8 bytes of the text of ``sample`` as the text view renders it, about (within 3% on the fixtures' pages
    -- a slice of the Rust book, a pydoc page, sqlite3 -html output -- and a generated documentation page:
    ``tests/test_html_text_view.py``): outside markup,
    ``<script>`` and ``<style>``, character references resolved, white space collapsed but inside ``<pre>``, plus
    the view's layout (:func:`_layout_bytes`)."""
    page = _cut_out(sample, _elements(sample, _SCRIPT_OPEN, False))
    kept, indents = _layout_bytes(page)
    pres = iter(indents)
    pre = list(_elements(page, _PRE_OPEN, False))
    for _, start, _, _, end in pre:
        text = _unescaped(decode_as(_tags_replaced(_TAG_RE, b"", page[start:end]), codec))
        kept += len(text.encode("utf-8", "replace")) + next(pres, 0) * text.count("\n")
    rest = _cut_out(page, pre)
    return kept + _page_text_bytes(_tags_replaced(_TAG_RE, b" ", rest), codec)


def _cut_out(page: bytes, elements: Iterator[tuple[bytes, int, int, int, int]] | list) -> bytes:
    """``page`` with each of ``elements`` (:func:`_elements`') replaced by one space."""
    parts, at = [], 0
    for _, start, _, _, end in elements:
        parts += (page[at:start], b" ")
        at = end
    return b"".join((*parts, page[at:]))


def _heading(body: str) -> str:
    """A heading's text as the shape lists it (48 characters at most); in JSON quotes when it holds a ``;`` or a
    ``|``, which would read as more of the shape -- another heading, or the count of bytes not UTF-8 that may follow
    the list (:func:`~scratchfs.api.shape_said.not_utf8_said` reads it at the shape's end)."""
    text = short_name(body, 48)
    return json.dumps(text, ensure_ascii=False) if ";" in text or "|" in text else text


def level_counts(headings: list[tuple[str, str]]) -> str:
    """How many of ``headings`` (``(level, text)``, level ``"1"`` to ``"6"``) each level holds, highest first, as a
    shape says it after their count -- ``" (1 h1, 1 h2, 2 h3, 188 h4)"`` -- or ``""`` when all are of one level or
    the shape lists them all (at most 12: their levels are read there). A
    page whose sections are ``<h4>``s (Node.js's deprecations: 188 of them under 4 of ``<h1>`` to ``<h3>``) was said
    to hold "4 headings", and its note's ``select="h1, h2"`` gave two (modeltask12)."""
    counts = _counts(headings)
    if len(counts) < 2 or len(headings) <= _HEADINGS:
        return ""
    return f" ({', '.join(f'{count:,} h{level}' for level, count in counts)})"


def _counts(headings: list[tuple[str, str]]) -> list[tuple[str, int]]:
    """``(level, how many of headings are of it)`` of each level ``headings`` hold, highest (``"1"``) first."""
    counts: dict[str, int] = {}
    for level, _ in headings:
        counts[level] = counts.get(level, 0) + 1
    return sorted(counts.items())


def heading_counts(sample: bytes) -> tuple[list[tuple[str, int]], bool]:
    """``([(level, count), ...], said)``: how many of the headings :func:`html_shape` counts in ``sample`` (a page's
    first bytes; those of its first :data:`MOST_HEADINGS` heading elements that hold text) each level holds, highest
    level (``"1"``) first, and whether the shape says those counts (:func:`level_counts`; else it lists every
    heading) -- handed over as data, for the reads a stub's note names
    (:func:`~scratchfs.api.html_preview.page_reads`), so that nothing reads them back out of the shape's words. The
    headings of the last sample :func:`html_shape` described (the same object) are reused; another sample's are
    found again (a few Python steps a heading). Never raises."""
    headings = _page_headings(sample, sample_codec(sample))[0]
    return _counts(headings), level_counts(headings) != ""


def _page_headings(sample: bytes, codec: str) -> tuple[list[tuple[str, str]], bool]:
    """``(headings, more)``: ``(level, text)`` of each of the first :data:`MOST_HEADINGS` heading elements of
    ``sample`` that holds text (decoded with ``codec``), and whether more heading elements follow those looked at;
    the last sample's kept and known by identity, when it is ``bytes`` (:func:`heading_counts` asks again for the
    shape's)."""
    last = _LAST_HEADINGS[0]
    if last is not None and last[0] is sample and type(sample) is bytes:  # (a bytearray may have changed since)
        return last[1], last[2]
    found = list(islice(_elements(sample, _HEADING_OPEN, True), MOST_HEADINGS + 1))
    headings = [(level[1:].decode(), _page_text(_tags_replaced(_TAG_RE, b"", _tags_replaced(_BREAK_RE, b" ", sample[
        start:end])), codec)) for level, _, start, end, _ in found[:MOST_HEADINGS]]
    headings = [(level, body) for level, body in headings if body]
    _LAST_HEADINGS[0] = (sample, headings, len(found) > MOST_HEADINGS)
    return headings, len(found) > MOST_HEADINGS


def sample_codec(sample: bytes) -> str:
    """The codec a browser decodes ``sample`` (a page's first bytes, at most a shape's 512 KiB sample) with
    (:func:`~scratchfs.engine.structure.html_codec.page_codec`), for the looks one shape takes at it -- its title
    and headings, the room for its not-UTF-8 clause and that clause -- from one decode of the sample, where each
    decoded it again (1.9 ms a look on 510 KB of Latin-1 with no declared charset: review helper revH). The last
    sample object is kept and known by identity (no hash of 512 KiB on every page), when it is ``bytes`` (a
    ``bytearray`` changed in place is the same object: decoded again); thread-safe (one tuple read and
    written whole). Never raises."""
    last = _LAST_CODEC[0]
    if last is not None and last[0] is sample and type(sample) is bytes:  # (a bytearray may have changed since)
        return last[1]
    codec = page_codec(sample)[0]
    _LAST_CODEC[0] = (sample, codec)
    return codec


def html_shape(sample: bytes, scope: str) -> str:
    """The shape of an HTML page from its first bytes ``sample`` (``scope`` says how much of the page it is, or
    ``""``): its title, how much of it is text (:func:`_text_bytes`: what the text view of the sample takes, within
    3% on the fixtures' pages, ``tests/test_html_text_view.py``; of its start holding :data:`MOST_TAGS` ``<``,
    scaled, where it holds more; at most the sample's bytes), and its first headings (of its first
    :data:`MOST_HEADINGS`), at most
    :func:`~scratchfs.api.shape_words.shape_limit` characters (``MAX_SHAPE_CHARS``, less where words go beside it).
    Never raises (bytes the page's codec cannot decode read as U+FFFD, as a browser reads them)."""
    codec = sample_codec(sample)  # the title and headings decoded as the text view decodes the page
    title = next(_elements(sample, _TITLE_OPEN, True), None)
    named = _page_text(sample[title[2]:title[3]], codec) if title else ""
    tags = sample.count(b"<")
    cut = len(sample) if tags <= MOST_TAGS else len(sample) * MOST_TAGS // tags  # (about MOST_TAGS `<` before it)
    # (never more than the page's bytes: a view's text is its words and their layout, and the indents of lists nested
    # deep -- 512 KiB of `<ul>x`, 131,072 deep -- would count 3.2 GiB of spaces no reader reads; helper hostilecpu2)
    visible = min(len(sample), round(_text_bytes(sample[:cut], codec) * len(sample) / max(1, cut)))
    share = 1 - visible / max(1, len(sample))
    titled = f'title "{short_name(named, 80)}", ' if named else "no title, "
    text = scoped(f"HTML, {titled}~{kib(visible)} of text in {kib(len(sample))} ({share:.0%} markup)", scope)
    headings, more = _page_headings(sample, codec)
    if not headings:
        return clip(text)
    more_may = scope or more  # (a sample's, or a page's past those looked at: more may follow)
    text += f"; {'at least ' if more_may else ''}{plural(len(headings), 'heading')}{level_counts(headings)}: "
    listed: list[str] = []
    for count, (level, body) in enumerate(headings):
        item = f"h{level} {_heading(body)}"
        if listed and listed[-1] == item:
            continue  # a heading repeated right after itself (a page title over its first section)
        more = f" … {len(headings) - count} more" if count < len(headings) else ""
        if len(listed) == _HEADINGS or len(text) + len(" | ".join([*listed, item])) + len(more) + 3 > shape_limit():
            return clip(text + " | ".join(listed) + more)
        listed.append(item)
    return clip(text + " | ".join(listed))
