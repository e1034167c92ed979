"""The :mod:`csv` module's reader, reading a NUL in a field on every Python scratchfs runs on (:func:`csv_reader`).

Python 3.10's reader refuses a line holding a NUL (``csv.Error: line contains NUL``), which 3.11's reads as any
other character: a table with a NUL in a quoted field was rows on 3.11 and "not a table" (binary data, not valid CSV)
on 3.10. :class:`NulSafeReader` hands 3.10's reader each NUL as one character no text holds in a table's field (U+FDD1,
a noncharacter; one of the text's own as U+FDD0 U+FDD1, and its own U+FDD0 as U+FDD0 U+FDD0) and gives the cells back
as they were: a field holding NULs is as long to the reader's field limit as it is (until 2026-12-06 each NUL was two
characters there, a field of half the limit's NULs refused on 3.10 alone).
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

_ESCAPE, _NUL = "\ufdd0", "\ufdd1"
"""A NUL is handed to the reader as ``_NUL``; the text's own ``_NUL`` as ``_ESCAPE + _NUL``, its own ``_ESCAPE`` as
``_ESCAPE + _ESCAPE``."""
_HANDED = re.compile(f"{_ESCAPE}(.)|{_NUL}", re.DOTALL)


class NulSafeReader:
    """``csv.reader(lines, **options)`` (an iterator of rows, lists of str; its ``line_num``) whose cells may hold
    NUL, on any Python. Raises csv.Error as the reader does (a field longer than the field limit: each NUL counts
    one character, as on 3.11; a U+FDD0 or U+FDD1 of the text's own, noncharacters, two)."""

    def __init__(self, lines: Iterable[str], **options: Any) -> None:
        self._reader = csv.reader(map(_escaped, lines), **options)

    def __iter__(self) -> Iterator[list[str]]:
        return self

    def __next__(self) -> list[str]:
        return [_unescaped(cell) if _ESCAPE in cell or _NUL in cell else cell for cell in next(self._reader)]

    @property
    def line_num(self) -> int:
        """The lines read from ``lines`` so far (the reader's own count)."""
        return self._reader.line_num


def csv_reader(lines: Iterable[str], **options: Any) -> Any:
    """``csv.reader(lines, **options)`` on Python 3.11 and later (which reads NUL), a :class:`NulSafeReader`
    before. Raises csv.Error (a malformed record, a field past the limit) as the reader does, while iterated."""
    return csv.reader(lines, **options) if sys.version_info >= (3, 11) else NulSafeReader(lines, **options)


def _escaped(line: str) -> str:
    if "\x00" not in line and _ESCAPE not in line and _NUL not in line:
        return line
    return line.replace(_ESCAPE, _ESCAPE + _ESCAPE).replace(_NUL, _ESCAPE + _NUL).replace("\x00", _NUL)


def _unescaped(cell: str) -> str:
    return _HANDED.sub(lambda handed: handed[1] or "\x00", cell)  # (each _ESCAPE starts a pair, a _NUL alone a NUL)


__all__ = ["NulSafeReader", "csv_reader"]
