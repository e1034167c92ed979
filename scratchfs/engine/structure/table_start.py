"""The start of a CSV/TSV table: its delimiter, told from the header line or named on a first line ``sep=;``, and
the comment lines before its header -- one rule for the shape a spill describes (:mod:`scratchfs.api.shape`) and for
every rows read (:mod:`~scratchfs.engine.structure.table`)."""

from __future__ import annotations

import re

from scratchfs.engine.structure.row_lines import LINE_END_TEXT

__all__ = ["UTF8_BOM", "detect_delimiter", "leading_comments", "named_separator"]


def detect_delimiter(first_line: bytes | str) -> str:
    """The delimiter of a table whose header line is ``first_line``: ``"\\t"`` when it has at least one tab and no
    more commas than tabs; else ``";"`` when it has more semicolons than commas (the CSV that spreadsheets write
    where a comma is the decimal separator, ``id;price`` then ``7;12,50``); else ``","``. One rule for the shape a
    spill describes and for every rows read."""
    tab, comma, semicolon = ("\t", ",", ";") if isinstance(first_line, str) else (b"\t", b",", b";")
    tabs, commas = first_line.count(tab), first_line.count(comma)  # type: ignore[arg-type]
    if tabs and tabs >= commas:
        return "\t"
    return ";" if first_line.count(semicolon) > commas else ","  # type: ignore[arg-type]


UTF8_BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark (U+FEFF) that Excel and other Windows tools put at the start of a CSV export."""
_SEP_LINE = re.compile(r"(?:\ufeff)?sep=([,;\t|])\r?")


def named_separator(first_line: bytes | str) -> str | None:
    """The delimiter a first line ``sep=;`` names (Excel's way to name a table's separator: ``,``, ``;``, tab or
    ``|``; after a byte order mark, before a ``\\r``), or ``None``; the table then starts on the next line."""
    line = first_line.decode("utf-8", "replace") if isinstance(first_line, bytes) else first_line
    found = _SEP_LINE.fullmatch(line[:8])
    return found.group(1) if found and len(line) <= 8 else None


_COMMENT_LINES = 64  # most comment lines looked past before a table's header


def leading_comments(head: str) -> tuple[int, int]:
    """``(characters, lines)`` of the comment lines ``head`` (a table's first lines, as text: decode bytes as Latin-1
    for byte offsets) starts with: lines starting with ``#`` (a data source, a licence: matplotlib's ``Stocks.csv``,
    tzdata's ``zone1970.tab``), at most :data:`_COMMENT_LINES`, before the header line. The last of them is the header
    itself when it splits into as many fields as the line after it (VCF's ``#CHROM`` line after its ``##`` meta
    lines). ``(0, 0)``: no comment line, or nothing but comments in ``head``. A line ends at ``\n``, ``\r\n`` or a
    lone ``\r``, as a rows read's (:mod:`scratchfs.engine.structure.row_lines`). Raises nothing."""
    at, last, count = 0, 0, 0
    while count < _COMMENT_LINES and head.startswith("#", at):
        end = LINE_END_TEXT.search(head, at)
        if end is None:
            return 0, 0  # (a comment running past the head: no header after it here)
        last, at, count = at, end.end(), count + 1
    if at == 0 or at >= len(head):
        return 0, 0
    end = LINE_END_TEXT.search(head, at)
    first = head[at : end.start() if end is not None else len(head)]
    delimiter = detect_delimiter(first)
    fields = first.count(delimiter)
    own = fields and head[last:at].rstrip("\r\n").count(delimiter) == fields  # (the last is the header)
    return (last, count - 1) if own else (at, count)
