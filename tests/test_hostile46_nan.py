"""hostile46: NaN and Infinity as Python's json writes them (jsonnan1), attacked where they reach the model.

The rows are ``fixtures/query-packages-by-month.csv`` read as pandas' ``to_dict("records")`` gives them (as
``tests/test_json_nan.py`` builds them), one ``stars`` missing (NaN)."""

from __future__ import annotations

import json

from scratchfs.adapter import Offloader
from scratchfs.engine.structure.numbers import CONSTANTS_SAID
from tests.test_json_nan import _records


def _strict(text: str) -> dict:
    """The reply as strict JSON: a NaN or Infinity in it fails the test."""
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in a reply")
    return json.loads(text, parse_constant=refuse)


def _read(offloader: Offloader, handle: str, **arguments) -> dict:
    reply = offloader.call_scratch_tool("read_handle", {"handle": handle, **arguments})
    assert not reply.is_error, reply.text
    return _strict(reply.text)


def test_a_jq_read_of_a_record_range_says_the_null_it_shows_is_a_nan(scratch_scope):
    """JSON lines where only record 1,000 holds NaN: a jq read of records 999 to 1,001 showed ``null`` for it with
    no word (the whole-document jq read says it); the page now says which record holds such tokens, once, and only
    on a page that shows that record."""
    offloader = Offloader(scratch_scope, default_class="query")
    rows = [{**row, "stars": float("nan") if i == 999 else 1.0} for i, row in enumerate(_records(1200))]
    out = offloader.offload("packages", "".join(json.dumps(row) + "\n" for row in rows))
    assert out.stub is not None and out.stub.content_type == "jsonl"
    page = _read(offloader, out.stub.handle, record=999, records=3, jq=".stars")
    assert page["results"] == [1.0, None, 1.0]
    assert page["note"] == f"record 1000 {CONSTANTS_SAID}"
    before = _read(offloader, out.stub.handle, record=990, records=10, jq=".stars")
    assert before["results"] == [1.0] * 10 and "note" not in before  # (the page ends before record 1,000)
    assert CONSTANTS_SAID in _read(offloader, out.stub.handle, **_call(before["next_call"]))["note"]


def _call(next_call: str) -> dict:
    """The arguments of a ``read_handle(...)`` next_call text (keyword arguments, JSON-quoted strings)."""
    import ast

    call = ast.parse(next_call, mode="eval").body
    return {keyword.arg: ast.literal_eval(keyword.value) for keyword in call.keywords if keyword.arg != "handle"}


class _CountingPattern:
    """A compiled pattern that counts the matches it gives (``search``, ``finditer``, ``sub``'s)."""

    def __init__(self, pattern) -> None:
        self.pattern, self.matches = pattern, 0

    def search(self, *args):
        found = self.pattern.search(*args)
        self.matches += found is not None
        return found

    def finditer(self, *args):
        for found in self.pattern.finditer(*args):
            self.matches += 1
            yield found

    def sub(self, repl, text):
        def counted(found):
            self.matches += 1
            return repl if isinstance(repl, str) else repl(found)
        return self.pattern.sub(counted, text)


def test_a_document_of_a_million_nans_is_told_without_a_match_each(monkeypatch):
    """Every jq read of a document looks for NaN/Infinity spellings (``constant_literals``): it took a regex match
    per token, 0.5 s for a million NaNs (4 MB) a read, and a 30 MiB document of them ran past jq's time limit where
    one of as many numbers did not. A document whose every such word is Python's is now told by counting them."""
    from scratchfs.engine.structure import numbers

    counted = {name: _CountingPattern(getattr(numbers, name)) for name in ("_CONSTANT", "_STRING_TEXT")}
    for name, pattern in counted.items():
        monkeypatch.setattr(numbers, name, pattern)
    nans = "[" + ",".join(["NaN", "-Infinity", "Infinity", '{"NaN": "nan"}'] * 250_000) + "]"
    assert numbers.constant_literals(nans) == ("NaN", None)
    assert counted["_CONSTANT"].matches <= 10  # (not one a token)
    assert numbers.constant_literals(nans[:-1] + ",nan]") == ("NaN", "nan")


def test_constant_literals_tells_each_spelling_as_before():
    """The spellings standing as values: Python's, and the others jq reads (refused), strings and keys no token."""
    from scratchfs.engine.structure.numbers import constant_literals

    cases = {'[NaN, 1]': ("NaN", None), '[-Infinity, Infinity]': ("-Infinity", None), '{"a": -NaN}': (None, "-NaN"),
             '[+Infinity, NaN]': ("NaN", "+Infinity"), '[Infinity, nan]': ("Infinity", "nan"),
             '[NaN, -inf]': ("NaN", "-inf"), '{"NaN": "Infinity"}': (None, None), '["a\\"NaN", 1]': (None, None),
             '[NaNx, Infinityy]': (None, None), '[INF]': (None, "INF"), '[NaN,\n +NaN]': ("NaN", "+NaN"),
             '{"information": "financial"}': (None, None), '[--Infinity]': (None, None)}
    assert {text: constant_literals(text) for text in cases} == cases
