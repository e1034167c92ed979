"""The shape of a manual page as text (``man ls`` piped, ``python -m pydoc json``), for :mod:`scratchfs.api.shape`: its
sections and, for pydoc, the classes and functions it documents, each with the line it starts at, so that a model
goes to ``SYNOPSIS`` or to ``dumps`` with one line read (``line=N``) instead of paging through the page. Such text
stays content type ``text``; its shape starts with :data:`MANUAL_SHAPE` or :data:`PYDOC_SHAPE`.

The layouts, as their tools write them: man-db's rendering of man(7) pages (a header line ``LS(1)  User Commands
LS(1)``, each ``.SH`` section a title in capitals at the line's start, its body indented); pydoc's text
documentation (``pydoc.TextDoc``: a first line ``Help on module json:``, sections in capitals at the line's start,
in ``CLASSES`` each ``class Name(...)`` and in ``FUNCTIONS`` each ``name(...)`` indented by four spaces). Told only
on that first line (a match at the start: nothing is scanned otherwise; its runs of blanks may be tabs, as ``col -b``
writes them) and two sections or more. Overstruck bold
(``MAN_KEEP_FORMATTING``) is terminal output, told before this.
"""

from __future__ import annotations

import re
from itertools import chain, islice

from scratchfs.api.shape_parts import Parts, numbered
from scratchfs.api.shape_words import listed_within, plural, short_name

__all__ = ["MANUAL_SHAPE", "PYDOC_SHAPE", "manual_shape"]

MANUAL_SHAPE = "manual page"
"""How the shape of a man page starts."""

PYDOC_SHAPE = "pydoc"
"""How the shape of pydoc's documentation starts."""

_FIRST_BYTES = 1024
_MAN_RE = re.compile(rb"([A-Za-z0-9_.:+-]{1,64})\((\d[A-Za-z0-9]{0,8})\)[ \t]+[^\n]*\b\1\(\2\)\r?\n")  # (tabs: col -b)
_PYDOC_RE = re.compile(rb"Help on ([a-z_ -]{1,32}) ([^\s:]{1,200})[^\n]*:\r?\n")
_SECTION_RE = re.compile(rb"\n([A-Z][A-Z0-9 ,/&()_-]{0,48}[A-Z0-9)])\r?(?=\n|\Z)")
_METHOD_RE = re.compile(rb"(?:(?<=\n \|  )|(?<=\n \|))\n \|  ([A-Za-z_]\w{0,80})\(")  # (after a blank line)
_CLASS_RE = re.compile(rb"\n {4}class ([A-Za-z_][\w.]{0,80})\(")
_FUNCTION_RE = re.compile(rb"\n {4}([A-Za-z_][\w.]{0,80})\(")
_MOST_SECTIONS = 13  # pydoc's sections listed before its members (it writes at most 13 kinds)


def manual_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is a man page or pydoc's documentation,
    else ``None``: ``"manual page ls(1), 248 lines, 8 sections: NAME (line 3), SYNOPSIS (line 6), …; line=N reads
    from a section"``, ``"pydoc of package json, 561 lines, 11 sections: NAME (line 3), …; 3 classes, 4 functions:
    class JSONDecoder (line 226), …, dumps (line 446), …; line=N reads from one"``.
    ``size`` (the content's bytes) is unused: the other kinds take it. Never raises."""
    # (each match bounded: a first line of 512 KiB is none of theirs)
    man = _MAN_RE.match(sample, 0, _FIRST_BYTES) if sample[:1].isalnum() else None
    pydoc = _PYDOC_RE.match(sample, 0, _FIRST_BYTES) if man is None and sample.startswith(b"Help on ") else None
    if man is None and pydoc is None:
        return None
    if not complete:
        sample = sample[: sample.rfind(b"\n") + 1]  # whole lines only
    text = b"\n" + sample
    sections = Parts(_SECTION_RE, text)
    if pydoc is not None and len(sections) < 2:
        return _pydoc_class(text, pydoc, lines, scope)
    if len(sections) < 2:
        return None
    titled = (f"{short_name(raw.decode('ascii'), 40)} (line {line:,})" for line, raw in numbered(text, sections))
    if man is not None:
        name = short_name(f"{man[1].decode().lower()}({man[2].decode()})", 60)
        head = f"{MANUAL_SHAPE} {name}, {plural(lines, 'line')}, {plural(len(sections), 'section')}{scope}: "
        return listed_within(head, titled, "; line=N reads from a section", len(sections))
    name = _pydoc_name(pydoc)
    listed = ", ".join(islice(titled, _MOST_SECTIONS)) + (", …" if len(sections) > _MOST_SECTIONS else "")
    head = f"{PYDOC_SHAPE} of {name}, {plural(lines, 'line')}, {plural(len(sections), 'section')}{scope}: {listed}"
    classes, functions = (_members(text, title, pattern) for title, pattern in ((b"CLASSES", _CLASS_RE),
                                                                               (b"FUNCTIONS", _FUNCTION_RE)))
    if not classes and not functions:
        return listed_within(head, [], "; line=N reads from a section")
    counts = ", ".join(part for part in (
        f"{len(classes):,} {'class' if len(classes) == 1 else 'classes'}" if classes else "",
        plural(len(functions), "function") if functions else "") if part)
    items = chain((f"class {short_name(raw.decode(), 48)} (line {line:,})" for line, raw in numbered(text, classes)),
                  (f"{short_name(raw.decode(), 48)} (line {line:,})" for line, raw in numbered(text, functions)))
    return listed_within(f"{head}; {counts}: ", items, "; line=N reads from one", len(classes) + len(functions))


def _pydoc_name(pydoc: re.Match[bytes]) -> str:
    """What pydoc's first line says it documents: ``"package json"``, ``"class str in module builtins"``."""
    return short_name(f"{pydoc[1].decode()} {pydoc[2].decode('utf-8', 'replace')}", 60)


def _pydoc_class(text: bytes, pydoc: re.Match, lines: int, scope: str) -> str | None:
    """The shape of pydoc's documentation of one class: its methods but the ``__dunder__`` ones, each at its line."""
    methods = Parts(_METHOD_RE, text, keep=lambda name: not (name.startswith(b"__") and name.endswith(b"__")))
    if not methods:
        return None
    name = _pydoc_name(pydoc)
    head = (f"{PYDOC_SHAPE} of {name}, {plural(lines, 'line')}, {plural(len(methods), 'method')} besides __dunder__ "
            f"ones{scope}: ")
    items = (f"{short_name(raw.decode(), 48)} (line {line:,})" for line, raw in numbered(text, methods))
    return listed_within(head, items, "; line=N reads from one", len(methods))


def _members(text: bytes, title: bytes, pattern: re.Pattern[bytes]) -> Parts | list:
    """What ``pattern`` finds in pydoc's section ``title`` (``CLASSES``, ``FUNCTIONS``: it writes each once)."""
    start = text.find(b"\n" + title + b"\n")
    if start < 0:
        return []
    after = _SECTION_RE.search(text, start + len(title) + 1)
    return Parts(pattern, text, start=start, end=after.start() if after is not None else len(text))
