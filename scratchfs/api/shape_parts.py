"""The parts of a text a shape names with their lines (a test run's failures, a manual's sections), for the kinds of
:mod:`scratchfs.api.shape_kinds`: counted in one pass and listed lazily, so that a text of 50,000 parts costs one
``findall`` and the few a shape lists, not a match object, a decode and a name for each (a pytest output of 52,000
failure bars took 46 ms so, 9 ms now: ``python bench/text_kinds.py``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

__all__ = ["Parts", "cargo_status", "numbered"]

_CARGO_STATUS_RE = re.compile(rb"( {0,11})([A-Z][a-z]{1,11}(?:-[a-z]{1,8})?) \S")


class Parts:
    """The matches of ``pattern`` in ``text[start:end]`` (byte offsets) that ``keep`` accepts (given the match's group
    ``group``), each as ``(offset, group bytes)``: the offset (bytes into ``text``) is that of the newline the match
    starts with, or with ``at_group``, the newline before the group (the line the group stands on). ``count`` is how
    many there are -- ``counted`` when the caller counted them already, else one ``findall``; iterating lists them in
    order, matched as they are asked for, and ends at the ``count``-th (no scan on to the text's end for one more).
    Raises nothing (``keep`` is the caller's)."""

    def __init__(self, pattern: re.Pattern[bytes], text: bytes, group: int = 1, *, start: int = 0,
                 end: int | None = None, keep: Callable[[bytes], bool] | None = None, at_group: bool = False,
                 counted: int | None = None) -> None:
        self.pattern, self.text, self.group, self.keep, self.at_group = pattern, text, group, keep, at_group
        self.start, self.end = start, len(text) if end is None else end
        if counted is not None:  # (the caller counted them, in the pass that counted other matches too)
            self.count = counted
            return
        found = pattern.findall(text, start, self.end)
        if keep is not None:
            groups = found if pattern.groups == 1 else [item[group - 1] for item in found]
            self.count = sum(1 for item in groups if keep(item))
        else:
            self.count = len(found)

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        left = self.count  # (the last one given, no scan on to the text's end for one more)
        if not left:
            return
        for found in self.pattern.finditer(self.text, self.start, self.end):
            value = found[self.group]
            if self.keep is None or self.keep(value):
                yield (found.start(self.group) - 1 if self.at_group else found.start()), value
                left -= 1
                if not left:
                    return


def numbered(text: bytes, parts) -> Iterator[tuple[int, bytes]]:
    """``(line, value)`` for each ``(offset, value)`` of ``parts`` (in order of their offsets, each the offset of the
    newline before its line in ``text``, a text that starts with a newline): line numbers counted as they are asked
    for."""
    line, at = 0, 0
    for offset, value in parts:
        line += text.count(b"\n", at, offset + 1)  # (the newline before it: its line is the count of those so far)
        at = offset + 1
        yield line, value


def cargo_status(sample: bytes) -> bool:
    """Whether ``sample`` starts with one of cargo's status lines (``   Compiling ct v0.1.0 (/src/ct)``, ``       Dirty
    ct ...`` with ``-v``, ``   Doc-tests ct``): a capitalised verb right-aligned to end at column 12, as cargo writes
    each of them, whatever the verb (a match at the start)."""
    found = _CARGO_STATUS_RE.match(sample)
    return found is not None and found.end(2) == 12
