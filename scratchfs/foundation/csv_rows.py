"""The :mod:`csv` module's reader, reading a NUL in a field on every Python scratchfs runs on (:func:`csv_reader`).

Python 3.10's reader refuses a line holding a NUL (``csv.Error: line contains NUL``), which 3.11's reads as any
other character: a table with a NUL in a quoted field was rows on 3.11 and "not a table" (binary data, not valid CSV)
on 3.10. :class:`NulSafeReader` hands 3.10's reader each NUL as two characters no text holds in a table's field
(U+FDD0 U+FDD1, noncharacters; a U+FDD0 of the text's own as U+FDD0 U+FDD2) and gives the cells back as they were.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterable, Iterator
from typing import Any

_ESCAPE, _NUL, _ITSELF = "\ufdd0", "\ufdd1", "\ufdd2"
"""A NUL is handed to the reader as ``_ESCAPE + _NUL``, an ``_ESCAPE`` of the text's own as ``_ESCAPE + _ITSELF``."""


class NulSafeReader:
    """``csv.reader(lines, **options)`` (an iterator of rows, lists of str; its ``line_num``) whose cells may hold
    NUL, on any Python. Raises csv.Error as the reader does (a field longer than the field limit counts each NUL
    twice)."""

    def __init__(self, lines: Iterable[str], **options: Any) -> None:
        self._reader = csv.reader(map(_escaped, lines), **options)

    def __iter__(self) -> Iterator[list[str]]:
        return self

    def __next__(self) -> list[str]:
        return [_unescaped(cell) if _ESCAPE in cell else cell for cell in next(self._reader)]

    @property
    def line_num(self) -> int:
        """The lines read from ``lines`` so far (the reader's own count)."""
        return self._reader.line_num


def csv_reader(lines: Iterable[str], **options: Any) -> Any:
    """``csv.reader(lines, **options)`` on Python 3.11 and later (which reads NUL), a :class:`NulSafeReader`
    before. Raises csv.Error (a malformed record, a field past the limit) as the reader does, while iterated."""
    return csv.reader(lines, **options) if sys.version_info >= (3, 11) else NulSafeReader(lines, **options)


def _escaped(line: str) -> str:
    if "\x00" not in line and _ESCAPE not in line:
        return line
    return line.replace(_ESCAPE, _ESCAPE + _ITSELF).replace("\x00", _ESCAPE + _NUL)


def _unescaped(cell: str) -> str:
    return cell.replace(_ESCAPE + _NUL, "\x00").replace(_ESCAPE + _ITSELF, _ESCAPE)  # (each _ESCAPE starts a pair)


__all__ = ["NulSafeReader", "csv_reader"]
