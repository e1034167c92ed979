"""The HTML shape as scratchfs wrote it before helper hostile20 (its elements found by regexes: quadratic in a
hostile page's unclosed openers), kept as the reference :func:`scratchfs.api.shape_html.html_shape` must equal on any
page small enough for it: tests/test_hostile20_shapes.py."""

from __future__ import annotations

import html
import json
import re

from scratchfs.api.shape_words import clip, kib, plural, scoped, shape_limit, short_name
from scratchfs.engine.structure.html_codec import decode_as, page_codec

__all__ = ["html_shape", "sample_codec"]

_LAST_CODEC: list[tuple[bytes, str] | None] = [None]  # (sample_codec's last sample and its codec)

_TITLE_RE = re.compile(rb"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)  # (`</TITLE\n>` closes it)
_SCRIPT_RE = re.compile(rb"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(rb"<[^>]*>")
_PRE_RE = re.compile(rb"<pre\b.*?</pre\s*>", re.IGNORECASE | re.DOTALL)
_BREAK_RE = re.compile(rb"<br\b[^>]*>", re.IGNORECASE)
_HEADINGS = 12  # most headings an HTML shape lists
_HEADING_RE = re.compile(rb"<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)


def _page_text(raw: bytes, codec: str) -> str:
    """Markup-free bytes of a page as its text: decoded, character references resolved (``&mdash;``, ``&#13;``:
    :func:`html.unescape`, as a browser reads them), white space collapsed. ``&nbsp;`` (blank space, collapsed too)
    is replaced first: ``unescape`` calls a function for each reference, 20 ms over ``pydoc``'s 512 KiB of them."""
    return " ".join(html.unescape(decode_as(raw, codec).replace("&nbsp;", " ")).split())


_BLOCK_RE = re.compile(rb"<(/?)(div|ul|ol|li|p|h[1-6]|pre|br|tr|table|dt|dd|dl|blockquote|figure|section|article|"
                       rb"header|footer|nav|main|aside|hr|form|address|details|summary|caption|fieldset)(?=[\s/>])",
                       re.IGNORECASE)
_TEXT_RE = re.compile(rb"(?:^|>)[^<]*[^\s<]")  # text outside a tag
_PADDING = {b"ul": 4, b"ol": 4}  # spaces the view indents the lines inside one (inscriptis's profile; a div: none)
_MARGINS = frozenset((b"p", b"figure", b"h1", b"h2", b"h3", b"h4", b"h5", b"h6"))  # a blank line each side


def _layout_bytes(page: bytes) -> tuple[int, list[int]]:
    """``(bytes, indents)``: the bytes the text view adds to the words of ``page`` (its scripts and styles removed)
    by its layout -- each line's indent (4 spaces a list it is in, a list item's bullet written in
    them), the blank lines around paragraphs and headings -- and the indent of each ``<pre>`` in order, whose every
    line the view indents so. A line starts wherever text follows a block element's tag."""
    kept, indent, seen, indents = 0, 0, 0, []
    for found in _BLOCK_RE.finditer(page):
        closing, tag = found.group(1), found.group(2).lower()
        if _TEXT_RE.search(page, seen, found.start()):
            kept += indent
        seen = found.end()
        if tag in _PADDING:
            indent = max(0, indent - _PADDING[tag]) if closing else indent + _PADDING[tag]
        elif not closing and tag == b"pre":
            indents.append(indent)
        kept += tag in _MARGINS
    return kept, indents


def _text_bytes(sample: bytes, codec: str) -> int:
    """The UTF-8 bytes of the text of ``sample`` as the text view renders it, about (within 3% on the fixtures' pages
    -- a slice of the Rust book, a pydoc page, sqlite3 -html output -- and a generated documentation page:
    ``tests/test_html_text_view.py``): outside markup,
    ``<script>`` and ``<style>``, character references resolved, white space collapsed but inside ``<pre>``, plus
    the view's layout (:func:`_layout_bytes`)."""
    page = _SCRIPT_RE.sub(b" ", sample)
    kept, indents = _layout_bytes(page)
    pres = iter(indents)

    def preformatted(found: re.Match[bytes]) -> bytes:
        nonlocal kept
        text = html.unescape(decode_as(_TAG_RE.sub(b"", found.group()), codec))
        kept += len(text.encode("utf-8", "replace")) + next(pres, 0) * text.count("\n")
        return b" "

    rest = _PRE_RE.sub(preformatted, page)
    return kept + len(_page_text(_TAG_RE.sub(b" ", rest), codec).encode("utf-8", "replace"))


def _heading(body: str) -> str:
    """A heading's text as the shape lists it (48 characters at most); in JSON quotes when it holds a ``;`` or a
    ``|``, which would read as more of the shape -- another heading, or the count of bytes not UTF-8 that may follow
    the list (:func:`~scratchfs.api.shape_said.not_utf8_said` reads it at the shape's end)."""
    text = short_name(body, 48)
    return json.dumps(text, ensure_ascii=False) if ";" in text or "|" in text else text


def sample_codec(sample: bytes) -> str:
    """The codec a browser decodes ``sample`` (a page's first bytes, at most a shape's 512 KiB sample) with
    (:func:`~scratchfs.engine.structure.html_codec.page_codec`), for the looks one shape takes at it -- its title
    and headings, the room for its not-UTF-8 clause and that clause -- from one decode of the sample, where each
    decoded it again (1.9 ms a look on 510 KB of Latin-1 with no declared charset: review helper revH). The last
    sample object is kept and known by identity (no hash of 512 KiB on every page); thread-safe (one tuple read and
    written whole). Never raises."""
    last = _LAST_CODEC[0]
    if last is not None and last[0] is sample:
        return last[1]
    codec = page_codec(sample)[0]
    _LAST_CODEC[0] = (sample, codec)
    return codec


def html_shape(sample: bytes, scope: str) -> str:
    """The shape of an HTML page from its first bytes ``sample`` (``scope`` says how much of the page it is, or
    ``""``): its title, how much of it is text (:func:`_text_bytes`: what the text view of the sample takes, within
    3% on the fixtures' pages, ``tests/test_html_text_view.py``), and its first headings, at most
    :func:`~scratchfs.api.shape_words.shape_limit` characters (``MAX_SHAPE_CHARS``, less where words go beside it).
    Never raises (bytes the page's codec cannot decode read as U+FFFD, as a browser reads them)."""
    codec = sample_codec(sample)  # the title and headings decoded as the text view decodes the page
    title = _TITLE_RE.search(sample)
    named = _page_text(title.group(1), codec) if title else ""
    visible = min(len(sample), _text_bytes(sample, codec))  # (a page's bytes at most: helper hostilecpu2)
    share = 1 - visible / max(1, len(sample))
    titled = f'title "{short_name(named, 80)}", ' if named else "no title, "
    text = scoped(f"HTML, {titled}~{kib(visible)} of text in {kib(len(sample))} ({share:.0%} markup)", scope)
    headings = [(level.decode(), _page_text(_TAG_RE.sub(b"", _BREAK_RE.sub(b" ", body)), codec))
                for level, body in _HEADING_RE.findall(sample)]
    headings = [(level, body) for level, body in headings if body]
    if not headings:
        return clip(text)
    levels = sorted({level for level, _ in headings})  # (each level's count, when there are several: modeltask12)
    counts = "" if len(levels) < 2 or len(headings) <= _HEADINGS else " (" + ", ".join(
        f"{sum(1 for level, _ in headings if level == each):,} h{each}" for each in levels) + ")"
    text += f"; {'at least ' if scope else ''}{plural(len(headings), 'heading')}{counts}: "  # (a sample's: more)
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
