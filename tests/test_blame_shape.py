"""``git blame``'s output: its commits newest first, each with its lines and the first of them, its authors, against
the plain Python reading of a real blame (fixtures/tools/git-blame-stub-py.txt) and git's own answers in a repository
made here. It was told as a table of 8 columns aligned by spaces, its author in 3 cells and each line number glued to
the code after it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_blame import BLAME_SHAPE

_BLAME = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "git-blame-stub-py.txt"


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def _read(lines: list[str]) -> list[tuple[str, str, str, int]]:
    """Each blame line as (hash, author, date to the minute, line number), by splits."""
    rows = []
    for line in lines:
        commit, rest = line.split(" (", 1)
        *author, day, time, _zone, number = rest.split(") ", 1)[0].split()
        rows.append((commit, " ".join(author), f"{day} {time[:5]}", int(number)))
    return rows


def test_a_real_blame_lists_its_newest_commits_with_their_lines():
    data = _BLAME.read_bytes()
    rows = _read(data.decode().splitlines())
    counts = Counter(row[0] for row in rows)
    newest = sorted({(row[2], row[0]) for row in rows}, reverse=True)  # (one time zone: minutes sort as times)
    first = {}
    for at, row in enumerate(rows, 1):
        first.setdefault(row[0], at)
    shape = shape_of(data)
    days = sorted(row[2][:10] for row in rows)
    assert shape.startswith(f"{BLAME_SHAPE}, 120 lines of {len(counts)} commits by 1 author (Seed 557fe884 "
                            f"maintainers), {days[0]} to {days[-1]}; newest first: ")
    items = [f"{commit} {when} ({counts[commit]} line{'s' * (counts[commit] > 1)}, first line {first[commit]})"
             for when, commit in newest]
    listed = shape.split("; newest first: ", 1)[1].split(", … ")[0].split("; match=")[0].split("), ")
    assert len(listed) >= 3 and [item + ")" for item in listed[:-1]] == items[: len(listed) - 1]
    assert shape.endswith('; match="HASH", context="line" finds a commit\'s lines')


def test_the_search_the_shape_names_finds_the_newest_commits_lines(scratch_scope):
    data = _BLAME.read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    newest = stub.shape.split("; newest first: ", 1)[1].split(" ", 1)[0]
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "match": newest,
                                                             "context": "line"})
    want = [at for at, line in enumerate(data.decode().splitlines(), 1) if line.startswith(f"{newest} ")]
    assert [window["line"] for window in reply["windows"]] == want and want


def test_a_blame_of_a_line_range_names_the_files_line_of_its_first():
    lines = _BLAME.read_bytes().decode().splitlines(keepends=True)[40:80]  # (what git blame -L 41,80 prints)
    shape = shape_of("".join(lines).encode())
    assert shape.startswith(f"{BLAME_SHAPE}, 40 lines (output line N is the file's line 41 + N - 1) of ")


@pytest.mark.parametrize("text", [
    b"d55a6de2 Review mend, tests only (a subject in brackets)\n" * 30,
    b"3c6b36887 (Seed maintainers 2026-11-30 21:55:55 +0000   1) x\n" + b"plain text line\n" * 20,
])
def test_what_is_no_blame_is_not_told_as_one(text):
    assert not shape_of(text).startswith(BLAME_SHAPE)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_blame_of_two_authors_against_gits_own_log(tmp_path):
    def run(*args: str, date: str = "2026-01-01T00:00:00Z", who: str = "Ann Lee") -> str:
        env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        return subprocess.run(["git", "-C", str(tmp_path), "-c", f"user.name={who}", "-c", "user.email=a@e", *args],
                              check=True, capture_output=True, env=env, text=True).stdout

    run("init", "-q", "-b", "main")
    (tmp_path / "f.py").write_text("".join(f"line {n}\n" for n in range(30)))
    run("add", "-A")
    run("commit", "-qm", "one")
    (tmp_path / "f.py").write_text("".join(f"line {n}{' changed' * (n in (7, 8, 20))}\n" for n in range(30)))
    run("commit", "-qam", "two", date="2026-03-02T10:30:00Z", who="Bo Ng")
    blame = run("blame", "f.py")
    newest, oldest = run("log", "--format=%h", "-n", "2").split()
    shape = shape_of(blame.encode())
    boundary = blame.split(" ", 1)[0]  # (git's oldest commit, printed ^ and one digit fewer; the others one more)
    changed = blame.splitlines()[7].split(" ", 1)[0]
    assert boundary.startswith("^") and oldest.startswith(boundary[1:]) and changed.startswith(newest)
    assert shape.startswith(f"{BLAME_SHAPE}, 30 lines of 2 commits by 2 authors (Ann Lee (27 lines), Bo Ng (3 "
                            f"lines)), 2026-01-01 to 2026-03-02; newest first: {changed} 2026-03-02 10:30 (3 lines, "
                            f"first line 8), {boundary} 2026-01-01 00:00 (27 lines, first line 1); match=")


def test_commits_are_ordered_by_their_moment_their_offsets_counted():
    """Dates are compared as moments (read by fields, no longer by strptime: hostile37); a date naming no real day
    is the earliest; an author padded by many spaces is one author."""
    text = (b"aaaaaaa (Ann     2026-12-07 09:00:00 +0900 1) x\n"  # (00:00 UTC: the oldest)
            b"bbbbbbb (Ann     2026-12-07 01:00:00 -0300 2) y\n"  # (04:00 UTC: the newest)
            b"ccccccc (Ann" + b" " * 150 + b"2026-12-07 02:00:00 +0000 3) z\n"
            b"ddddddd (Ann     2026-13-40 02:00:00 +0000 4) w\n")
    shape = shape_of(text)
    assert shape.startswith(f"{BLAME_SHAPE}, 4 lines of 4 commits by 1 author (Ann), 2026-12-07 to 2026-13-40; "
                            "newest first: bbbbbbb 2026-12-07 01:00 (1 line, first line 2), ccccccc 2026-12-07 02:00 "
                            "(1 line, first line 3), aaaaaaa 2026-12-07 09:00 (1 line, first line 1), ddddddd "), shape
