"""A structure read's out-of-range ``budget=`` is refused naming ``budget``, the keyword the caller gave.

``scope.structure.jq(h, ".", budget=10)`` raised ``budget_bytes must be between 256 and 65536: 10``: the engine
reader's parameter name, which no public signature of ``scope.structure`` has -- a newcomer following the README's
``budget=`` looked for a ``budget_bytes`` keyword that is not there. Every read of ``scope.structure`` now names
``budget``; the engine readers, whose keyword is ``budget_bytes``, keep naming that.
"""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from scratchfs import InvalidArgument
from scratchfs.engine.structure.paging import check_budget


def _tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        data = b"hello\n" * 100
        info = tarfile.TarInfo("a.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _reads(scope):
    doc = scope.spill(json.dumps({"items": list(range(3000))}), source_tool="api.get").handle
    lines = scope.spill("".join(json.dumps({"id": i}) + "\n" for i in range(2000)), source_tool="q").handle
    table = scope.spill("id,name\n" + "".join(f"{i},n{i}\n" for i in range(2000)), source_tool="q").handle
    page = scope.spill("<html><head><title>t</title></head><body>" + "<h1>x</h1><p>word</p>" * 800
                       + "</body></html>", source_tool="browser.get").handle
    xml = scope.spill("<?xml version='1.0'?><feed>" + "<entry><id>1</id></entry>" * 800 + "</feed>",
                      source_tool="api.get").handle
    tar = scope.spill(_tar(), source_tool="t").handle
    s = scope.structure
    return {
        "jq": lambda b: s.jq(doc, ".items[]", budget=b),
        "records": lambda b: s.records(lines, record=1, records=5, budget=b),
        "slurp": lambda b: s.slurp(lines, "length", budget=b),
        "rows": lambda b: s.rows(table, row=1, rows=5, budget=b),
        "text": lambda b: s.text(page, budget=b),
        "select (HTML)": lambda b: s.select(page, "h1", budget=b),
        "select (XML)": lambda b: s.select(xml, "entry", budget=b),
        "members": lambda b: s.members(tar, budget=b),
    }


@pytest.mark.parametrize("budget", [10, 100_000])
def test_each_structure_read_names_the_budget_keyword_it_takes(scratch_scope, budget):
    for read, call in _reads(scratch_scope).items():
        with pytest.raises(InvalidArgument) as caught:
            call(budget)
        assert str(caught.value) == f"budget must be between 256 and 65536: {budget}", read
        assert "budget_bytes" not in str(caught.value), read


def test_a_budget_in_range_still_reads(scratch_scope):
    for read, call in _reads(scratch_scope).items():
        page = call(256)
        assert len(json.dumps(page.to_dict(), separators=(",", ":")).encode()) <= 256 + 512, read


def test_the_engine_check_still_names_the_engine_readers_keyword():
    with pytest.raises(InvalidArgument, match=r"^budget_bytes must be between 256 and 65536: 10$"):
        check_budget(10)
    assert check_budget(256) == 256
