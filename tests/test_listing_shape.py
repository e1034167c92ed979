"""A file listing's shape (the workspace listing of an agent's tool): ``ls -R`` / ``ls -lR`` / ``ls -laR`` sections and
``find``-style paths, each directory with the line it starts at and its entries or paths, against the plain answer (the
tree made here, walked with ``os``; ``collections.Counter`` of the paths' first components); grep's ``path:line:``
output stays grep output."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.shape import describe
from scratchfs.api.shape_listing import LISTING_SHAPE, NOT_BELOW, PATHS_SHAPE, listing_shape

_ITEM_RE = re.compile(rf"(?:: |, )({NOT_BELOW}|\S+) \(line ([\d,]+), ([\d,]+) (?:entr(?:y|ies)|paths?)\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def items(shape: str) -> list[tuple[str, int, int]]:
    return [(name, int(line.replace(",", "")), int(n.replace(",", ""))) for name, line, n in _ITEM_RE.findall(shape)]


def make_tree(root) -> None:
    for n in range(12):
        directory = root / f"d{n % 4}" / (f"sub{n % 3}" if n % 2 else "")
        directory.mkdir(parents=True, exist_ok=True)
        for k in range(n + 1):
            (directory / f"f{n}-{k}.txt").write_text("x")
    (root / "empty").mkdir()
    (root / "top.txt").write_text("x")
    (root / "d0" / "X11").symlink_to(".")  # (ls -l writes "X11 -> .", an entry, not ls -a's "."; hostile35: two
    (root / "d0" / "up").symlink_to("..")  # of d0's entries went uncounted, as /usr/bin's X11 -> . does)


@pytest.mark.skipif(shutil.which("ls") is None, reason="no ls")
@pytest.mark.parametrize("options", ["-R", "-lR", "-laR", "-aR", "-a1R"])  # (-aR: before, its . and .. counted)
def test_an_ls_r_listing_names_each_directory_at_its_header_line_with_its_entries(tmp_path, options):
    make_tree(tmp_path)
    out = subprocess.run(["ls", options, "."], cwd=tmp_path, capture_output=True, check=True,
                         env={**os.environ, "LC_ALL": "C"}).stdout
    shape = shape_of(out)
    assert shape.startswith(f"{LISTING_SHAPE}, "), shape
    lines = out.split(b"\n")
    expected = {}
    for here, dirs, files in os.walk(tmp_path):
        name = "." + here[len(str(tmp_path)) :]
        expected[name] = len(dirs) + len(files)
    shown = items(shape)
    assert len(shown) >= 5 and f"{len(expected)} directories" in shape
    for name, line, entries in shown:
        assert lines[line - 1] == f"{name}:".encode() and entries == expected[name], (name, entries)


_COMPONENT = st.text("abcxyz", min_size=1, max_size=3)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["/srv/app", ".", "/"]), st.lists(st.lists(_COMPONENT, min_size=1, max_size=4), min_size=2,
                                                          max_size=60))
def test_find_style_paths_are_grouped_by_their_first_directory_below_the_shared_one(root, parts):
    """Grouped by the first directory below the shared one, those below a group holding more than half of them
    by the directory below that."""
    paths = [root.rstrip("/") + "/" + "/".join(p) if root != "/" else "/" + "/".join(p) for p in parts]
    data = ("\n".join([root, *paths]) + "\n").encode()
    shape = listing_shape(data, data.count(b"\n"), True, "")
    assert shape is not None and shape.startswith(f"{PATHS_SHAPE}, "), data[:200]
    base = re.search(r", under (\S*): ", shape)[1]
    rows = data.decode().split("\n")[:-1]
    below = [(number, row[len(base) :]) for number, row in enumerate(rows, 1) if row.startswith(base)]
    opened = [""]  # the groups named by the directories below them: one holding more than half of the paths
    for _ in range(3):  # (helper shapes4: dpkg -L's usr/ holds 941 of 949), three times at most
        counted, first = _groups(below, opened)
        big = next((key for key, count in counted.items() if key and 2 * count > len(rows)), None)
        if big is None or set(_groups([(n, rest) for n, rest in below if rest.startswith(big)], [big])[0]) == {big}:
            break
        opened.append(big)
    counted, first = _groups(below, opened)
    shown = items(shape)
    expected = sorted(((key or NOT_BELOW, first[key], count) for key, count in counted.items()), key=lambda t: t[1])
    assert shown == expected[: len(shown)] and shown


def _groups(below: list[tuple[int, str]], opened: list[str]) -> tuple[Counter, dict[str, int]]:
    """Each path's group (``below``: its line and its rest below the shared directory): the longest of ``opened``
    it starts with, and the directory below that it is in, if any; how many paths each holds and its first line."""
    counted: Counter = Counter()
    first: dict[str, int] = {}
    for number, rest in below:
        top = max((key for key in opened if rest.startswith(key)), key=len)
        after = rest[len(top) :]
        key = top + (after.split("/", 1)[0] + "/" if "/" in after else "")
        counted[key] += 1
        first.setdefault(key, number)
    return counted, first


def test_the_paths_in_the_shared_directory_itself_are_said_to_be_so(tmp_path):
    """They were named ``(here)``: ``under ./: (here) (line 2, 3 paths)``, unclear to a model (helper replies9)."""
    make_tree(tmp_path)
    (tmp_path / "README").write_text("x")
    out = subprocess.run(["find", "."], cwd=tmp_path, capture_output=True, check=True).stdout
    shape = shape_of(out)
    rows = out.decode().splitlines()
    itself = [n for n, row in enumerate(rows, 1) if row.startswith("./") and "/" not in row[2:]]
    assert f"under ./: {NOT_BELOW} (line {itself[0]}, {len(itself)} paths)" in shape, shape
    assert NOT_BELOW == "not in a subdirectory" and "(here)" not in shape


def test_a_real_find_is_told_and_grep_output_is_not(tmp_path):
    make_tree(tmp_path)
    out = subprocess.run(["find", "."], cwd=tmp_path, capture_output=True, check=True).stdout
    shape = shape_of(out)
    assert shape.startswith(f"{PATHS_SHAPE}, ") and "under ./: " in shape, shape
    grep = b"".join(b"./src/mod%d.py:%d:def f():\n" % (n, n) for n in range(300))
    assert not shape_of(grep).startswith((PATHS_SHAPE, LISTING_SHAPE))
    with ScratchStore(tmp_path / "store") as store:
        stub = store.scope("r", "a").spill(out * 40, source_tool="find")
    assert stub.shape.startswith(f"{PATHS_SHAPE}, ")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["/*! a.css v1.0.3 | MIT License | github.com/a */", "/* comment */",
                                 "// a JavaScript comment", "/*! normalize.css v8.0.1 */ html{line-height:1.15}"]),
                min_size=2, max_size=30))
def test_comment_lines_of_css_or_javascript_are_no_paths(lines):
    """A line starting ``/*`` or ``//`` is a comment of CSS, C or JavaScript, not a path ``find`` prints: before, a
    minified stylesheet of two such lines (/usr/share/doc/libexpat1-dev/expat.html/ok.min.css) was 'paths
    (find-style), under /', grouped by the words after its slash."""
    data = ("\n".join(lines) + "\n").encode()
    assert not shape_of(data).startswith(PATHS_SHAPE), shape_of(data)
    assert shape_of(b"/\n/usr\n/usr/bin\n/srv/x y\n").startswith(PATHS_SHAPE)
