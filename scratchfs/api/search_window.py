"""One window of a search reply as the model-facing JSON (:func:`window_json`: ``{line, offset, length, data}`` and
its match fields, each fact once), and its matches read back from that JSON (:func:`window_hits`). The reply that
holds the windows, fitted into a budget, is :mod:`scratchfs.api.search_reply`'s."""

from __future__ import annotations

from typing import Any

from scratchfs.api.views import Piece, piece, reads_as_text
from scratchfs.engine.search import Window
from scratchfs.engine.structure.terminal import render_fragment
from scratchfs.foundation.text import utf8_suffix_start


def window_json(window: Window, size: int, binary: bool, rendered: bool = False,
                cut: tuple[bool, bool] = (False, False), encoding: str | None = None,
                rows: dict[int, int] | None = None, full: bool = False,
                commits: dict[int, str] | None = None) -> dict[str, Any]:
    """One search window: ``{line, offset, length, data}`` (plus ``replaced``/``encoding``), each fact once: ``line``
    is its first match's (1-based); a window of one match gives the match's start and length as ``match_offset``
    and ``match_length`` unless the window is the match alone (no context either side: ``context=0``), both, where
    one of them is the window's own too (a match that starts or ends the window, at the content's ends or its
    line's; a match longer than the window, cut to the budget): a few bytes a window, and every window with context
    says its match alike; a window of several matches
    lists them, ``matches: [{offset, length, line}]``. :func:`window_hits` reads the matches back from either.
    A window of whole lines (``context="line"``) that holds its whole line is ``{line, data}`` (``row``, and
    ``replaced``/``encoding``) alone: its matches are in its data, ``line=N`` reads around it (``full``: its offset,
    length and match fields too, as the web inspector's, which marks its matches by them). One whose line goes on
    past it
    (:data:`~scratchfs.foundation.limits.LINE_WINDOW_BYTES` bytes a side at most) says where: ``cut`` is
    ``"before"``, ``"after"`` or ``"both"``, as a line read's ``cut`` says it stops inside a line; a line's bytes
    are shown whole at its ends, an invalid byte there included (as U+FFFD). A window of bytes of context says
    ``cut`` where the reply's budget cut its context shorter than ``context=`` asks (and than the content's ends
    allow; ``cut``: ``(before, after)``): the rest, and the matches merged with it past
    those shown, come with the next call.
    ``rendered`` (terminal output searched in its text view): ``data`` is the bytes ``offset``/``length`` name as the
    view renders them (:func:`~scratchfs.engine.structure.terminal.render_fragment`: escapes drawn as nothing,
    overstrikes and ``\r`` redraws applied), every offset and length still the stored bytes'. A window of binary
    content is a hex dump (``"encoding": "hexdump"``) but when its bytes are text (a tar member's): then it is text,
    ``"encoding": "text"`` saying so, as a byte range of it is. ``encoding`` (``"latin-1"``, ``"cp1252"``): each
    byte one character of it (:func:`~scratchfs.api.views.piece`). ``rows`` (a table's: the row of each match by
    its offset, :mod:`~scratchfs.api.search_rows`): ``row`` after ``line``, the first match's, and in ``matches``
    each one's (none for a match in the header). ``commits`` (a git log's: the commit of each window's first match
    by its offset, :mod:`~scratchfs.api.search_commits`): ``commit`` after ``line``. ``size``: the content's bytes;
    every offset and length is in bytes of the stored content. Never raises for a window the search made (its
    matches inside its data, offsets within ``size``)."""
    hits = window.matches
    match_end = max(h.offset + h.length for h in hits) if hits else window.match_offset
    keep_from, keep_to = window.match_offset, match_end
    before, after = window.line_cut or (True, True)
    if window.line_cut is not None:  # a line's ends are character boundaries: nothing there is left out
        keep_from = keep_from if before else window.offset
        keep_to = keep_to if after else window.offset + len(window.data)
    textual = binary and encoding is None and _reads_as_text(window, size, keep_from)  # (a tar member's text in a
    shown = piece(window.data, window.offset, size, binary and not textual, encoding, before=None,  # binary content)
                  keep_from=keep_from,
                  keep_to=keep_to)
    rows = rows or {}
    row = {"row": rows[hits[0].offset]} if hits and hits[0].offset in rows else {}
    first = hits[0].offset if hits else window.match_offset
    if commits and first in commits:
        row["commit"] = commits[first]
    out: dict[str, Any] = {"line": window.line, **row, **shown.fields()}
    before, after = cut if window.line_cut is None else window.line_cut
    if window.line_cut is not None and not (before or after or full):  # a whole line: its line and data say it all
        return {"line": window.line, **row, **_content(window, shown, textual, rendered and not binary)}
    if before or after:
        out["cut"] = "both" if before and after else "before" if before else "after"
    if len(hits) > 1:
        out["matches"] = [{"offset": h.offset, "length": h.length, "line": h.line,
                           **({"row": rows[h.offset]} if h.offset in rows else {})} for h in hits]
    elif hits and (hits[0].offset, hits[0].length) != (shown.offset, shown.length):  # (not the match itself)
        out["match_offset"], out["match_length"] = hits[0].offset, hits[0].length
    return {**out, **_content(window, shown, textual, rendered and not binary)}


def _content(window: Window, shown: Piece, textual: bool, rendered: bool) -> dict[str, Any]:
    """The ``data`` (``replaced``, ``encoding``) of ``shown``, the piece of ``window`` a reply shows: ``textual``,
    binary content's text (``"encoding": "text"``); ``rendered``, terminal output's bytes as its view renders them."""
    content = shown.content_fields()
    if textual:
        content["encoding"] = "text"
    if rendered:
        start = shown.offset - window.offset
        content["data"] = render_fragment(window.data[start : start + shown.length])
    return content


def _reads_as_text(window: Window, size: int, keep_from: int) -> bool:
    """Whether a window of binary content (of ``size`` bytes) shows as text
    (:func:`~scratchfs.api.views.reads_as_text`): its bytes but those of a character begun before it (up to 3
    continuation bytes, never from ``keep_from`` on: text_piece leaves them out too) are text."""
    lead = min(utf8_suffix_start(window.data), max(0, keep_from - window.offset)) if window.offset else 0
    return reads_as_text(window.data[lead:], window.offset + lead, size)


def window_hits(window: dict[str, Any]) -> list[dict[str, Any]]:
    """The matches of a window as :func:`window_json` gives it: ``[{offset, length, line}]``, in order (its
    ``matches``, or the one match its ``match_offset`` / ``match_length`` or its own bytes make); of a whole line
    (``context="line"``, no ``offset``: its matches are in its data), ``[{line}]``, the line's. Raises KeyError for
    a dict that is not a window."""
    if "offset" not in window:
        return [{"line": window["line"]}]
    if "matches" in window:
        return list(window["matches"])
    start = window.get("match_offset", window["offset"])
    length = window.get("match_length", window["offset"] + window["length"] - start)
    return [{"offset": start, "length": length, "line": window["line"]}]


__all__ = ["window_hits", "window_json"]
