"""A list of paths most of which stand under one directory -- a package's files, ``dpkg -L git``: 941 of its 949
paths under ``/usr/`` -- names the directories below that one in its place, down to where no one directory holds more
than half of the paths (helper shapes4, of what modeltask3 met: the shape said ``etc/ (2 paths), usr/ (941 paths),
var/ (2 paths)``, nothing a model could go to; ``fixtures/tools/dpkg-L-git.txt``), against the plain answer (each path
in the group of the longest directory named that it starts with); a listing no directory dominates is told as
before."""

from __future__ import annotations

import re
from pathlib import Path

from scratchfs.api.shape import describe
from scratchfs.api.shape_listing import NOT_BELOW, PATHS_SHAPE

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
DPKG_L = (_TOOLS / "dpkg-L-git.txt").read_bytes()
_ITEM_RE = re.compile(rf"(?:: |, )({NOT_BELOW}|\S+) \(line ([\d,]+), ([\d,]+) paths?\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def plain(paths: list[str], named: list[str]) -> dict[str, tuple[int, int]]:
    """Each named group's first line and paths, a path in the group of the longest name it starts with ("/" + name)."""
    groups: dict[str, list[int]] = {}
    for n, path in enumerate(paths, 1):
        key = max((name for name in named if path.startswith("/" + name)), key=len, default=NOT_BELOW)
        groups.setdefault(key, [n, 0])[1] += 1
    return {key: (first, count) for key, (first, count) in groups.items()}


def test_dpkg_l_names_the_directories_below_usr():
    shape = shape_of(DPKG_L)
    told = {name: (int(line.replace(",", "")), int(count.replace(",", ""))) for name, line, count
            in _ITEM_RE.findall(shape)}
    assert shape.startswith(f"{PATHS_SHAPE}, 949 lines, under /: "), shape
    assert {"usr/bin/", "usr/lib/", "usr/share/doc/git/", "usr/share/locale/"} <= set(told), shape
    assert "usr/ (line 6, 941 paths)" not in shape
    expected = plain(DPKG_L.decode().splitlines(), [name for name in told if name != NOT_BELOW] + ["var/"])  # (the
    # one more: var/lib/git/)
    assert told == {key: expected[key] for key in told}, shape
    assert told["usr/lib/"] == (11, 193) and told["usr/share/doc/git/"][1] == 630
    more = re.search(r", … (\d+) more;", shape)
    assert len(told) + (int(more[1]) if more else 0) == len(expected), shape  # (every group counted)


def test_a_listing_no_directory_dominates_is_told_by_its_first_directories():
    paths = [f"./d{n % 3}/sub{n % 5}/f{n}.txt" for n in range(60)]
    shape = shape_of(("\n".join([".", *paths]) + "\n").encode())
    assert [name for name, _line, _count in _ITEM_RE.findall(shape)] == ["d0/", "d1/", "d2/"], shape


def test_a_dominant_directory_of_files_alone_is_named_as_itself():
    paths = ["/srv/app", *(f"/srv/app/logs/f{n}.log" for n in range(30)), "/srv/app/README"]
    shape = shape_of(("\n".join(paths) + "\n").encode())
    assert "under /srv/app/: logs/ (line 2, 30 paths), " in shape, shape
