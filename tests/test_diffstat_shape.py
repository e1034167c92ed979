"""``git diff --stat``: its totals (its last line) and the files changed most, each at its line, against the plain
answer (the lines git writes, parsed here); a sample that is not all of it names its files so far and the read of the
totals (helper shapes4, of what modeltask3 met: ``git diff --stat`` of 200 commits, 25 KB, was ``text, 414 lines``,
so "how much changed" took a read of its end and "where" a read of all of it; ``fixtures/tools/git-diff-stat-200.txt``);
other text -- psql's two columns, ``x | N`` lines with no totals, ``git log --stat`` -- is told as before."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_diffstat import DIFFSTAT_SHAPE
from scratchfs.api.shape_words import MOST_LINES, kib

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
STAT = (_TOOLS / "git-diff-stat-200.txt").read_bytes()
_ITEM_RE = re.compile(r"(?:: |, )(\S+) \(line ([\d,]+), ([\d,]+) lines?\)")


def shape_of(data: bytes, size: int | None = None) -> str:
    size = len(data) if size is None else size
    return describe(data, size, data.count(b"\n") + (not data.endswith(b"\n"))).text


def plain(data: bytes) -> list[tuple[str, int, int]]:
    """Each file's path, line and lines changed (binary files left out), most changed first, the first of equals."""
    rows = []
    for n, line in enumerate(data.decode().splitlines(), 1):
        if (found := re.fullmatch(r" (.+?) +\| +(\d+)(?: [+-]*)?", line)) is not None:
            rows.append((found[1], n, int(found[2])))
    return sorted(rows, key=lambda row: (-row[2], row[1]))


def told(shape: str) -> list[tuple[str, int, int]]:
    return [(path, int(line.replace(",", "")), int(n.replace(",", ""))) for path, line, n in _ITEM_RE.findall(shape)]


def test_the_totals_and_the_files_changed_most_are_told():
    shape = shape_of(STAT)
    last = STAT.decode().splitlines()[-1]
    assert last == " 413 files changed, 30564 insertions(+), 3518 deletions(-)"
    assert shape.startswith(f"{DIFFSTAT_SHAPE}, 414 lines, 413 files changed, 30,564 insertions(+), 3,518 "
                            "deletions(-) (line 414); most changed: "), shape
    listed = told(shape)
    assert len(listed) >= 5 and listed == plain(STAT)[: len(listed)], shape
    assert listed[0] == ("fixtures/tools/dpkg-query-multiline.csv", 38, 1206)
    assert shape.endswith('; match=" PATH ", context="line" finds a file\'s line'), shape


def test_a_sample_short_of_the_totals_names_its_files_so_far_and_the_totals_read(tmp_path):
    head = STAT[:4096]
    shape = shape_of(head, len(STAT))
    whole = head[: head.rfind(b"\n") + 1]
    assert f", {whole.count(b'|')} files so far; most changed so far: " in shape, shape
    assert told(shape) == plain(whole)[: len(told(shape))] and "files changed" not in shape, shape
    assert shape.endswith(", line=-1 reads the totals"), shape
    with ScratchStore(root=tmp_path) as store:  # (the read named: the totals, the last line)
        scope = store.scope("r", "a")
        stub = scope.spill(STAT, source_tool="git")
        read = ScratchTools(scope).call("read_handle", {"handle": stub.handle, "line": -1})
        assert read["data"].rstrip("\n") == STAT.decode().splitlines()[-1], read


@pytest.mark.parametrize("data", [
    b" name | count\n------+-------\n" + b"".join(b" k%d   |     %d\n" % (i, i) for i in range(50)) + b"(50 rows)\n",
    b"".join(b" k%d   |     %d\n" % (i, i) for i in range(50)),  # (no totals: no diffstat)
    b" a | b\n" + STAT])
def test_other_text_is_not_told_as_a_diffstat(data):
    assert not shape_of(data).startswith(DIFFSTAT_SHAPE)


def test_git_log_stat_stays_a_git_log():
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(["git", "log", "--stat", "-5", "db972634"], cwd=root, capture_output=True)
    if out.returncode:
        pytest.skip("no git history here")
    assert shape_of(out.stdout).startswith("git log, "), shape_of(out.stdout)


def test_binary_files_alone_are_named_at_their_lines():
    """A diffstat of binary files only (``Bin 0 -> 10240 bytes``, no count of lines) named none: its shape read
    ``most changed: ; pattern=...`` (hostile35); now its first files, each at its line and said binary."""
    data = b"".join(b" img/p%d.png | Bin 0 -> %d bytes\n" % (i, 100 + i) for i in range(3))
    data += b" 3 files changed, 0 insertions(+), 0 deletions(-)\n"
    shape = shape_of(data)
    assert "most changed: img/p0.png (line 1, binary), img/p1.png (line 2, binary), img/p2.png (line 3, binary);" \
        in shape, shape


def test_a_diffstat_of_more_lines_is_told_from_its_first_ones_and_says_how_much():
    """Past MOST_LINES lines a diffstat is told from its first ones as the other kinds told by lines are (each file's
    line a match and a tuple in Python: 42 ms over 58,000 files of 512 KiB, over the bound of a spill's shape): its
    files so far, the scope saying how much, and the totals' read."""
    files = b" a.py | 1 +\n" * 20_000 + b" big.py | 50 " + b"+" * 50 + b"\n" + b" b.py | 2 ++\n" * 20_000
    data = files + b" 40001 files changed, 40050 insertions(+)\n"
    shape = shape_of(data)
    first = data[: data.index(b"\n", 0) + 1] * MOST_LINES
    assert shape.startswith(f"{DIFFSTAT_SHAPE}, 40,002 lines (in the first {kib(len(first))} of {kib(len(data))}), "
                            "10,000 files so far; most changed so far: a.py (line 1, 1 line), "), shape
    assert shape.endswith(", line=-1 reads the totals"), shape


def test_rows_of_a_name_and_a_number_cut_by_the_sample_are_no_diffstat():
    """psql -t (rows with no header) of a name and a number, more than the sample: a sample short of the end needs
    no totals, and each row read as a file changed (``user857 (line 858, 999 lines)``; hostile35). A file's count in
    a diffstat has its graph (git scales it to one + or - at least) or is 0."""
    rows = b"".join(b" user%-6d |  %5d\n" % (i, i * 7 % 1000) for i in range(30_000))
    assert not shape_of(rows[: 512 * 1024], len(rows)).startswith(DIFFSTAT_SHAPE)
    kept = b" a => b | 0\n c.py   | 12 +++++++-----\n 2 files changed, 7 insertions(+), 5 deletions(-)\n"
    assert shape_of(kept).startswith(f"{DIFFSTAT_SHAPE}, 3 lines, 2 files changed, 7 insertions(+), 5 deletions(-) "
                                     "(line 3); most changed: c.py (line 2, 12 lines), a => b (line 1, 0 lines)")


@pytest.mark.parametrize("path", ["include/c++/v1/vector", "app/(shop)/[id]/page.tsx", "src/lib29.c"])
def test_the_named_search_finds_a_path_of_any_characters(scratch_scope, path):
    """The shape's search with a path in place of PATH finds that file's line: pattern="^ PATH +\\|" found nothing
    where a path held + ( ) [ ] (c++/, Next.js's routes), 'no match in the whole content' (hostile35)."""
    data = b"".join(b" src/lib%d.c | %d ++\n" % (i, i) for i in range(30)) + b" include/c++/v1/vector | 3 ++-\n" \
        b" app/(shop)/[id]/page.tsx | 2 +-\n 32 files changed, 60 insertions(+), 2 deletions(-)\n"
    stub = scratch_scope.spill(data, source_tool="git")
    found = re.search(r'; match="( PATH )", context="line" finds', stub.shape)
    assert found is not None, stub.shape
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "match": found[1].replace(
        "PATH", path), "context": "line"})
    lines = data.decode().split("\n")
    assert [(w["line"], w["data"]) for w in reply["windows"]] == [
        (n, line) for n, line in enumerate(lines, 1) if line.startswith(f" {path} ")], reply
    assert reply["windows"], reply
