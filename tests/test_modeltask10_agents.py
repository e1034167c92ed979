"""A task two agents of one run share (modeltask10): agent A triages a spilled pytest log and notes its findings;
agent B, told to read A's note, reads its own scratchpad, which is not A's (README: "Scratchpad values are an
agent's own"). B's refusal said only that B's scope has no such key -- as if A had never written it, or its note had
expired -- where a handle's refusal says another agent's is not read here. A key's says so too now, and a key of
B's own, or one a character off, is told as before."""

from __future__ import annotations

import pytest

from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.foundation.errors import NotFound
from scratchfs.foundation.limits import MIN_REPLY_BYTES


def test_agent_b_is_told_that_agent_a_s_notes_are_not_read_here(scratch_store):
    a = ScratchTools(scratch_store.scope("run-1", "agent-a"))
    b = ScratchTools(scratch_store.scope("run-1", "agent-b"))
    a.call("scratch_write", {"key": "triage/f1", "value": "f1 tests/test_toolkit.py:337: list preview cut"})
    for name in ("scratch_read", "scratch_delete"):
        try:
            told = b.call(name, {"key": "triage/f1"})["note"]
        except NotFound as refused:
            told = error_text(refused)
        assert "no key 'triage/f1' in this scope (run 'run-1', agent 'agent-b'); another agent's keys are not " \
               "read here; scratch_list lists the keys of this scope" in told, told
        assert len(told.encode()) <= MIN_REPLY_BYTES
    assert a.call("scratch_read", {"key": "triage/f1"})["data"].startswith("f1 ")  # A's note is still A's
    b.call("scratch_write", {"key": "triage/f2", "value": "x"})
    with pytest.raises(NotFound) as near:  # a key of B's own one character off: that key named, as before
        b.call("scratch_read", {"key": "triage/f3"})
    assert "did you mean 'triage/f2', a key of this scope?" in str(near.value)
    assert "another agent" not in str(near.value)
