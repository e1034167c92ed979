"""The one listing-cursor codec (:mod:`scratchfs.foundation.cursors`): the same bytes the three codecs it replaced
wrote (scratchpad listing, CLI inspector, web inspector), round trips, and one typed error for anything else."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs.api import inspector, results
from scratchfs.engine.protocols import Entry
from scratchfs.foundation import cursors
from scratchfs.foundation.errors import InvalidArgument

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)
TIME = st.floats(0, 2e9, allow_nan=False)


def _old(values: list, ascii_only: bool) -> str:
    return base64.urlsafe_b64encode(json.dumps(values, ensure_ascii=ascii_only).encode()).decode().rstrip("=")


@given(created=TIME, agent=TEXT, kind=st.sampled_from(["scratch", "handle"]), key=TEXT)
def test_listing_cursors_are_the_old_bytes_and_round_trip(created, agent, kind, key):
    entry = Entry._make([None] * len(Entry._fields))._replace(created_at=created, agent_id=agent, kind=kind, key=key)
    text = results.encode_cursor(entry)
    assert text == _old([created, agent, kind, key], False)
    assert results.decode_cursor(text) == (created, agent, kind, key)


@given(run=TEXT, created=TIME, row=st.integers(0, 2**62))
def test_inspector_cursors_are_the_old_bytes_and_round_trip(run, created, row):
    text = inspector.encode_cursor((run, created, row))
    assert text == _old([run, created, row], True)
    assert inspector.decode_cursor(text) == (run, created, row)


@pytest.mark.parametrize("bad", ["", "not a cursor", "!!!", _old([1, "a", "b"], False), _old([True, "a", "b", "c"],
                                                                                              False),
                                 _old(["1", "a", "b", "c"], False), _old({"a": 1}, False), None, 12])
def test_anything_else_is_one_typed_error(bad):
    with pytest.raises(InvalidArgument, match="not a listing cursor"):
        cursors.decode_cursor(bad, (cursors.NUMBER, cursors.TEXT, cursors.TEXT, cursors.TEXT), "not a listing cursor")
