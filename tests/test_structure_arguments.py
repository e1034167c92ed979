"""Arguments of the wrong type or out of range given to the Python API's structure reads (``scope.structure``), to
the tools face's ``read_handle`` method and to any tool call by name: each is refused with one InvalidArgument,
never a TypeError or AttributeError from deep inside a read or from the advice its error builds (a jq read's cursor
of an int reached ``cursor_position``'s ``split``; a slurp's budget of a string its arithmetic before jq's check; a
rows read's ``rows`` of a string the line read its refusal names; the inspector's ``text_view``/``table``
``max_bytes`` of NaN an array index; ``record=b"x"`` the reply's JSON; ``end=1j`` the schema's ``minimum``)."""

from __future__ import annotations

import io
import tarfile
from decimal import Decimal
from fractions import Fraction

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools

WRONG = [-1, 2**63, 0.5, float("nan"), "5", "", True, None, [], {}, b"x", 1e308]


def _tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for i in range(40):
            info = tarfile.TarInfo(f"f{i}")
            info.size = 100
            tar.addfile(info, io.BytesIO(b"x" * 100))
    return out.getvalue()


CONTENT = {
    "json": b"[" + b",".join(b'{"a":%d}' % i for i in range(3000)) + b"]",
    "jsonl": b"".join(b'{"a":%d}\n' % i for i in range(3000)),
    "csv": b"a,b,c\n" + b'1,"x\ny",3\n' * 5000,
    "html": b"<html><head><title>t</title></head><body>" + b"<p>hello</p>" * 3000 + b"</body></html>",
    "tar": _tar(),
}

# method: (content, positional arguments, the keywords a good call gives; each is made wrong in turn)
CALLS = {
    "jq": ("json", (".[]",), {"cursor": None, "budget": 8192}),
    "records": ("jsonl", (), {"record": 1, "records": 50, "cursor": None, "budget": 8192}),
    "slurp": ("jsonl", (".",), {"cursor": None, "budget": 8192}),
    "rows": ("csv", (), {"row": 1, "rows": 50, "cursor": None, "budget": 8192}),
    "text": ("html", (), {"offset": 0, "cursor": None, "budget": 8192}),
    "members": ("tar", (), {"cursor": None, "budget": 8192}),
    "select": ("html", ("p",), {"cursor": None, "budget": 8192}),
    "text_view": ("html", (), {"max_bytes": 100_000}),
    "table": ("csv", (), {"max_bytes": 100_000}),
}
CASES = [(method, name) for method, (_, _, given) in CALLS.items() for name in given]


@pytest.mark.parametrize(("method", "name"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_a_structure_read_refuses_an_argument_of_the_wrong_type_or_range_as_invalid(scratch_scope, method, name):
    kind, positional, given = CALLS[method]
    handle = scratch_scope.spill(CONTENT[kind], source_tool="t").handle
    read = getattr(scratch_scope.structure, method)
    read(handle, *positional, **given)  # (the good call reads)
    refusals = []
    for value in WRONG:
        if name == "cursor" and value is None:
            continue  # (no cursor: the first page)
        try:  # a value of the right type in range is read (an int as max_bytes); any other, InvalidArgument
            read(handle, *positional, **{**given, name: value})
        except InvalidArgument as exc:
            refusals.append(str(exc))
    assert refusals and all(len(said) <= 2048 for said in refusals)


# the tools face's read_handle, called as a method (no schema check on the way, as ScratchTools.call has): a structure
# read's argument of the wrong type reached cursor_position's split (cursor=5) or the reply's JSON (record=b"x")
STRUCTURE_READS = [("jsonl", {"record": 1}), ("jsonl", {"jq": "."}), ("jsonl", {"slurp": True, "jq": "."}),
                   ("html", {"view": "text"}), ("html", {"select": "p"}), ("tar", {"view": "members"}),
                   ("csv", {"row": 1}), ("csv", {"slurp": True, "jq": "."})]
NAMES = ["cursor", "record", "records", "jq", "slurp", "view", "select", "raw_offset", "columns", "row", "rows"]


@pytest.mark.parametrize(("kind", "read"), STRUCTURE_READS, ids=[f"{k}-{'-'.join(r)}" for k, r in STRUCTURE_READS])
def test_the_tools_read_handle_method_refuses_a_structure_argument_of_the_wrong_type_as_invalid(scratch_scope, kind,
                                                                                               read):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(CONTENT[kind], source_tool="t").handle
    tools.read_handle(handle, **read)  # (the good call reads)
    refusals = []
    for name in NAMES:
        for value in [*WRONG, [1, "a", None], [2**70], object()]:
            if value is None or (name in read and value == read[name]):
                continue
            try:
                tools.read_handle(handle, **{**read, name: value})
            except InvalidArgument as exc:
                refusals.append(str(exc))
    assert refusals and all(len(said) <= 2048 for said in refusals)


NOT_JSON = [1j, object(), b"x", {1, 2}, Decimal("1.5"), Fraction(1, 3), range(3)]
TOOL_CALLS = {"read_handle": {"handle": "h_" + "a" * 24}, "scratch_write": {"key": "k", "value": "v"},
              "scratch_read": {"key": "k"}, "scratch_list": {}, "scratch_delete": {"key": "k"}}


@pytest.mark.parametrize("tool", sorted(TOOL_CALLS))
def test_a_tool_call_refuses_an_argument_of_no_json_type_as_invalid(scratch_scope, tool):
    """``end=1j`` passed the schema's type check as a number and failed its ``minimum`` (a TypeError out of
    jsonschema): a value of no JSON type in any argument, or inside a list, is refused before the schema runs."""
    tools = ScratchTools(scratch_scope)
    names = ["handle", "offset", "end", "line", "match", "context", "columns", "jq", "budget", "key", "value", "ttl",
             "prefix", "limit", "cursor", "version", "encoding"]
    for name in names:
        for value in [*NOT_JSON, [1, 1j]]:
            with pytest.raises(InvalidArgument):
                tools.call(tool, {**TOOL_CALLS[tool], name: value})
