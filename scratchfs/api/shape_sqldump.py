"""The shape of an SQL dump (``sqlite3 DB .dump``, ``pg_dump``, ``mysqldump``), for :mod:`scratchfs.api.shape`: its
tables, each with the line of its ``CREATE TABLE`` and how many ``INSERT`` statements (or ``COPY`` blocks) fill it,
then its other objects (indexes, views, triggers), so that a model asked for a table's schema or its row count reads
one line or counts one pattern instead of paging 1,200 lines of ``INSERT INTO`` (``sqlite3 .dump`` of 1,200 rows,
170 KB, was ``text, 1,205 lines``). Such text stays content type ``text``; its shape starts with
:data:`SQLDUMP_SHAPE`.

Told when its first line that is no comment (``--``, ``/* */`` within a line), no psql command (pg_dump's
``\\restrict KEY``) and no blank starts, within its first 4 KiB, with a statement a dump opens with, in capitals as
dumps write it (``PRAGMA``, ``BEGIN``, ``SET``, ``CREATE``, ``DROP``, ``INSERT``, ``LOCK``, ``SELECT``, ``START``),
and a ``CREATE TABLE`` or ``INSERT INTO`` starts a line in the sample; statements counted where they start a line
(mysqldump's extended ``INSERT`` holds many rows in one statement: the shape counts statements, and says so)."""

from __future__ import annotations

import re
from collections import Counter
from itertools import chain

from scratchfs.api.shape_words import listed_within, plural, short_name, within_lines

__all__ = ["SQLDUMP_SHAPE", "sqldump_shape"]

SQLDUMP_SHAPE = "SQL dump"
"""How the shape of an SQL dump starts."""

_OPENING_RE = re.compile(rb"(?:[ \t]*(?:--[^\n]*|\\[^\n]*|/\*[^\n]*?\*/;?[ \t]*)?\r?\n)*"
                         rb"(?:PRAGMA|BEGIN|SET|CREATE|DROP|INSERT|LOCK|SELECT|START) ")  # (each comment within its
# line: mysqldump's /*!40101 SET ... */; lines; pg_dump's \restrict KEY; each repetition one line, so the match is
# linear; the keyword in capitals, as every dump writes it: prose starting "Set up ..." with a line "Insert into the
# config ..." was a dump of the table "the")
_NAME = rb"((?:\"[^\"\n]{1,120}\"|`[^`\n]{1,120}`|\[[^\]\n]{1,120}\]|[^\s(;\"`]{1,120})(?:\.(?:\"[^\"\n]{1,120}\"|"\
        rb"[^\s(;]{1,120}))?)"
_CREATE_RE = re.compile(rb"\nCREATE +(?:OR +REPLACE +)?(?:(?:TEMP|TEMPORARY|UNIQUE|VIRTUAL|UNLOGGED|MATERIALIZED) +)?"
                        rb"(TABLE|INDEX|VIEW|TRIGGER|SEQUENCE|FUNCTION|TYPE)(?: +IF +NOT +EXISTS)? +" + _NAME,
                        re.IGNORECASE)
_INSERT_RE = re.compile(rb"\n(?:INSERT|REPLACE) +INTO +" + _NAME, re.IGNORECASE)
_COPY_RE = re.compile(rb"\nCOPY +" + _NAME + rb"[^\n]*FROM stdin;", re.IGNORECASE)
_FIND = '; pattern="^CREATE TABLE NAME", context="line" finds a schema'
_COUNT = ', match="INSERT INTO NAME", count=true its rows'
"""Named only when the dump holds INSERT statements (a pg_dump's rows are COPY blocks, their lines listed)."""


def sqldump_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is an SQL dump, else ``None``: ``"SQL dump,
    1,205 lines, 1 table, 1,199 INSERT statements: p (line 3, 1,199 INSERT statements from line 4), pm (index, line
    1,203), recent (view, line 1,204); pattern="^CREATE TABLE NAME", context="line" finds a schema,
    match="INSERT INTO NAME", count=true its rows"`` (the tables listed first, then the indexes, views and
    triggers, within the shape's limit, ``… N more`` the others; a table filled but never created, as a data-only
    dump's, listed by its inserts). ``size``: the whole content's bytes (``None``: the sample's); told from the
    sample's first :data:`~scratchfs.api.shape_words.MOST_LINES` lines, which its scope says when that is not all
    of it. Never raises."""
    if _OPENING_RE.match(sample, 0, 4096) is None:
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)
    text = b"\n" + sample
    created = [(found.start(), found[1].upper().decode(), found[2]) for found in _CREATE_RE.finditer(text)]
    inserts = Counter(_INSERT_RE.findall(text))
    copies = Counter(_COPY_RE.findall(text))
    tables = [(at, name) for at, kind, name in created if kind == "TABLE"]
    if not tables and not inserts and not copies:
        return None
    named = {name for _, name in tables}  # (once: for each name filled, 10,000 tables and as many filled took 0.8 s)
    filled = [name for name in {**inserts, **copies} if name not in named]
    statements = sum(inserts.values())
    head = (f"{SQLDUMP_SHAPE}, {plural(lines, 'line')}, {plural(len(tables) + len(filled), 'table')}, "
            f"{plural(statements, 'INSERT statement')}" + (f", {plural(sum(copies.values()), 'COPY block')}"
                                                            if copies else "") + f"{scope}: ")
    others = [(at, kind, name) for at, kind, name in created if kind != "TABLE"]
    items = chain((_table(text, name, at, inserts[name], copies[name]) for at, name in tables),
                  (_table(text, name, None, inserts[name], copies[name]) for name in filled),
                  (f"{_name(name)} ({kind.lower()}, line {_line(text, at):,})" for at, kind, name in others))
    return listed_within(head, items, _FIND + (_COUNT if statements else ""), len(tables) + len(filled) + len(others))


def _table(text: bytes, name: bytes, at: int | None, inserts: int, copies: int) -> str:
    """A table as the shape lists it: ``"p (line 3, 1,199 INSERT statements from line 4)"``."""
    where = [f"line {_line(text, at):,}"] if at is not None else []
    if inserts:
        first = text.find(b"\nINSERT INTO " + name)
        where.append(plural(inserts, "INSERT statement") + (f" from line {_line(text, first):,}" if first >= 0 else ""))
    first = text.find(b"\nCOPY " + name) if copies else -1
    if first >= 0:  # (its rows: the lines up to its "\." line, or the sample's end)
        start = text.find(b"\n", first + 1)
        end = text.find(b"\n\\.", start)
        rows = text.count(b"\n", start, end if end >= 0 else len(text)) - (end < 0 and not text.endswith(b"\n"))
        block = f"COPY of {plural(rows, 'row')}" if copies == 1 else f"{plural(copies, 'COPY block')}, the first of "\
            f"{plural(rows, 'row')}"
        where.append(f"{block} from line {_line(text, start):,}")
    return f"{_name(name)} ({', '.join(where)})"


def _name(name: bytes) -> str:
    return short_name(name.decode("utf-8", "replace"), 48)


def _line(text: bytes, at: int) -> int:
    """The line of the match at ``at`` in ``text`` (a newline, then the sample): that of the newline it starts at."""
    return text.count(b"\n", 0, at + 1)
