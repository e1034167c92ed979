"""Replies met by a model answering real questions over real outputs of a machine through ``scratchfs mcp-proxy``
(helper brief modeltask1): each test is one place where a reply misled or left the model no way on."""

from __future__ import annotations

import json
import random

import pytest

from scratchfs import InvalidArgument, JqFailed
from scratchfs.api.contract import ScratchTools
from tests.test_structure_misfit import advised_calls


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


def _log() -> bytes:
    rng = random.Random(3)
    lines = []
    for i in range(4000):
        status = 503 if i % 97 == 5 else 200
        lines.append(json.dumps({"ts": f"2026-12-06T08:{i // 60 % 60:02}:{i % 60:02}Z", "path": ["/a", "/b"][i % 2],
                                 "status": status, "ms": round(rng.uniform(1, 90), 1)}))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(("filter", "each"), [
    (".[] | select(.status >= 500) | .path", "select(.status >= 500) | .path"),
    ("group_by(.path) | map(length)", None)])
def test_a_filter_for_the_array_of_all_records_over_json_lines_is_told_jq_runs_on_each(tools, scratch_scope, filter,
                                                                                        each):
    """A JSON-lines log (its stub: "JSON lines, 4,000 records; record keys: ..."): ``.[] | select(.status >= 500)``
    failed with 'Cannot index string with string' and jq's advice to skip the values the step cannot take
    (``select(.x != null)``) -- no use: jq runs the filter on each record, an object, whose ``.[]`` are its values,
    and it fails on every one. The refusal says so and names the calls that answer: the filter on each record
    without its ``.[] |``, and the filter once over the array of all the records (slurp=true)."""
    stub = scratch_scope.spill(_log(), source_tool="sh")
    assert stub.content_type == "jsonl", stub.shape
    with pytest.raises(JqFailed) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": filter})
    message = str(caught.value)
    assert "jq runs the filter on each record" in message and "select(.x != null)" not in message, message
    slurped = f'read_handle(handle="{stub.handle}", jq="{filter}", slurp=True)'
    assert slurped in message, message
    assert (each is None) == ("on each record: " not in message), message
    page = tools.call("read_handle", {"handle": stub.handle, "jq": filter, "slurp": True})
    records = [json.loads(line) for line in _log().splitlines()]
    if each is not None:
        assert f'read_handle(handle="{stub.handle}", jq="{each}")' in message, message
        assert page["results"] == [r["path"] for r in records if r["status"] >= 500], page
        assert tools.call("read_handle", {"handle": stub.handle, "jq": each})["results"] == page["results"]
    else:
        assert page["results"] == [[2000, 2000]], page


def _coloured_run() -> bytes:
    """``pytest -v --color=yes`` of 701 tests, one failing: FAILURES on line 708."""
    rule = "=" * 30
    lines = [f"\x1b[1m{rule} test session starts {rule}\x1b[0m", "platform linux -- Python 3.11.7, pytest-9.2.0",
             "rootdir: /tmp/toy", "\x1b[1mcollecting ... \x1b[0mcollected 701 items", ""]
    lines += [f"test_calc.py::test_parse_many[{i}] \x1b[32mPASSED\x1b[0m\x1b[32m{' ' * 30}[{i // 7:3}%]\x1b[0m"
              for i in range(700)]
    lines += ["test_calc.py::test_discount_cap \x1b[31mFAILED\x1b[0m\x1b[31m [100%]\x1b[0m", "",
              f"=================================== FAILURES {rule}", "_" * 20 + " test_discount_cap " + "_" * 20,
              "E       assert 50.0 == 20.0",
              f"\x1b[31m{rule} \x1b[31m\x1b[1m1 failed\x1b[0m, \x1b[32m700 passed\x1b[0m in 0.48s {rule}\x1b[0m"]
    return ("\n".join(lines) + "\n").encode()


def test_a_text_view_from_a_line_the_shape_names_is_named_by_its_stored_byte(tools, scratch_scope):
    """Coloured ``pytest --color=yes -v`` output: its stub's shape says ``FAILURES (line 708)`` and that
    ``view="text"`` shows it without its escapes. ``view="text", line=708`` was refused naming only
    ``raw_offset=N`` -- a stored byte the model did not have. The refusal names the call with line 708's byte, and
    that call's page starts at the FAILURES line, rendered; plain text's refusal is unchanged."""
    content = _coloured_run()
    stub = scratch_scope.spill(content, source_tool="sh")
    assert "FAILURES (line 708)" in stub.shape and 'view="text"' in stub.shape, stub.shape
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "view": "text", "line": 708, "lines": 4})
    at = content.index(b"\n=====") + 1
    call = {"handle": stub.handle, "view": "text", "raw_offset": at}
    assert advised_calls(str(caught.value)) == [call], caught.value
    page = tools.call("read_handle", call)
    assert page["text"].startswith("=" * 35 + " FAILURES ") and "\x1b" not in page["text"], page
    assert "1 failed, 700 passed" in page["text"], page
    plain = scratch_scope.spill(b"".join(b"line %d of plain text\n" % i for i in range(2000)), source_tool="sh")
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": plain.handle, "view": "text", "line": 10})
    assert "starts at byte" not in str(refused.value), refused.value


def test_a_headless_tables_jq_read_without_slurp_names_no_call_that_fails_on_every_row(tools, scratch_scope):
    """``jq="select(.size > 400000) | .name"`` over ``dpkg-query``'s headless TSV, without slurp=true: the refusal
    named ``jq=".[] | select(.size > 400000) | .name", slurp=True``, which fails on every row (a row is an array of
    cells). It says rows are arrays of cells and names no such call; a filter indexing by number still gets the
    call, which answers."""
    content = _packages()
    stub = scratch_scope.spill(content, source_tool="sh")
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "jq": "select(.size > 400000) | .name"})
    message = str(caught.value)
    assert "no header line" in message and "array of its cells" in message, message
    assert ".[] | select(.size" not in message, message
    assert all("size" not in dict(named.arguments).get("jq", "") for named in caught.value.advice.calls), message
    with pytest.raises(InvalidArgument) as by_number:
        tools.call("read_handle", {"handle": stub.handle, "jq": "select(.[1] > 400000) | .[0]"})
    call = {"handle": stub.handle, "jq": ".[] | select(.[1] > 400000) | .[0]", "slurp": True}
    assert call in [dict(named.arguments) for named in by_number.value.advice.calls], by_number.value
    rows = [line.split("\t") for line in content.decode().splitlines()]
    assert tools.call("read_handle", call)["results"] == [row[0] for row in rows if int(row[1]) > 400000]
