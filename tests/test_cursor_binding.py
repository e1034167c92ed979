"""Cursors bound to what they page (trial: a structure cursor of one entry was accepted by a read of another entry of
the same size and paged it from a position that was no record start of it -- wrong answers, no error -- and its
16-bit CRC guard was one a model could recompute for an edited cursor).

Every structure read's cursor is refused, with one InvalidArgument, on another entry of the same size, on another
read of the same entry, and when edited; a cursor whose tag is right but whose position is not one the read makes is
refused too; following cursors to the end gives exactly the plain Python answer. Listing cursors are refused by a
listing they were not made for."""

from __future__ import annotations

import csv
import io
import json
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.api import store_listing
from scratchfs.api.listing import listing_reply
from scratchfs.engine.structure import BytesSource, jq_page, records_page, rows_page, select_page, text_page, view_page
from scratchfs.engine.structure.paging import CursorKey, encode_cursor
from scratchfs.foundation.calls import render_call

from .conftest import FIXTURES

BUDGET = 300


def _same_size(a: bytes, b: bytes, pad: bytes = b" ") -> tuple[bytes, bytes]:
    """``a`` and ``b`` padded at the end (with ``pad``, which the format ignores there) to the same size."""
    size = max(len(a), len(b))
    return a + pad * (size - len(a)), b + pad * (size - len(b))


@pytest.fixture(scope="module")
def pairs(fixture_data) -> dict[str, tuple[bytes, bytes]]:
    """Two contents of the same size per format, cut from the real fixtures."""
    table = list(csv.reader(io.StringIO(fixture_data["query-packages-by-month.csv"].decode())))
    header = table[0]
    dicts = [[dict(zip(header, row, strict=False)) for row in table[start : start + 40]] for start in (1, 41)]
    jsonl = [b"".join(json.dumps(d).encode() + b"\n" for d in part) for part in dicts]
    csvs = []
    for start in (1, 41):
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([header, *table[start : start + 40]])
        csvs.append(out.getvalue().encode())
    book = fixture_data["browser-rust-book.html"]
    grep = fixture_data["workspace-grep-stdlib-defs.txt"]
    cut = grep.index(b"\n", 20000) + 1
    ansi = b"\x1b[0m"  # (text whose view renders something: the view of text with no escape is refused)
    return {"json": _same_size(*(json.dumps(d).encode() for d in dicts)),
            "jsonl": _same_size(*jsonl),
            "csv": _same_size(*csvs, pad=b"\n"),
            "html": (book[:60000], ansi + book[60004:120000]),
            "text": _same_size(ansi + grep[4:cut], ansi + grep[cut + 4 : grep.index(b"\n", 2 * cut) + 1], pad=b"\n")}


# kind -> (format, read(structure reads, handle, cursor)); another read of the same entry, for each
READS = {
    "jq": ("json", lambda r, h, c: r.jq(h, ".[]", cursor=c, budget=BUDGET)),
    "records": ("jsonl", lambda r, h, c: r.records(h, cursor=c, budget=BUDGET)),
    "records+jq": ("jsonl", lambda r, h, c: r.records(h, jq=".name", cursor=c, budget=BUDGET)),
    "rows": ("csv", lambda r, h, c: r.rows(h, cursor=c, budget=BUDGET)),
    "html text": ("html", lambda r, h, c: r.text(h, cursor=c, budget=BUDGET)),
    "select": ("html", lambda r, h, c: r.select(h, "p", cursor=c, budget=BUDGET)),
    "terminal view": ("text", lambda r, h, c: r.text(h, cursor=c, budget=BUDGET)),
}
OTHER_READ = {
    "jq": lambda r, h, c: r.jq(h, ".[] | .name", cursor=c, budget=BUDGET),
    "records": lambda r, h, c: r.records(h, jq=".", cursor=c, budget=BUDGET),
    "records+jq": lambda r, h, c: r.records(h, jq=".month", cursor=c, budget=BUDGET),
    "rows": lambda r, h, c: r.rows(h, columns=[1, 0], cursor=c, budget=BUDGET),
    "html text": lambda r, h, c: r.select(h, "p", cursor=c, budget=BUDGET),
    "select": lambda r, h, c: r.select(h, "p, h2", cursor=c, budget=BUDGET),
    "terminal view": lambda r, h, c: r.records(h, cursor=c, budget=BUDGET),
}


def _two_entries(scope, pairs, kind):
    fmt, read = READS[kind]
    a, b = pairs[fmt]
    assert len(a) == len(b)
    ha, hb = scope.spill(a).handle, scope.spill(b).handle
    first = read(scope.structure, ha, None)
    assert first.cursor is not None
    second = read(scope.structure, ha, first.cursor)  # the cursor goes on in its own entry
    return read, ha, hb, first, second


@pytest.mark.parametrize("kind", READS)
def test_a_cursor_of_one_entry_is_refused_by_another_of_the_same_size(scope, pairs, kind):
    read, _ha, hb, first, second = _two_entries(scope, pairs, kind)
    assert second.to_dict() != first.to_dict()
    for cursor in (first.cursor, second.cursor):
        with pytest.raises(InvalidArgument, match="not made by this read of this entry"):
            read(scope.structure, hb, cursor)


@pytest.mark.parametrize("kind", READS)
def test_a_cursor_is_refused_by_another_read_of_its_entry(scope, pairs, kind):
    _read, ha, _hb, first, _second = _two_entries(scope, pairs, kind)
    with pytest.raises(InvalidArgument, match="cursor"):
        OTHER_READ[kind](scope.structure, ha, first.cursor)


@pytest.mark.parametrize("kind", READS)
def test_an_edited_or_recomputed_cursor_is_refused(scope, pairs, kind):
    read, ha, _hb, first, second = _two_entries(scope, pairs, kind)
    cursor = second.cursor or first.cursor
    body, _, tag = cursor.rpartition(".")
    numbers = body.split(".")
    edits = set()
    for i, number in enumerate(numbers):  # each number moved by one, the tag kept
        for moved in (int(number) + 1, max(0, int(number) - 1)):
            edits.add(".".join([*numbers[:i], str(moved), *numbers[i + 1 :]]) + "." + tag)
    for i in range(len(tag)):  # each character of the tag changed
        edits.add(f"{body}.{tag[:i]}{'A' if tag[i] != 'A' else 'B'}{tag[i + 1:]}")
    size = len(pairs[READS[kind][0]][0])
    for i, number in enumerate(numbers):  # a position recomputed as the 16-bit guard of before made it
        forged = ".".join([*numbers[:i], str(int(number) + 7), *numbers[i + 1 :]])
        edits.add(f"{forged}.{zlib.crc32(f'{forged}/{size}'.encode()) & 0xFFFF:04x}")
    edits.discard(cursor)
    for edited in sorted(edits):
        with pytest.raises(InvalidArgument, match="not made by this read of this entry"):
            read(scope.structure, ha, edited)


_CURSOR_CHARS = "0123456789.abcxyzABCXYZ-_"


@settings(max_examples=200)
@given(at=st.integers(0, 40), char=st.sampled_from(_CURSOR_CHARS), insert=st.booleans())
def test_any_one_character_edit_of_a_cursor_is_refused(at, char, insert):
    data = b"".join(b'{"n": %d}\n' % i for i in range(300))
    cursor = records_page(BytesSource(data), records=7, entry="h_x/token").cursor
    at = min(at, len(cursor) - (0 if insert else 1))
    edited = cursor[:at] + char + cursor[at + (0 if insert else 1) :]
    if edited != cursor:
        with pytest.raises(InvalidArgument, match="not made by this read of this entry"):
            records_page(BytesSource(data), cursor=edited, entry="h_x/token")
    assert records_page(BytesSource(data), cursor=cursor, entry="h_x/token").first == 8
    with pytest.raises(InvalidArgument, match="not made by this read of this entry"):
        records_page(BytesSource(data), cursor=cursor, entry="h_y/token")  # the same content, another entry


def test_a_cursor_survives_a_ttl_refresh(store_factory_refresh):
    scope = store_factory_refresh.scope("r", "a")
    handle = scope.spill(b"".join(b'{"n": %d}\n' % i for i in range(200))).handle
    page = scope.structure.records(handle, records=5)
    for _ in range(3):  # every read pushes the expiry on
        again = scope.structure.records(handle, records=5, cursor=page.cursor)
    assert again.first == 6 and again.items == [{"n": i} for i in range(5, 10)]


@pytest.fixture
def store_factory_refresh(scratch_store_factory):
    return scratch_store_factory("refresh", refresh_on_read=True)


# -- positions checked on use (the tag is right: the engine's key without an entry) ---------------------------------


def test_a_record_cursor_must_name_a_record_start():
    data = b'{"a": 1}\n\n{"b": 2}\n{"c": 3}\n'
    key = CursorKey("records", len(data))  # (bound to the read, not its start: row=/record= are checked by the API)
    assert records_page(BytesSource(data), cursor=encode_cursor((2, 10, 0, 0), key)).items == [{"b": 2}, {"c": 3}]
    for numbers in ((2, 4, 0, 0), (2, 9, 0, 0), (2, 10, 1, 0), (0, 10, 0, 0), (2, len(data) + 1, 0, 0)):
        with pytest.raises(InvalidArgument, match="cursor"):
            records_page(BytesSource(data), cursor=encode_cursor(numbers, key))


def test_a_row_cursor_must_name_a_row_start():
    data = b"a,b\n1,2\n3,4\n"
    key = CursorKey("rows\0,\0None", len(data))
    assert rows_page(BytesSource(data), cursor=encode_cursor((2, 8, 0), key)).items == [["3", "4"]]
    for numbers in ((1, 0, 0), (2, 9, 0), (0, 8, 0)):
        with pytest.raises(InvalidArgument, match="cursor"):
            rows_page(BytesSource(data), cursor=encode_cursor(numbers, key))


def test_a_view_cursor_must_name_a_line_start():
    data = b"one\ntwo\nthree\n"
    key = CursorKey("view\x000\x00None", len(data))  # from offset 0
    assert view_page(BytesSource(data), cursor=encode_cursor((4, 4, 0), key)).text == "two\nthree\n"
    with pytest.raises(InvalidArgument, match="cursor"):
        view_page(BytesSource(data), cursor=encode_cursor((5, 4, 0), key))


def test_a_text_view_cursor_must_name_a_character_start():
    data = "<p>Grüße aus Köln</p>".encode()
    key = CursorKey("html-text\x000", len(data))  # from offset 0
    view = text_page(BytesSource(data)).text.encode()
    inside = view.index("ü".encode()) + 1
    assert text_page(BytesSource(data), cursor=encode_cursor((inside + 1,), key)).text == view[inside + 1 :].decode()
    for offset in (inside, len(view)):
        with pytest.raises(InvalidArgument, match="cursor"):
            text_page(BytesSource(data), cursor=encode_cursor((offset,), key))


def test_an_item_cursor_must_name_an_item_and_a_place_inside_it():
    html = b"<p>one</p><p>two</p>"
    key = CursorKey("select\0p", len(html))
    assert select_page(BytesSource(html), "p", cursor=encode_cursor((1, 0), key)).items == ["two"]
    for numbers in ((2, 0), (1, 3), (0, 9)):
        with pytest.raises(InvalidArgument, match="cursor"):
            select_page(BytesSource(html), "p", cursor=encode_cursor(numbers, key))
    doc = b'["abc", "de"]'
    key = CursorKey("jq\0.[]", len(doc))
    assert jq_page(BytesSource(doc), ".[]", cursor=encode_cursor((0, 2), key)).part == 'bc"'
    for numbers in ((0, 5), (1, 4), (2, 1), (2, 0)):
        with pytest.raises(InvalidArgument, match="cursor"):
            jq_page(BytesSource(doc), ".[]", cursor=encode_cursor(numbers, key))


# -- following cursors gives the plain answer -----------------------------------------------------------------------

_VALUE = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=40),
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                 max_size=4), max_leaves=12)


def _follow(read) -> list:
    """Every item of a read by following its cursors, a cut item joined from its ``part`` pieces (its compact JSON)."""
    out, piece, seen = [], "", set()
    cursor = None
    for _ in range(10_000):
        page = read(cursor)
        if page.part is not None:
            piece += page.part
            if page.cursor is None or page.cursor.split(".")[-2] == "0":  # the cut item ended on this page
                out.append(json.loads(piece))
                piece = ""
        out.extend(page.items)
        cursor = page.cursor
        if cursor is None:
            assert not piece
            return out
        assert cursor not in seen
        seen.add(cursor)
    raise AssertionError("the cursor never ended")


@settings(max_examples=40)
@given(records=st.lists(_VALUE, max_size=30), blanks=st.lists(st.integers(0, 30), max_size=5),
       per_page=st.integers(1, 7), budget=st.integers(256, 900))
def test_following_record_cursors_gives_every_record_once(scope, records, blanks, per_page, budget):
    lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in records]
    for at in blanks:
        lines.insert(min(at, len(lines)), "  \n")
    handle = scope.spill("".join(lines).encode()).handle
    expected = [json.loads(line) for line in "".join(lines).split("\n") if line.strip()]  # the plain answer
    assert _follow(lambda c: scope.structure.records(handle, records=per_page, cursor=c, budget=budget)) == expected


@settings(max_examples=40)
@given(cells=st.lists(st.lists(st.text(st.characters(codec="utf-8", exclude_characters="\r\x00"), max_size=30),
                               min_size=2, max_size=2), max_size=25),
       per_page=st.integers(1, 7), budget=st.integers(256, 900))
def test_following_row_cursors_gives_every_row_once(scope, cells, per_page, budget):
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([["name", "note"], *cells])
    expected = [row for row in csv.reader(io.StringIO(out.getvalue())) if row][1:]  # the plain answer
    handle = scope.spill(out.getvalue().encode()).handle
    assert _follow(lambda c: scope.structure.rows(handle, rows=per_page, cursor=c, budget=budget)) == expected


@settings(max_examples=30)
@given(values=st.lists(_VALUE | st.text(min_size=100, max_size=900), max_size=12), budget=st.integers(256, 900))
def test_following_jq_cursors_gives_every_output_once(scope, values, budget):
    handle = scope.spill(json.dumps(values).encode()).handle
    assert _follow(lambda c: scope.structure.jq(handle, ".[]", cursor=c, budget=budget)) == values


# -- listing cursors ------------------------------------------------------------------------------------------------


def test_a_listing_cursor_is_refused_by_another_listing(store):
    a, b = store.scope("r-list", "a"), store.scope("r-list", "b")
    for scope in (a, b):
        for key in ("x1", "x2", "x3", "y1", "y2", "y3"):
            scope.scratch_write(key, b"v")
    xs = a.scratch_page("x", limit=1)
    assert [e.key for e in a.scratch_page("x", limit=5, cursor=xs.next_cursor).entries] == ["x2", "x3"]
    with pytest.raises(InvalidArgument, match="another listing"):
        a.scratch_page("y", limit=5, cursor=xs.next_cursor)  # would have skipped y1 and y2
    with pytest.raises(InvalidArgument, match="another listing"):
        b.scratch_page("x", limit=5, cursor=xs.next_cursor)  # another agent's listing
    with pytest.raises(InvalidArgument, match="another listing"):
        a.scratch_page("", limit=5, cursor=xs.next_cursor)  # a position it could hold, of another prefix's listing
    run_page = store.list_page_for_run("r-list", limit=1)
    assert store.list_page_for_run("r-list", limit=20, cursor=run_page.next_cursor).entries  # its own listing
    for other in (a.scratch_page("", limit=1).next_cursor, xs.next_cursor):  # the scratchpad's, not the run's
        with pytest.raises(InvalidArgument, match="another listing"):
            store.list_page_for_run("r-list", limit=20, cursor=other)
    with pytest.raises(InvalidArgument, match="another listing"):
        a.scratch_page("", limit=5, cursor=run_page.next_cursor)
    store.scope("r-twin", "a").scratch_write("x1", b"v")  # another run, the same agent, kind and keys
    with pytest.raises(InvalidArgument, match="another listing"):
        store.scope("r-twin", "a").scratch_page("x", limit=5, cursor=xs.next_cursor)
    with pytest.raises(InvalidArgument, match="another listing"):
        store.list_page_for_run("r-twin", limit=5, cursor=run_page.next_cursor)
    now = store.now()
    (_entry, last), = list(store_listing.iter_entries(store, now, "r-list", limit=1))
    assert len(list(store_listing.iter_entries(store, now, "r-list", after=last))) == 11
    store.scope("r-other", "a").scratch_write("k", b"v")
    with pytest.raises(InvalidArgument, match="run 'r-list'"):
        store_listing.iter_entries(store, now, "r-other", after=last)  # listed the whole run, or nothing
    with pytest.raises(InvalidArgument, match="run 'r-list'"):
        store_listing.count_entries(store, now, "r-other", after=last)


def test_a_shorter_listing_page_writes_each_call_once(store, monkeypatch):
    """_shorter_page measured each row count's call by building its page, then built the page again to plan and to
    reply: the call of a row count was written up to three times. Now once."""
    monkeypatch.setattr("scratchfs.foundation.cursors._PACK_OVER", 10**9)  # long cursors, as unpackable keys make
    scope = store.scope("r-once", "a")
    keys = ["!0", *('"' * 500 + f"{i:02d}" for i in range(30))]
    for key in [*keys, '"' * 500 + "99"]:
        scope.scratch_write(key, b"v")
    page = scope.scratch_page("", limit=len(keys))
    written = []

    def call(cursor):
        written.append(cursor)
        return render_call("scratch_list", prefix="p" * 600, cursor=cursor)

    reply = listing_reply({"prefix": "p" * 600}, [{"n": i} for i in range(len(keys))], page, call, 2048)
    assert reply["entries"] == [{"n": 0}] and reply["next_call"] == call(page.cursor_after(1))
    written.pop()
    assert len(written) == len(set(written)), sorted(written.count(c) for c in set(written))[-3:]



@pytest.mark.parametrize("bad", ["zzz", "another listing's"])
def test_a_scratch_list_cursor_refused_names_the_listing_from_its_start(tmp_path, bad):
    """hostile15: ``scratch_list(cursor="zzz")`` was refused as "not a listing cursor: 'zzz'" with no call to go on
    with; a bad cursor's refusal names the listing from its start, the caller's prefix, limit and budget kept, and
    that call runs."""
    import re

    from scratchfs import ScratchStore
    from scratchfs.api.contract import ScratchTools, error_text

    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        for i in range(5):
            scope.scratch_write(f"k{i}", b"v")
        tools = ScratchTools(scope)
        cursor = "zzz" if bad == "zzz" else re.search(r'cursor="([^"]+)"',
                                                     tools.call("scratch_list", {"limit": 2})["next_call"])[1]
        with pytest.raises(InvalidArgument) as refused:
            tools.call("scratch_list", {"prefix": "k", "limit": 3, "cursor": cursor, "budget": 3000})
        (call,) = refused.value.advice.calls
        assert str(call) == 'scratch_list(prefix="k", limit=3, budget=3000)', error_text(refused.value)
        assert error_text(refused.value).endswith(str(call))
        assert [row["key"] for row in tools.call("scratch_list", dict(call.arguments))["entries"]] == ["k0", "k1", "k2"]


@pytest.mark.parametrize("prefix", ["a\x00cursor", "cursor \x00", "not a listing cursor\x00"])
def test_a_prefix_refused_beside_a_cursor_names_no_listing(tmp_path, prefix):
    """A prefix's refusal echoes the prefix: one holding the word "cursor" was taken for a cursor's refusal and
    named the listing from its start (itself refused again). It is no BadCursor, whatever its words."""
    from scratchfs import BadCursor, ScratchStore
    from scratchfs.api.contract import ScratchTools

    with ScratchStore(tmp_path) as store, pytest.raises(InvalidArgument) as refused:
        ScratchTools(store.scope("r", "a")).scratch_list(prefix=prefix, cursor="zzz")
    assert str(refused.value) == f"prefix contains a control character: {prefix!r}" and not refused.value.calls
    assert not isinstance(refused.value, BadCursor)


def test_every_cursor_refusal_is_a_bad_cursor(tmp_path):
    """A cursor refused -- a listing's (malformed, another listing's; scratch_list's, a run's, the inspector's) or a
    structure read's (forged, of another read) -- is a BadCursor, of InvalidArgument's kind: scratch_list names its
    listing from the start by that type, not by the refusal's words."""
    from scratchfs import BadCursor, ScratchStore
    from scratchfs.api.contract import ScratchTools, error_text

    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        for key in ("k1", "k2", "x1"):
            scope.scratch_write(key, b"v")
        tools = ScratchTools(scope)
        another = scope.scratch_page("", limit=1).next_cursor
        handle = scope.spill(b"".join(b'{"n": %d}\n' % i for i in range(50))).handle
        jq_cursor = scope.structure.records(handle, records=2, jq=".n").cursor
        read = {"handle": handle, "records": 2}
        assert tools.call("read_handle", {**read, "jq": ".n", "cursor": jq_cursor})["results"] == [2, 3]
        refusals = {
            "malformed": lambda: tools.call("scratch_list", {"cursor": "zzz"}),
            "another listing": lambda: tools.call("scratch_list", {"prefix": "k", "cursor": another}),
            "scratch_page": lambda: scope.scratch_page("k", cursor=another),
            "run listing": lambda: store.list_page_for_run("r", limit=5, cursor=another),
            "inspector": lambda: store_listing.decode_cursor("zzz"),
            "inspector of another run": lambda: store_listing.iter_entries(store, store.now(), "r2",
                                                                           after=("r", 0.0, 1)),
            "forged": lambda: tools.call("read_handle", {**read, "cursor": "1.2.3.4.abcdefghij"}),
            "another read": lambda: tools.call("read_handle", {**read, "cursor": jq_cursor}),
        }
        for name, refused in refusals.items():
            with pytest.raises(BadCursor) as caught:
                refused()
            assert caught.value.kind == "invalid argument" and error_text(caught.value).startswith(
                "invalid argument: "), name
        with pytest.raises(BadCursor) as caught:
            tools.call("scratch_list", {"prefix": "k", "cursor": another})
        assert [str(call) for call in caught.value.calls] == ['scratch_list(prefix="k")']


@pytest.mark.parametrize(("fixture", "read"), [
    ("query-packages-by-month.csv", {"row": 3, "rows": 5}),
    ("api-ec2-service-model.json", {"jq": ".operations | keys[]"}),
    ("browser-rust-book.html", {"view": "text"}),
    (None, {"record": 2, "records": 4, "jq": ".n"}),
    (None, {"jq": ".[].n", "slurp": True})])
def test_a_structure_read_s_refused_cursor_names_the_read_from_its_start(tmp_path, fixture, read):
    """A structure read's cursor refused (another read's, forged) said "start the read again without one" in words
    alone; it names that read -- the same arguments, budget kept, no cursor -- and following it gives the read's
    first page, what the read without a cursor gives."""
    from scratchfs import BadCursor, ScratchStore
    from scratchfs.api.contract import ScratchTools

    content = (FIXTURES / fixture).read_bytes() if fixture else b"".join(b'{"n": %d}\n' % i for i in range(300))
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        handle = scope.spill(content, source_tool="t").handle
        first = tools.call("read_handle", {"handle": handle, **read, "budget": 3000})
        another = scope.structure.records(scope.spill(b'{"n": 1}\n' * 50).handle, records=2).cursor
        for cursor in (another, "1.2.3.4.abcdefghij"):
            with pytest.raises(BadCursor) as caught:
                tools.call("read_handle", {"handle": handle, **read, "cursor": cursor, "budget": 3000})
            (again,) = caught.value.calls
            assert again.verb == "read_handle" and dict(again.arguments) == {"handle": handle, **read, "budget": 3000}
            assert tools.call("read_handle", dict(again.arguments)) == first
