"""hostile39 over the web inspector: a table past the 4 MiB its ``/table`` route parses was told short -- ``row=N``
past the rows of its first 4 MiB was refused as ``row N is past the last row: the table has 217 rows after its
header``, of a table that holds 600: a person was told the rows after them do not exist. Now the refusal says the
table goes on and names the model's rows read that shows them (``row`` + 1, as data in ``calls`` too); a row past a
whole table's last is refused as before."""

from __future__ import annotations

import csv
import io

import pytest
from starlette.testclient import TestClient

from scratchfs.api.contract import ScratchTools
from scratchfs.web import create_app
from tests.test_web_api import AUTH, TOKEN, h_url


@pytest.fixture
def client(store):
    with TestClient(create_app(store, TOKEN), headers=AUTH) as c:
        yield c


def test_a_row_past_the_first_4_mib_of_a_table_is_said_to_go_on_with_the_read_that_shows_it(store, client,
                                                                                            fixture_data):
    data = fixture_data["query-packages-by-month.csv"]
    header, _, body = data.partition(b"\n")
    table = header + b"\n" + body * (4 * 1048576 // len(body) + 2)  # (past 4 MiB: the route parses its first 4 MiB)
    records = list(csv.reader(io.StringIO(table.decode(), newline="")))
    scope = store.scope("run-t", "agent-1")
    handle = scope.spill(table).handle
    shown = client.get(h_url(scope, handle, "/table"), params={"rows": 1}).json()
    assert shown["partial"] is True and shown["total_rows"] < len(records) - 1
    row = shown["total_rows"] + 10  # (a row the table holds, past those the route parsed)
    reply = client.get(h_url(scope, handle, "/table"), params={"row": row})
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert "past the last row" not in error["message"], error
    assert error["message"].startswith(f"row {row} is past the rows shown here: the table's first 4 MiB hold "
                                       f"{shown['total_rows']:,} rows"), error
    assert error["calls"] == [{"tool": "read_handle", "arguments": {"handle": handle, "row": row + 1}}]
    read = ScratchTools(scope).call("read_handle", error["calls"][0]["arguments"])
    assert read["rows"][0] == records[row + 1]  # (the row it names is that row of the table: records[0] the header)

    whole = scope.spill(data).handle  # (a table the route parses whole: its last row is the last)
    count = len(list(csv.reader(io.StringIO(data.decode(), newline="")))) - 1
    reply = client.get(h_url(scope, whole, "/table"), params={"row": count + 1})
    assert reply.status_code == 400 and reply.json()["error"]["message"] == (
        f"row {count + 1} is past the last row: the table has {count:,} rows (row counts them from 0: "
        f"0 to {count - 1}; row={count} is the end, an empty page)")  # (was "0 to {count}": one row too many)


def test_a_row_past_a_short_table_names_its_last_row_not_one_more(store, client, fixture_data):
    """newuser29: ``the table has 200,000 rows (row counts them from 0: 0 to 200000)`` named one row more than the
    table holds; the rows are 0 to 199999, and row=200000, the end, is an empty page (served, not refused)."""
    lines = fixture_data["query-packages-by-month.csv"].split(b"\n")
    scope = store.scope("run-t", "agent-1")
    three = scope.spill(b"\n".join(lines[:4]) + b"\n").handle  # the header and 3 rows
    assert client.get(h_url(scope, three, "/table"), params={"row": 3}).json()["rows"] == []  # the end: served
    reply = client.get(h_url(scope, three, "/table"), params={"row": 4})
    assert reply.status_code == 400 and reply.json()["error"]["message"] == (
        "row 4 is past the last row: the table has 3 rows (row counts them from 0: 0 to 2; row=3 is the end, "
        "an empty page)")
    empty = scope.spill(lines[0] + b"\n").handle  # the header alone: no row
    reply = client.get(h_url(scope, empty, "/table"), params={"row": 1})
    assert reply.json()["error"]["message"] == (
        "row 1 is past the last row: the table has 0 rows (row counts them from 0: row=0 is the end, an empty page)")
