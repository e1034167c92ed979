"""The shape of the C preprocessor's output (``gcc -E``, ``cpp``, ``clang -E``), for :mod:`scratchfs.api.shape`:
the file it preprocessed, the headers it took in, each with the line its text starts at, and the line where that
file's own code last resumes -- what a model looks for among thousands of lines of declarations (``gcc -E`` of a
4-line file including ``stdio.h``, ``stdlib.h`` and ``string.h``, 55 KB, was ``text, 2,128 lines, 47% blank``; a
search of its line markers for the headers took 6 KB of replies and named 40 of 71). Such text stays content type
``text``; its shape starts with :data:`CPP_SHAPE`.

The layout (GCC's "Preprocessor Output" manual): line markers ``# <line> "<file>" <flags>`` between the text, flag
``1`` entering a file, ``2`` returning to one, ``3`` a system header; the first marker names the file preprocessed
(gcc 12: ``# 0 "m.c"``, then ``# 0 "<built-in>"`` and ``# 0 "<command-line>"``). Told when the first line is such a
marker and the sample holds 3 of them or more; ``-P`` output, with no markers, is none."""

from __future__ import annotations

import re

from scratchfs.api.shape_words import listed_within, plural, short_name, within_lines

__all__ = ["CPP_SHAPE", "cpp_shape"]

CPP_SHAPE = "C preprocessor output"
"""How the shape of the C preprocessor's output starts."""

_MARKER = rb'#(?:line)? (\d{1,9}) "((?:[^"\\\n]|\\.){1,400})"((?: [1-4]){0,4})\r?(?=\n|\Z)'
_FIRST_RE = re.compile(_MARKER)
_MARKER_RE = re.compile(rb"\n" + _MARKER)
_FIND = '; pattern="^# [0-9]+ \\"FILE\\"", context="line" finds where a file\'s lines start'


def cpp_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is the C preprocessor's output, else
    ``None``: ``"C preprocessor output of m.c, 2,128 lines, its own lines last from line 2,128; 36 headers (all
    system headers): /usr/include/stdio.h (line 8), …; pattern="^# [0-9]+ \\"FILE\\"", context="line" finds where a
    file's lines start"`` (each header at the line after the marker that enters it first, the program's own before
    the system headers, each in that order, within the shape's limit, ``… N more`` the others; the preprocessed
    file's last marker, where its own code resumes after the headers it includes, when the sample is all of it, else
    the search from the end that finds it). ``size``: the whole content's
    bytes (``None``: the sample's); told from the sample's first :data:`~scratchfs.api.shape_words.MOST_LINES`
    lines, which its scope says when that is not all of it.
    Never raises."""
    first = _FIRST_RE.match(sample, 0, 1024) if sample[:1] == b"#" else None
    if first is None:
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)
    text = b"\n" + sample
    markers = [(found.start(), found[2], found[3]) for found in _MARKER_RE.finditer(text)]
    if len(markers) < 3:
        return None
    main = first[2]
    entered: dict[bytes, int] = {}
    system = set()
    for at, name, flags in markers:
        if b"1" in flags.split() and name not in entered and name != main:
            entered[name] = at
        if b"3" in flags.split():
            system.add(name)
    last = max((at for at, name, _ in markers if name == main), default=0)
    name = short_name(main.decode("utf-8", "replace"), 60)
    own = f", its own lines last from line {_line(text, last) + 1:,}" if last and complete else ""  # (a sample's
    # last is not the content's: the search from the end its tail names finds that)
    kinds = "all system headers" if entered and system >= set(entered) else (
        plural(len(system & set(entered)), "system header"))
    tail = _FIND if complete else f'{_FIND}, before=SIZE, max_matches=1 the last'
    if not entered:  # (a file that includes nothing: no list, "0 headers (0 system headers): ;" said nothing)
        return f"{CPP_SHAPE} of {name}, {plural(lines, 'line')}{own}{scope}; no header taken in{tail}"
    head = f"{CPP_SHAPE} of {name}, {plural(lines, 'line')}{own}{scope}; {plural(len(entered), 'header')} ({kinds}): "
    order = sorted(entered.items(), key=lambda item: item[0] in system)  # (the program's own headers first)
    items = (f"{short_name(header.decode('utf-8', 'replace'), 60)} (line {_line(text, at) + 1:,})"
             for header, at in order)
    return listed_within(head, items, tail, len(entered))


def _line(text: bytes, at: int) -> int:
    """The line of the marker whose newline is at ``at`` in ``text`` (a newline, then the sample)."""
    return text.count(b"\n", 0, at + 1)
