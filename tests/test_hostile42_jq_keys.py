"""jq missing-key notes that named a key the input has, or worded a count wrong (hostile42).

* A document of more values than the key walk looks at (200,000: a metrics dump's samples) said "no object of this
  document has the key "target"" of ``.meta.target``, a key there with a null value: the walk stopped before it. A
  walk cut short now says no key is missing.
* A key named only in a comment (``# .bogus``) was looked up as the filter's own.
* "its 1 keys", "the 1 columns": the counts now go through ``plural`` (tests/test_reply_wording.py)."""

from __future__ import annotations

import json
from pathlib import Path

from scratchfs.api.contract import ScratchTools

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
