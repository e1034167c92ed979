"""A text line, then lines of brackets nested deeper than the C parser goes (helper hostile28): the stub raised a
RecursionError out of ``spill`` (a traceback, no stub) -- the JSON document looked for after the text line
(:func:`scratchfs.api.json_part.described_part`) was parsed unguarded, where a text that starts with its brackets is
told "JSON nested too deeply to parse". Now a part that nests too deeply is no part: the text's own shape."""

from __future__ import annotations

import pytest

from scratchfs.api.shape import describe

_DEEP = [b"x\n" + b"[[[[[[[[[[\n" * 50_000, b"WARNING: a\nWARNING: b\n" + b"{\"k\": [" * 40_000 + b"\n",
         b"log line\n" + b"[" * 20_000 + b"\n" + b"]" * 20_000 + b"\n"]


@pytest.mark.parametrize("data", _DEEP, ids=["bracket lines", "objects after warnings", "opened and closed"])
def test_a_text_line_then_brackets_nested_too_deeply_is_described(scratch_scope, data):
    stub = scratch_scope.spill(data, source_tool="bash")
    assert stub.shape.startswith(("text, ", "log, ")), stub.shape
    assert describe(data, len(data), data.count(b"\n")).text == stub.shape
