"""Three guards a shape pays for, timed: the figures in the comments and docstrings that chose them.

    python bench/shape_guards.py [--reps 7]

1. ``shape_log.LOG_LINE_RE`` (a log line behind docker compose's or kubectl's prefix, or none) against
   ``shape_log.PLAIN_LOG_LINE_RE`` (none), ``findall`` over a 4 KiB head of log lines as ``describe`` searches it, and
   the ``b" | " in head`` test that picks the first, over 4 KiB of spaces and words (no ``" | "`` in it): the comment
   over ``_LOG_LINE`` in ``scratchfs/api/shape_log.py``.
2. ``shape_table.first_row_is_data`` against ``table_start.header_votes`` over the header and rows
   ``aligned.find_table`` finds in four tables aligned by spaces of fixtures/tools (``ps auxww``, ``lsof -n``, ``ss
   -tan``, ``pip list``): ``shape_aligned._data_first``'s docstring.
3. ``shape_markdown._settings`` over this repository's README from its first heading, with its bound
   (``_SETTINGS_BYTES``) and lifted to the whole README, and ``markdown_shape`` of the README whole: the comment on
   ``_SETTINGS_BYTES``.

Best of ``--reps`` runs of a loop of calls, microseconds a call, process CPU, with the load average (the machine is
shared).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

from benchlib import FIXTURES

from scratchfs.api import shape_log, shape_markdown, shape_table
from scratchfs.engine.structure.aligned import find_table, head_lines
from scratchfs.engine.structure.table_start import header_votes

README = Path(__file__).resolve().parent.parent / "README.md"


def _us(run: Callable[[], object], reps: int, loops: int) -> float:
    """Best of ``reps`` loops of ``loops`` calls of ``run``, microseconds of process CPU a call."""
    best = float("inf")
    for _ in range(reps):
        began = time.process_time()
        for _ in range(loops):
            run()
        best = min(best, time.process_time() - began)
    return best / loops * 1e6


def _log_lines(reps: int) -> None:
    lines = [f"2026-12-05 04:{n % 60:02d}:00 INFO app.worker request {n} done in {n % 97} ms" for n in range(200)]
    head = b"\n" + "\n".join(lines).encode()[:4096]
    spaces = b"\n" + b" ".join(b"word%d" % n + b" " * (n % 5) for n in range(1000))[:4096]
    prefixed = _us(lambda: shape_log.LOG_LINE_RE.findall(head), reps, 200)
    plain = _us(lambda: shape_log.PLAIN_LOG_LINE_RE.findall(head), reps, 200)
    print(f"1. 4 KiB head of log lines      prefixed pattern {prefixed:6.1f} us   plain pattern {plain:6.1f} us")
    print(f"   4 KiB of spaces and words    b' | ' in it {_us(lambda: b' | ' in spaces, reps, 2000):6.2f} us")


def _header_votes(reps: int) -> None:
    for name in ("ps-auxww.txt", "lsof-n-unprivileged.txt", "ss-tan.txt", "pip-list.txt"):
        found = find_table(head_lines((FIXTURES / "tools" / name).read_text(), True))
        assert found is not None, name
        rows = [list(found[0].names), *found[1]]  # (as shape_aligned._header gives them to _data_first)
        data = _us(lambda rows=rows: shape_table.first_row_is_data(rows), reps, 200)
        votes = _us(lambda rows=rows: header_votes(rows), reps, 200)
        print(f"2. {name:24} {len(rows):2} rows  first_row_is_data {data:6.1f} us   header_votes {votes:6.1f} us")


def _settings(reps: int) -> None:
    sample = README.read_bytes()
    text = b"\n" + sample
    headings, fences = shape_markdown._headings(text)
    bound = shape_markdown._SETTINGS_BYTES
    bounded = _us(lambda: shape_markdown._settings(text, headings, fences), reps, 20)
    shape_markdown._SETTINGS_BYTES = len(text)
    try:
        whole = _us(lambda: shape_markdown._settings(text, headings, fences), reps, 20)
    finally:
        shape_markdown._SETTINGS_BYTES = bound
    lines = sample.count(b"\n")
    told = _us(lambda: shape_markdown.markdown_shape(sample, lines, True, ""), reps, 5)
    print(f"3. README, {len(sample):,} bytes       _settings {bounded:6.0f} us ({bound // 1024} KiB)   {whole:6.0f} us "
          f"(whole)   markdown_shape {told:6.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    reps = parser.parse_args().reps
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    _log_lines(reps)
    _header_votes(reps)
    _settings(reps)


if __name__ == "__main__":
    main()
