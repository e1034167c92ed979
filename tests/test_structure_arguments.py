"""The Python API's structure reads (``scope.structure``) given arguments of the wrong type or out of range: each
refuses them with one InvalidArgument, never a TypeError or AttributeError from deep inside a read or from the
advice its error builds (a jq read's cursor of an int reached ``cursor_position``'s ``split``; a slurp's budget of a
string its arithmetic before jq's check; a rows read's ``rows`` of a string the line read its refusal names; the
inspector's ``text_view``/``table`` ``max_bytes`` of NaN an array index). The model's faces check the same
arguments against their schemas first (tests/test_trust_nothing.py); this is the program's face."""

from __future__ import annotations

import io
import tarfile

import pytest

from scratchfs import InvalidArgument

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
