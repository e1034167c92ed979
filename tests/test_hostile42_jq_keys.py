"""jq missing-key notes that named a key the input has, or worded a count wrong (hostile42).

* A document of more values than the key walk looks at (200,000: a metrics dump's samples) said "no object of this
  document has the key "target"" of ``.meta.target``, a key there with a null value: the walk stopped before it. A
  walk cut short now says no key is missing.
* A key named only in a comment (``# .bogus``) was looked up as the filter's own.
* "its 1 keys", "the 1 columns": the counts now go through ``plural`` (tests/test_reply_wording.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scratchfs.api import jq_keys
from scratchfs.api.contract import ScratchTools
from tests.cpu_time import best_cpu

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _jq(scope, data: bytes, filter: str) -> dict:
    handle = scope.spill(data, source_tool="t").handle
    return ScratchTools(scope).call("read_handle", {"handle": handle, "jq": filter})


def test_a_key_past_the_walks_bound_is_not_said_missing(scope):
    dump = {"meta": {"target": None, "unit": "ms"}, "samples": list(range(250_000))}
    data = json.dumps(dump).encode()
    reply = _jq(scope, data, ".meta.target")
    assert "target" not in reply.get("note", "")
    missing = _jq(scope, data, ".meta.unitz")  # (a key missing at its step: the step walk is exact, still said)
    assert '.meta has no key "unitz"' in missing["note"] and 'nearest: "unit"' in missing["note"]
    small = _jq(scope, json.dumps({"meta": {"unit": "ms"}}).encode(), ".meta.target")
    assert '.meta has no key "target"' in small["note"] and "its 1 key: " in small["note"]


def test_a_key_named_in_a_comment_is_not_looked_up(scope):
    data = (FIXTURES / "tools/dpkg-query-jq.jsonl").read_bytes()
    reply = _jq(scope, data, 'select(.section == "no-such-section") # .bogus: kept for later\n| .package')
    assert "bogus" not in reply.get("note", "")
    typo = _jq(scope, data, 'select(.sectoin == "admin") # the section\n| .package')
    assert 'the key "sectoin"' in typo["note"] and 'nearest: "section"' in typo["note"]


def _cpu(filter: str) -> float:
    return best_cpu(lambda: jq_keys.input_keys(filter))


@pytest.mark.parametrize("made", [lambda n: " and .a" * (n // 7),  # (words before paths)
                                  lambda n: '"' + '\\"' * (n // 2)])  # (a string left open over many quotes)
def test_the_filters_paths_cost_what_its_length_does(made):
    """The word before each path was found by a search over the whole filter before it, and a string left open was
    tried again from each quote: the square of the filter's length (0.16-0.39 s at 4,096 characters, hostile42). Four
    times the filter costs about four times as much (the bound leaves room for noise, not for a square: 16)."""
    assert _cpu(made(4000)) < 9 * max(_cpu(made(1000)), 1e-4)
