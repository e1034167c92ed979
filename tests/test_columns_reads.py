"""Rows reads of text whose shape says its lines stand in columns aligned by spaces with no header line (``ls -l``
without ``total``, ``ps`` through ``tail -n +2``, ``find -ls``): the refusal of ``row=`` and ``slurp=true`` says so,
and names as calls (data, :class:`~scratchfs.foundation.calls.Call`) the reads that work: its lines, and a pattern
over its columns, which finds exactly the lines whose cell the plain Python split gives is the value sought."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
FIXTURES = ["ls-l-no-total.txt", "ps-eo-no-header.txt", "find-ls-usr.txt"]


@pytest.fixture
def scope(tmp_path):
    with ScratchStore(root=tmp_path) as store:
        yield store.scope("run", "agent")


def _refused(tools: ScratchTools, handle: str, **read: object) -> InvalidArgument:
    with pytest.raises(InvalidArgument) as caught:
        tools.read_handle(handle, **read)
    return caught.value


@pytest.mark.parametrize("name", FIXTURES)
@pytest.mark.parametrize("read", [{"row": 1, "rows": 5}, {"jq": "length", "slurp": True}])
def test_a_rows_read_of_a_headerless_table_names_the_reads_that_work(scope, name, read):
    data = (TOOLS / name).read_bytes()
    stub = scope.spill(data, source_tool="shell")
    columns = int(re.search(r"a table of (\d+) columns aligned by spaces", stub.shape).group(1))
    assert "row=" not in stub.note  # (the stub's note names no rows read)
    error = _refused(ScratchTools(scope), stub.handle, **read)
    assert "not a table" not in str(error) and "JSON lines and CSV/TSV" not in str(error)
    assert f"{columns} columns aligned by spaces, with no header line" in str(error)
    lines, search = error.advice.calls
    assert dict(lines.arguments) == {"handle": stub.handle, "line": 1, "lines": 50}
    # the advised search, its VALUE the third cell of a line past the first: the lines whose third cell is it
    text = data.decode()
    value = text.splitlines()[7].split()[2]
    arguments = dict(search.arguments)
    pattern = arguments["pattern"].replace("VALUE", re.escape(value))
    found = scope.read_handle(stub.handle, pattern=pattern, max_matches=1000)
    lines_found = sorted({match.line for window in found.windows for match in window.matches})
    expected = [number for number, line in enumerate(text.splitlines(), 1)
                if len(line.split()) > 2 and line.split()[2] == value]
    assert lines_found == expected and expected
    assert arguments["context"] == "line"
