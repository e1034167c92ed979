"""The shape of a manual page as text (``man ls`` piped, ``python -m pydoc json``), for :mod:`scratchfs.api.shape`: its
sections and, for pydoc, the classes and functions it documents, each with the line it starts at, so that a model
goes to ``SYNOPSIS`` or to ``dumps`` with one line read (``line=N``) instead of paging through the page. Such text
stays content type ``text``; its shape starts with :data:`MANUAL_SHAPE` or :data:`PYDOC_SHAPE`.

The layouts, as their tools write them: man-db's rendering of man(7) pages (a header line ``LS(1)  User Commands
LS(1)``, each ``.SH`` section a title in capitals at the line's start, its body indented); pydoc's text
documentation (``pydoc.TextDoc``: a first line ``Help on module json:``, sections in capitals at the line's start,
in ``CLASSES`` each ``class Name(...)`` and in ``FUNCTIONS`` each ``name(...)`` indented by four spaces). Told only
on that first line (a match at the start: nothing is scanned otherwise) and two sections or more. Overstruck bold
(``MAN_KEEP_FORMATTING``) is terminal output, told before this.
"""

from __future__ import annotations

import re

from scratchfs.api.shape_words import listed_within, plural, short_name

__all__ = ["MANUAL_SHAPE", "PYDOC_SHAPE", "manual_shape"]

MANUAL_SHAPE = "manual page"
"""How the shape of a man page starts."""

PYDOC_SHAPE = "pydoc"
"""How the shape of pydoc's documentation starts."""

_MAN_RE = re.compile(rb"([A-Za-z0-9_.:+-]{1,64})\((\d[A-Za-z0-9]{0,8})\) +[^\n]*\b\1\(\2\)\r?\n")
_PYDOC_RE = re.compile(rb"Help on ([a-z_ -]{1,32}) ([^\s:]{1,200})[^\n]*:\r?\n")
_SECTION_RE = re.compile(rb"\n([A-Z][A-Z0-9 ,/&()_-]{0,48}[A-Z0-9)])\r?(?=\n|\Z)")
_MEMBER_RE = re.compile(rb"\n {4}(class )?([A-Za-z_][\w.]{0,80})\(")
_METHOD_RE = re.compile(rb"\n \|[ ]*\r?\n( \|  ([A-Za-z_]\w{0,80})\()")  # (after a blank line of the class's)
_MEMBER_SECTIONS = (b"CLASSES", b"FUNCTIONS")
_MOST_SECTIONS = 13  # pydoc's sections listed before its members (it writes at most 13 kinds)


def manual_shape(sample: bytes, lines: int, complete: bool, scope: str) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is a man page or pydoc's documentation,
    else ``None``: ``"manual page ls(1), 248 lines, 8 sections: NAME (line 3), SYNOPSIS (line 6), …; line=N reads
    from a section"``, ``"pydoc of package json, 561 lines, 11 sections: NAME (line 3), …; 3 classes, 4 functions:
    class JSONDecoder (line 226), …, dumps (line 446), …; line=N reads from one"``. Never raises."""
    man = _MAN_RE.match(sample) if sample[:1].isalnum() else None
    pydoc = _PYDOC_RE.match(sample) if man is None and sample.startswith(b"Help on ") else None
    if man is None and pydoc is None:
        return None
    if not complete:
        sample = sample[: sample.rfind(b"\n") + 1]  # whole lines only
    text = b"\n" + sample
    sections = [(found.start(), found[1]) for found in _SECTION_RE.finditer(text)]
    if pydoc is not None and len(sections) < 2:
        return _pydoc_class(text, pydoc, lines, scope)
    if len(sections) < 2:
        return None
    titled = [f"{short_name(name.decode('ascii'), 40)} (line {line:,})" for line, name in _numbered(text, sections)]
    if man is not None:
        name = short_name(f"{man[1].decode().lower()}({man[2].decode()})", 60)
        head = f"{MANUAL_SHAPE} {name}, {plural(lines, 'line')}, {plural(len(sections), 'section')}{scope}: "
        return listed_within(head, titled, "; line=N reads from a section")
    name = short_name(f"{pydoc[1].decode()} {pydoc[2].decode('utf-8', 'replace')}", 60)
    listed = ", ".join(titled[:_MOST_SECTIONS]) + (", …" if len(titled) > _MOST_SECTIONS else "")
    members = _members(text, sections)
    head = f"{PYDOC_SHAPE} of {name}, {plural(lines, 'line')}, {plural(len(sections), 'section')}{scope}: {listed}"
    if not members:
        return listed_within(head, [], "; line=N reads from a section")
    classes = sum(1 for _, name in members if name.startswith("class "))
    counts = ", ".join(part for part in (f"{classes:,} {'class' if classes == 1 else 'classes'}" if classes else "",
                                         plural(len(members) - classes, "function") if len(members) > classes else "")
                       if part)
    items = (f"{name} (line {line:,})" for line, name in _numbered(text, members))
    return listed_within(f"{head}; {counts}: ", items, "; line=N reads from one", len(members))


def _pydoc_class(text: bytes, pydoc: re.Match, lines: int, scope: str) -> str | None:
    """The shape of pydoc's documentation of one class: its methods but the ``__dunder__`` ones, each at its line."""
    methods = [(found.start(1) - 1, found[2].decode()) for found in _METHOD_RE.finditer(text)
               if not (found[2].startswith(b"__") and found[2].endswith(b"__"))]
    if not methods:
        return None
    name = short_name(f"{pydoc[1].decode()} {pydoc[2].decode('utf-8', 'replace')}", 60)
    head = (f"{PYDOC_SHAPE} of {name}, {plural(lines, 'line')}, {plural(len(methods), 'method')} besides __dunder__ "
            f"ones{scope}: ")
    items = (f"{short_name(method, 48)} (line {line:,})" for line, method in _numbered(text, methods))
    return listed_within(head, items, "; line=N reads from one", len(methods))


def _members(text: bytes, sections: list[tuple[int, bytes]]) -> list[tuple[int, str]]:
    """pydoc's classes (``"class Name"``) and functions in its ``CLASSES`` and ``FUNCTIONS`` sections, in order."""
    found: list[tuple[int, str]] = []
    for n, (start, title) in enumerate(sections):
        if title not in _MEMBER_SECTIONS:
            continue
        end = sections[n + 1][0] if n + 1 < len(sections) else len(text)
        for member in _MEMBER_RE.finditer(text, start, end):
            if (member[1] is not None) == (title == b"CLASSES"):
                found.append((member.start(), short_name((member[1] or b"").decode() + member[2].decode(), 48)))
    return found


def _numbered(text: bytes, parts: list) -> list:
    """``parts`` (``(offset, name)`` in order of their offsets) as ``(line, name)``."""
    numbered, line, at = [], 0, 0
    for offset, name in parts:
        line += text.count(b"\n", at, offset + 1)
        at = offset + 1
        numbered.append((line, name))
    return numbered
