"""The first bytes of an HTML page's text view (:func:`~scratchfs.engine.structure.html.html_text`), told from a
bounded prefix of the page, for a spill's stub: its preview is the start of the page's text, not of its ``<head>``
markup, and is the same bytes ``view="text"`` reads from offset 0 (so the two never disagree).

The view of a whole 512 KiB page costs 0.1 s or more (inscriptis, pure Python), too much for a spill. So the page is
cut after its ``<body`` tag and the cut rendered as the view renders the page (parsed by libxml2 and rendered by
inscriptis in this process: the same functions the HTML worker runs, :mod:`scratchfs.engine.structure.html_worker`;
no worker process is started for a stub), at :data:`FIRST_CUT_BYTES` of the body, then at 2 to 4 times that (as
far as its text falls short of what the preview asks for), until one cut's text holds enough; the next cut, half
:data:`FIRST_CUT_BYTES` further, checks it. What a cut changes is its text's end: the text cut in mid-word, the
elements open at the cut closed (their margins), a table row cut short (its cells, or rendered on one line where
the whole row takes several) -- so a table row open at the cut is left out of the cut's tree (inscriptis renders a
table at its end, each row by itself), the earlier cut's last line of text and the blank lines before it are left
out, and only the whole lines the two cuts agree on before that are kept. The proof that this is the view's start
is empirical: ``tests/test_html_preview.py`` (every HTML fixture and real-data page, Hypothesis over pages of random
pieces, cuts of a few bytes and samples that stop short of the page).

A page whose bytes decode otherwise in part of it than in the whole (not valid UTF-8 past the sample, with no byte
order mark; what a browser decodes by: :func:`~scratchfs.engine.structure.html_codec.page_codec`) is told only when
every way the whole could decode reads the cut the same. Anything else -- no element in a cut (the view would be
the page as preformatted text), no text in the cuts, cuts that would render more than :data:`MOST_TAGS` tags in all
or a cut nested more than :data:`MOST_DEPTH` levels (or deeper than this thread's recursion renders), a library's
error -- is ``None``: the stub keeps its byte preview. Never raises (but MemoryError).

Cost: the cuts rendered hold at most :data:`MOST_CUT_BYTES` of the body each and :data:`MOST_TAGS` tags all
together (a cut's ``<head>`` dropped before it is rendered, its tags counted one in :data:`HEAD_TAG_SHARE`), so a stub
of 512 KiB of tags costs a few plain texts' under Python 3.10 and 3.11 alike (``tests/test_html_preview.py``); the
Rust book's stub (shape and stub) 17 ms before, 24 ms since, on a loaded host: ``python bench/html_preview.py``."""

from __future__ import annotations

import re
from typing import Any

from scratchfs.engine.structure.html_codec import declared_encoding, decode_as, page_codec
from scratchfs.foundation.text import utf8_but_cut_end

__all__ = ["FIRST_CUT_BYTES", "HEAD_TAG_SHARE", "LEAST_VIEW_BYTES", "MOST_CUT_BYTES", "MOST_TAGS", "view_cut",
           "view_start"]

FIRST_CUT_BYTES = 1024
"""Bytes of the body (after its ``<body`` tag) of the first cut rendered; the cut that checks a cut whose text holds
enough ends half of it past that one."""
MOST_CUT_BYTES = 32 * 1024
"""Most bytes of the body of the last cut rendered (at least four times the preview's bytes, for a larger preview)."""
MOST_TAGS = 1024
"""Most tags (``<``) rendered for a stub, summed over its cuts (each cut is rendered from the page's start): those
after the ``<body`` tag, and :data:`HEAD_TAG_SHARE` of those before it. inscriptis takes about 5 µs an element
(512 KiB of ``<p>``, cut at 32 KiB, took 112 ms a stub; 6 µs under Python 3.10); a cut that grows leaves room in
what is left for the cut that checks it; a page whose text is not told within it keeps its byte preview. (Before,
1,024 tags a cut from the page's start, up to about 2,000 a stub: ``<ul><li>x</li></ul>`` 18% over the bound under
Python 3.10, and a page whose ``<head>`` held 1,000 tags kept its byte preview.)"""
HEAD_TAG_SHARE = 4
"""A cut's tags before its ``<body`` tag (its ``<head>``'s) count one in this many: each cut's tree is parsed whole
(libxml2: about 1 µs a tag) but its ``<head>`` is dropped before it is rendered, as inscriptis renders none of it
(``display: none``)."""
MOST_DEPTH = 128
"""Most levels of elements a cut's tree may nest: inscriptis indents a nested list's lines by its depth, so 1,024
``<ul>x`` take it time and text quadratic in their depth (57 ms a stub); a deeper cut is not rendered."""
MOST_HEAD_BYTES = 256 * 1024
"""Where a ``<body`` tag is looked for (a page's ``<head>`` of inline styles and scripts): a body starting later
counts from the page's start."""
MOST_WHOLE_BYTES = 6 * 1024
"""A whole page of at most these bytes (and :data:`MOST_TAGS`) is rendered whole (its view, exactly): its cuts would
cost about as much (the cut that holds a preview's text and the one that checks it: about 2 and 3 KiB)."""

LEAST_VIEW_BYTES = 128
"""Fewest bytes of the view's start a stub's preview shows when the cuts stop short of the ``want`` bytes (the budget
of tags spent, the body's end): a ``pydoc -w`` page of a module whose docstring is one line (``json.decoder``,
``base64``, ``tarfile``, ``email.message``) has 160 to 240 bytes of text -- its name, docstring and ``Modules`` --
before its ``Classes`` table, one row holding every class, which no cut within the budget closes; with 256 here its
stub previewed 876 bytes of ``<table>`` markup instead (modeltask6)."""

_BODY = re.compile(rb"<body[\s>/]", re.IGNORECASE)


def view_start(head: bytes, size: int, want: int, first: int = FIRST_CUT_BYTES, most: int = MOST_CUT_BYTES,
               whole: int = MOST_WHOLE_BYTES, tags: int = MOST_TAGS) -> tuple[bytes, bool] | None:
    """``(the first bytes of the text view, whether they are all of it)`` of an HTML page of ``size`` bytes whose
    first bytes are ``head``: at least ``min(want, LEAST_VIEW_BYTES)`` bytes of it (``want``: the bytes a preview
    shows), or all of it, else ``None`` (not told: see the module's words; a page with no text). ``first``,
    ``most``: the body's bytes of the first and the last cut; ``whole``: most bytes of a page rendered whole;
    ``tags``: most tags rendered, summed over the cuts (:data:`MOST_TAGS`; tests pass small ones). Never raises (but
    MemoryError)."""
    told = view_cut(head, size, want, first, most, whole, tags)
    return None if told is None else told[:2]


def view_cut(head: bytes, size: int, want: int, first: int = FIRST_CUT_BYTES, most: int = MOST_CUT_BYTES,
             whole: int = MOST_WHOLE_BYTES, tags: int = MOST_TAGS) -> tuple[bytes, bool, int] | None:
    """:func:`view_start`'s ``(bytes, whether all)`` and the bytes of ``head`` its last cut rendered (``len(head)``
    for a page rendered whole): the view's start comes from them alone. Never raises (but MemoryError)."""
    try:
        return _view_start(head, size, max(1, want), (first, max(most, 4 * want), whole, tags))
    except MemoryError:
        raise
    except Exception:  # RecursionError (a deep page), a library's error on odd input: the byte preview
        return None


def _view_start(head: bytes, size: int, want: int, cuts: tuple[int, int, int, int]) -> tuple[bytes, bool, int] | None:
    first, most, small, tags = cuts
    whole = len(head) >= size
    if whole and size <= small and head.count(b"<") <= tags:
        view = _render(head, page_codec(head), True)
        return (view.encode("utf-8"), True, len(head)) if view else None
    found = _BODY.search(head, 0, MOST_HEAD_BYTES)
    body = found.start() if found else 0
    parsed = head.count(b"<", 0, body) // HEAD_TAG_SHARE  # (a cut's head: parsed, not rendered)
    known = page_codec(head) if whole else None  # (the whole page's bytes: decoded as they all are)
    end, last, left, step, final = min(len(head), body + first), None, tags, max(1, first // 2), False
    while True:
        left -= parsed + head.count(b"<", body, end)  # (the budget: every cut's tags, summed)
        if left < 0:  # (a first cut past it: a head of too many tags, a body dense with them)
            return None
        codec = known or _codec(head[:end])
        text = None if codec is None else _render(head[:end], codec, end >= size)
        if not text:  # (a page of no element, decoded otherwise past the sample; of no text: its bytes)
            return None
        if end >= size:  # (the whole page: its view)
            return text.encode("utf-8"), True, end
        agreed = b"" if last is None else _agreed(last, text).encode("utf-8")  # (two cuts that end apart)
        bound = min(len(head), body + most, _tag_bound(head, left - parsed, body))  # (the next cut's end, at most)
        if (last is not None and len(agreed) >= want) or final or bound <= end:  # (no next cut: the body's, the
            return (agreed, False, end) if len(agreed) >= min(want, LEAST_VIEW_BYTES) else None  # sample's or the
            # budget's end)
        told = len(_lines_before(text, len(text.rstrip())).encode("utf-8"))  # (what it tells, if the next agrees)
        grown, forced = end + step, False
        if told < want:  # (a cut grown, leaving room in the budget for the one that checks it)
            grown = min(body + (end - body) * min(4, max(2, -(-want // max(1, told)))),
                        _tag_bound(head, (left - 2 * parsed) // 2, body) - step)
            grown, forced = (end + step, True) if grown <= end else (grown, False)  # (no room: this one checked)
        last, end = text, min(bound, grown)
        final = forced or end >= bound


def _tag_bound(head: bytes, tags: int, start: int = 0) -> int:
    """Where the ``tags``-th ``<`` of ``head`` from ``start`` is (its length, when it holds fewer; ``start`` when
    ``tags`` is 0 or less)."""
    at = start - 1
    for _ in range(tags):
        at = head.find(b"<", at + 1)
        if at < 0:
            return len(head)
    return max(at, start)


def _agreed(one: str, other: str) -> str:
    """The whole lines of text two cuts agree on, blank lines after them left out, before the last line of text of
    the earlier cut's (``one``: its text at the cut, then the ends of the elements open there, may read as a later
    cut's by chance -- a cut after "foo" and one before " bar" both read "foo" and a block's end, where the page
    reads "foo bar" -- and so may the blank lines before it, margins the page's next blocks may not have)."""
    one = _lines_before(one, len(one.rstrip()))
    same = 0
    step = 4096
    while same < min(len(one), len(other)):  # (a slice compared at C speed, then the character)
        if one[same : same + step] == other[same : same + step]:
            same += step
        elif step > 1:
            step //= 8
        else:
            break
    same = min(same, len(one), len(other))
    return one if same == len(one) else _lines_before(one, same)


def _lines_before(text: str, at: int) -> str:
    """``text`` up to the line end of its last line that is not blank and ends before ``at`` (``at``: inside a line,
    or at its start)."""
    start = text.rfind("\n", 0, at) + 1  # (the line at ``at``: left out)
    kept = len(text[:start].rstrip())
    return text[: text.find("\n", kept) + 1] if kept else ""


def _codec(cut: bytes) -> tuple[str, int] | None:
    """How a page whose bytes past the sample are not known decodes ``cut``, its first bytes: ``(codec, bytes of a
    byte order mark)``, or ``None`` when that is not told by them -- the bytes are valid UTF-8 (the whole may not be)
    or declare no encoding, and the codecs the whole could take read them otherwise."""
    codec, skip = page_codec(cut)
    if skip:
        return codec, skip
    declared = declared_encoding(cut)  # (the first 1,024 bytes: the whole's prescan reads the same)
    if codec == "utf-8" and utf8_but_cut_end(cut):  # the whole: UTF-8, or if not valid, as it declares or guessed
        others = [declared] if declared else ["utf-8", "windows-1252"]
    elif declared:  # not valid here, so not in the whole: as it declares
        return declared, 0
    else:  # guessed from the whole's counts of characters
        others = ["utf-8", "windows-1252"]
    text = decode_as(cut, codec)
    return (codec, 0) if all(decode_as(cut, other) == text for other in others if other != codec) else None


def _render(page: bytes, codec: tuple[str, int], whole: bool) -> str | None:
    """The text view of ``page`` (the whole page or a cut of it) decoded with ``codec``, as
    :func:`~scratchfs.engine.structure.html_worker.view_text` renders it; a cut's table row open at its end left out
    (:func:`_open_row_left_out`). ``None`` for a cut of no element."""
    from scratchfs.engine.structure import html_worker  # (lxml, inscriptis: imported at the first HTML spill)

    name, skip = codec
    text = (page.decode("utf-8", "replace") if name == "utf-8" and not skip else decode_as(page[skip:], name)).strip()
    if not text:
        return ""
    if text.startswith("<?xml "):
        text = html_worker.strip_xml_declaration(text)
    try:
        tree = html_worker.parse_page(text)
    except html_worker.ParserError:  # (a page of no element: its view is its text as preformatted)
        return html_worker.view_text(page).decode("utf-8") if whole else None
    except html_worker.TooManyAttributes:  # (a tag the reads refuse: no view of it either)
        return None
    if _deeper(tree, MOST_DEPTH):
        return None
    if not whole:
        _open_row_left_out(tree)
        dropped = tree.find("head")  # (display: none -- walked by inscriptis, 4 µs a tag, for no text; its tail,
        if dropped is not None:  # text after </head>, is kept: drop_tree hands it to what precedes it)
            dropped.drop_tree()
    return html_worker.render_tree(tree)


def _deeper(tree: Any, most: int) -> bool:
    """Whether an element of ``tree`` is more than ``most`` levels deep (lxml's walk of it, at C speed)."""
    from lxml.etree import iterwalk

    level = 0
    for action, _ in iterwalk(tree, events=("start", "end")):
        level += 1 if action == "start" else -1
        if level > most:
            return True
    return False


def _open_row_left_out(tree: Any) -> None:
    """Take out of ``tree`` (a cut's) the table row its last element is in -- the outermost open table's, or that
    table when it is in no row of it: its rendering depends on cells after the cut."""
    last = tree
    while len(last):
        last = last[-1]
    chain = [last, *last.iterancestors()][::-1]  # (from the root down)
    table = next((at for at, element in enumerate(chain) if element.tag == "table"), None)
    if table is None:
        return
    row = next((element for element in chain[table + 1 :] if element.tag == "tr"), chain[table])
    row.getparent().remove(row)
