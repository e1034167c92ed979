"""A row of a table aligned by spaces is split into the cells a person reads under the header, or given whole with a
mark (``{"unsplit": line}``), never cut wrong: random tables printed as tools print them -- each column as wide as
its widest value over all rows (``docker ps``, ``kubectl``, ``sqlite3 -column``), or at fixed widths that a wider
value overruns, pushing the cells after it right (``ps``, ``top``) -- with empty cells and over-wide values at any
row, the first 50 lines (which the layout is told from) included; and real outputs made on this machine
(fixtures/tools/, fixtures/README.md)."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure.aligned import find_layout
from tests.test_structure_reads import follow

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789./:-"
_CAPS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _word(rng: random.Random, low: int = 1, high: int = 9) -> str:
    return "".join(rng.choice(_CHARS) for _ in range(rng.randint(low, high)))


def _cell(rng: random.Random, kind: str, at: int) -> str:
    """A cell of row ``at`` (0-based): empty 1 in 8; wider than its column 1 in 150 in the first lines, 1 in 13
    after; else a word, up to 3 words (``phrase``) or a number."""
    if rng.randint(0, 7) == 0:
        return ""
    if rng.randint(0, 150 if at < 49 else 12) == 0:
        return _word(rng, 10, 30) if kind != "number" else str(rng.randint(10**9, 10**14))
    if kind == "number":
        return str(rng.randint(0, 10**5))
    return " ".join(_word(rng) for _ in range(rng.randint(1, 3) if kind == "phrase" else 1))


def printed(rng: random.Random) -> tuple[str, list[str], list[list[str]], list[str]]:
    """``(style, names, rows, lines)``: a table as a tool prints it, ``"sized"`` (each column as wide as its widest
    value over all rows, 2 to 4 spaces between columns, cells may hold single spaces) or ``"pushed"`` (each column
    as wide as its name and the usual values, 1 or 2 spaces between; a wider value overruns it and the cells after
    it start 1 space after it; only the last column's cells hold spaces), numbers right-aligned (their name too),
    the rest left-aligned."""
    style = rng.choice(["sized", "pushed"])
    names: list[str] = []
    while len(names) < rng.randint(2, 6) or len(names) < 2:
        name = rng.choice(_CAPS) + "".join(rng.choice(_CAPS + "0123456789_%") for _ in range(rng.randint(1, 7)))
        names += [name] if name not in names else []
    spaced = ["word", "phrase", "number"] if style == "sized" else ["word", "number"]
    kinds = [rng.choice(spaced) for _ in names[:-1]] + [rng.choice(["word", "phrase"])]
    rows = []
    for at in range(rng.randint(2, 120)):
        row = [_cell(rng, kind, at) for kind in kinds]
        rows.append(row if sum(map(bool, row)) >= 2 else [_word(rng), *row[1:-1], _word(rng)])
    pad = rng.randint(2, 4) if style == "sized" else rng.randint(1, 2)
    columns = list(zip(*rows, strict=True))
    sizes = [max(len(name), *(len(c) for c in column if style == "sized" or len(c) < 10 or kind == "phrase"))
             for name, column, kind in zip(names, columns, kinds, strict=True)]
    return style, names, rows, [_line(cells, sizes, kinds, pad) for cells in [names, *rows]]


def _line(cells: list[str], sizes: list[int], kinds: list[str], pad: int) -> str:
    """One printed line: each cell at its column's place, or 1 space after the cell before when that overruns it."""
    out, end, place = "", -1, 0
    for cell, size, kind in zip(cells, sizes, kinds, strict=True):
        if cell:
            start = max(place + size - len(cell) if kind == "number" else place, end + 1)
            out = out.ljust(start) + cell
            end = start + len(cell)
        place += size + pad
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.integers(0, 2**64))
def test_each_row_reads_as_its_cells_or_whole_never_cut_wrong(seed):
    _style, names, rows, lines = printed(random.Random(seed))  # (a seed: a table drawn from it, shown on failure)
    layout = find_layout(lines)
    assume(layout is not None and list(layout.names) == names)  # (see test_what_a_row_is_read_as_by_hand)
    for line, cells in zip(lines[1:], rows, strict=True):
        got = layout.cells(line)
        assert got is None or got == cells, (line, got, cells)
        if not any(len(cell) >= 10 and " " not in cell for cell in cells[:-1]):
            assert got == cells, line  # (a row with no value wider than its column is always split)


TABLES = 1500 if os.environ.get("SCRATCHFS_STRESS") else 500
"""Tables of :func:`test_random_tables_many_at_once`: 500 (about 17,000 rows, the 1 % bound 170 of them) by default,
the 1,500 it ran (2.3 s of CPU) with ``SCRATCHFS_STRESS=1``."""


def test_random_tables_many_at_once():
    # the same as above over TABLES tables at once: every row right or given whole, and how many are given whole --
    # the rows with a value wider than its column that the rules cannot place for certain
    rng = random.Random(16)
    counts = {"rows": 0, "whole": 0}
    for _ in range(TABLES):
        _style, names, rows, lines = printed(rng)
        layout = find_layout(lines)
        if layout is None or list(layout.names) != names:
            continue
        for line, cells in zip(lines[1:], rows, strict=True):
            got = layout.cells(line)
            assert got is None or got == cells, (line, got, cells)
            counts["rows"] += 1
            counts["whole"] += got is None
    assert counts["rows"] > TABLES * 100 // 3 and counts["whole"] < counts["rows"] // 100  # (50,000 of 1,500)


def test_a_null_past_the_first_50_lines_leaves_its_cell_empty(tools, scratch_scope):
    # sqlite3 -column of 80 rows: version NULL at rows 57 and 71, a long arch at row 64 (fixtures/README.md); the
    # first 50 lines make the runs rule, which gave row 57 as ['57', 'pkg57', 'amd64', 'description', '57']
    data = (_TOOLS / "sqlite-column-nulls.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="sqlite3")
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 100}, 16384)
    got = [row for page in pages for row in page["rows"]]
    assert pages[0]["header"] == ["id", "name", "version", "arch", "descr"] and len(got) == 80
    assert got[56] == ["57", "pkg57", "", "amd64", "description 57"] and got[70][2] == ""
    assert got[63] == ["64", "pkg64", "1.1", "a-much-longer-architecture-name", "description 64"]
    want = [[str(i), f"pkg{i}", "" if i in (57, 71) else f"1.{i % 7}",
             "a-much-longer-architecture-name" if i == 64 else "amd64", f"description {i}"] for i in range(1, 81)]
    assert got == want
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": "map(select(.version == null) | .id)",
                                       "slurp": True})
    assert reply["results"] == [[57, 71]]


def test_values_wider_than_their_column_past_the_first_lines_push_the_cells_after(tools, scratch_scope):
    # ps auxww with a process of 4 TiB of address space (VSZ 4294984160, 10 digits in a column of 6) and one with
    # RSS 113368 (6 digits in 5): ps prints them past their column and the cells after one space later
    data = (_TOOLS / "ps-auxww-wide-values.txt").read_bytes()
    lines = data.decode().split("\n")[1:-1]
    want = [line.rstrip().split(None, 10) for line in lines]  # (the plain Python answer: no cell empty)
    stub = scratch_scope.spill(data, source_tool="ps")
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 100}, 16384)
    got = [row for page in pages for row in page["rows"]]
    assert got == want and got[61][4:6] == ["4294984160", "14028"] and got[60][4:6] == ["245052", "113368"]


_BY_HAND = ("NAME        READY   STATUS    RESTARTS   AGE\n"
            + "".join(f"web-{i:<7} 1/1     Running   0          5d\n" for i in range(48))  # (the first lines)
            + "db-0        1/1     Running   2 (5h ago) 9d\n"
            "a-pod-with-a-longer-name 0/1 Pending 0   1m\n"
            "queue-0             Running   0          2d\n"
            "worker-7    1/1   Running     0          1h\n")


def test_what_a_row_is_read_as_by_hand(tools, scratch_scope):
    # written here in kubectl's layout: past the first lines, row 50's name runs past its column and pushes the
    # cells after it (1 space each, ps's way; AGE back at its place), row 51 has no READY, row 52's cells stand
    # where no column's cells do -- given whole, marked, never cut
    handle = scratch_scope.spill(_BY_HAND.encode(), source_tool="kubectl").handle
    (page,) = follow(tools, {"handle": handle, "row": 49, "rows": 10}, 8192)
    assert page["rows"][1] == ["a-pod-with-a-longer-name", "0/1", "Pending", "0", "1m"]
    assert page["rows"][2] == ["queue-0", "", "Running", "0", "2d"]
    assert page["rows"][3] == {"unsplit": "worker-7    1/1   Running     0          1h"}
    assert page["rows"][0] == ["db-0", "1/1", "Running", "2 (5h ago)", "9d"]
    assert '1 row given whole as {"unsplit": line}: its cells could not be told' in page["note"]
    (picked,) = follow(tools, {"handle": handle, "row": 52, "rows": 1, "columns": ["AGE"]}, 8192)
    assert picked["rows"] == [{"unsplit": "worker-7    1/1   Running     0          1h"}]
    reply = tools.call("read_handle", {"handle": handle, "jq": "map(select(.NAME == null))", "slurp": True})
    assert reply["results"] == [[{"NAME": None, "READY": None, "STATUS": None, "RESTARTS": None, "AGE": None,
                                  "_unsplit": "worker-7    1/1   Running     0          1h"}]]


def test_a_slurp_reply_says_how_many_rows_were_given_whole_and_how_to_read_them(tools, scratch_scope):
    # its note said nothing of them: a filter over the names saw null cells, untold (brief rows5, item 3)
    handle = scratch_scope.spill(_BY_HAND.encode(), source_tool="kubectl").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    assert reply["results"] == [52]
    assert '1 row given whole (row 52)' in reply["note"] and "the line under _unsplit" in reply["note"]
    advised = re.search(r'jq="([^"]+)" with slurp=true lists them, row=N reads one', reply["note"]).group(1)
    listed = tools.call("read_handle", {"handle": handle, "jq": advised, "slurp": True})
    assert [row["_unsplit"] for row in listed["results"][0]] == ["worker-7    1/1   Running     0          1h"]
    (page,) = follow(tools, {"handle": handle, "row": 52, "rows": 1}, 8192)
    assert page["rows"] == [{"unsplit": "worker-7    1/1   Running     0          1h"}]
    split = scratch_scope.spill(_BY_HAND.encode().rsplit(b"worker-7", 1)[0], source_tool="kubectl").handle
    assert "given whole" not in tools.call("read_handle", {"handle": split, "jq": "length", "slurp": True}).get(
        "note", "")


def test_a_table_after_a_preamble_is_told_and_read_from_its_header(tools, scratch_scope):
    # top -bn1: 5 lines of summary and a blank line before the header (fixtures/README.md)
    data = (_TOOLS / "top-bn1.txt").read_bytes()
    lines = data.decode().split("\n")[:-1]
    stub = scratch_scope.spill(data, source_tool="top")
    assert stub.shape.startswith("table aligned by spaces, the header is line 7, after 6 lines (line=1, lines=6 reads "
                                 "them); 12 columns: PID, USER, PR, NI, VIRT, RES, SHR, S, %CPU")
    assert f", {len(lines) - 7} rows; " in stub.shape
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 20}, 4096)
    assert pages[0]["header"] == ["PID", "USER", "PR", "NI", "VIRT", "RES", "SHR", "S", "%CPU", "%MEM", "TIME+",
                                  "COMMAND"]
    assert [row for page in pages for row in page["rows"]] == [line.rstrip().split(None, 11) for line in lines[7:]]
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": "map(.PID) | length", "slurp": True})
    assert reply["results"] == [len(lines) - 7]
    preamble = tools.call("read_handle", {"handle": stub.handle, "line": 1, "lines": 6})
    assert preamble["data"].startswith("top - ")


def test_a_table_after_two_blank_lines_of_preamble_is_read_from_its_header(tools, scratch_scope):
    # python -m cProfile -s cumtime (helper newuser15): the program's own line, the totals, a blank, "Ordered by:", a
    # blank, then the header: told as "text, 130 lines" before, a row= read refused
    data = (_TOOLS / "cprofile-s-cumtime.txt").read_bytes()
    lines = data.decode().split("\n")[:-1]
    assert lines[5].split() == ["ncalls", "tottime", "percall", "cumtime", "percall", "filename:lineno(function)"]
    stub = scratch_scope.spill(data, source_tool="python")
    assert stub.shape.startswith("table aligned by spaces, the header is line 6, after 5 lines (line=1, lines=5 reads "
                                 "them); 6 columns: ncalls, tottime, percall, cumtime, percall (key percall_2), "), \
        stub.shape
    assert f", {len(lines) - 6} rows; " in stub.shape
    rows = [line.split(None, 5) for line in lines[6:]]
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 40}, 4096)
    assert [row for page in pages for row in page["rows"]] == rows
    jq = 'max_by(.tottime | tonumber) | .["filename:lineno(function)"]'
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": jq, "slurp": True})
    assert reply["results"] == [max(rows, key=lambda row: float(row[1]))[5]]


def test_a_table_after_one_line_is_read_from_its_header(tools, scratch_scope):
    # w's layout, written by hand (no one is logged in here: w printed its header alone): an uptime line first
    data = (_TOOLS / "w-by-hand.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="w")
    assert stub.shape.startswith("table aligned by spaces, the header is line 2, after 1 line (line=1, lines=1 reads "
                                 "them); 8 columns: USER, ")
    assert stub.shape.endswith("3 rows; split at runs of spaces")
    (page,) = follow(tools, {"handle": stub.handle, "row": 1, "rows": 10}, 4096)
    assert page["header"] == ["USER", "TTY", "FROM", "LOGIN@", "IDLE", "JCPU", "PCPU", "WHAT"]
    assert page["rows"][1] == ["bob", "pts/1", "10.0.0.7", "21:40", "3.00s", "0.25s", "0.01s", "vim notes.txt"]
    assert [row[0] for row in page["rows"]] == ["alice", "bob", "carol"]


def test_the_layout_is_told_once_per_entry_and_the_split_rule_said_on_the_first_page(tools, scratch_scope,
                                                                                      monkeypatch):
    from scratchfs.api import structured

    told = []

    def counted(src, header=0, piped=False):
        told.append(header)
        return source_layout(src, header, piped)

    source_layout = structured.source_layout
    monkeypatch.setattr(structured, "source_layout", counted)
    data = (_TOOLS / "ps-auxww.txt").read_bytes()
    handle = scratch_scope.spill(data, source_tool="ps").handle
    pages = follow(tools, {"handle": handle, "row": 1, "rows": 10}, 4096)
    assert len(pages) >= 10 and told == [0]
    assert "aligned by spaces" in pages[0]["note"] and all("note" not in page for page in pages[1:])


def test_dpkg_l_is_read_past_its_legend_and_its_rule(tools, scratch_scope):
    # dpkg -l: 3 lines of legend, a header whose first name is "||/" (over the status column), a rule of "+++-===="
    data = (_TOOLS / "dpkg-l.txt").read_bytes()
    lines = data.decode().split("\n")[:-1]
    stub = scratch_scope.spill(data, source_tool="dpkg")
    assert stub.shape.startswith("table aligned by spaces, the header is line 4, after 3 lines (line=1, lines=3 reads "
                                 "them); 5 columns: ||/, Name, Version, Architecture, Description")
    assert stub.shape.endswith(f", {len(lines) - 5} rows; split at runs of spaces")
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 30}, 8192)
    assert [row for page in pages for row in page["rows"]] == [line.rstrip().split(None, 4) for line in lines[5:]]
    reply = tools.call("read_handle", {"handle": stub.handle, "slurp": True,
                                       "jq": '[.[] | select(.Name == "adduser") | .Version]'})
    assert reply["results"] == [["3.134"]]


def test_lsof_thread_rows_past_the_first_lines_are_split_not_given_whole(tools, scratch_scope):
    # lsof -n as root in a sandbox whose PID 1 it may not read (fixtures/README.md): the first 55 lines leave TID,
    # TASKCMD, DEVICE, SIZE/OFF and NODE empty; then thread rows fill TID and TASKCMD one space apart
    # ("1   62 spawner"), and rows of a 4-digit PID and a 7-digit NODE start left of their columns. Each row could be
    # grouped two ways by the rules (TASKCMD "62 spawner", TID "5640 5650", NODE "0t0 2504410"), so all 18 were
    # given whole -- 1,392 of 7,143 rows of the real run, which a slurp read's group_by(.PID) counted under null
    data = (_TOOLS / "lsof-n-threads.txt").read_bytes()
    lines = data.decode().split("\n")[1:-1]
    stub = scratch_scope.spill(data, source_tool="lsof")
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 100}, 16384)
    got = [row for page in pages for row in page["rows"]]
    assert len(got) == len(lines) == 74 and all(isinstance(row, list) for row in got), got
    for line, row in zip(lines, got, strict=True):  # (the plain answer: lsof's words, in its columns' order)
        assert [cell for cell in row if cell] == line.split(None, len([c for c in row if c]) - 1), (line, row)
        assert row[1].isdigit() and row[4] == "root" and (row[2] == "") == (" spawner " not in line
                                                                             and not line.startswith("python "))
    assert got[55] == ["process_a", "1", "62", "spawner", "root", "cwd", "unknown", "", "", "",
                       "/proc/1/task/62/cwd (readlink: Permission denied)"]
    assert got[62] == ["python", "5640", "5650", "python", "root", "mem", "REG", "254,0", "1437848", "339893",
                       "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0.8.6"]
    assert got[-2] == ["bash", "32465", "", "", "root", "250r", "FIFO", "0,15", "0t0", "2504410", "pipe"]
    reply = tools.call("read_handle", {"handle": stub.handle, "slurp": True,
                                       "jq": "[(map(select(._unsplit)) | length), (group_by(.TID) | map(length))]"})
    assert reply["results"] == [[0, [60, 6, 8]]]


def _full_words_fit(fit):
    """``fit`` reading every word of a row (as it did before hostile7): the reference of the cut short."""
    from dataclasses import fields

    from scratchfs.engine.structure.aligned_fit import Fit

    class Full(Fit):
        __slots__ = ()

        def _words(self, line):
            return [m.span() for m in re.finditer(r"[^ ]+", line)]

    return Full(**{f.name: getattr(fit, f.name) for f in fields(fit)})


_FIT_TABLES = ["ps-auxww.txt", "docker-ps-by-hand.txt", "lsof-n-threads.txt", "df-i.txt", "free-w.txt",
               "ss-tan.txt"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(_FIT_TABLES), pick=st.integers(0, 10**6),
       tail=st.lists(st.tuples(st.integers(1, 4), st.text("ab/=-19", min_size=1, max_size=6)), max_size=12),
       lead=st.integers(0, 3), shift=st.integers(-3, 3), inside=st.booleans())
def test_a_row_is_cut_as_when_every_word_of_it_was_read(name, pick, tail, lead, shift, inside):
    """A row's cells read from its words up to the last column's first (the rest searched for a wide gap) are the
    cells read from all its words, whatever follows: rows of real tables with words and gaps added at their end."""
    lines = (_TOOLS / name).read_text().split("\n")
    layout = find_layout(lines[:50])
    assume(layout is not None and type(layout.fit).__name__ == "Fit")  # (not a Pushed: ps-eo-sort-rss's)
    rows = [line for line in lines[1:] if line.strip()]
    row = rows[pick % len(rows)].rstrip()
    cut = row.rfind(" ") + 1  # (the last word moved by shift: a cell off its column's edge)
    added = "".join(" " * gap + word for gap, word in tail)
    if inside:  # (the words before the last one, which keeps its end: a right-aligned last column's)
        row = row[:cut] + added.lstrip(" ") + " " + row[cut:] if added else row
    row = (row[:cut] + " " * shift + row[cut:] if shift >= 0 else row[: max(0, cut + shift)] + row[cut:]) + (
        "" if inside else added) + " " * lead
    assert layout.fit.cells(row) == _full_words_fit(layout.fit).cells(row)


def test_a_row_of_half_a_million_words_is_cut_in_one_search():
    """A ps row whose COMMAND holds 500,000 words (1 MB) cost 0.85 s a rows read -- every read past it too, as rows
    are counted from the first (hostile7): its words after the last column's first are no longer each read."""
    import time

    lines = (_TOOLS / "ps-auxww.txt").read_text().split("\n")
    layout = find_layout(lines[:50])
    row = lines[1].rstrip() + " x" * 500_000
    began = time.thread_time()  # (this thread's CPU: the other worker's test leaves it as it is)
    cells = layout.fit.cells(row)
    took = time.thread_time() - began
    head = lines[1].split(None, 10)
    assert cells == [*head[:10], head[10] + " x" * 500_000]
    assert took < 0.1, took  # (0.3 to 0.9 s before, at loads 1 to 7)


def test_a_table_under_a_title_line_is_read_from_its_header(tools, scratch_scope):
    # readelf -Ws (modeltask4): a blank line, then "Symbol table '.dynsym' contains 125 entries:", then the header;
    # told as "text, 128 lines" before, a slurp refused, so the largest function took reading all 9.9 KB
    data = (_TOOLS / "readelf-Ws-libz.txt").read_bytes()
    lines = data.decode().split("\n")[:-1]
    assert lines[1].endswith("contains 125 entries:") and lines[2].split()[:2] == ["Num:", "Value"]
    stub = scratch_scope.spill(data, source_tool="readelf")
    assert stub.shape.startswith("table aligned by spaces, the header is line 3, after 2 lines (line=1, lines=2 reads "
                                 'them); 8 columns: "Num:", Value, Size, Type, Bind, Vis, Ndx, Name'), stub.shape
    assert ", 125 rows; " in stub.shape
    reply = tools.call("read_handle", {"handle": stub.handle, "slurp": True,
                                       "jq": "max_by(.Size | tonumber) | [.Name, .Size]"})
    largest = max((line.split() for line in lines[3:]), key=lambda cells: int(cells[2]))
    assert reply["results"] == [[largest[7], int(largest[2])]] == [["inflate", 8950]]
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 40}, 8192)
    assert [row[0] for page in pages for row in page["rows"]] == [f"{n}:" for n in range(125)]
