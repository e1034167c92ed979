"""A CSV/TSV table's last line of totals: its footer, no row (``du -c``'s ``1128<TAB>total``, ``size -t``'s
``... (TOTALS)``), as a table aligned by spaces has one (:func:`~scratchfs.engine.structure.aligned_lines.rows_end`).

Only where it is unmistakable: the content's last line (the whole content seen when it was stored), its first or
last cell exactly ``total`` or ``(TOTALS)``, no other line's so, and a row before it. The shape says so (its row
count leaves the footer out: :func:`footer_said`); the rows reads, ``slurp=true`` and a search's ``row=`` read the
table up to its footer's first byte (:func:`footer_cut`, from the shape's words), so that no read counts it a row.
"""

from __future__ import annotations

import re

from scratchfs.api.shape_words import clip
from scratchfs.engine.structure.aligned_lines import is_total
from scratchfs.engine.structure.paging import ContentSource
from scratchfs.engine.structure.table import CutSource

__all__ = ["csv_footer", "footer_cut", "footer_said"]

_WORDS = ("total", "(TOTALS)")
_FOOTER_CHARS = 60  # (most characters of a footer's words a shape quotes, as an aligned table's)
_SAID = re.compile(r", then a footer, no row \(line [\d,]+: ")
_TAIL_BYTES = 64 * 1024  # (a footer's line is found in the content's last bytes)


def csv_footer(text: str, delimiter: str) -> tuple[int, str] | None:
    """``(the 0-based line number in ``text``, the line's words)`` of the footer of a whole CSV/TSV ``text`` (lines
    ending in ``\\n``) split at ``delimiter``: its last non-blank line, when its first or last cell (spaces around it
    left out) is exactly ``total`` or ``(TOTALS)``, no other line's first or last cell is, and a line comes before
    it; else ``None`` (also for text holding a quote or a lone ``\\r``: a line may be no record there). Pure."""
    body = text.rstrip("\r\n ")
    before, _, last = body.rpartition("\n")
    if not before.strip() or not _totals(last, delimiter):  # (most tables stop here, at their last line)
        return None
    if '"' in text or "\r" in text.replace("\r\n", ""):
        return None
    lines = before.split("\n")
    if any(_totals(line, delimiter) for line in lines):  # (rows that say so too: subtotals, no footer)
        return None
    return len(lines), " ".join(last.split())


def _totals(line: str, delimiter: str) -> bool:
    """The first or last cell exactly one of :data:`_WORDS`, every other a sum or empty (as an aligned table's
    footer, :func:`~scratchfs.engine.structure.aligned_lines.is_total`: a last row naming a file ``total`` is a row)."""
    cells = line.rstrip("\r").split(delimiter)
    return len(cells) > 1 and (cells[0].strip() in _WORDS or cells[-1].strip() in _WORDS) and is_total(
        " ".join(cells))


def footer_said(line: int, words: str) -> str:
    """What a table's shape adds after its row count for its footer at ``line`` (1-based) holding ``words``."""
    return f", then a footer, no row (line {line:,}: \"{clip(words, _FOOTER_CHARS)}\", line={line} reads it)"


def footer_cut(source: ContentSource, kind: str | None, shape: str | None) -> ContentSource:
    """``source`` (an entry stored as ``kind`` with ``shape``) cut at its footer's first byte, when it is CSV/TSV
    whose shape names a footer (:func:`footer_said`: its last non-blank line); else ``source``. Reads the
    content's last 64 KiB at most; raises what ``source``'s reads raise."""
    if kind != "csv" or not shape or _SAID.search(shape) is None:
        return source
    start = max(0, source.size - _TAIL_BYTES)
    tail = source.read(start, source.size - start).rstrip(b"\r\n ")
    if not tail:
        return source
    return CutSource(source, start + tail.rfind(b"\n") + 1)
