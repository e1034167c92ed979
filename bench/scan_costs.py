"""Two scans a read or a spill pays for, timed: the lone surrogate search a jq run makes over its document, and the
key scan of a JSON-lines spill's shape.

    python bench/scan_costs.py [--copies 6] [--reps 5]

1. ``numbers.LoneSurrogateScan().feed(document, final=True)`` over the EC2 model fixture repeated ``--copies`` times
   (~3 MB at 6; it holds no surrogate escape), against the full escape pattern alone (:data:`FULL_PATTERN`, a copy
   of the one in ``numbers``: what the scan ran before it searched a literal-led hint first) and against
   ``bytes.find`` of ``\\u`` (the floor).
2. ``shape_table.json_lines`` over a 512 KiB sample of JSON lines (the query fixture's rows as objects), whose keys
   are gathered from the records in the first ``KEY_SCAN_CHARS`` characters, against the same with the bound lifted
   to the whole sample.

Median of ``--reps`` runs, milliseconds, with the load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import statistics
import time

from benchlib import FIXTURES

from scratchfs.api import shape, shape_table
from scratchfs.engine.structure import numbers

FULL_PATTERN = re.compile(rb"(?<!\\)(?:\\\\)*(?:\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                          rb"|\\u([dD][89a-fA-F][0-9a-fA-F]{2}))")
"""The surrogate escape pattern of ``scratchfs.engine.structure.numbers`` (a pair, or a lone one), searched alone."""


def _ms(run, reps: int) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    document = (FIXTURES / "api-ec2-service-model.json").read_bytes() * args.copies
    escape = b"\\u"
    print(f"surrogate search over {len(document):,} bytes: "
          f"scan {_ms(lambda: numbers.LoneSurrogateScan().feed(document, final=True), args.reps):.1f} ms, "
          f"full pattern alone {_ms(lambda: list(FULL_PATTERN.finditer(document)), args.reps):.1f} ms, "
          f"bytes.find {_ms(lambda: document.find(escape), args.reps):.1f} ms")
    rows = list(csv.DictReader(io.StringIO((FIXTURES / "query-packages-by-month.csv").read_text())))
    lines, size, at = [], 0, 0
    while size < 512 * 1024:
        line = json.dumps({**rows[at % len(rows)], "n": at})
        lines.append(line)
        size, at = size + len(line) + 1, at + 1
    sample = "\n".join(lines) + "\n"
    decoder = json.JSONDecoder()
    bounded = _ms(lambda: shape_table.json_lines(sample, decoder, False), args.reps)
    kept, shape_table.KEY_SCAN_CHARS = shape_table.KEY_SCAN_CHARS, len(sample)
    try:
        whole = _ms(lambda: shape_table.json_lines(sample, decoder, False), args.reps)
    finally:
        shape_table.KEY_SCAN_CHARS = kept
    print(f"JSON-lines shape of a {len(sample):,}-character sample: keys from the first {kept:,} characters "
          f"{bounded:.1f} ms, from all of it {whole:.1f} ms")
    text = (FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes()[: 512 * 1024]
    crlf = text.replace(b"\n", b"\r\n")[: 512 * 1024]
    for name, data in (("LF text", text), ("CRLF text", crlf)):
        lines = data.count(b"\n")
        whole = _ms(lambda d=data, n=lines: shape.describe(d, 4 * len(d), 4 * n), args.reps)
        check = _ms(lambda d=data: _terminal_check(d), args.reps)
        print(f"describe of 512 KiB of {name} (of a 2 MiB content): {whole:.2f} ms, of it the terminal-output check "
              f"{check:.3f} ms")


def _terminal_check(sample: bytes) -> str:
    """What describe does to tell terminal output (shape.describe's own condition and call)."""
    return shape._terminal(sample) if b"\x1b" in sample or b"\r" in sample else ""

if __name__ == "__main__":
    main()
