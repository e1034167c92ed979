"""hostile23: the scratchpad verbs, scope and retention attacked (keys, values, TTLs, scope, paging, kills). Each
test is one finding: it failed before its fix."""

from __future__ import annotations

import pytest

from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.api.tools import check_arguments
from scratchfs.foundation.errors import InvalidArgument


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
    assert text == "invalid argument: scratch_write: value: [] is not of type 'string'"
    for call in refused.value.calls:  # any call named is one the tool takes
        check_arguments(call.verb, dict(call.arguments))
