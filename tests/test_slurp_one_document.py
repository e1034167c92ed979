"""``slurp=true`` over one JSON document (not JSON lines, a table or JSON texts one after another) is refused saying it
does not apply, naming the read without it (helper replies9, from newuser10's session): with the stub's placeholder
``jq="JQ"`` the answer was the slurp examples (``map(.KEY)``, ``group_by(.KEY)``, for an array of records) and with
a filter of the model's own "use jq= alone", no call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools

MODEL = (Path(__file__).resolve().parent.parent / "fixtures" / "api-ec2-service-model.json").read_bytes()


def _refusal(tools: ScratchTools, handle: str, filter: str):
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, "jq": filter, "slurp": True})
    calls = refused.value.advice.calls
    assert len(calls) == 1, str(refused.value)
    return str(refused.value), dict(calls[0].arguments)


def test_a_filter_of_the_model_s_own_is_named_without_slurp_and_runs(scratch_scope):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(MODEL, source_tool="aws").handle
    message, call = _refusal(tools, handle, ".operations | keys | length")
    assert "does not apply to one JSON document" in message
    assert call == {"handle": handle, "jq": ".operations | keys | length"}
    assert tools.call("read_handle", call)["results"] == [len(json.loads(MODEL)["operations"])]


def test_the_placeholder_gets_the_document_s_read_not_the_slurp_examples(scratch_scope):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(MODEL, source_tool="aws").handle
    message, call = _refusal(tools, handle, "JQ")
    assert "does not apply to one JSON document" in message and "map(.KEY)" not in message
    assert call == {"handle": handle, "jq": "keys[]"}
    page = tools.call("read_handle", call)
    assert page["results"][: len(json.loads(MODEL))] == sorted(json.loads(MODEL))


def test_json_lines_keep_the_placeholder_s_slurp_examples(scratch_scope):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(b"".join(b'{"n": %d}\n' % i for i in range(900)), source_tool="log").handle
    with pytest.raises(InvalidArgument, match=r'placeholder.*jq="map\(\.KEY\)"'):
        tools.call("read_handle", {"handle": handle, "jq": "JQ", "slurp": True})
