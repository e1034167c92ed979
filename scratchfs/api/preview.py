"""The preview of a content: its first bytes (and last, ``head+tail``) as text, cut where a person would cut it --
on a UTF-8 character's, a terminal escape's, a JSON string escape's and a grapheme cluster's boundary -- or, for
binary content, as a hex dump; what a stub (:mod:`scratchfs.api.stub`) and a listing row show."""

from __future__ import annotations

import functools
import re

import regex

from scratchfs.api.encodings import wide_piece
from scratchfs.api.views import HEX_LINE_BYTES, hex_piece
from scratchfs.foundation.text import decode_or_none, utf8_prefix, utf8_suffix_start

PREVIEW_MODES = ("head", "head+tail")
"""``head``: the first bytes. ``head+tail``: the first and the last bytes, with a marker giving the tail's offset."""


def make_preview(head: bytes, tail: bytes, size: int, limit: int, mode: str = "head") -> tuple[str, int, int | None]:
    """The preview text of a content, the bytes of its start it covers, and where its tail part starts.

    Args:
        head: the first bytes of the content (at least ``limit`` of them when the content is that long).
        tail: the last bytes of the content (used by ``head+tail``).
        size: the content's size, in bytes.
        limit: most bytes of content the preview shows.
        mode: ``"head"`` or ``"head+tail"`` (:data:`PREVIEW_MODES`).

    Returns:
        ``(text, bytes of the start covered, byte offset of the tail shown or None)``. Invalid UTF-8 (binary
        content) is replaced with U+FFFD, so the preview is always valid text; neither part is cut inside a UTF-8
        character, a terminal escape sequence, a JSON string escape (RFC 8259, section 7: ``\\uXXXX``, a surrogate
        pair's two escapes) or, within 64 bytes, an extended grapheme cluster of Unicode Standard Annex #29
        (https://www.unicode.org/reports/tr29/, the ``regex`` package's ``\\X``): a combining or spacing mark, a
        joiner, a variation selector, a skin tone or an emoji tag stays with what it follows, a flag's two letters
        together, conjoining Hangul jamo and an Indic conjunct whole.
    """
    if mode == "head+tail" and size > limit:
        half = limit // 2
        start_bytes = _json_escape_end(head, _cluster_end(head, _before_escape(utf8_prefix(bytes(head[: half + 4]),
                                                                                       half))))
        tail = bytes(tail)
        at = len(tail) - min(len(tail), limit - len(start_bytes))
        at += utf8_suffix_start(tail[at:])
        tail_bytes = tail[_json_escape_start(tail, _cluster_start(tail, _after_escape(tail, at))) :]
        tail_offset = size - len(tail_bytes)
        omitted = tail_offset - len(start_bytes)
        marker = f"\n[… {omitted:,} bytes omitted; the tail starts at byte {tail_offset} …]\n"
        text = start_bytes.decode("utf-8", "replace") + marker + tail_bytes.decode("utf-8", "replace")
        return text, len(start_bytes), tail_offset
    prefix = _plain_cut(head, limit)
    if prefix is not None:
        return prefix.decode("ascii"), len(prefix), None
    prefix = _json_escape_end(head, _cluster_end(head, _before_escape(utf8_prefix(bytes(head[: limit + 4]), limit))))
    return prefix.decode("utf-8", "replace"), len(prefix), None


def _plain_cut(head: bytes, limit: int) -> bytes | None:
    """The first ``limit`` bytes of ``head`` (all of it, when shorter) where no rule of :func:`make_preview` moves
    the cut, else ``None``: they and the byte after them are ASCII (no UTF-8 character or grapheme cluster cut, but
    CR LF, refused), hold no ESC (no terminal escape) and no backslash among the last 17 (no JSON string escape at
    the cut). A small spill's two previews (the stub's, the listing's) were four calls each to tell so."""
    window = bytes(head[: limit + 1])
    if limit < 0 or not window.isascii() or b"\x1b" in window or b"\\" in window[-17:] or (
            len(window) > limit and window[-2:] == b"\r\n"):
        return None
    return window[:limit]


_OPEN_JSON_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*(\\(?:u[0-9a-fA-F]{0,3})?)\Z")
"""A JSON string's escape that bytes end inside of: a backslash, or ``\\u`` and fewer than 4 hex digits."""
_ESCAPED_UNIT = re.compile(rb"(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                           rb"|\\u[0-9a-fA-F]{4})\Z")
"""The escape of one character (a surrogate pair's two escapes: one character) that bytes end with."""
_ESCAPE_AT = re.compile(rb"\\u(?:[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|[0-9a-fA-F]{4})")
"""The escape of one character (a surrogate pair's two escapes: one character) that bytes start with."""
_JOINS_BEFORE = re.compile(rb"\\u(?:200[dD]|[fF][eE]0[eEfF]|20[eE]3|03[0-6][0-9a-fA-F]"
                           rb"|[dD]83[cC]\\u[dD][fF][fF][b-fB-F]|[dD][c-fC-F][0-9a-fA-F]{2})")
"""An escape that joins the character before it (a joiner, variation selector, keycap, combining accent, skin tone,
or a surrogate pair's second half)."""


def _json_escape_end(head: bytes, prefix: bytes) -> bytes:
    """``prefix`` of ``head`` without a JSON string escape its end cuts (``\\u6771`` as ``\\u67``), and without the
    escaped character before an escape that joins it (half a surrogate pair, an emoji before its joiner), within
    :data:`_CLUSTER_BYTES`: JSON written with ``ensure_ascii`` escapes every character a preview of it shows."""
    if len(prefix) >= len(head):  # (all of it: nothing cut)
        return prefix
    if b"\\" not in prefix[-16:] and head[len(prefix) : len(prefix) + 1] != b"\\":  # no escape near the cut
        return prefix
    cut = _OPEN_JSON_ESCAPE.search(prefix, max(0, len(prefix) - 16))
    first = end = cut.start(1) if cut is not None else len(prefix)
    least = max(0, end - _CLUSTER_BYTES)
    while end > least:
        joined = _JOINS_BEFORE.match(bytes(head[end : end + 12])) or prefix[end - 6 : end].lower() == b"\\u200d"
        unit = _ESCAPED_UNIT.search(prefix, max(0, end - 16), end) if joined else None
        if unit is None:
            break
        end = unit.start(1)
    return prefix[: end if end > least else first]


def _json_escape_start(tail: bytes, at: int) -> int:
    """``at``, or past the JSON string escape it cuts and past escapes that join the character before them (see
    :func:`_json_escape_end`), within :data:`_CLUSTER_BYTES`."""
    cut = _OPEN_JSON_ESCAPE.search(tail, max(0, at - 16), at)
    start = at
    if cut is not None:
        whole = re.compile(rb"\\(?:u[0-9a-fA-F]{4}|.)", re.S).match(tail, cut.start(1))
        start = whole.end() if whole is not None and whole.end() > at else at
    while start < at + _CLUSTER_BYTES and start and (
            _JOINS_BEFORE.match(tail, start) or tail[start - 6 : start].lower() == b"\\u200d"):
        following = _ESCAPE_AT.match(tail, start)
        if following is None:
            break
        start = following.end()
    return start if start < at + _CLUSTER_BYTES else at


_CLUSTER_BYTES = 64  # most bytes a preview's end moves back (its tail's start on) to a grapheme cluster's boundary
_CLUSTER = regex.compile(r"\X")
"""An extended grapheme cluster: what is drawn as one character (UAX #29, as the ``regex`` package implements
it; a library over hand-written rules, which missed spacing marks of category Lo, Hangul jamo and conjuncts)."""


def _boundaries(text: str) -> list[int]:
    """The grapheme cluster boundaries of ``text`` (UAX #29), 0 and ``len(text)`` included."""
    return [0, *(found.end() for found in _CLUSTER.finditer(text))]


def _cluster_end(head: bytes, prefix: bytes) -> bytes:
    """``prefix`` (of ``head``, ending on a character's boundary) without the grapheme cluster its end cuts, if
    that cluster starts within :data:`_CLUSTER_BYTES` of the end (a longer one, such as 'zalgo' text, is cut)."""
    following = head[len(prefix) : len(prefix) + 1]
    if prefix[-1:] < b"\x80" and following < b"\x80" and (prefix[-1:], following) != (b"\r", b"\n"):
        return prefix  # ASCII on both sides: no cluster joins two ASCII characters but CR LF
    before = prefix[-_CLUSTER_BYTES:]
    before = decode_or_none(before[utf8_suffix_start(before) :])
    if before is None:  # (binary content: no cluster)
        return prefix
    after = bytes(head[len(prefix) : len(prefix) + 8]).decode("utf-8", "ignore")
    cut = max(at for at in _boundaries(before + after) if at <= len(before))
    return prefix if not cut else prefix[: len(prefix) - len(before[cut:].encode("utf-8", "replace"))]


def _cluster_start(tail: bytes, at: int) -> int:
    """``at`` (a character's boundary in ``tail``), or past the end of the grapheme cluster it cuts, if that ends
    within :data:`_CLUSTER_BYTES` of it."""
    before = tail[max(0, at - 32) : at]
    before = before[utf8_suffix_start(before) :].decode("utf-8", "replace")
    after = decode_or_none(utf8_prefix(tail[at : at + _CLUSTER_BYTES + 4], _CLUSTER_BYTES)) or ""
    moved = min(b for b in _boundaries(before + after) if b >= len(before)) - len(before)
    return at if moved >= len(after) else at + len(after[:moved].encode("utf-8"))


_OPEN_ESCAPE = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*)?\Z")
"""The start of a terminal escape sequence (ESC, or a CSI: ESC [, its parameters and intermediates) that bytes end
inside of."""
_ESCAPE = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-_])")
"""A whole escape sequence: a CSI (colours, cursor moves) or a two-byte escape."""
_ESCAPE_BYTES = 32  # most bytes of an escape sequence looked back over


def _before_escape(data: bytes) -> bytes:
    """``data`` without the escape sequence its end cuts, if any (a preview of colour output ends before it, as
    before a cut UTF-8 character: '...PASSED\\x1b[0m\\x1b[3' was half a colour code)."""
    cut = _OPEN_ESCAPE.search(data, max(0, len(data) - _ESCAPE_BYTES))
    return data if cut is None else data[: cut.start()]


def _after_escape(data: bytes, at: int) -> int:
    """``at``, or the end of the escape sequence of ``data`` that starts before it and ends after it (a preview's
    tail starts there)."""
    cut = _OPEN_ESCAPE.search(data, max(0, at - _ESCAPE_BYTES), at)
    whole = None if cut is None else _ESCAPE.match(data, cut.start())
    return whole.end() if whole is not None and whole.end() > at else at


def hex_preview(head: bytes, size: int, limit: int) -> tuple[str, int, None]:
    """The preview of binary content: its first bytes -- ``limit`` of them, fewer to end on a whole line of
    :data:`~scratchfs.api.views.HEX_LINE_BYTES` -- as the hex dump a range read gives
    (:func:`~scratchfs.api.views.hex_piece`); ``(text, bytes covered, None)`` as :func:`make_preview` returns."""
    whole = limit - limit % HEX_LINE_BYTES if limit >= HEX_LINE_BYTES else limit
    shown = bytes(head[: min(size, whole)])
    return hex_piece(shown, 0).data, len(shown), None


def wide_preview(head: bytes, size: int, limit: int, encoding: str) -> tuple[str, int, None]:
    """The preview of UTF-16 text (``encoding``: ``"utf-16le"`` or ``"utf-16be"``): its first ``limit`` bytes, fewer
    to end on a whole character, as a read with that encoding shows them
    (:func:`~scratchfs.api.encodings.wide_piece`); ``(text, bytes covered, None)`` as :func:`make_preview` returns."""
    _, covered, text, _ = wide_piece(head[: min(size, limit)], 0, size, encoding)
    return text, covered, None


def list_preview(head: bytes, size: int, limit: int, binary: bool, chars: int) -> str:
    """The preview a listing shows of a content (an entry's index row): its first ``limit`` bytes as text
    (:func:`make_preview`) or, for ``binary`` content (content type ``binary``, the rule every read and stub
    follows), as the hex dump the stub and a range read show -- as many whole lines of it as fit in ``chars``
    characters, each of :data:`~scratchfs.api.views.HEX_LINE_BYTES` bytes (none when ``limit`` is under one
    line's bytes; then the dump of those bytes)."""
    if not binary:
        return make_preview(head, b"", size, limit)[0]
    rows = max(1, (chars + 1) // (hex_line_chars() + 1))
    return hex_piece(bytes(head[: min(size, limit, rows * HEX_LINE_BYTES)]), 0).data


@functools.cache
def hex_line_chars() -> int:
    """Characters of one whole line of a hex dump (:func:`~scratchfs.api.views.hex_piece`), without its newline
    (measured once)."""
    return len(hex_piece(bytes(HEX_LINE_BYTES), 0).data)


def shown_preview(preview: str, binary: bool, chars: int) -> str:
    """A stored ``preview`` (:func:`list_preview`) cut to ``chars`` characters for a listing row: a hex dump's
    (``binary``) on its last whole line within them (its first line's start when none fits), a text's anywhere."""
    if not binary or len(preview) <= chars:
        return preview[:chars]
    end = preview.rfind("\n", 0, chars + 1)
    return preview[: end if end > 0 else chars]


__all__ = ["PREVIEW_MODES", "hex_line_chars", "hex_preview", "list_preview", "make_preview", "shown_preview",
           "wide_preview"]
