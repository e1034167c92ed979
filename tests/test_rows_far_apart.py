"""A rows read over many lines that are no rows -- a CSV's blank lines, a table's rules of dashes, a box's borders --
read them all on one page: 1M blank lines between two rows cost that page 1.4 s, and 100 MB of them would cost a
minute and more, a page's time linear in the lines it passes over, unbounded (the last closing note). A page now
stops after ``FAR_LINES`` such lines (or ``FAR_BYTES`` of them) with a cursor that reads on from the next line and
a note saying so; following the cursors reaches the rows after them, numbered as before."""

from __future__ import annotations

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import BytesSource, table_reader
from scratchfs.engine.structure.aligned import Layout
from scratchfs.engine.structure.paging import CHUNK_BYTES
from scratchfs.engine.structure.table import rows_page
from tests.test_structure_reads import follow


class _Counted(BytesSource):
    """A source that counts the bytes it hands out."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.given = 0

    def read(self, offset: int, length: int) -> bytes:
        data = super().read(offset, length)
        self.given += len(data)
        return data


def test_a_page_reads_a_bounded_number_of_blank_lines():
    source = _Counted(b"a,b\n1,2\n" + b"\n" * 4_000_000 + b"3,4\n")
    page = rows_page(source, 1, 50)
    assert page.items == [["1", "2"]] and page.cursor is not None
    assert source.given <= table_reader.FAR_BYTES // 8 + 2 * CHUNK_BYTES < 4_000_000  # (it read all 4 MB)
    assert page.to_dict()["note"].startswith("the page stopped after 65,536 lines (65,536 bytes) that are no rows")
    following = rows_page(source, cursor=page.cursor)
    assert following.first == 2 and following.items == []  # (row 2 still to come, after more blank lines)


def test_a_page_reads_a_bounded_number_of_rule_lines_of_a_table_aligned_by_spaces():
    source = _Counted(b"NAME   AGE\nx      1\n" + b"----   ---\n" * 1_000_000 + b"y      2\n")
    page = rows_page(source, 1, 50, layout=Layout(("NAME", "AGE"), (0, 7), "runs"))
    assert page.items == [["x", "1"]] and page.cursor is None  # (a rule after a row ends the rows: a footer's)
    assert source.given <= 65_536 * 11 + 2 * CHUNK_BYTES


def test_the_bytes_of_long_lines_that_are_no_rows_bound_a_page_too():
    rule = b"-" * 2000 + b" " + b"-" * 2000 + b"\n"  # (8 MiB of them in 2,097 lines: under the line bound)
    source = _Counted(b"NAME" + b" " * 1997 + b"AGE\nx" + b" " * 2000 + b"1\n" + rule * 10_000 + b"y    2\n")
    page = rows_page(source, 1, 50, layout=Layout(("NAME", "AGE"), (0, 2001), "runs"))
    assert page.items == [["x", "1"]] and page.cursor is None  # (a rule after a row ends the rows: a footer's)
    assert source.given <= table_reader.FAR_BYTES + 2 * CHUNK_BYTES < len(rule) * 10_000


def test_following_the_cursors_reaches_every_row_within_the_budget(scratch_scope):
    data = b"id,name\n1,a\n2,b\n" + b"\n" * 200_000 + b"3,c\n" + b"\n" * 70_000
    handle = scratch_scope.spill(data, source_tool="sql").handle
    pages = follow(ScratchTools(scratch_scope), {"handle": handle, "row": 1, "rows": 50}, 2048)
    rows = [(page["first"] + i, row) for page in pages for i, row in enumerate(page["rows"])]
    assert rows == [(1, ["1", "a"]), (2, ["2", "b"]), (3, ["3", "c"])]
    stopped = [page for page in pages if "stopped after 65,536 lines" in page.get("note", "")]
    assert 4 <= len(stopped) <= 5 and len(pages) <= 6
