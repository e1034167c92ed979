"""A large JSON document's top level read while the document is written (issue 16, S1): the feed that the spilling
thread gives each chunk the writer took answers exactly what reading the stored content back answers, holds a
bounded number of bytes, and a spill that used it never reads its blob back."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.engine.structure import BytesSource
from scratchfs.engine.structure.toplevel import TopLevelFeed, top_level
from tests import golden_spill

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                     | st.text(max_size=30),
                     lambda kids: st.lists(kids, max_size=6) | st.dictionaries(st.text(max_size=6), kids, max_size=6),
                     max_leaves=40)
_DAMAGE = [b"", b"\xff", b"\xc3", b"x", b",", b"]", b"}", b'"', b" junk"]


def _fed(data: bytes, cuts: list[int], max_bytes: int, start_after: int, copy: bool) -> TopLevelFeed:
    feed = TopLevelFeed(max_bytes, 60.0, start_after)
    start = 0
    for cut in [*sorted(c % (len(data) + 1) for c in cuts), len(data)]:
        if cut > start:
            piece = data[start:cut]
            feed.feed(bytearray(piece) if copy else piece)
            start = cut
    feed.close()
    return feed


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(_JSON, max_size=12), st.dictionaries(st.text(max_size=6), _JSON, max_size=12)),
       st.sampled_from([None, 0, 2]), st.booleans(), st.integers(0, 10**6), st.sampled_from(_DAMAGE),
       st.booleans(), st.lists(st.integers(0, 10**6), max_size=8), st.integers(1, 4000), st.integers(0, 3000),
       st.booleans())
def test_the_feed_answers_what_reading_the_content_answers(doc, indent, ascii_only, where, damage, append, cuts,
                                                          max_bytes, start_after, copy):
    data = json.dumps(doc, indent=indent, ensure_ascii=ascii_only).encode()
    if append:
        data += damage
    elif damage:
        at = where % len(data)
        data = data[:at] + damage + data[at + 1 :]
    feed = _fed(data, cuts, max_bytes, start_after, copy)
    assert feed.size == len(data)
    assert feed.started == (len(data) > start_after)
    if feed.started:
        assert top_level(feed) == top_level(BytesSource(data, 7), max_bytes, 60.0)


def test_the_feed_reads_megabyte_pieces_as_a_reader_does():
    # items larger than the 1 MiB pieces, a bound inside one, invalid UTF-8 after the bound and after the end
    item = json.dumps({"id": 1, "text": "é" * 700_000}, ensure_ascii=False).encode()  # 1.4 MB
    data = b"[" + b",".join([item] * 9) + b"]"
    for content in (data, data + b"\xff", data[: 5 * 1024 * 1024] + b"\xff" + data[5 * 1024 * 1024 + 1 :]):
        for max_bytes in (3 * 1024 * 1024 + 5, 8 * 1024 * 1024, len(content), len(content) + 1):
            want = top_level(BytesSource(content), max_bytes, 60.0)
            for size in (4096, 1_000_003, len(content)):
                got = top_level(_fed(content, list(range(0, len(content), size)), max_bytes, SAMPLE_BYTES, False))
                assert got == want, (len(content), max_bytes, size)
    whole = top_level(BytesSource(data), len(data), 60.0)
    assert (whole.complete, whole.count, whole.entries[0].names) == (True, 9, ["id", "text"])


def test_the_feed_holds_a_bounded_number_of_bytes():
    row = b'{"id":12345,"name":"abcdefghij"},'
    chunk = row * (64 * 1024 // len(row))
    feed = TopLevelFeed(2 * 1024 * 1024, 60.0, SAMPLE_BYTES)
    most = 0
    feed.feed(b"[")
    for _ in range(400):  # 25 MiB
        feed.feed(chunk)
        most = max(most, feed._pending_bytes)
    feed.feed(b"1]")
    feed.close()
    assert most <= max(SAMPLE_BYTES, 1024 * 1024) + len(chunk) + 1  # a piece of 1 MiB waits for the byte after it
    assert feed._pending_bytes == 0
    top = top_level(feed)
    assert (top.complete, top.read_bytes) == (False, 2 * 1024 * 1024)
    assert top.count == (2 * 1024 * 1024 - 1) // len(row)


def test_the_feed_time_bound_counts_only_the_scan():
    # a writer far slower than the bound does not end the scan: only the time spent scanning counts
    import time

    feed = TopLevelFeed(1 << 30, 0.05, 0)
    feed.feed(b"[")
    for i in range(20):
        feed.feed(b"%d," % i)
        time.sleep(0.01)
    feed.feed(b"20]")
    feed.close()
    top = top_level(feed)
    assert (top.complete, top.count) == (True, 21)


def test_the_feed_is_not_ready_before_close_and_gives_back_what_the_scan_raised():
    feed = TopLevelFeed(1 << 20, 60.0, 0)
    feed.feed(b"[1,")
    with pytest.raises(ValueError, match="not closed"):
        top_level(feed)
    deep = TopLevelFeed(1 << 20, 60.0, 0)
    deep.feed(b"[" + b"[" * 100_000 + b"]" * 100_000 + b"]")
    deep.close()
    with pytest.raises(RecursionError):
        top_level(deep)


_LARGE = [(name, data) for name, data in golden_spill.generated_contents()
          if len(data) > SAMPLE_BYTES and data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"[")]


@pytest.mark.parametrize("chunk", [4096, 1 << 20])
def test_a_spill_reads_a_large_json_document_as_it_is_written(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr("scratchfs.api.shape_json.STREAM_SECONDS", 60.0)  # what is read, not how fast

    def never(*args, **kwargs):
        raise AssertionError("the blob was read back")

    monkeypatch.setattr("scratchfs.api.entries.Entries._whole", never)
    model = golden_spill.fixture_contents()
    ec2 = next(data for name, data in model if name.startswith("api-ec2") and len(data) > SAMPLE_BYTES)
    documents = [*_LARGE, ("array", b" [" + b",".join([ec2.strip()] * 20) + b"]"),
                 ("object", b'{"a": ' + ec2.strip() + b', "b": [' + b",".join([ec2.strip()] * 3) + b"]}")]
    assert len(documents) >= 3
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        for name, data in documents:
            stub = scope.spill((data[i : i + chunk] for i in range(0, len(data), chunk)), source_tool="t")
            lines = data.count(b"\n") + (data[-1:] != b"\n")
            want = describe(data[:SAMPLE_BYTES], len(data), lines, BytesSource(data))
            assert (stub.content_type, stub.shape) == (want.content_type, want.text), name
