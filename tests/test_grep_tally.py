"""Grep output's shape names the files with the most lines, each with its count and first line (modelfollow1: a
``grep -rn TODO`` over the stdlib said only "347 files in all", so "TODOs by module" paged all 224 KB)."""

from __future__ import annotations

from collections import Counter

from scratchfs.api.shape import describe

from .conftest import FIXTURES

GREP = FIXTURES / "tools" / "grep-rn-todo-stdlib.txt"


def test_grep_output_shape_names_the_files_with_most_lines_and_where_each_starts():
    data = GREP.read_bytes()
    lines = data.decode().splitlines()
    counts = Counter(line.split(":", 1)[0] for line in lines)
    shape = describe(data, len(data), data.count(b"\n")).text
    assert shape.startswith("text, 200 lines, longest 148 bytes, 0% blank, grep-style path:line: output (83 files in "
                            "all; most lines: /usr/lib/python3.11/_pyio.py (line 125, 8 lines), ")
    for path, count in counts.most_common(3):
        first = next(n for n, line in enumerate(lines, 1) if line.startswith(path + ":"))
        assert f"{path} (line {first:,}, {count} lines)" in shape
    assert shape.endswith("; line=N reads from a file's first line)") and len(shape) <= 600


def test_the_tally_counts_lines_of_a_path_in_runs_apart_and_lines_between_runs():
    from scratchfs.foundation.text import grep_tally

    text = b"a.py:1:x\nb.py:3:y\nnot a match\na.py:9:z\na.py:10-w\n"
    assert grep_tally(text, 5) == (2, [(b"a.py", 3, 1), (b"b.py", 1, 2)])
    assert grep_tally(b"note\n" + text, 1) == (2, [(b"a.py", 3, 2)])
    assert grep_tally(text, 0) == (2, [])


def test_too_many_runs_are_counted_as_files_but_not_tallied():
    from scratchfs.foundation.text import GREP_TALLY_RUNS, grep_tally

    text = b"".join(b"%s.py:1:x\n" % name for name in (b"a", b"b") * (GREP_TALLY_RUNS // 2 + 1))
    assert grep_tally(text, 5) == (2, [])
    shape = describe(text, len(text), text.count(b"\n")).text
    assert shape.endswith("grep-style path:line: output (2 files in all)")
