"""hostile31: structure reads attacked as a hostile tool output or a confused model would attack them (the attacks
and what each gave: the hostile31 report). Each test here failed before its fix."""

from __future__ import annotations

import json

from scratchfs.engine.structure import BytesSource, jq_page, jsondoc


def _large_document(items: int) -> bytes:
    """A one-line JSON document whose last key comes after ``items`` objects (~55 bytes each)."""
    rows = [{"id": n, "name": f"n{n}", "tags": ["a", "b"], "v": n * 1.5} for n in range(items)]
    return json.dumps({"items": rows, "meta": {"n": items}}, separators=(",", ":")).encode()


def test_a_large_document_is_given_time_for_its_size(monkeypatch):
    # 8.5 MB: reading it, handing it to the worker and jq's parse take ~1 s; the time limit alone (0.05 s) stopped
    # '.meta' every time, as the default 5 s stopped it over a 36 MiB document (0.07-0.14 s a MiB in all)
    monkeypatch.setattr(jsondoc, "PARSE_SECONDS_PER_MIB", 30.0, raising=False)
    page = jq_page(BytesSource(_large_document(150_000)), ".meta", timeout=0.05)
    assert page.items == [{"n": 150_000}]


def test_the_allowance_covers_a_document_at_the_bound():
    # jq's share alone, 0.065 s of CPU a MiB measured, at twice that for a loaded host: within the allowance
    assert jsondoc.PARSE_SECONDS_PER_MIB * jsondoc.MAX_JQ_DOCUMENT_BYTES / 2**20 >= 2 * 0.065 * 64
