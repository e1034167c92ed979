""":func:`scratchfs.api.json_next.object_read` wrote a document's first array item whole with ``json.dumps`` to tell
whether it is over :data:`ITEM_READ_CHARS` (3.9 ms for a 400 KiB item on the spill path; leftovers5): it now writes it
a piece at a time and stops once past the bound. The answers are the same (the goldens are unchanged); the cost of a
large item is that of a small one."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import scratchfs
from scratchfs.api.json_next import ITEM_READ_CHARS, SHORT_STRINGS, object_read

EC2 = json.loads((Path(scratchfs.__file__).resolve().parent.parent / "fixtures" / "api-ec2-service-model.json")
                 .read_text())
FIT = (3, 20)


def _sized(chars: int) -> dict:
    """An item whose JSON text is exactly ``chars`` characters: ``{"note": "xx..."}``, ``é`` among them."""
    head = len(json.dumps({"note": ""}, ensure_ascii=False))
    return {"note": ("é" + "x" * (chars - head))[: chars - head]}


@pytest.mark.parametrize("chars", [40, ITEM_READ_CHARS - 1, ITEM_READ_CHARS, ITEM_READ_CHARS + 1, 5000])
def test_the_answer_is_json_dumps_length_against_the_bound(chars):
    item = _sized(chars)
    assert len(json.dumps(item, ensure_ascii=False)) == chars
    read = object_read({"items": [item, {"a": 1}]}, FIT)
    assert read == (".items[0]" + SHORT_STRINGS if chars > ITEM_READ_CHARS else ".items[0]")


def test_a_large_real_item_costs_what_a_small_one_does():
    large = {"items": [EC2, {"a": 1}]}  # (a 500 KiB first item: the EC2 API's service model)
    small = {"items": [{"shapes": dict(list(EC2["shapes"].items())[:3])}, {"a": 1}]}
    assert len(json.dumps(large["items"][0])) > 400 * 1024 and len(json.dumps(small["items"][0])) > ITEM_READ_CHARS
    assert object_read(large, FIT) == object_read(small, FIT) == ".items[0]" + SHORT_STRINGS

    def best(doc: dict) -> float:
        times = []
        for _ in range(20):
            start = time.perf_counter()
            object_read(doc, FIT)
            times.append(time.perf_counter() - start)
        return min(times)

    assert best(large) < 20 * best(small), (best(large), best(small))
