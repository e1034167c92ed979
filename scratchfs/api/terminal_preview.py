"""The preview of terminal output whose lines a terminal draws over (progress bars redrawn after a bare ``\\r``,
escape sequences): its first whole lines as ``view="text"`` shows them -- the last redraw of each line
(:func:`~scratchfs.engine.structure.terminal.render_line`) --, where the bytes would spend the preview on states a
terminal overwrote (``pip``'s first download bar, 101 redraws after a bare ``\\r``, fills a 1 KiB byte preview with
20 of them and nothing after: the ``PIP`` case of ``tests/test_terminal_preview.py`` through ``preview.make_preview``).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from scratchfs.engine.structure.terminal import render_line

__all__ = ["AS_SHOWN", "AS_SHOWN_WHOLE", "RENDERED_BYTES", "RenderedHead"]

AS_SHOWN = " as a terminal shows them (the last redraw of each line)"
"""What a stub's note says after the bytes a rendered preview covers."""
AS_SHOWN_WHOLE = " as a terminal shows it (the last redraw of each line)"
"""What it says after "the preview shows all of it" when that preview is rendered."""
RENDERED_BYTES = 256 * 1024
"""Most bytes of the content's first lines rendered for a preview (a line ending past them is not shown so: the
rendering runs at 15-20 MB/s on dense colored redraws, 13-15 ms for these at load 1.5: ``python
bench/terminal_preview.py``, 2026-12-05)."""


class RenderedHead:
    """The whole lines of ``head`` (the first bytes of a content of ``size`` bytes), each as a terminal shows it,
    up to ``most`` bytes of text and :data:`RENDERED_BYTES` of content, rendered once (a stub's fitting tries
    several previews: :meth:`fit`). Invalid UTF-8 reads as U+FFFD. Never raises."""

    def __init__(self, head: bytes, size: int, most: int) -> None:
        self.pieces: list[str] = []
        self.ends: list[int] = []  # (the content's bytes covered after each piece, its line end included)
        self.drawn: int | None = None  # (the first piece that is no line's own bytes: something drawn over)
        used = at = 0
        while at < min(len(head), RENDERED_BYTES) and used <= most:
            cut = head.find(b"\n", at, RENDERED_BYTES)
            if cut < 0 and (len(head) < size or len(head) > RENDERED_BYTES):  # (a line cut: not shown)
                break
            end = len(head) if cut < 0 else cut + 1
            raw = head[at : end - (cut >= 0)].decode("utf-8", "replace")
            text = render_line(raw)
            if self.drawn is None and text != raw.removesuffix("\r"):
                self.drawn = len(self.pieces)
            self.pieces.append(text + ("\n" if cut >= 0 else ""))
            self.ends.append(end)
            used, at = used + len(self.pieces[-1].encode("utf-8")), end
        self.sizes = list(accumulate(len(piece.encode("utf-8")) for piece in self.pieces))

    def fit(self, limit: int) -> tuple[str, int] | None:
        """``(text, bytes covered)``: the first lines whose text fits in ``limit`` bytes, and the content's bytes
        they cover; ``None`` when the first does not fit or none of them is drawn over (their text is their bytes':
        the plain preview shows the same)."""
        count = bisect_right(self.sizes, limit)
        if not count or self.drawn is None or self.drawn >= count:
            return None
        return "".join(self.pieces[:count]), self.ends[count - 1]
