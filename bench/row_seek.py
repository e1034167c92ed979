"""What ``row=N`` (``record=N``) costs without a cursor, against following the cursor a reply's ``next_call`` carries.

The contents (about ``--size`` MiB each, made before any timing): ``fixtures/query-packages-by-month.csv`` (real
query output) cut to its first three columns (name, version, month: about 36 bytes a row, so that 50 MB holds over a
million rows), its rows repeated under the one header --

* ``plain``: as the ``csv`` writer writes them (no quote anywhere);
* ``quoted 1%``: every 100th row's last field ``said "hi",\nthen left`` (a quoted field holding a line end, a
  comma and quotes);
* ``all quoted``: every field quoted (``csv.QUOTE_ALL``: a quote in every row);
* ``jsonl``: each row a JSON object ``{"name": ..., "version": ..., "month": ...}`` a line, read by ``record=N``.

Each row of the table times the model-facing call (``ScratchTools.read_handle``, 20 rows a page) and gives the
fastest of ``--repeat``: ``row=N`` (``record=N``) -- a first read at row N, no cursor --, and ``next_call`` -- the
call that reply names (its ``cursor``: the byte where the next page starts), followed.

    python bench/row_seek.py [--size MB] [--repeat N] [--only plain,jsonl]

Before and after a change, the same run of both checkouts, from a directory outside both:
``cd /tmp && PYTHONPATH=/work/main python /path/to/bench/row_seek.py``, then ``PYTHONPATH=<the other checkout>``.

At ``advice4`` (2026-12-05 14:34 UTC, 2 cores shared, load 6 to 7, ``--repeat 2``), the plain table only:

    50.0 MiB of CSV, 1,709,166 rows
    row=        1:     29.0 ms; its next_call (cursor):   13.7 ms
    row=   10,000:     61.1 ms; its next_call (cursor):    2.3 ms
    row=  100,000:    632.8 ms; its next_call (cursor):    1.5 ms
    row=1,000,000:   4311.0 ms; its next_call (cursor):    1.7 ms

Linear in N: each row before N was split by the ``csv`` module (about 4.3 us a row). Since ``rows2`` the rows
before N are passed over by counting the lines of stretches with no quote (``engine/structure/row_jump.py``), the
``csv`` module reading only the rows near a quote. At ``rows2`` (2026-12-05 17:55 UTC, 2 cores shared, load 9 to
11, ``--repeat 3``; ``main`` and ``rows2`` in the same run, from ``/tmp``), ms for row (record) N, ``main`` ->
``rows2``:

    content (50 MiB)    N=1,000       N=100,000      N=1,000,000
    plain               1.9 -> 2.2    292.8 -> 43.1  3905.5 -> 278.5
    quoted 1%           4.1 -> 1.7    309.3 -> 68.4  3540.7 -> 660.6
    all quoted          2.0 -> 2.8    415.6 -> 437.5 3613.4 -> 3224.2  (a quote in every row: parsed, as before)
    jsonl (771,592)     1.3 -> 1.6    135.2 -> 43.7  --

Every ``next_call`` (cursor) 0.7 to 3.8 ms in both. The load makes single figures vary by up to 2x run to run (row
1,000,000 of the plain table took 1.9 to 3.9 s on ``main`` over five runs, 0.18 to 0.28 s on ``rows2`` over three).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import tempfile
import time

from benchlib import FIXTURES, MIB

from scratchfs import ScratchStore
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools

ROWS = (1, 1_000, 100_000, 1_000_000)
KINDS = ("plain", "quoted 1%", "all quoted", "jsonl")


def contents(size: int, only: tuple[str, ...]) -> dict[str, bytes]:
    """Each kind's content of about ``size`` bytes: the fixture's header and rows, three columns, rows repeated."""
    with open(FIXTURES / "query-packages-by-month.csv", newline="", encoding="utf-8") as f:
        rows = [row[:3] for row in csv.reader(f)]
    header, body = rows[0], rows[1:] * 4
    odd = [[*row[:2], 'said "hi",\nthen left'] if n % 100 == 99 else row for n, row in enumerate(body)]
    made = {}
    for kind in only:
        if kind == "jsonl":
            one = "".join(json.dumps(dict(zip(header, row, strict=True))) + "\n" for row in body).encode()
            made[kind] = one * (size // len(one) + 1)
            continue
        out = io.StringIO()
        quoting = csv.QUOTE_ALL if kind == "all quoted" else csv.QUOTE_MINIMAL
        csv.writer(out, lineterminator="\n", quoting=quoting).writerows(odd if kind == "quoted 1%" else body)
        one = out.getvalue().encode()
        made[kind] = ",".join(header).encode() + b"\n" + one * (size // len(one) + 1)
    return made


def fastest(call, repeat: int) -> tuple[float, dict]:
    """``(seconds of the fastest of repeat calls of call(), the last call's reply)``."""
    best, reply = float("inf"), {}
    for _ in range(repeat):
        started = time.perf_counter()
        reply = call()
        best = min(best, time.perf_counter() - started)
    return best, reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=50, help="MiB of each content (default 50)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default=",".join(KINDS), help=f"kinds, comma-separated (default: {','.join(KINDS)})")
    args = parser.parse_args()
    made = contents(args.size * MIB, tuple(args.only.split(",")))
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        scope = store.scope("bench", "rows")
        tools = ScratchTools(scope)
        for kind, data in made.items():
            handle = scope.spill(data, source_tool="sql.query").handle
            what = "record" if kind == "jsonl" else "row"
            count = reader_rows(data, kind)
            print(f"{kind}: {len(data) / MIB:.1f} MiB, {count:,} {what}s")
            for n in (n for n in ROWS if n <= count):
                call = {"handle": handle, what: n, f"{what}s": 20}
                took, reply = fastest(lambda call=call: tools.call("read_handle", call), args.repeat)
                verb, following = parse_call(reply["next_call"])
                on, _ = fastest(lambda verb=verb, following=following: tools.call(verb, following), args.repeat)
                print(f"  {what}={n:>9,}: {took * 1000:8.1f} ms; its next_call (cursor): {on * 1000:6.1f} ms")


def reader_rows(data: bytes, kind: str) -> int:
    """The rows the ``csv`` module reads after the header (the lines, of JSON lines)."""
    if kind == "jsonl":
        return data.count(b"\n")
    return sum(1 for row in csv.reader(io.StringIO(data.decode(), newline="")) if row) - 1


if __name__ == "__main__":
    main()
