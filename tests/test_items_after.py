"""The K of a JSON array's note ``jq=".[K:][]"`` is exactly the number of items the preview shows whole: a number
(true, false, null) counted whole only at the comma after it, so a preview ending right after it (``[1, 2, 3`` of
``[1, 2, 3 , 4]``, or of ``[1, 2, 3]``) gave K one short and the read showed that item again. Whether it is whole is
told by the content's next byte, not the preview's. Checked against Python's own JSON decoder."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.stub_reads import ItemsAfter

_ITEM = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False, allow_infinity=False), st.booleans(),
                  st.none(), st.text(alphabet='ab,]["\\{} é', max_size=6),
                  st.dictionaries(st.text(alphabet="ab]", max_size=2), st.integers(0, 99), max_size=2),
                  st.lists(st.integers(0, 9), max_size=3))
_SPACE = st.sampled_from(["", " ", "\n  ", "\t", "\r\n"])


def _ends(text: str) -> tuple[list[int], int]:
    """Where each top-level item of the JSON array ``text`` ends (the byte after its last) and where its ``]`` is,
    as json's decoder reads it."""
    decoder, data = json.JSONDecoder(), text.encode()
    at, ends = text.index("[") + 1, []
    while True:
        at += len(text[at:]) - len(text[at:].lstrip(" \t\r\n"))
        if text[at] == "]":
            return ends, len(text[:at].encode())
        _, at = decoder.raw_decode(text, at)
        ends.append(len(text[:at].encode()))
        at += len(text[at:]) - len(text[at:].lstrip(" \t\r\n"))
        at += text[at] == ","
        assert data  # (bytes offsets: the text has multibyte characters)


@settings(max_examples=400, deadline=None)
@given(items=st.lists(_ITEM, max_size=8), spaces=st.lists(_SPACE, min_size=3, max_size=3), cut=st.floats(0, 1),
       extra=st.integers(0, 3))
def test_k_counts_exactly_the_items_the_preview_shows_whole(items, spaces, cut, extra):
    before, after, lead = spaces
    text = lead + "[" + before + f"{after},{before}".join(json.dumps(i, ensure_ascii=False) for i in items) + after \
        + "]"
    data = text.encode()
    ends, closed = _ends(text)
    covered = int(cut * len(data))
    whole = sum(end <= covered for end in ends)
    head = data[: covered + 1 + extra]  # (the content's next byte is at hand, as a stub's head holds it)
    last = whole == len(ends) and closed < len(head)  # (every item shown, and the head holds the "]" that says so)
    expected = None if closed < covered or not whole else "" if last else f'jq=".[{whole}:][]")'
    assert ItemsAfter(head).call(covered) == expected, (text, covered)


@pytest.mark.parametrize(("head", "covered", "read"), [
    (b"[1, 2, 3 , 4]", 8, 'jq=".[3:][]")'),  # (3 whole: the space after it says so, before any comma)
    (b"[1, 2, 3]", 8, ""),  # (3 whole and the last: the array's "]" follows; no read of items is left to name)
    (b"[1, 2, 3, 4]", 8, 'jq=".[3:][]")'),  # (3 whole, not the last: the read starts at 4)
    (b"[1, 2, true\n, 4]", 11, 'jq=".[3:][]")'),
    (b"[1, 2, 34, 5]", 8, 'jq=".[2:][]")'),  # (34 cut: "3" is not it)
    (b"[1, 2, 3", 8, 'jq=".[2:][]")'),  # (the head's end: 3 may go on, 34: not counted)
])
def test_a_number_at_the_preview_s_end_counts_whole_when_the_next_byte_ends_it(head, covered, read):
    assert ItemsAfter(head).call(covered) == read


def test_a_stub_whose_preview_shows_every_item_names_no_read_of_items(tmp_path):
    """An array whose items all fit the preview, its ``]`` after them past it (here after 400 spaces): no
    ``jq=".[K:][]"``, which would read nothing, and not ``jq=".[0]"``, which the preview shows."""
    from scratchfs import ScratchStore

    payload = json.dumps(list(range(150))).encode()[:-1] + b" " * 400 + b"]"
    with ScratchStore(tmp_path / "store") as store:
        stub = store.scope("run", "agent").spill(payload, source_tool="t")
    assert "jq=" not in stub.note and "offset=1024" in stub.note, stub.note
