"""A large closed JSON array's shape parsed a piece at a time (scratchfs/api/json_chunks.py, helper jsonsample1):
the same shape as its whole parse on generated documents, valid or not, cut anywhere; and what it holds alive."""

from __future__ import annotations

import json
import tracemalloc

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from scratchfs.api import json_chunks
from scratchfs.api.json_chunks import array_items
from scratchfs.api.shape import describe
from scratchfs.api.shape_json import json_shape
from scratchfs.engine.structure.numbers import refuse_constant

_TRICKY = '[]{},:"\\/ \n\t\x7fé☃\U0001f600\ud800'
STRINGS = st.lists(st.sampled_from([*_TRICKY, "a", "[1,", "],", '\\"', "{}"]), max_size=8).map("".join)
SCALARS = (st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.integers(-10**30, 10**30)
           | st.floats(allow_nan=False, allow_infinity=False) | STRINGS)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(STRINGS, inner, max_size=4), max_leaves=12)
ITEMS = st.one_of(st.lists(SCALARS, min_size=1, max_size=60), st.lists(VALUES, min_size=1, max_size=60),
                  st.lists(st.lists(st.integers(0, 9), max_size=3), min_size=1, max_size=80))
MUTATIONS = st.sampled_from(["", "", "cut", "cut-close", "nan", "double-comma", "trailing-comma", "extra",
                             "huge-int", "control", "bad-escape", "lines"])


def _text(items: list, indent: int | None, ascii_only: bool, mutation: str, at: int) -> str:
    text = json.dumps(items, indent=indent, ensure_ascii=ascii_only)
    where = at % max(1, len(text) - 1) + 1
    if mutation == "cut":
        return text[:where]
    if mutation == "cut-close":
        return text[:where] + "]"
    if mutation == "nan":
        return text[:-1] + ", NaN]"
    if mutation == "double-comma":
        comma = text.find(",", where)
        return text if comma < 0 else text[:comma] + "," + text[comma:]
    if mutation == "trailing-comma":
        return text[:-1] + ",]"
    if mutation == "extra":
        return text + " [1]"
    if mutation == "huge-int":
        return text[:-1] + ", " + "7" * 5000 + "]"
    if mutation in ("control", "bad-escape"):
        quote = text.find('"', where)
        return text if quote < 0 else text[:quote + 1] + ("\x01" if mutation == "control" else "\\x") + text[quote + 1:]
    if mutation == "lines":
        return text + "\n" + text
    return text


def _shapes(text: str, chunk: int) -> tuple:
    """``json_shape`` of ``text`` as a whole content, parsed whole and parsed in pieces of ``chunk`` characters."""
    saved = json_chunks.CHUNKED_FROM, json_chunks.CHUNK_CHARS
    try:
        json_chunks.CHUNKED_FROM = len(text) + 1
        whole = json_shape(text, True, len(text.encode("utf-8", "surrogatepass")), text.count("\n") + 1, "")
        json_chunks.CHUNKED_FROM, json_chunks.CHUNK_CHARS = 0, chunk
        parts = json_shape(text, True, len(text.encode("utf-8", "surrogatepass")), text.count("\n") + 1, "")
    finally:
        json_chunks.CHUNKED_FROM, json_chunks.CHUNK_CHARS = saved
    return whole, parts


@settings(max_examples=600, deadline=None)
@given(ITEMS, st.sampled_from([None, 0, 2]), st.booleans(), MUTATIONS, st.integers(0, 10**6), st.integers(1, 80))
@example([[1, 2], [3]] * 40, None, True, "", 0, 1)
@example(['a"[,', "]", "\\", ["x,"]] * 20, None, False, "", 0, 3)
@example([1.5, 2, True, None, "s", [1]] * 10, 2, True, "", 0, 5)
def test_pieces_give_the_whole_parse_s_shape(items, indent, ascii_only, mutation, at, chunk):
    text = _text(items, indent, ascii_only, mutation, at)
    whole, parts = _shapes(text, chunk)
    assert parts == whole


NO_OBJECTS = st.lists(VALUES.filter(lambda value: not isinstance(value, dict)), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(st.builds(lambda first, rest: [first, *rest], st.lists(st.integers(0, 9), max_size=3), NO_OBJECTS),
       st.sampled_from([None, 2]), st.integers(1, 63))
@example([[1, 2], [3], "a", 1.5, None, True, 7, [], [{"k": [1]}]] * 9, None, 7)
def test_the_items_kept_are_the_array_s_or_stand_ins_of_their_type(items, indent, chunk):
    text = json.dumps(items, indent=indent)
    decoder = json.JSONDecoder(parse_constant=refuse_constant)
    saved = json_chunks.CHUNKED_FROM, json_chunks.CHUNK_CHARS
    try:
        json_chunks.CHUNKED_FROM, json_chunks.CHUNK_CHARS = 0, chunk
        kept = array_items(text, decoder)
    finally:
        json_chunks.CHUNKED_FROM, json_chunks.CHUNK_CHARS = saved
    value = json.loads(text)
    assume(kept is not None)  # (None: parsed whole -- a first piece of objects, or of no arrays)
    assert len(kept) == len(value)
    assert list(map(type, kept)) == list(map(type, value))
    assert kept[0] == value[0] and kept[-1] == value[-1]
    assert [one for one in kept if isinstance(one, dict)] == [one for one in value if isinstance(one, dict)]


def _arrays(size: int = 512 * 1024) -> bytes:
    """``bench/json_shape_costs.py``'s closed array of small arrays (``[[1,2],[3]], ...``), ``size`` bytes at most."""
    text = b"[" + b"[[1,2],[3]], " * (size // 13)
    return text[: size - 20].rsplit(b",", 1)[0] + b"]"


def test_a_large_array_of_small_arrays_is_never_all_alive_at_once():
    # Parsed whole, its ~120,000 lists were alive at once: a traced peak of 22 times its 512 KiB, allocated into
    # wherever a long-lived process's heap had free blocks (bench/long_lived.py --scatter: 2.5-2.9x slower); in
    # pieces 5 times (its text decoded, a bytes copy of it for json_unclosed, the 40,328 items' list of stand-ins).
    data = _arrays()
    describe(data[:1024], 1024, 1)  # (modules and caches warmed outside the trace)
    tracemalloc.start()
    try:
        found = describe(data, len(data), 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found.text == "JSON array of 40,328 items; items: array(2) of array(1-2) of int"
    assert peak < 8 * len(data), peak
