"""The Python API's ``read_handle`` with the options of two reads mixed and a value no refusal's call can write --
a lone surrogate (``context="\\ud800"``), bytes (``offset=b"x"``), an integer of over 4,300 digits -- raised
UnicodeEncodeError, TypeError or ValueError measuring the refusal that echoed it (hostile14); it is refused as
InvalidArgument, saying what is mixed."""

from __future__ import annotations

import pytest

from scratchfs import InvalidArgument

_MIXED = [
    {"context": "\ud800"}, {"max_matches": b"x"}, {"before": 10**5000}, {"ignore_case": "\udcff"},
    {"line": 1, "length": b"x"}, {"line": "\ud800", "match": "a"}, {"offset": "\ud800", "line": 1},
    {"offset": b"x", "line": 1}, {"match": "a", "length": "\ud800"}, {"line": 1, "offset": 3, "lines": "\udcff"},
    {"end": "\ud800", "context": 1}, {"budget": b"x", "context": 1}, {"line": 1, "pattern": "\ud800"},
]


@pytest.mark.parametrize("arguments", _MIXED)
def test_a_mixed_read_with_a_value_no_call_writes_is_refused(scratch_scope, arguments):
    handle = scratch_scope.spill(b"hello\n" * 10, source_tool="t").handle
    with pytest.raises(InvalidArgument, match=r"apply to|a line read|applies to"):
        scratch_scope.read_handle(handle, **arguments)


def test_a_mixed_read_of_plain_values_still_names_the_calls(scratch_scope):
    handle = scratch_scope.spill(b"hello\n" * 10, source_tool="t").handle
    with pytest.raises(InvalidArgument, match=r"a search: read_handle\(handle=.*context=3"):
        scratch_scope.read_handle(handle, context=3)


@pytest.mark.parametrize("odd", [{"match": "a\ud800"}, {"pattern": "a\ud800"}, {"match": "x", "offset": 10**5000},
                                 {"match": "x", "offset": b"x"}, {"match": "x", "encoding": "\ud800"}])
def test_a_count_beside_a_window_argument_with_a_value_no_call_writes_is_refused(scratch_scope, odd):
    """hostile16: the count's refusal (``count=True`` beside ``context=``) built its call of any value given, where
    the other mixes' refusals say what is mixed alone: UnicodeEncodeError, ValueError or TypeError, no typed error."""
    from scratchfs.api.contract import ScratchTools

    handle = scratch_scope.spill(b"hello\n" * 10, source_tool="t").handle
    with pytest.raises(InvalidArgument, match=r"^count cannot be combined with context: ") as info:
        ScratchTools(scratch_scope).read_handle(handle, count=True, context=3, **odd)
    assert not info.value.calls
