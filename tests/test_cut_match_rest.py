"""A search whose one match is longer than the reply's budget shows its start (the window ``cut: "after"``,
``match_length`` past it): before, its note spoke of the budget's cut of the matches alone, and nothing said how to
read the rest of the match (``next_call`` goes to the next match), though the README says its note does (found by
helper advice3 measuring a long pattern match). Now the note names the byte read of the rest, and ``calls`` gives
it: the window's bytes and that read's are the match, exactly."""

from __future__ import annotations

import json
import re

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size, reply_text


@pytest.mark.parametrize("budget", [None, 2048, 8192])
@pytest.mark.parametrize("body", ["a" * 20000, "ключ " * 3000, "x\n" * 6000])
def test_the_rest_of_a_match_cut_by_the_budget_is_named_and_read(scratch_scope, body, budget):
    data = ("head\nstart\n" + body + "\nend\n" + "tail\n" * 3000 + "start\nb\nend\n").encode()
    handle = scratch_scope.spill(data).handle
    tools = ScratchTools(scratch_scope)
    given = {} if budget is None else {"budget": budget}
    reply = tools.call("read_handle", {"handle": handle, "pattern": r"start[\s\S]*?end", "context": 0, **given})
    assert reply_size(reply) <= (budget or 8192)
    [window] = reply["windows"]
    match = re.search(rb"start[\s\S]*?end", data)
    assert window["offset"] == match.start() and window["match_length"] == len(match.group())
    [call] = reply["calls"]
    assert call["arguments"] == {"handle": handle, "offset": window["offset"] + window["length"],
                                 "length": match.end() - window["offset"] - window["length"], **given}
    rest, read = b"", call["arguments"]
    while len(rest) < call["arguments"]["length"]:  # (the range reads of the rest: a reply shows what its budget
        part = tools.call("read_handle", read)  # holds, and the next goes on from its next_offset)
        rest += part["data"].encode()
        read = {**read, "offset": part["next_offset"], "length": read["length"] - len(part["data"].encode())}
    assert window["data"].encode() + rest == match.group()
    assert reply["next_offset"] == data.index(b"start\nb\nend")  # (the next match, as before)


def test_a_match_shown_whole_names_no_read(scratch_scope):
    handle = scratch_scope.spill(b"start\n" + b"a" * 100 + b"\nend\n" + b"x\n" * 9000).handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "pattern": r"start[\s\S]*?end"})
    assert "calls" not in reply and "note" not in reply


@pytest.mark.parametrize("budget", [2048, 8192])
def test_the_budget_counts_the_text_a_model_reads_not_the_calls_it_leaves_to_programs(scratch_scope, budget):
    """helper replies7: the reply's budget counted its ``calls`` (128 bytes here), which the text a model reads
    (``reply_text``: the MCP text block, the adapter's ``ToolReply.text``) leaves to the structured content: the
    window shown was 1,154 bytes of a 2,048-byte budget whose text was 1,920. The text now fills the budget (the
    structured content is the text and the calls) and the window shows the 128 bytes more."""
    data = ("head\nstart\n" + "a" * 20000 + "\nend\n" + "tail\n" * 3000 + "start\nb\nend\n").encode()
    handle = scratch_scope.spill(data).handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "pattern": r"start[\s\S]*?end",
                                                             "context": 0, "budget": budget})
    text, calls = len(reply_text(reply).encode()), reply_size(reply["calls"]) + len(',"calls":')
    assert budget - 16 <= text <= budget and reply_size(reply) == text, (text, budget)
    assert len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()) == text + calls
