"""The preview of terminal output whose lines a terminal draws over (progress bars redrawn after a bare ``\\r``,
escape sequences): its first whole lines as ``view="text"`` shows them -- the last redraw of each line
(:func:`~scratchfs.engine.structure.terminal.render_line`) --, where the bytes would spend the preview on states a
terminal overwrote (101 redraws of ``pip``'s download bar filled 850 bytes of a 1 KiB preview with its first 16).
"""

from __future__ import annotations

from scratchfs.engine.structure.terminal import render_line

__all__ = ["AS_SHOWN", "rendered_preview"]

AS_SHOWN = " as a terminal shows them (the last redraw of each line)"
"""What a stub's note says after the bytes a rendered preview covers."""


def rendered_preview(head: bytes, size: int, limit: int) -> tuple[str, int] | None:
    """``(text, bytes covered)``: the whole lines of ``head`` (the first bytes of a content of ``size`` bytes) from
    its start, each as a terminal shows it, as many as fit in ``limit`` bytes of UTF-8 text (invalid bytes read as
    U+FFFD), and the bytes of the content they cover (a line's end included); ``None`` when the first line does not
    fit, or when no line of them is drawn over (the bytes' own text: the plain preview says the same). Never
    raises."""
    pieces: list[str] = []
    used = at = 0
    drawn = False
    while at < len(head):
        cut = head.find(b"\n", at)
        if cut < 0 and len(head) < size:  # (a line the head cuts: not shown, as a view would show it whole)
            break
        end = len(head) if cut < 0 else cut + 1
        raw = head[at : end - (cut >= 0)].decode("utf-8", "replace")
        text = render_line(raw)
        piece = text + ("\n" if cut >= 0 else "")
        cost = len(piece.encode("utf-8"))
        if used + cost > limit:
            break
        drawn = drawn or text != raw.removesuffix("\r")
        pieces.append(piece)
        used, at = used + cost, end
    return ("".join(pieces), at) if pieces and drawn else None
