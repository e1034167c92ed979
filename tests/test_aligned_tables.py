"""Tables aligned by spaces (``ps auxww``, ``df -h``, ``pip list``, ``free -m``, ``ss -tan``, ``lsblk``, and
docker-ps- and kubectl-like tables written by hand: fixtures/tools/, fixtures/README.md) are told at spill time --
content type ``text``, a shape naming the columns, the rows and the split rule -- and read back by ``row=``,
``rows=``, ``columns=`` and ``slurp=true`` as a CSV with those cells would be; prose, logs, code, ``ls -l``, CSV and
grep output are not taken for one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_aligned import ALIGNED_SHAPE
from scratchfs.engine.structure.aligned import FIXED, RUNS, find_layout
from tests.test_structure_reads import follow

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def _lines(data: bytes) -> list[str]:
    return [line for line in data.decode().split("\n") if line.strip(" ") and set(line) - set("- ")]


def _runs(data: bytes, columns: int) -> list[list[str]]:
    """The plain Python answer of the runs rule: each line split at whitespace, the last column the rest."""
    out = []
    for line in _lines(data)[1:]:
        cells = line.rstrip().split(None, columns - 1)  # (spaces around a cell are no part of it)
        out.append(cells + [""] * (columns - len(cells)))
    return out


def _fixed(data: bytes, starts: list[int]) -> list[list[str]]:
    """The plain Python answer of the fixed rule: each line cut at the given positions, cells stripped."""
    return [[line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
            for line in _lines(data)[1:]]


# fixture, its header names, the rule, and the plain Python answer's split
_CASES = {
    "ps-auxww.txt": (["USER", "PID", "%CPU", "%MEM", "VSZ", "RSS", "TTY", "STAT", "START", "TIME", "COMMAND"], RUNS),
    "df-h.txt": (["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on"], RUNS),
    "df-T.txt": (["Filesystem", "Type", "1K-blocks", "Used", "Available", "Use%", "Mounted on"], RUNS),
    "sqlite-column.txt": (["id", "name", "score"], FIXED),
    "pip-list.txt": (["Package", "Version", "Editable project location"], RUNS),
    "free-m.txt": (["", "total", "used", "free", "shared", "buff/cache", "available"], RUNS),
    "ss-tan.txt": (["State", "Recv-Q", "Send-Q", "Local Address:Port", "Peer Address:Port", "Process"], RUNS),
    "ss-tulpn.txt": (["Netid", "State", "Recv-Q", "Send-Q", "Local Address:Port", "Peer Address:Port", "Process"],
                     RUNS),
    "lsblk.txt": (["NAME", "MAJ:MIN", "RM", "SIZE", "RO", "TYPE", "MOUNTPOINTS"], RUNS),
    "docker-ps-by-hand.txt": (["CONTAINER ID", "IMAGE", "COMMAND", "CREATED", "STATUS", "PORTS", "NAMES"], FIXED),
    "kubectl-get-pods-by-hand.txt": (["NAME", "READY", "STATUS", "RESTARTS", "AGE"], FIXED),
}
_FIXED_STARTS = {"docker-ps-by-hand.txt": [0, 15, 36, 61, 78, 106, 150], "sqlite-column.txt": [0, 4, 16],
                 "kubectl-get-pods-by-hand.txt": [0, 36, 44, 63, 78]}


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _expected(name: str, data: bytes) -> list[list[str]]:
    names, rule = _CASES[name]
    return _runs(data, len(names)) if rule == RUNS else _fixed(data, _FIXED_STARTS[name])


@pytest.mark.parametrize("name", sorted(_CASES))
def test_a_real_table_is_told_and_its_rows_read_as_python_splits_its_lines(tools, scratch_scope, name):
    data = (_TOOLS / name).read_bytes()
    names, rule = _CASES[name]
    stub = scratch_scope.spill(data, source_tool="bash")
    want = _expected(name, data)
    assert stub.content_type == "text" and stub.shape.startswith(f"{ALIGNED_SHAPE}, {len(names)} columns: ")
    assert f", {len(want)} rows; " in stub.shape
    assert ("split at runs of spaces" if rule == RUNS else "header's column positions") in stub.shape
    named = re.search(r"row=(\d+), rows=20", stub.note)  # (from the first row its preview does not show whole)
    assert "shows all of it" in stub.note or (named is not None and "slurp=True" in stub.note)
    if named is not None:
        first = int(named.group(1))
        reply = tools.call("read_handle", {"handle": stub.handle, "row": first, "rows": 1})
        assert first > 1 and reply["rows"] == want[first - 1 : first]
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 7}, 4096)
    assert all(page["header"] == names for page in pages)
    assert [row for page in pages for row in page["rows"]] == want
    assert "aligned by spaces" in pages[0]["note"]


def test_columns_pick_cells_and_slurp_finds_the_largest_rss(tools, scratch_scope):
    data = (_TOOLS / "ps-auxww.txt").read_bytes()
    handle = scratch_scope.spill(data, source_tool="bash").handle
    want = _runs(data, 11)
    pages = follow(tools, {"handle": handle, "row": 1, "rows": 1000, "columns": ["PID", "RSS"]}, 8192)
    assert [r for p in pages for r in p["rows"]] == [[row[1], row[5]] for row in want]
    reply = tools.call("read_handle", {"handle": handle, "jq": "max_by(.RSS) | {PID, RSS, COMMAND}", "slurp": True})
    top = max(want, key=lambda row: int(row[5]))  # (a column of numbers slurps as numbers, as a CSV's does)
    assert reply["results"] == [{"PID": int(top[1]), "RSS": int(top[5]), "COMMAND": top[10]}]
    counted = tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    assert counted["results"] == [len(want)]


def test_slurp_keys_rows_by_the_header_with_cells_holding_spaces(tools, scratch_scope):
    data = (_TOOLS / "docker-ps-by-hand.txt").read_bytes()
    handle = scratch_scope.spill(data, source_tool="docker").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": 'map(select(.STATUS | startswith("Up"))) | '
                                       'map([.NAMES, .PORTS])', "slurp": True})
    want = [[row[6], row[5]] for row in _fixed(data, _FIXED_STARTS["docker-ps-by-hand.txt"])
            if row[4].startswith("Up")]
    assert reply["results"] == [want] and ["sleeper", ""] not in want


def test_a_cursor_goes_on_where_the_last_page_stopped(tools, scratch_scope):
    data = (_TOOLS / "pip-list.txt").read_bytes()
    handle = scratch_scope.spill(data, source_tool="pip").handle
    page = scratch_scope.structure.rows(handle, 1, 500, budget=1024)
    got, pages = list(page.items), 1
    while page.cursor is not None:
        page = scratch_scope.structure.rows(handle, cursor=page.cursor, budget=1024)
        got, pages = got + page.items, pages + 1
    assert pages >= 3 and got == _runs(data, 3)


_NEGATIVES = {
    "prose": b"The quick brown fox.  It jumped over the lazy dog.\nThen it ran  away into the woods and was never\n"
             b"seen again by anyone in the village,  not even the miller.\nThe end.\n",
    "log": b"2026-12-03 10:00:00  INFO  started  worker=1\n2026-12-03 10:00:01  WARN  slow  worker=2\n"
           b"2026-12-03 10:00:02  INFO  done  worker=1\n",
    "code": b"def main():\n    x = 1  # the first\n    y = 2  # the second\n    return x + y\n",
    "aligned code": b"NAME     = scratchfs\nVERSION  = 0.1.0\nLICENSE  = MIT\nAUTHOR   = someone\n",
    "ls -l": b"total 12\n-rw-r--r-- 1 root root  1234 Dec  3 10:00 a.txt\n-rw-r--r-- 1 root root   987 Dec  3 10:01 b\n"
             b"drwxr-xr-x 2 root root  4096 Dec  3 10:02 c\n",
    "ls -l, no total": b"-rw-r--r-- 1 root root  1234 Dec  3 10:00 a.txt\n-rw-r--r-- 1 root root   987 Dec  3 b\n"
                       b"drwxr-xr-x 2 root root  4096 Dec  3 10:02 c\n",
    "csv": b"name,  size,  when\nalpha,  1,  today\nbeta,  2,  yesterday\n",
    "grep": b"src/a.py:12:    def  foo(self):\nsrc/b.py:40:        return  bar\nsrc/c.py:7:import  os\n",
    "du -sh": b"4.0K    alpha\n8.0K    beta\n12K     gamma\n16K     delta\n20K     epsilon\n",
    "markdown": b"Title  here\n===========\n\nSome text  with two spaces.\nAnd more text here.\n",
    "prose after a title": b"Report\nThe quick  brown fox jumped over it.\nIt ran  away into the woods then.\n"
                           b"The end  came soon after that.\n",
    "settings after a comment": b"# settings\nNAME     = scratchfs\nVERSION  = 0.1.0\nLICENSE  = MIT\n",
    "log after a blank line": b"started\n\n2026-12-03 10:00:00  INFO  started  worker=1\n"
                              b"2026-12-03 10:00:01  WARN  slow  worker=2\n2026-12-03 10:00:02  INFO  done  worker=1\n",
}


@pytest.mark.parametrize("name", sorted(_NEGATIVES))
def test_what_is_no_aligned_table_is_not_taken_for_one(name):
    data = _NEGATIVES[name]
    assert not describe(data, len(data), data.count(b"\n")).text.startswith(ALIGNED_SHAPE)


@pytest.mark.parametrize("name", ["find-ls-usr.txt", "du-ah-python3.tsv", "git-log-format.tsv", "man-ls-overstrike.txt",
                                  "sqlite-csv-packages.csv", "pytest-color-v.txt", "ip-br-addr.txt"])
def test_other_real_outputs_are_not_taken_for_one(name):
    # ip -br addr has no header line
    # (its first line, 'lo  UNKNOWN  127.0.0.1/8 ::1/128', a row over 'ifb0  DOWN', was a preamble over that "header")
    data = (_TOOLS / name).read_bytes()
    assert not describe(data, len(data), data.count(b"\n")).text.startswith(ALIGNED_SHAPE)
    if name == "ip-br-addr.txt":  # (its lines from 'ifb0  DOWN' on, as 'ip -br addr show type ifb' would start:
        data = data[data.index(b"\n") + 1 :]  # that line is a row like the others, no header)
        assert not describe(data, len(data), data.count(b"\n")).text.startswith(ALIGNED_SHAPE)


_NAME = st.from_regex(r"[A-Z][A-Z_%]{0,7}", fullmatch=True)  # (no digit: 'A0A' over cells 'b0b' and 'c1c' is of
# their pattern, a row of data to the header verdict -- header_votes, since b5ae787 for 3 rows or fewer -- and to a
# reader; a fresh Hypothesis example of 2026-12-05: 'A0A  A' over '0    0' and 'b0b  :')
_WORD = st.from_regex(r"[a-z0-9./:-]{1,9}", fullmatch=True)
_PHRASE = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)


@st.composite
def _tables(draw):
    """A table as a tool that sizes each column to its widest value prints it, and its cells: left-aligned (a
    cell may hold single spaces), or right-aligned numbers; 2 spaces or more between columns."""
    width = draw(st.integers(2, 6))
    names = draw(st.lists(_NAME, min_size=width, max_size=width, unique=True))
    count = draw(st.integers(2, 30))
    kinds = [draw(st.sampled_from(["word", "phrase", "number"])) for _ in names]
    value = {"word": _WORD, "phrase": _PHRASE, "number": st.integers(0, 10**6).map(str)}
    rows = [[draw(value[kind]) for kind in kinds] for _ in range(count)]
    pad = draw(st.integers(2, 4))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    sizes = [max(len(name), *(len(row[i]) for row in rows)) for i, name in enumerate(names)]

    def line(cells: list[str]) -> str:
        out = []
        for i, cell in enumerate(cells):
            right = kinds[i] == "number" and cell not in names
            out.append(cell.rjust(sizes[i]) if right else cell.ljust(sizes[i]))
        return (" " * pad).join(out).rstrip()

    return names, rows, "".join(line(cells) + end for cells in [names, *rows])


# (25 examples by default, 60 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_tables())
def test_a_printed_table_reads_back_as_its_cells(tools, scratch_scope, table):
    names, rows, text = table
    lines = text.split("\n")
    layout = find_layout(lines[:-1])  # (a CR before each newline: a CR LF line end)
    data = text.encode()
    assert layout is not None and describe(data, len(data), text.count("\n")).text.startswith(ALIGNED_SHAPE)
    handle = scratch_scope.spill(data, source_tool="t").handle
    pages = follow(tools, {"handle": handle, "row": 1, "rows": 100}, 65536)
    got = [r for p in pages for r in p["rows"]]
    plain = _runs(data, len(names)) if layout.rule == RUNS else _fixed(data, list(layout.starts))
    assert pages[0]["header"] == names and got == plain == rows


def test_the_csv_a_slurp_reads_keeps_semicolons_and_quotes(tools, scratch_scope):
    text = ('NAME  A;B  C;D  NOTE\nx     1;2  "q"  a,b\ny     3    4    c "d" e\n')
    handle = scratch_scope.spill(text.encode(), source_tool="t").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": "map([.NAME, .[\"A;B\"], .[\"C;D\"], .NOTE])",
                                       "slurp": True})
    assert reply["results"] == [[["x", "1;2", '"q"', "a,b"], ["y", "3", "4", 'c "d" e']]]


def test_jq_alone_on_such_a_table_names_the_row_and_slurp_reads(tools, scratch_scope):
    data = (_TOOLS / "ps-auxww.txt").read_bytes()
    handle = scratch_scope.spill(data, source_tool="ps").handle
    with pytest.raises(InvalidArgument, match=r'a table aligned by spaces .*with slurp=true.*jq="\.\[0\]", slurp=True'
                                              r'.*row='):
        tools.call("read_handle", {"handle": handle, "jq": ".[0]"})


def test_a_table_larger_than_the_sample_is_told_from_its_start_and_read_whole(tools, scratch_scope):
    data = (_TOOLS / "ps-auxww.txt").read_bytes()
    header, body = data.split(b"\n", 1)
    big = header + b"\n" + body * 60  # 720 KB: past the 512 KiB sample
    stub = scratch_scope.spill(big, source_tool="ps")
    rows = big.count(b"\n") - 1
    assert stub.shape.startswith(f"{ALIGNED_SHAPE}, 11 columns: ") and f"~{rows:,} rows (by line count)" in stub.shape
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 10000, "columns": [1, "RSS"]}, 65536)
    assert [r for p in pages for r in p["rows"]] == [[row[1], row[5]] for row in _runs(big, 11)]
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": "length", "slurp": True})
    assert reply["results"] == [rows]


def test_a_blank_line_ends_the_rows(tools, scratch_scope):
    # systemctl list-units: a first column with no name (a failed unit's dot), a legend after a blank line
    data = (_TOOLS / "systemctl-list-units-by-hand.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="systemctl")
    assert "5 rows (up to the blank line at line 7; the lines after it are no rows)" in stub.shape
    (page,) = follow(tools, {"handle": stub.handle, "row": 1, "rows": 100}, 8192)
    assert page["header"] == ["", "UNIT", "LOAD", "ACTIVE", "SUB", "DESCRIPTION"]
    assert page["rows"] == _fixed(data.split(b"\n\n")[0], [0, 2, 39, 46, 53, 61])
    assert page["rows"][2][:3] == ["●", "foo.service", "loaded"]
    with pytest.raises(InvalidArgument, match="past the last row"):
        tools.call("read_handle", {"handle": stub.handle, "row": 6})  # (one past the last row too)


_LSOF_CUTS = [0, 10, 16, 22, 33, 41, 46, 56, 63, 72, 80]
"""Where lsof's columns of fixtures/tools/lsof-n-unprivileged.txt are cut, read by hand from how lsof prints them:
COMMAND left-aligned in 9 characters, PID, TID, USER, FD (its number; a mode letter after it), TYPE, DEVICE,
SIZE/OFF and NODE right-aligned under their names, TASKCMD left-aligned, NAME the rest (no word of the file crosses
a cut)."""


def test_lsof_with_empty_cells_and_right_aligned_columns_is_a_table_read_as_its_columns(tools, scratch_scope):
    """``lsof -n`` as a user who may not read other users' processes (75 KB on a real run) was "text": its kernel
    threads' rows leave TID, TASKCMD, DEVICE, SIZE/OFF and NODE empty, 6 of 11 cells filled, under the 60% of all
    cells a table had to fill. The share now counts the columns the rows use; and an FD cell such as '0r' (its mode
    letter one past the numbers' end) past the first 50 lines was given whole: a cell within its column's positions,
    a gutter on each side, is its column's. Every row is lsof's columns, cut where lsof prints them."""
    data = (_TOOLS / "lsof-n-unprivileged.txt").read_bytes()
    names = ["COMMAND", "PID", "TID", "TASKCMD", "USER", "FD", "TYPE", "DEVICE", "SIZE/OFF", "NODE", "NAME"]
    stub = scratch_scope.spill(data, source_tool="lsof")
    assert stub.shape.startswith(f"{ALIGNED_SHAPE}, 11 columns: {', '.join(names)}, 174 rows; cells at the header's "
                                 "column positions"), stub.shape
    plain = _fixed(data, _LSOF_CUTS)
    assert [row[5] for row in plain[:4]] == ["cwd", "rtd", "txt", "NOFD"] and plain[0][2:4] == ["", ""]
    own = [row[1:8] for row in plain if row[0] == "lsof"]  # (past the first 50 lines: a wider PID and USER)
    assert ["20442", "", "", "nobody", "0r", "CHR", "1,3"] in own and len(own) > 40
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 60}, 8192)
    assert pages[0]["header"] == names and [r for p in pages for r in p["rows"]] == plain
    nofd = tools.call("read_handle", {"handle": stub.handle, "jq": 'map(select(.FD == "NOFD")) | length',
                                      "slurp": True})
    assert nofd["results"] == [sum(row[5] == "NOFD" for row in plain)] and nofd["results"][0] > 10
    picked = follow(tools, {"handle": stub.handle, "row": 150, "rows": 30, "columns": ["FD", "DEVICE", "NAME"]}, 4096)
    assert [r for p in picked for r in p["rows"]] == [[row[5], row[7], row[10]] for row in plain[149:]]


@st.composite
def _sparse_tables(draw):
    """A table as ``lsof`` prints it: each column as wide as its widest value, numbers right-aligned (their names
    too), words left-aligned, and many rows filling only some columns (a kernel thread's: its name, number, owner
    and a last cell), some columns empty in every row of the first lines."""
    width = draw(st.integers(4, 9))
    names = draw(st.lists(_NAME, min_size=width, max_size=width, unique=True))
    kinds = [draw(st.sampled_from(["word", "number"])) for _ in names[:-1]] + ["phrase"]
    value = {"word": _WORD, "phrase": _PHRASE, "number": st.integers(0, 10**6).map(str)}
    least = max(0, (width + 2) // 3 - 2)  # (at least a third kept: lsof's kernel threads fill 5 or 6 of 11)
    kept = sorted(draw(st.sets(st.integers(1, width - 2), min_size=least, max_size=max(least, width // 2 - 2)))
                  | {0, width - 1})
    count = draw(st.integers(3, 80))
    sparse = draw(st.integers(max(1, count * 3 // 4), count))  # (most rows sparse, the first ones: the rest full)
    rows = [[draw(value[kind]) if c in kept or at >= sparse else "" for c, kind in enumerate(kinds)]
            for at in range(count)]
    pad = draw(st.integers(2, 3))
    sizes = [max(len(name), *(len(row[i]) for row in rows)) for i, name in enumerate(names)]

    def line(cells: list[str]) -> str:
        return (" " * pad).join(cell.rjust(sizes[i]) if kinds[i] == "number" else cell.ljust(sizes[i])
                                for i, cell in enumerate(cells)).rstrip()

    return names, rows, "".join(line(cells) + "\n" for cells in [names, *rows])


# (25 examples by default, 60 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=25, deadline=None)
@given(_sparse_tables())
def test_a_table_whose_rows_leave_columns_empty_is_told_and_never_cut_wrong(table):
    names, rows, text = table
    layout = find_layout(text.split("\n")[:-1])
    data = text.encode()
    shape = describe(data, len(data), text.count("\n")).text
    assert layout is not None and list(layout.names) == names and shape.startswith(ALIGNED_SHAPE), (shape, text)
    split = 0
    for line, cells in zip(text.split("\n")[1:], rows, strict=False):
        got = layout.cells(line)  # (a row the first lines' cells cannot place for certain is given whole)
        assert got in (None, cells), (line, got, cells)  # never cut wrong
        split += got is not None
    assert split >= min(sparse_rows(rows), 49), text  # (the rows like the first lines': all split)


def sparse_rows(rows: list[list[str]]) -> int:
    """How many of the first rows leave as many cells empty as the first does."""
    empty = rows[0].count("")
    return next((at for at, row in enumerate(rows) if row.count("") != empty), len(rows))


# rows of real outputs cut by hand (fixture, the header's line from 1, its names, {row number: its cells}), as a
# person reads them under the header: ss -tan's Process column is empty, never glued to the peer's address (its
# longest values run up to the name's first letter); netstat's header is its second line
_BY_HAND = {
    "ss-tan.txt": (1, ["State", "Recv-Q", "Send-Q", "Local Address:Port", "Peer Address:Port", "Process"], {
        1: ["LISTEN", "0", "644", "127.0.0.1:54141", "0.0.0.0:*", ""],
        7: ["TIME-WAIT", "0", "0", "127.0.0.1:53053", "127.0.0.1:52204", ""]}),
    # ss -tulpn glues its last two names ("Peer Address:PortProcess") and writes nothing under "Peer" (its peers'
    # addresses right-aligned past it): it was no table, its processes unread (helper kinds3)
    "ss-tulpn.txt": (1, ["Netid", "State", "Recv-Q", "Send-Q", "Local Address:Port", "Peer Address:Port", "Process"], {
        1: ["tcp", "LISTEN", "0", "644", "127.0.0.1:54327", "0.0.0.0:*", 'users:(("postgres",pid=3002,fd=5))'],
        5: ["tcp", "LISTEN", "0", "64", "127.0.0.1:47993", "0.0.0.0:*", ""],
        8: ["tcp", "LISTEN", "0", "128", "0.0.0.0:2024", "0.0.0.0:*", ""]}),
    # ss -tulpna: the peers of TIME-WAIT rows run up to "Process", the listening rows' processes stand past it: the
    # peer's column and the process's were one name, "Peer Address:Port Process" (helper kinds3)
    "ss-tupna.txt": (1, ["Netid", "State", "Recv-Q", "Send-Q", "Local Address:Port", "Peer Address:Port", "Process"], {
        1: ["tcp", "LISTEN", "0", "128", "127.0.0.1:8799", "0.0.0.0:*", 'users:(("scratchfs",pid=29709,fd=7))'],
        4: ["tcp", "LISTEN", "0", "128", "0.0.0.0:2024", "0.0.0.0:*", ""],
        5: ["tcp", "TIME-WAIT", "0", "0", "127.0.0.1:38839", "127.0.0.1:57532", ""]}),
    # ss -tanpe with 900 connections (and ss -tanp): "Peer Address:Port Process" with one space, the rows' peers
    # running one place past the header's "Port" and their processes starting one place past "Process" (ss puts
    # that name one place left of its column): the process was glued to the peer in one cell (helper modeltask14)
    "ss-tanpe-900.txt": (1, ["State", "Recv-Q", "Send-Q", "Local Address:Port", "Peer Address:Port", "Process"], {
        3: ["LISTEN", "0", "128", "0.0.0.0:2024", "0.0.0.0:*", "ino:228 sk:1 cgroup:/ <->"],
        5: ["ESTAB", "0", "0", "127.0.0.1:38611", "127.0.0.1:34630",
            'users:(("python",pid=2900,fd=1378)) ino:4960702 sk:1daa cgroup:/ <->'],
        42: ["FIN-WAIT-2", "0", "0", "127.0.0.1:32776", "127.0.0.1:38611", "timer:(timewait,59sec,0) ino:0 sk:1fc7"]}),
    "ss-tanp-900.txt": (1, ["State", "Recv-Q", "Send-Q", "Local Address:Port", "Peer Address:Port", "Process"], {
        1: ["LISTEN", "0", "2000", "127.0.0.1:38611", "0.0.0.0:*", 'users:(("python",pid=2900,fd=3))'],
        3: ["LISTEN", "0", "128", "0.0.0.0:2024", "0.0.0.0:*", ""],
        5: ["ESTAB", "0", "0", "127.0.0.1:38611", "127.0.0.1:34630", 'users:(("python",pid=2900,fd=1378))']}),
    "netstat-tan.txt": (2, ["Proto", "Recv-Q", "Send-Q", "Local Address", "Foreign Address", "State"], {
        1: ["tcp", "0", "0", "127.0.0.1:46179", "0.0.0.0:*", "LISTEN"],
        21: ["tcp", "0", "0", "127.0.0.1:58923", "127.0.0.1:43218", "ESTABLISHED"],
        28: ["tcp", "0", "0", "127.0.0.1:43298", "127.0.0.1:40973", "TIME_WAIT"]}),
    "df-h.txt": (1, ["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on"], {
        1: ["devtmpfs", "12G", "0", "12G", "0%", "/dev"], 2: ["tmpfs", "24G", "3.2M", "24G", "1%", "/dev/shm"]}),
    "free-m.txt": (1, ["", "total", "used", "free", "shared", "buff/cache", "available"], {
        1: ["Mem:", "24105", "1826", "19139", "63", "3515", "22278"], 2: ["Swap:", "0", "0", "0", "", "", ""]}),
}


@pytest.mark.parametrize("name", sorted(_BY_HAND))
def test_real_outputs_split_where_their_columns_were_cut_by_hand(tools, scratch_scope, name):
    line, names, rows = _BY_HAND[name]
    data = (_TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    before = f", the header is line {line}, after {line - 1} line{'s' if line > 2 else ''} (line=1, lines={line - 1} " \
        "reads them);" if line > 1 else ","  # (told before its columns)
    assert stub.shape.startswith(f"{ALIGNED_SHAPE}{before} {len(names)} columns: "), stub.shape
    for number, cells in rows.items():
        page = tools.read_handle(handle=stub.handle, row=number, rows=1)
        assert page["header"] == names and page["rows"] == [cells], (number, page)


def test_a_title_line_over_the_header_and_its_rule_is_no_header(tools, scratch_scope):
    """``unzip -l`` (fixtures/tools/unzip-l-python-stdlib.txt) prints ``Archive:  j.zip`` over its header and the
    rule of dashes under that: its header was taken for the title's 2 words ("Archive:", "j.zip"), each row's date,
    time and name one cell; the line over the rule is the header now, the title a preamble the shape names."""
    data = (_TOOLS / "unzip-l-python-stdlib.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert stub.shape.startswith(f"{ALIGNED_SHAPE}, the header is line 2, after 1 line (line=1, lines=1 reads them)"
                                 "; 4 columns: Length, Date, Time, Name")
    lines = data.decode().splitlines()
    reply = tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 37})
    assert reply["header"] == ["Length", "Date", "Time", "Name"]
    assert reply["rows"] == [line.split(None, 3) for line in lines[3:40]]
    assert reply["rows"][1] == ["14020", "2025-04-28", "14:11", "json/__init__.py"]
