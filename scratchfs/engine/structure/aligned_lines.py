"""Which lines of a table aligned by spaces (:mod:`scratchfs.engine.structure.aligned`) are its rows: a blank line
(spaces only) ends them, a rule of dashes and equal signs is none (the one under ``pip list``'s header; after rows,
``unzip -l``'s closing rule), and a last line of totals (``df --total``, ``wc``, ``du -c``) is their footer, no row.
Lines are compared as they are (no newline; a trailing ``\\r`` ignored). Pure; never raises.
"""

from __future__ import annotations

import re

__all__ = ["is_blank", "is_row", "is_total", "rows_end"]

_RULE = re.compile(r" *[-=+][-=+ ]*")  # (dpkg -l's "+++-====-...")
_TOTAL_WORDS = frozenset(("total", "total:", "totals", "totals:", "(totals)"))
_SUM = re.compile(r"[-+]?\d[\d.,:%]*[A-Za-z]{0,3}|(?=[A-Fa-f]*\d)[\dA-Fa-f]+|-")  # (15Gi, 96%, size's hex, df's -)


def is_blank(line: str) -> bool:
    """Whether ``line`` (no newline) holds only spaces (and a trailing ``\r``): the end of a table's rows. Never
    raises."""
    return not line.strip(" \r")


def is_row(line: str) -> bool:
    """Whether ``line`` (no newline; a trailing ``\\r`` ignored) is a row: not blank (spaces only) and no rule of
    dashes and equal signs (``---- -----``, at least two of them). Never raises."""
    body = line.rstrip(" \r")
    return bool(body) and not (body.count("-") + body.count("=") >= 2 and _RULE.fullmatch(body) is not None)


def is_total(line: str) -> bool:
    """Whether ``line`` (no newline) reads as a line of totals: 2 words or more, the first or the last ``total``
    (``df --total``'s ``total  565449824 ...  -``, ``wc``'s and ``du -c``'s ``  1252 total``; ``Total:``,
    ``TOTALS``, ``size -t``'s ``(TOTALS)``, any case), every other word a sum (a number, a size such as ``15Gi``, a
    percentage, hexadecimal digits, ``-``): a pod, a file or a command named ``total`` is a row. The last line of a
    table's rows (a blank line or the end after it) that reads so is its footer, no row (:func:`rows_end`). Never
    raises."""
    words = line.split()
    if len(words) < 2:
        return False
    if words[0].lower() in _TOTAL_WORDS:
        words = words[1:]
    elif words[-1].lower() in _TOTAL_WORDS:
        words = words[:-1]
    else:
        return False
    return all(_SUM.fullmatch(word) for word in words)


def rows_end(lines: list[str], start: int, seen: bool, complete: bool = True) -> tuple[int, int | None]:
    """``(the index of the first line past the rows, the index of their footer or None)`` of a table aligned by
    spaces whose rows run from ``lines[start]`` (no newlines; ``seen``: rows came before it, so that a rule of
    dashes ends them -- one before any is the rule under the header, no row; ``complete``: the lines run to the
    content's end). The rows end at a blank line; at a rule of dashes after a row (``unzip -l``'s and ``coverage
    report``'s closing rule: the line after it, when not blank, is the footer -- ``3411683  225 files``,
    ``TOTAL ...``); or before their last line when it is one of totals (:func:`is_total`: the footer). Never
    raises (a ``start`` past the lines: ``(len(lines), None)``)."""
    for at in range(start, len(lines)):
        line = lines[at]
        if is_blank(line):
            return at, None
        if not is_row(line):
            if seen:
                return at, (at + 1 if at + 1 < len(lines) and not is_blank(lines[at + 1]) else None)
            continue
        if is_total(line) and ((at + 1 < len(lines) and is_blank(lines[at + 1])) or (
                at + 1 == len(lines) and complete)):
            return at, at
        seen = True
    return len(lines), None
