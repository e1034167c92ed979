"""hostile23: the scratchpad verbs, scope and retention attacked (keys, values, TTLs, scope, paging, kills). Each
test is one finding: it failed before its fix."""

from __future__ import annotations

import logging

import pytest

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.api.inspector import fsck
from scratchfs.api.tools import check_arguments
from scratchfs.foundation.errors import InvalidArgument, NotFound
from tests.conftest import BACKENDS


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


@pytest.mark.parametrize("value", [[], ""])
def test_a_required_value_given_as_an_empty_list_is_a_type_fault_not_leave_it_out(tools, value):
    """``scratch_write(key="j", value=[])`` was refused ``value is empty: leave it out: scratch_write(key="j")``:
    the call it named is refused in turn (``'value' is a required property``). An empty list is no text: its type is
    the fault. (An empty text is a value: stored, read back empty.)"""
    if value == "":
        assert tools.call("scratch_write", {"key": "j", "value": value})["size"] == 0
        return
    with pytest.raises(InvalidArgument) as refused:
        tools.call("scratch_write", {"key": "j", "value": value})
    text = error_text(refused.value)
    assert text == ("invalid argument: scratch_write: value: [] is not of type 'string'; scratch_write stores text: "
                    "give JSON encoded as one string")
    for call in refused.value.calls:  # any call named is one the tool takes
        check_arguments(call.verb, dict(call.arguments))


def test_a_scratch_delete_overtaken_by_a_delete_of_its_run_logs_no_warning(tmp_path, caplog):
    """A ``scratch_delete`` of a small value (a segment entry) whose run a ``delete_run`` moved away between the
    row's delete and the marking of its record dead logged ``cannot mark the deleted entry ... dead in its segment
    ([Errno 2] No such file or directory: 'a1')``, once per such delete (a race of the threads of one server, seen
    here 8 times in 15 s): the segment went with its directory, so nothing is left that a rebuild could restore."""
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("run", "a1")
        scope.scratch_write("k", "small")
        store.flush()
        unlink = store.blobs.unlink

        def unlink_then_lose_the_run(run_id, agent_id, token):  # the other thread's delete_run, just then
            freed = unlink(run_id, agent_id, token)
            assert store.delete_run("run") == 0  # (the row is gone already: nothing counted)
            return freed

        store.blobs.unlink = unlink_then_lose_the_run
        with caplog.at_level(logging.WARNING, logger="scratchfs"):
            assert scope.scratch_delete("k") is True
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
        with pytest.raises(NotFound):
            scope.scratch_read("k")
        assert fsck(store).clean


@pytest.mark.parametrize("backend", BACKENDS, indirect=True)
def test_a_listing_after_the_clock_stepped_back_never_says_a_value_outlives_its_ttl(scratch_store_factory, clock,
                                                                                     backend):
    """Values written with ttl=100, then the clock stepped back 10,000 s: scratch_list said ``expires_in: 10100``
    (and 9.5 years after a 9.5-year step) until a read or a sweep capped the entry at ``now + ttl`` -- where a read
    of it just after said 100 (the store's rule: an entry born in the future outlives its TTL by no more than its
    TTL). A listing is such a look: it says what the read would."""
    store = scratch_store_factory("a")
    scope = store.scope("run", "agent")
    tools = ScratchTools(scope)
    for key in ("k", "k2"):
        tools.call("scratch_write", {"key": key, "value": "v", "ttl": 100})
    clock.advance(-10_000)
    listed = {e["key"]: e["expires_in"] for e in tools.call("scratch_list")["entries"]}
    assert listed == {"k": 100, "k2": 100}
    tools.call("scratch_read", {"key": "k"})  # a read caps k at now + 100: the listing said so already
    clock.advance(40)
    listed = {e["key"]: e["expires_in"] for e in tools.call("scratch_list")["entries"]}
    assert listed == {"k": 60, "k2": 100}  # (k2, never read nor swept, is still uncapped: 100 is its least)
    clock.advance(60)
    assert [e["key"] for e in tools.call("scratch_list")["entries"]] == ["k2"]
