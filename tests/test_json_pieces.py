"""foundation/json_pieces.py: a structure's JSON text in pieces equals json.dumps(value, ensure_ascii=False), the
standard library's answer, for any value (Hypothesis), with the pieces bounded, and its errors as json.dumps's."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.foundation import json_pieces as jp
from scratchfs.foundation.json_pieces import json_pieces

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
keys = st.text(max_size=8) | st.integers(-5, 5) | st.floats(allow_nan=False) | st.booleans() | st.none()
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=12) | st.tuples(inner, inner)
                      | st.dictionaries(keys, inner, max_size=12), max_leaves=80)


@settings(max_examples=300, deadline=None)
@given(value=values, piece=st.integers(1, 64))
def test_the_pieces_join_to_json_dumps(value, piece):
    assert "".join(json_pieces(value, piece)) == json.dumps(value, ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(value=values, piece=st.integers(1, 64))
def test_the_pieces_join_to_json_dumps_when_small_containers_are_walked(value, piece):
    with pytest.MonkeyPatch.context() as m:  # (walk containers of 3 items or more, first batches of 2: the rules
        m.setattr(jp, "WALK_ITEMS", 3)  # of large values on small ones)
        m.setattr(jp, "FIRST_BATCH", 2)
        assert "".join(json_pieces(value, piece)) == json.dumps(value, ensure_ascii=False)


def test_a_large_list_comes_in_pieces_of_about_the_size_asked():
    value = {"results": [{"id": i, "name": f"item {i}", "tags": ["a", "ü"]} for i in range(20_000)], "n": 20_000}
    pieces = list(json_pieces(value, 4096))
    assert "".join(pieces) == json.dumps(value, ensure_ascii=False)
    assert len(pieces) > 100  # the list one level down was walked, not written whole
    assert max(map(len, pieces)) < 4 * 4096 + 100


def test_special_floats_and_odd_keys_are_written_as_json_dumps_writes_them():
    value = [{1: math.nan, 2.5: math.inf, False: -math.inf, None: 1e300 * 10}] * 300
    assert "".join(json_pieces(value, 64)) == json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("bad", [[{(1, 2): 1}] * 300, [object()], {"k": [{1, 2}] * 300}])
def test_what_json_dumps_cannot_write_raises_its_type_error(bad):
    with pytest.raises(TypeError):
        json.dumps(bad)
    with pytest.raises(TypeError):
        "".join(json_pieces(bad, 16))


def test_a_circular_reference_raises_value_error_before_going_round():
    loop: list = list(range(300))
    loop.append(loop)
    inner: dict = {"x": list(range(300))}
    inner["x"].append(inner)
    for bad in (loop, inner, [inner]):
        with pytest.raises(ValueError, match="Circular reference"):
            json.dumps(bad)
        with pytest.raises(ValueError, match="Circular reference"):
            "".join(json_pieces(bad, 16))


def test_a_list_subclass_is_written_by_its_own_iteration_as_json_dumps_writes_it():
    class Odd(list):
        def __iter__(self):
            return iter(["not", "these"])

    value = Odd(range(400))
    assert "".join(json_pieces(value, 32)) == json.dumps(value, ensure_ascii=False)
