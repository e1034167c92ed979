"""A ``match=`` written as a regex (helper brief modeltask13): ``match`` is literal text, and a miss said only that
nothing matched, where the same search as ``pattern=`` finds what was meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs import NotJson
from scratchfs.api.contract import ScratchTools

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "git-log-stat-80.txt"


@pytest.fixture
def spilled(scratch_scope):
    return ScratchTools(scratch_scope), scratch_scope.spill(FIXTURE.read_bytes(), source_tool="sh").handle


def test_a_match_written_as_a_regex_is_told_its_pattern_call(spilled):
    """``match=" \\| "`` over a ``git log --stat`` (its stat lines, as grep writes them): 'no match in the whole
    content' and no way on. The note names the same call with ``pattern=``, and that call finds every stat line."""
    tools, handle = spilled
    missed = tools.call("read_handle", {"handle": handle, "match": " \\| ", "context": "line"})
    assert missed["windows"] == [] and "match= is literal text; as a regex it matches" in missed["note"], missed
    (call,) = missed["calls"]
    assert call["arguments"] == {"handle": handle, "pattern": " \\| ", "context": "line"}, call
    found = tools.call("read_handle", call["arguments"])
    stat_lines = [line for line in FIXTURE.read_text().splitlines()
                  if line.startswith(" ") and " | " in line and not line.startswith("    ")]
    assert [window["data"] for window in found["windows"]] == stat_lines[: len(found["windows"])], found
    assert found["windows"], found


@pytest.mark.parametrize("needle", ["FATAL|PANIC", "^commit 0{8}", "README\\.txt", "no such text"])
def test_a_match_whose_regex_finds_nothing_either_is_a_plain_miss(spilled, needle):
    """A needle that as a regex finds nothing too, or holds no regex syntax, gets no such hint."""
    tools, handle = spilled
    missed = tools.call("read_handle", {"handle": handle, "match": needle})
    assert missed["windows"] == [] and "as a regex" not in missed["note"], missed


@pytest.mark.parametrize("filter", ['split(" ") | .[0] | tonumber', ".size", "select(.[0] > 1000)"])
def test_a_filter_over_text_whose_first_word_is_a_number_is_told_the_text_is_no_json(scratch_scope, filter):
    """``find / -printf '%s %p\\n'`` (text, its stub says): jq parses its first word, a size, as a number, and the
    filter fails on it before jq meets the path after it -- 'split input and separator must be strings' and jq's
    advice to skip such values (``select(.x != null)``), which no filter answers. The refusal says the entry holds
    text jq cannot parse as JSON and names its reads, as ``jq="."`` over it is told."""
    data = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "find-printf-size-path.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="sh")
    assert stub.content_type == "text", stub.shape
    tools = ScratchTools(scratch_scope)
    with pytest.raises(NotJson) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": filter})
    message = str(caught.value)
    assert f"{stub.handle} holds text in 2 columns" in message, message  # (a size and a path a line: modeltask14)
    assert "(content type text), which jq cannot parse as JSON" in message, message
    assert "select(.x != null)" not in message and "first word" in message, message
    assert "with slurp=true" in message, message  # (its rows read as arrays, which the filter may run on)
