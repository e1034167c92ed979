"""Scope.offload of a structured result spills its JSON text as it is written (scratchfs/api/offloading.py): the
bytes stored are json.dumps's, a large structure is never held as text whole, and a structure that fails part way
(a value JSON has no form for, a list whose iteration fails) passes through as it came, with nothing stored."""

from __future__ import annotations

import json
import logging
import tracemalloc

import pytest

from scratchfs import Observation, ScratchStore


def records(n: int) -> list[dict]:
    return [{"id": i, "name": f"item {i}", "tags": ["a", "ü"], "score": i * 0.5, "text": "lorem ipsum " * 4}
            for i in range(n)]


class _FailsLate(list):
    """A list whose iteration fails after its first items (a cursor whose connection drops)."""

    def __iter__(self):
        yield from list.__iter__(self)
        raise RuntimeError("connection lost")


def test_a_large_structure_is_stored_as_its_json_text(tmp_path):
    value = {"results": records(20_000), "count": 20_000}
    text = json.dumps(value, ensure_ascii=False).encode()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        out = scope.offload(Observation("api", value, "query"))
        assert out.stub is not None and out.stub.size == len(text) and out.stub.content_type == "json"
        assert b"".join(scope.iter_content("handle", out.stub.handle)) == text


def test_a_large_structure_is_never_held_as_text_whole(tmp_path):
    """Before (json.dumps, then the text spilled): the peak of Python's allocations grew by twice the text (the
    encoder's parts, then the joined string: 2 x 8 MB here); now by the spill's own bounded buffers (its shape's
    sample and a JSON document's streamed top level: 4.3 MB for this text spilled as bytes) and a piece's parts:
    4.6 MB."""
    value = records(60_000)
    size = len(json.dumps(value, ensure_ascii=False))
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        scope.spill(b"x" * 20_000, source_tool="warm")  # (the store's first write: its own allocations before)
        tracemalloc.start()
        try:
            out = scope.offload(Observation("api", value, "query"))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert out.stub is not None and out.stub.size == len(json.dumps(value, ensure_ascii=False).encode())
    assert size > 8_000_000 and peak < 0.75 * size, (peak, size)


@pytest.mark.parametrize("bad", [lambda: [*records(5_000), object()],
                                 lambda: {"rows": _FailsLate(records(5_000))},
                                 lambda: [{"k": records(300)}, {(1, 2): "tuple key"}] * 2])
def test_a_structure_that_fails_part_way_passes_through_with_nothing_stored(tmp_path, caplog, bad):
    value = bad()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        obs = Observation("api", value, "query")
        with caplog.at_level(logging.WARNING):
            assert scope.offload(obs) is obs
        assert scope.list_entries() == []
        assert list(store.blobs.blob_files()) == []
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("scratchfs")]
    assert len(messages) == 1 and "is not JSON-serialisable" in messages[0], messages
    assert caplog.records[-1].levelno == logging.WARNING


def test_a_structure_refused_at_the_quota_is_told_with_its_whole_size(tmp_path):
    value = records(3_000)
    text = json.dumps(value, ensure_ascii=False)
    with ScratchStore(tmp_path, run_quota_entries=1) as store:
        scope = store.scope("r", "a")
        scope.spill(b"x" * 100, source_tool="t")
        out = scope.offload(Observation("api", value, "query"))
    notice = json.loads(out.content)
    assert out.refused is not None and notice["size"] == len(text.encode()) and not notice["stored"]
    assert text.startswith(notice["preview"][:200])


def test_a_structure_refused_at_the_bytes_quota_after_it_was_streamed_is_told_with_its_whole_size(tmp_path):
    # run_quota_bytes is checked once the stream is stored: the notice's size counts the pieces the spill took too
    value = [{"id": i, "text": f"lorem ipsum {i * 7919 % 100_003} é " * 4} for i in range(20_000)]
    text = json.dumps(value, ensure_ascii=False)
    with ScratchStore(tmp_path, run_quota_bytes=20_000) as store:
        out = store.scope("r", "a").offload(Observation("api", value, "query"))
    notice = json.loads(out.content)
    assert out.refused is not None and notice["size"] == len(text.encode()) and not notice["stored"]
