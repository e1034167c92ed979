"""A jq filter whose one output is enormous (``"x" * 1e9``: one gigabyte of JSON text from a 9-byte document): the
worker sent it whole, the reading process took it in (1.8 GB of RSS) and spent ~20 s holding the GIL over it before
saying "ran past its time limit (stopped 13.6 s after it)"; at 3e9 it would be out of memory. The worker now refuses
an output (or a record's outputs) past MAX_OUTPUT_CHARS, after the outputs before it, as a filter failing there."""

from __future__ import annotations

import json

import pytest

from scratchfs import InvalidArgument, ScratchStore
from scratchfs.api.contract import ScratchTools

HUGE = '"\\u0001" * 2.24e7'
"""A filter whose one output is 134,400,002 characters of JSON (each character escaped as six), just past the bound:
the worker's jq writes the whole text before its length is known, at a cost per character of text (``"x" * 1.5e8``,
150 M characters, took 7.8 s of it where this takes 5.0, load 3)."""


# (not marked alone: it bounds no time -- the 60 s limit is there so that the output bound answers -- and its ~20 s
# each at a load of 9 held the other xdist worker idle)
@pytest.mark.parametrize("read", ["jq", "records"])
def test_an_enormous_jq_output_is_refused_by_the_worker_at_once(tmp_path, read):
    with ScratchStore(tmp_path / "root", pattern_timeout=60.0) as store:  # (the bound, not the time limit, answers)
        scope = store.scope("r", "a")
        if read == "jq":
            handle = scope.spill(b'{"a": 1}' + b" " * 70_000, source_tool="t").handle
            args = {"handle": handle, "jq": HUGE}
        else:
            handle = scope.spill(b"".join(json.dumps({"i": i}).encode() + b"\n" for i in range(5000)),
                                 source_tool="t").handle
            args = {"handle": handle, "record": 1, "records": 3, "jq": HUGE}
        said = "is 134,400,002 characters of JSON, more than the 134,217,728 a read returns"
        with pytest.raises(InvalidArgument, match=said):
            ScratchTools(scope).call("read_handle", args)  # (taken in whole before: 300 MB in the reading process)


def test_the_output_bound_leaves_the_whole_document_readable():
    from scratchfs.engine.structure import jq_worker
    from scratchfs.engine.structure.jsondoc import MAX_JQ_DOCUMENT_BYTES

    assert jq_worker.MAX_OUTPUT_CHARS >= 2 * MAX_JQ_DOCUMENT_BYTES  # '.', 'tostring', '[., .]' of the largest
