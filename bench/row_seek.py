"""What ``row=N`` costs without a cursor, against following the cursor a reply's ``next_call`` carries (advice4).

The content: ``fixtures/query-packages-by-month.csv`` (real query output) cut to its first three columns (name,
version, month: about 36 bytes a row, so that 50 MB holds over a million rows) and its rows repeated to ``--size``
MB under the one header. Each row of the table times the model-facing call (``ScratchTools.read_handle``, 20 rows a
page) and gives the fastest of ``--repeat``:

* ``row=N`` -- a first read at row N, no cursor: the rows before N are read to find where N starts;
* ``next_call`` -- the call the row=N reply names (its ``cursor``: the byte where the next page starts), followed.

    python bench/row_seek.py [--size MB] [--repeat N]

At ``advice4`` (2026-12-05 14:34 UTC, 2 cores shared, load 6 to 7, ``--repeat 2``):

    50.0 MiB of CSV, 1,709,166 rows
    row=        1:     29.0 ms; its next_call (cursor):   13.7 ms
    row=   10,000:     61.1 ms; its next_call (cursor):    2.3 ms
    row=  100,000:    632.8 ms; its next_call (cursor):    1.5 ms
    row=1,000,000:   4311.0 ms; its next_call (cursor):    1.7 ms

Linear in N (about 4.3 us a row: each row before N is split by the ``csv`` module and its line end found,
``table._rows_until_bad`` and ``row_lines.iter_row_lines``), while the ``next_call`` of every rows page already
carries the cursor (the byte where its next page starts), which costs the page alone. The store keeps a line index
(per-frame newline counts, ``engine/lines.py``) but no row index: a quoted field may hold line ends and blank lines
are no rows, so line N is not row N without reading the rows before it.
"""

from __future__ import annotations

import argparse
import csv
import io
import tempfile
import time

from benchlib import FIXTURES, MIB

from scratchfs import ScratchStore
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools

ROWS = (1, 10_000, 100_000, 1_000_000)


def table(size: int) -> bytes:
    """A CSV of about ``size`` bytes: the fixture's header and rows, three columns, rows repeated."""
    with open(FIXTURES / "query-packages-by-month.csv", newline="", encoding="utf-8") as f:
        rows = [row[:3] for row in csv.reader(f)]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows[1:])
    body = out.getvalue().encode()
    header = ",".join(rows[0]).encode() + b"\n"
    return header + body * (size // len(body) + 1)


def fastest(call, repeat: int) -> tuple[float, dict]:
    best, reply = float("inf"), {}
    for _ in range(repeat):
        started = time.perf_counter()
        reply = call()
        best = min(best, time.perf_counter() - started)
    return best, reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=50, help="MB of CSV (default 50)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = table(args.size * MIB)
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        scope = store.scope("bench", "rows")
        tools = ScratchTools(scope)
        handle = scope.spill(data, source_tool="sql.query").handle
        rows = data.count(b"\n") - 1
        print(f"{len(data) / MIB:.1f} MiB of CSV, {rows:,} rows")
        for n in ROWS:
            took, reply = fastest(lambda n=n: tools.call("read_handle", {"handle": handle, "row": n, "rows": 20}),
                                  args.repeat)
            verb, following = parse_call(reply["next_call"])
            on, _ = fastest(lambda verb=verb, following=following: tools.call(verb, following), args.repeat)
            print(f"row={n:>9,}: {took * 1000:8.1f} ms; its next_call (cursor): {on * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
