"""``python -X importtime``: its imports counted, the top-level ones by cumulative time and the slowest by their own,
each at its line, against the plain answer (the lines CPython writes, parsed here), and the search the shape names
finds the top-level imports (helper modeltask7: ``python -X importtime -c "import cfnlint.runner"``, 160 KB, was
``text, 1,631 lines``, so "what does it import at startup" took a regex of the model's own or a read of its end;
``fixtures/tools/python-X-importtime-flask-cli.txt``); other text with ``import time:`` lines is told as before."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_importtime import IMPORTTIME_SHAPE
from scratchfs.api.shape_words import MAX_SHAPE_CHARS, MOST_LINES, kib

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
FLASK = (_TOOLS / "python-X-importtime-flask-cli.txt").read_bytes()
_LINE_RE = re.compile(r"import time: +(\d+) \| +(\d+) \| ( *)(.+)")
_ITEM_RE = re.compile(r"(?:: |, )(\S+) \(line ([\d,]+), ([\d,.]+) ms\)")
_FIND_RE = re.compile(r'pattern="([^"]+)", context="line" finds the top-level imports')


def shape_of(data: bytes, size: int | None = None) -> str:
    size = len(data) if size is None else size
    return describe(data, size, data.count(b"\n") + (not data.endswith(b"\n"))).text


def plain(data: bytes) -> list[tuple[str, int, int, int, int]]:
    """Each import's name, line, own and cumulative time (us) and depth, as CPython wrote them."""
    rows = []
    for n, line in enumerate(data.decode().splitlines(), 1):
        if (found := _LINE_RE.fullmatch(line)) is not None:
            rows.append((found[4], n, int(found[1]), int(found[2]), len(found[3]) // 2))
    return rows


def told(part: str) -> list[tuple[str, int, str]]:
    return [(name, int(line.replace(",", "")), ms) for name, line, ms in _ITEM_RE.findall(part)]


def test_the_top_level_imports_and_the_slowest_are_told_at_their_lines():
    shape = shape_of(FLASK)
    rows = plain(FLASK)
    top = sorted((row for row in rows if row[4] == 0), key=lambda row: (-row[3], row[1]))
    together = sum(row[3] for row in top) / 1000
    assert (len(rows), len(top)) == (303, 8)
    assert shape.startswith(f"{IMPORTTIME_SHAPE}, 304 lines, 303 imports, 8 top-level ({together:,.1f} ms "
                            "together); slowest top-level: flask.cli (line 304, 172.2 ms), "), shape
    listed, slowest_self = shape.split("; slowest self: ")
    assert told(listed) == [(name, line, f"{cumulative / 1000:,.1f}") for name, line, _own, cumulative, _depth
                            in top[: len(told(listed))]] and len(told(listed)) >= 5, shape
    own = sorted(rows, key=lambda row: (-row[2], row[1]))[:3]
    assert told(": " + slowest_self) == [(name, line, f"{micros / 1000:,.1f}")
                                         for name, line, micros, _c, _d in own], shape
    assert len(shape) <= MAX_SHAPE_CHARS


def test_the_search_the_shape_names_finds_the_top_level_imports(tmp_path):
    """The pattern as the model reads it in the stub's JSON, passed back as it stands: every top-level import's
    line, and no other."""
    with ScratchStore(root=tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(FLASK, source_tool="python")
        pattern = _FIND_RE.search(json.loads(json.dumps(stub.to_dict()))["shape"])[1]
        read = ScratchTools(scope).call("read_handle", {"handle": stub.handle, "pattern": pattern, "context": "line"})
    found = [window["line"] for window in read["windows"]]
    assert found == [line for _name, line, _own, _cumulative, depth in plain(FLASK) if depth == 0], read


def test_a_sample_short_of_the_end_says_its_imports_so_far_and_the_read_of_the_end():
    head = FLASK[:4096]
    shape = shape_of(head, len(FLASK))
    whole = head[: head.rfind(b"\n") + 1]
    assert f", {len(plain(whole))} imports so far, " in shape, shape
    assert shape.endswith(", line=-50 reads the last (top-level imports come after what they import)"), shape


def test_more_lines_are_told_from_the_first_ones_and_say_how_much():
    header = FLASK[: FLASK.index(b"\n") + 1]
    nested = b"import time:         1 |          1 |   a\n"
    data = header + nested * 30_000 + b"import time:  5 |  30005 | a\n"
    first = data[: len(header) + len(nested) * (MOST_LINES - 1)]
    shape = shape_of(data)
    assert shape.startswith(f"{IMPORTTIME_SHAPE}, 30,002 lines (in the first {kib(len(first))} of "
                            f"{kib(len(data))}), 9,999 imports so far, none top-level; slowest self: a (line 2, "
                            "0.0 ms), "), shape


def test_other_text_is_not_told_as_importtime():
    """Output that mixes a program's lines with the import lines (2>&1 of a program that prints), or text that
    quotes one line of it, is no importtime output; a header alone neither."""
    mixed = FLASK.replace(b"\nimport time:", b"\nprinted line\nimport time:", 200)
    quoted = b"see below\n" + FLASK
    for data in (mixed, quoted, FLASK[: FLASK.index(b"\n") + 1]):
        assert not shape_of(data).startswith(IMPORTTIME_SHAPE), shape_of(data)
