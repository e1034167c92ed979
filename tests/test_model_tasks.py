"""Replies met by a model answering real questions over real outputs of a machine through ``scratchfs mcp-proxy``
(helper brief modeltask1): each test is one place where a reply misled or left the model no way on."""

from __future__ import annotations

import random

import pytest

from scratchfs import JqFailed
from scratchfs.api.contract import ScratchTools


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _packages() -> bytes:
    """``dpkg-query -W -f '${Package}\\t${Installed-Size}\\t${Version}\\n'``: a TSV table with no header line."""
    rng = random.Random(5)
    return "".join(f"pkg{i}\t{rng.randrange(1, 500_000)}\t1.{i}-{rng.randrange(9)}\n" for i in range(600)).encode()


@pytest.mark.parametrize("filter", ["max_by(.size)", ".[] | select(.size > 100)", "sort_by(.size) | .[-1]"])
def test_a_headless_tables_slurp_failure_says_its_rows_are_arrays_of_cells(tools, scratch_scope, filter):
    """``dpkg-query``'s TSV (its stub: "TSV, 3 columns, no header"): ``max_by(.size)`` over its slurped rows failed
    with 'Cannot index array with string' and the advice to run ``.[] | max_by(.size)``, which fails again (a row
    is an array of cells, not an object; the filter was written for the array). The refusal says rows are arrays
    of cells indexed by number, and names no ``.[] | FILTER`` call; the read it points to answers."""
    content = _packages()
    stub = scratch_scope.spill(content, source_tool="sh")
    assert "no header" in stub.shape, stub.shape
    with pytest.raises(JqFailed) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": filter, "slurp": True})
    message = str(caught.value)
    assert "no header line" in message and "array of its cells" in message and ".[1]" in message, message
    assert f".[] | {filter}" not in message, message
    page = tools.call("read_handle", {"handle": stub.handle, "jq": "max_by(.[1]) | .[0]", "slurp": True})
    rows = [line.split("\t") for line in content.decode().splitlines()]
    assert page["results"] == [max(rows, key=lambda row: int(row[1]))[0]], page


def test_a_filter_over_the_array_of_rows_is_not_told_to_run_on_each_row(tools, scratch_scope):
    """A headed CSV's ``group_by(.region) | .total``: jq indexes the array of groups with a string. The refusal
    named ``.[] | group_by(.region) | .total``, which runs group_by on one row (an object) and fails again; jq's
    words stand alone."""
    rows = "".join(f"SO-{i},{['North', 'South'][i % 2]},{i % 7}\n" for i in range(3000))
    stub = scratch_scope.spill(f"order,region,qty\n{rows}".encode(), source_tool="sh")
    assert stub.content_type == "csv", stub.shape
    with pytest.raises(JqFailed) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": "group_by(.region) | .total", "slurp": True})
    assert ".[] | group_by" not in str(caught.value), caught.value
    assert str(caught.value).startswith('jq: Cannot index array with string ("total")'), caught.value
