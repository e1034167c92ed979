"""JSON lines with a record cut or garbled past their first 20 lines (a capped or interleaved output), as a new user
met them: one bad line at record 501 made 'JSON lines, 1,000 records' with no word of it. The shape names the
records of its sample that are not JSON. (One among the first 20 lines still makes the content text: told JSON lines
only when those lines all are; a tolerance of one in ten, tried this stop, made text that starts with JSON words
JSON lines, and is left out.)"""

from __future__ import annotations

import json

import pytest

from scratchfs.api.shape import describe

_CUT = b'{"name": "broken, "uid": '


def _lines(bad: tuple[int, ...], count: int = 1000) -> bytes:
    lines = [json.dumps({"name": f"u{i}", "uid": i, "shell": "/bin/sh"}).encode() for i in range(count)]
    for number in bad:
        lines[number - 1] = _CUT
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize(("bad", "said"), [
    ((501,), "1 record not JSON (record 501)"),
    ((30, 300), "2 records not JSON (records 30, 300)"),
    ((25, 300, 600, 900), "4 records not JSON (records 25, 300, 600, …)"),
])
def test_the_shape_names_the_records_that_are_not_json(bad, said):
    data = _lines(bad)
    shape = describe(data, len(data), data.count(b"\n"))
    assert shape.content_type == "jsonl", shape
    assert shape.text.startswith(f"JSON lines, 1,000 records, {said}; record keys: name: str"), shape


def test_a_bad_line_among_the_first_twenty_leaves_text():
    data = _lines((10,))
    assert describe(data, len(data), data.count(b"\n")).content_type == "text"
