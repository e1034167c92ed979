"""Lines indented by a tab are no table whose first column is empty: ``ldd``'s output (``\\tlibz.so.1 =>
/lib/.../libz.so.1 (0x...)`` on every line) was told ``TSV, 2 columns, no header, 59 rows``, and its rows read back as
``["", "libz.so.1 => ..."]`` (helper devout1, ``fixtures/tools/ldd-gdb.txt``, a real run). A TSV whose first column
is empty on some lines only, or whose header alone leaves its first name empty (pandas' index), stays a table."""

from __future__ import annotations

from pathlib import Path

from scratchfs.api.shape import describe

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def described(data: bytes):
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n")))


def test_ldd_output_indented_by_tabs_is_text_not_a_tsv_table():
    data = (TOOLS / "ldd-gdb.txt").read_bytes()
    lines = data.decode().splitlines()
    assert len(lines) == 59 and all(line.startswith("\t") and "\t" not in line[1:] for line in lines)
    found = described(data)
    assert (found.content_type, found.text) == ("text", "text, 59 lines, longest 96 bytes, 0% blank"), found


def test_tsv_with_a_first_column_empty_on_some_lines_or_unnamed_stays_a_table():
    some_empty = b"".join(b"%s\t%d\tname%d\n" % (b"" if n % 3 else b"x", n, n) for n in range(30))
    assert described(some_empty).text == "TSV, 3 columns, no header, 30 rows", described(some_empty)
    pandas = b"\ta\tb\n" + b"".join(b"%d\tv%d\t%d\n" % (n, n, n * 2) for n in range(30))
    found = described(pandas)
    assert found.content_type == "csv" and found.text.startswith("TSV, 3 columns ("), found
