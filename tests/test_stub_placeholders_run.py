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
from scratchfs.api.views import reply_size


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


@pytest.mark.parametrize(("argument", "placeholder"), [("pattern", "REGEX"), ("match", "TEXT")])
def test_the_placeholder_found_in_the_content_is_shown_and_said_to_be_one(scratch_scope, argument, placeholder):
    """The stub's call run as written over content holding the placeholder's own text (``du -ah /usr/share``: a
    ``CMAKE_..._REGEX.rst``; found by a new user, newuser5) came back with those windows, 627 bytes, and no word
    that ``REGEX`` stood for the model's own pattern. The windows are still shown (the text may be what was
    sought), and the note says the call's argument is the placeholder and what goes in its place; a later page
    (``offset=``, the search going on) says nothing more."""
    lines = [f"{i:05d} all is well" for i in range(2000)]
    lines[1500] = f"01500 see {placeholder}_FILE.rst"
    stub = scratch_scope.spill("\n".join(lines), source_tool="bash")
    # (the stub of this text names pattern="REGEX"; match="TEXT" is named for content with lines over 4 MiB)
    advised = [call for call in _calls(stub.note) if call.get(argument) == placeholder]
    assert advised or argument == "match", stub.note
    reply = ScratchTools(scratch_scope).read_handle(stub.handle, **{argument: placeholder})
    assert [w["line"] for w in reply["windows"]] == [1501], reply
    assert f'{argument}="{placeholder}" is the stub\'s placeholder, and these windows are where the text ' \
           f'{placeholder} itself is: write what you look for in its place' in reply["note"], reply
    assert len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()) <= 8192
    later = ScratchTools(scratch_scope).read_handle(stub.handle, offset=10, **{argument: placeholder})
    assert later["windows"] and "note" not in later, later
    sought = ScratchTools(scratch_scope).read_handle(stub.handle, **{argument: "see"})
    assert sought["windows"] and "note" not in sought, sought


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


def test_a_placeholder_hit_cut_by_the_budget_says_both(scratch_scope):
    """Beside the placeholder's note, a reply the budget cut still says so (the placeholder's note had taken the
    budget's place: 12 of 20 matches shown, and no word why)."""
    stub = scratch_scope.spill("\n".join(f"REGEX line {i} " + "y" * 80 for i in range(3000)), source_tool="bash")
    reply = ScratchTools(scratch_scope).read_handle(stub.handle, pattern="REGEX", budget=2048)
    assert reply_size(reply) <= 2048  # (the text the model receives: a reply's calls, data for programs, are not
    # counted -- the placeholder's example is one)
    assert reply["note"].startswith("the budget (2048 bytes) cut this reply to "), reply["note"]
    assert 'pattern="REGEX" is the stub\'s placeholder' in reply["note"] and reply["next_call"], reply


@pytest.mark.parametrize(("argument", "placeholder"), [("pattern", "REGEX"), ("match", "TEXT")])
def test_the_search_placeholders_example_keeps_the_calls_other_arguments(scratch_scope, argument, placeholder):
    """The example a placeholder's note gives is the same search, its settings kept: it was the words
    ``pattern="ERROR|Traceback"``, and a model that copied them lost its budget, context and ignore_case (replies11,
    the kind of newuser12's jq placeholder refusal that lost slurp=true)."""
    stub = scratch_scope.spill("\n".join(f"{i:05d} all is well" for i in range(2000)) + "\nTraceback: x\n",
                               source_tool="bash")
    given = {argument: placeholder, "ignore_case": True, "context": "line", "max_matches": 5, "budget": 4096}
    reply = ScratchTools(scratch_scope).read_handle(stub.handle, **given)
    assert reply["calls"] == [{"tool": "read_handle", "arguments": {
        "handle": stub.handle, "pattern": "ERROR|Traceback", "ignore_case": True, "context": "line", "max_matches": 5,
        "budget": 4096}}]
    assert reply["note"].endswith(f', e.g. read_handle(handle="{stub.handle}", pattern="ERROR|Traceback", '
                                  'ignore_case=True, context="line", max_matches=5, budget=4096)')
    followed = ScratchTools(scratch_scope).read_handle(**reply["calls"][0]["arguments"])
    assert [window["line"] for window in followed["windows"]] == [2001]
