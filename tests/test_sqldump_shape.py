"""An SQL dump (``sqlite3 DB .dump``): its tables with the line of each ``CREATE TABLE`` and the count of the
``INSERT`` statements that fill it, then its index and view, against the plain Python reading of a real dump
(fixtures/tools/sqlite-dump-packages.sql). It was told as ``text, 45 lines``, no schema named."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_sqldump import SQLDUMP_SHAPE

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def test_a_sqlite_dump_names_its_table_its_inserts_and_its_index_and_view():
    data = (_TOOLS / "sqlite-dump-packages.sql").read_bytes()
    lines = data.decode().splitlines()
    create = next(at for at, line in enumerate(lines, 1) if line.startswith("CREATE TABLE p("))
    inserts = [at for at, line in enumerate(lines, 1) if line.startswith("INSERT INTO p VALUES(")]
    index = next(at for at, line in enumerate(lines, 1) if line.startswith("CREATE INDEX pm "))
    view = next(at for at, line in enumerate(lines, 1) if line.startswith("CREATE VIEW recent "))
    assert shape_of(data) == (
        f"{SQLDUMP_SHAPE}, {len(lines)} lines, 1 table, {len(inserts)} INSERT statements: p (line {create}, "
        f"{len(inserts)} INSERT statements from line {inserts[0]}), pm (index, line {index}), recent (view, line "
        f'{view}); pattern="^CREATE TABLE NAME", context="line" finds a schema, match="INSERT INTO NAME", count=true '
        "its rows")


def test_the_calls_the_shape_names_read_the_schema_and_count_the_rows(scratch_scope):
    data = (_TOOLS / "sqlite-dump-packages.sql").read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert stub.shape.startswith(f"{SQLDUMP_SHAPE}, 45 lines, 1 table, 39 INSERT statements: p (line 3, ")
    tools = ScratchTools(scratch_scope)
    schema = tools.call("read_handle", {"handle": stub.handle, "pattern": "^CREATE TABLE p", "context": "line"})
    assert schema["windows"][0]["data"] == "CREATE TABLE p(name text, version text, month text, summary text);"
    count = tools.call("read_handle", {"handle": stub.handle, "match": "INSERT INTO p", "count": True})
    assert count["matches"] == data.count(b"\nINSERT INTO p ") == 39


@pytest.mark.parametrize("name", ["psql-echo-query.txt", "git-log-oneline.txt", "sqlite-table-packages.txt"])
def test_other_outputs_holding_sql_are_no_dump(name):
    assert not shape_of((_TOOLS / name).read_bytes()).startswith(SQLDUMP_SHAPE)


def test_text_that_opens_like_a_dump_but_creates_and_fills_nothing_is_none():
    assert not shape_of(b"-- notes\nSELECT 1;\nSET x = 2;\n" * 40).startswith(SQLDUMP_SHAPE)


def test_a_pg_dump_names_its_copy_blocks_rows_after_its_restrict_line():
    """pg_dump 15.18 writes ``\\restrict KEY`` before its ``SET`` lines (a psql command: the dump was told as none
    before it was passed over) and a table's rows as a ``COPY ... FROM stdin;`` block ended by ``\\.``."""
    data = (_TOOLS / "pg-dump-packages.sql").read_bytes()
    lines = data.decode().splitlines()
    copy = next(at for at, line in enumerate(lines, 1) if line.startswith("COPY public.p "))
    end = lines.index("\\.") + 1
    create = lines.index("CREATE TABLE public.p (") + 1
    assert lines[4].startswith("\\restrict ")
    assert shape_of(data).startswith(
        f"{SQLDUMP_SHAPE}, {len(lines)} lines, 1 table, 0 INSERT statements, 1 COPY block: public.p (line {create}, "
        f"COPY of {end - copy - 1} rows from line {copy + 1}), public.recent (view, line "
        f"{lines.index('CREATE VIEW public.recent AS') + 1}), pm (index, line "
        f"{next(at for at, line in enumerate(lines, 1) if line.startswith('CREATE INDEX pm '))}); ")
    assert "INSERT INTO" not in shape_of(data)  # (its rows are a COPY block: a count of INSERTs would find none)


@pytest.mark.parametrize("text", [
    b"Set up the build first.\nThen run make and wait.\nInsert into the config file the line below.\nDone.\n",
    b"Select a mirror near you.\nCreate table stakes for the team.\n",
    b"begin here.\ncreate table of contents by hand\n",
])
def test_prose_starting_with_a_statements_word_is_no_dump(text):
    """A dump writes its statements' keywords in capitals (sqlite3, pg_dump, mysqldump); prose whose first word is
    Set, Select or Begin and a later line's Create table or Insert into was told as an SQL dump of a table named
    "the" or "stakes" (hostile37)."""
    shape = describe(text, len(text), text.count(b"\n")).text
    assert not shape.startswith("SQL dump"), shape
