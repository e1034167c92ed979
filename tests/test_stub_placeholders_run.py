"""A stub's note names three calls whose argument is a placeholder for the model's own: ``match="TEXT"``,
``pattern="REGEX"`` and ``jq="JQ"`` (with ``slurp=true``, or on each of several JSON texts). Run as written, the
search came back with no window and no word why, and the jq read was refused with jq's own ``jq: error: JQ/0 is not
defined`` (found running every call a stub advised, hostile6). A miss of a placeholder now says it is one and what
goes in its place; ``jq="JQ"`` is refused saying so, naming filters that run. Each test RUNS the call the note
names."""

from __future__ import annotations

import json
import re

import pytest

from scratchfs import InvalidArgument
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools


def _calls(note: str) -> list[dict]:
    return [parse_call(call)[1] for call in re.findall(r'read_handle\((?:[^()"]|"(?:[^"\\]|\\.)*")*\)', note)]


@pytest.mark.parametrize(("content", "argument", "placeholder"), [
    ("\n".join(f"line {i}: all is well" for i in range(2000)), "pattern", "REGEX"),
    (bytes(range(256)) * 100, "match", "TEXT"),
])
def test_a_search_for_the_stubs_placeholder_says_it_is_one(scratch_scope, content, argument, placeholder):
    stub = scratch_scope.spill(content, source_tool="bash")
    (call,) = [call for call in _calls(stub.note) if call.get(argument) == placeholder]
    reply = ScratchTools(scratch_scope).read_handle(**call)
    assert reply["windows"] == [] and reply["next_call"] is None
    assert f'{argument}="{placeholder}" is the stub\'s placeholder' in reply["note"], reply
    assert len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()) <= 8192


def test_the_placeholder_found_in_the_content_is_no_miss(scratch_scope):
    stub = scratch_scope.spill("\n".join(f"REGEX {i}" for i in range(2000)), source_tool="bash")
    reply = ScratchTools(scratch_scope).read_handle(stub.handle, pattern="REGEX")
    assert reply["windows"] and "note" not in reply


@pytest.mark.parametrize("content", [
    "id,name\n" + "\n".join(f"{i},n{i}" for i in range(2000)),
    "\n".join(json.dumps({"id": i}) for i in range(2000)),
])
def test_the_stubs_jq_placeholder_is_refused_saying_so(scratch_scope, content):
    stub = scratch_scope.spill(content, source_tool="sql.query")
    (call,) = [call for call in _calls(stub.note) if call.get("jq") == "JQ"]
    with pytest.raises(InvalidArgument, match=r'jq="JQ" is the stub\'s placeholder: write a jq filter in its place') \
            as refused:
        ScratchTools(scratch_scope).read_handle(**call)
    assert "is not defined" not in str(refused.value)
    example = re.search(r'jq="(length)"', str(refused.value))  # (a filter it names, run in its place)
    assert example is not None
    reply = ScratchTools(scratch_scope).read_handle(**dict(call, jq=example.group(1)))
    assert reply["results"] == [2000]
