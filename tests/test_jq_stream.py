"""Path reads past the jq bound stream (scratchfs.engine.structure.jsonstream) and answer as jq does: the same
outputs in the same order, numbers as written, jq's error where jq fails; and their pages resume where the last one
stopped, so page k reads about one page of the document, not the k pages before it."""

from __future__ import annotations

import decimal
import json
import re

import jq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument, ScratchStore
from scratchfs.api import stub_reads as stub_module  # (the note's structure read is chosen there)
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import BytesSource, jq_page, jsondoc, jsonscan
from scratchfs.engine.structure.jsonstream import failed_step
from scratchfs.engine.structure.paging import CursorKey, decode_cursor, encode_cursor

_NUMBER = st.sampled_from(["0", "-0", "1.10", "1e400", "-1E-7", "12345678901234567890123", "2.5", "-0.0", "7"])
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=34).map(
    lambda t: json.dumps(t, ensure_ascii=False))
_KEYS = ["a", "b", "item", "a.b", "é"]
_DOC = st.recursive(
    _NUMBER | _TEXT | st.sampled_from(["true", "false", "null"]),
    lambda inner: st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]")
    | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4).map(
        lambda d: "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}: {v}" for k, v in d.items()) + "}"),
    max_leaves=14)
_STEP = st.sampled_from(_KEYS).map(lambda k: (f".{k}" if re.fullmatch("[a-z]+", k) else f'.["{k}"]'))  \
    | st.integers(0, 3).map(lambda n: f"[{n}]") | st.just("[]")
_PATH = st.lists(_STEP, max_size=4).map(lambda steps: "." if not steps else "".join(
    (("." + s) if i == 0 and s.startswith("[") else s) for i, s in enumerate(steps)))


class _Counting(BytesSource):
    """A source that counts the bytes read from it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.bytes_read = 0

    def read(self, offset: int, length: int) -> bytes:
        data = super().read(offset, length)
        self.bytes_read += len(data)
        return data


def _jq(doc: str, flt: str) -> tuple[list, str | None]:
    """jq's outputs (each from its own text, numbers exact) and its error message (as the jq read gives it), if it
    fails."""
    out: list = []
    try:
        for text in jq.compile(f"{flt} | tojson").input_text(doc):
            out.append(_exact(text))
    except ValueError as exc:
        return out, f"jq: {' '.join(str(exc).split())}"
    return out, None


def _exact(text: str):
    return json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal)


def _pages(doc: str, flt: str, budget: int, max_results: int) -> tuple[list[str], list, str | None]:
    """Every output of a paged read: as the model receives it (cut outputs joined, each given as its compact JSON),
    as a value with exact numbers (``as_text`` outputs read from their text), and the message of the
    InvalidArgument that ended the read, if one did."""
    out: list[str] = []
    exact: list = []
    piece, cursor = "", None
    source = BytesSource(doc.encode(), 7)
    while True:
        try:
            page = jq_page(source, flt, cursor, budget, max_results)
        except InvalidArgument as exc:
            return out, exact, str(exc)
        body = page.to_dict()
        assert len(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()) <= budget
        if page.part is not None:
            piece += page.part
            if page.cursor is None or page.items or page.cursor.split(".")[-2] == "0":
                out.append(json.dumps(json.loads(piece), ensure_ascii=False, separators=(",", ":")))
                exact.append(_exact(piece))
                piece = ""
        as_text = body.get("as_text", [])
        for index, item in enumerate(page.items):
            out.append(json.dumps(item, ensure_ascii=False, separators=(",", ":")))
            exact.append(_exact(item if index in as_text else out[-1]))
        cursor = page.cursor
        if cursor is None:
            return out, exact, None


def _streamed(monkeypatch, *args, tiny=False):
    """The read past the jq bound; ``tiny``: with reads of a few bytes, ``json`` given 8 or 64 bytes of a container,
    and containers skipped by brackets from 2 levels down, so small documents take every way of the scanner."""
    with monkeypatch.context() as patch:
        patch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
        if tiny:
            patch.setattr(jsonscan, "CHUNK_BYTES", 5)
            patch.setattr(jsonscan, "_WINDOWS", (8, 64))
            patch.setattr(jsonscan, "_DESCEND", 2)
        return _pages(*args)


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(_DOC, min_size=1, max_size=2), flt=_PATH, budget=st.integers(256, 900),
       max_results=st.integers(1, 4), tiny=st.booleans())
def test_streamed_path_reads_answer_as_jq_does(monkeypatch, docs, flt, budget, max_results, tiny):
    doc = "\n".join(docs)
    outputs, error = _jq(doc, flt)
    under = _pages(doc, flt, budget, max_results)  # jq itself, paged
    past = _streamed(monkeypatch, doc, flt, budget, max_results, tiny=tiny)
    if error is None:
        assert past == under, (doc, flt)
        assert past[1] == outputs, (doc, flt)
    else:  # a page that meets the error fails: the outputs of the pages before it, then jq's message
        assert past[2] == under[2] == error + failed_step(error.removeprefix("jq: ")), (doc, flt)
        assert past[1] == outputs[: len(past[1])], (doc, flt)
        assert under[1] == outputs[: len(under[1])], (doc, flt)


@pytest.mark.parametrize(("doc", "flt", "want"), [
    ('{"a": 5}', ".missing", ["null"]),
    ('{"a": 5}', ".a.b", 'jq: Cannot index number with string ("b")'),
    ("[1, 2]", ".[3]", ["null"]),
    ("[1, 2]", ".[3].x", ["null"]),
    ('{"items": {"p": 1, "q": [2]}}', ".items[]", ["1", "[2]"]),
    ('{"x": null}', ".x[]", "jq: Cannot iterate over null (null)"),
    ('{"x": 1.10}', ".x[]", "jq: Cannot iterate over number (1.10)"),
    ('{"x": "abcdefghijklmnopqrstuvwxyz0123"}', ".x[]",
     'jq: Cannot iterate over string ("abcdefghijklmnopqrstuvwx...")'),
    ('{"a": 1}', '.["a"]', ["1"]),
    ('{"a": [1, {"b": 2}, null]}', ".a[].b", 'jq: Cannot index number with string ("b")'),
    ('[{"b": 1}, null, {"c": 2}]', ".[].b", ["1", "null", "null"]),
    ("[1.10, 1e400, 12345678901234567890123, -0, -0.0]", ".[]",
     ["1.1", '"1E+400"', "12345678901234567890123", "-0.0", "-0.0"]),
])
def test_streamed_reads_give_jqs_answer_in_the_cases_they_missed(monkeypatch, doc, flt, want):
    outputs, exact, error = _streamed(monkeypatch, doc, flt, 8192, 100)
    assert (outputs if error is None else error) == (
        want if isinstance(want, list) else want + failed_step(want.removeprefix("jq: ")))
    assert _pages(doc, flt, 8192, 100) == (outputs, exact, error)  # the jq read under the bound


def test_a_page_costs_what_it_reads_not_the_pages_before_it(monkeypatch):
    monkeypatch.setattr(jsonscan, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
    items = [{"id": i, "name": f"n{i}", "tags": ["x", {"y": [i, "]}"]}]} for i in range(6000)]
    data = json.dumps({"head": {"items": 1}, "items": items, "tail": [1]}).encode()
    source = _Counting(data)
    cursor, pages, got, worst = None, 0, [], 0
    while True:
        before = source.bytes_read
        page = jq_page(source, ".items[].id", cursor, budget_bytes=1024, max_results=50)
        worst = max(worst, source.bytes_read - before)
        got.extend(page.items)
        pages += 1
        cursor = page.cursor
        if cursor is None:
            break
    assert got == list(range(6000))
    assert pages > 30
    assert worst <= 4 * 4096  # one page of items (about 3 KB), a chunk past each end, the look-back at the point
    assert source.bytes_read <= len(data) + pages * (2 * 4096 + 64)


def test_a_cursor_edited_or_pointing_elsewhere_is_refused_never_read(monkeypatch):
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
    doc = b'{"items": [{"id": 1, "s": "x, 9, [8"}, {"id": 2}, {"s": "\\"id\\": 7", "id": 3}, {"id": 4}], "n": 1}'
    flt = ".items[].id"
    page = jq_page(BytesSource(doc), flt, budget_bytes=256, max_results=1, entry="h/secret")
    number, offset, depth, mask, chars = page_numbers = decode_cursor(
        page.cursor, 5, CursorKey(f"jqstream\0{flt}", len(doc), "h/secret"))
    assert (number, depth, mask, chars) == (1, 3, 2, 0) and doc[offset:].startswith(b'"id": 2')
    edited = page.cursor.replace(f".{offset}.", f".{offset + 1}.")
    with pytest.raises(InvalidArgument, match="cursor"):
        jq_page(BytesSource(doc), flt, edited, budget_bytes=256, entry="h/secret")
    truth = [1, 2, 3, 4]
    key = CursorKey(f"jqstream\0{flt}", len(doc))  # no secret: anyone can make such a cursor; the walk checks it
    for forged in range(len(doc) + 2):
        cursor = encode_cursor((number, forged, depth, mask, chars), key)
        try:
            items = _pages_from(doc, flt, cursor)
        except InvalidArgument:
            continue
        assert items == truth[len(truth) - len(items):], (forged, items)  # a true point: what follows it
    for numbers in [(number, offset, 1, mask, 0), (number, offset, depth, 1, 0), (number, offset, 3, 6, 0),
                    (number, offset, 2, 2, 0), (number, len(doc), depth, mask, 0)]:
        with pytest.raises(InvalidArgument, match="cursor"):
            _pages_from(doc, flt, encode_cursor(numbers, key))
    assert page_numbers[1] == offset


def _pages_from(doc: bytes, flt: str, cursor: str) -> list:
    out = []
    while cursor is not None:
        page = jq_page(BytesSource(doc), flt, cursor, budget_bytes=4096)
        out.extend(page.items)
        cursor = page.cursor
    return out


def test_an_output_cut_across_pages_resumes_inside_it(monkeypatch):
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
    doc = json.dumps({"rows": [{"t": "é" * 900}, 5, {"t": "x" * 2000, "n": 1e400}]}, ensure_ascii=False)
    doc = doc.replace("Infinity", "1e400")
    for cache_key in (None, "doc-1"):
        cursor, parts, items = None, [], []
        while True:
            page = jq_page(BytesSource(doc.encode()), ".rows[]", cursor, 300, 10, cache_key=cache_key)
            parts.append(page.part)
            items.extend(page.items)
            cursor = page.cursor
            if cursor is None:
                break
        text = "".join(p for p in parts if p is not None)
        assert items == [5]
        assert text == '{"t":"' + "é" * 900 + '"}' + '{"t":"' + "x" * 2000 + '","n":1E+400}'


def test_malformed_documents_are_refused_where_the_read_goes(monkeypatch):
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
    for doc, flt in [(b'{"a": [1, 2, ', ".a[]"), (b'{"a": [1, 2}', ".a[]"), (b'{"a": [1, tru]}', ".b"),
                     (b'{"a": 1 "b": 2}', ".b"), (b'{"a": "\xff"}', ".a"), (b'[1, 2] x', ".[0]")]:
        with pytest.raises(InvalidArgument, match=r"not valid JSON|not UTF-8"):
            jq_page(BytesSource(doc, 3), flt, budget_bytes=4096)


def test_the_stub_of_an_object_past_the_jq_bound_offers_a_path_read_of_a_key_that_works(monkeypatch, tmp_path):
    """Past the jq bound (64 MiB) an array's stub offered ``jq=".[]"`` and an object's offered no structure read at
    all, though path reads of its keys stream; it now offers ``jq=".KEY[]"`` (the items of a key its shape names,
    streamed a page at a time), and that call, with a key put in, answers as jq does over the whole document."""
    monkeypatch.setattr(stub_module, "MAX_JQ_DOCUMENT_BYTES", 10_000)
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 10_000)
    doc = {"meta": {"n": 3, "src": "x"}, "items": [{"id": i, "name": f"item {i}"} for i in range(2000)]}
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        spilled = scope.spill(json.dumps(doc), source_tool="t")
        assert spilled.shape.startswith("JSON object, 2 keys: meta: ")
        assert f'read_handle(handle="{spilled.handle}", jq=".KEY[]")' in spilled.note
        tools = ScratchTools(scope)
        for key in doc:
            page = tools.read_handle(handle=spilled.handle, jq=f".{key}[]")
            assert page["results"] == list(doc[key].values() if key == "meta" else doc[key])[: len(page["results"])]
            assert page["results"] and (page["more"] or key == "meta"), page
        array = scope.spill(json.dumps(doc["items"]), source_tool="t")
        assert f'read_handle(handle="{array.handle}", jq=".[]")' in array.note
