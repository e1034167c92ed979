"""The benchmark cannot rot: ``bench/run.py --quick`` runs every figure once, tiny, and its table has the right
shape. Nothing here asserts a speed."""

from __future__ import annotations

import importlib.util
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

import zstandard
from hypothesis import given
from hypothesis import strategies as st

from .conftest import FIXTURE_FILES

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ["#", "figure", "scratchfs", "anchor", "ratio", "target", "met"]
# the figures, one row each, T1 three (4, 16, 64 KiB), T3 (relative and absolute), T7 and T8 two, T6 one per
# real file and one on a file listing of /usr made at bench time; M = memory
EXPECTED_IDS = (["T1", "T1", "T1", "T2", "T3", "T3", "T4", "T5"] + ["T6"] * (len(FIXTURE_FILES) + 1)
                + ["T7", "T7", "T8", "T8"]
                + ["M1", "M2", "L1", "P1", "P2", "S1", "S2"])


def test_quick_run_prints_one_table_and_writes_its_json(tmp_path):
    results = tmp_path / "results"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--results-dir", str(results),
         "--workdir", str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("|")]
    header, rule, body = lines[0], lines[1], lines[2:]
    assert [c.strip() for c in header.strip("|").split("|")] == COLUMNS
    assert rule == "|" + "|".join(["---"] * len(COLUMNS)) + "|"
    cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in body]
    assert all(len(c) == len(COLUMNS) for c in cells), body
    assert [c[0] for c in cells] == EXPECTED_IDS
    for c in cells:
        assert re.match(r"[\d,.]+ (ops/s|MB/s|ms|bytes|entries/s|MiB)$", c[2]), c  # every figure has a value
        assert re.match(r"(yes|NO \([\d.]+× off\))$", c[6]), c

    report = json.loads((results / "quick-latest.json").read_text())
    assert report["quick"] is True and report["reps"] >= 5
    assert not (results / "latest.json").exists()  # a quick run never replaces the full run's figures
    assert len(list(results.glob("*-quick.json"))) == 1
    rows = report["rows"]
    assert [r["id"] for r in rows] == EXPECTED_IDS
    for r, c in zip(rows, cells, strict=True):
        assert r["figure"] == c[1] and r["target"] == c[5]
        spec = r["target_spec"]
        if r["anchor"] is not None:
            assert r["ratio"] == r["scratchfs"] / r["anchor"]
        x = r["ratio"] if spec["on"] == "ratio" else r["scratchfs"]
        assert r["met"] == (x >= spec["bound"] if spec["op"] == ">=" else x <= spec["bound"]), r
        assert c[6] == ("yes" if r["met"] else f"NO ({r['miss']:.2f}× off)")
    # T6 compares with one-frame zstd level 3 of each real file, as named in its row
    t6 = [r for r in rows if r["id"] == "T6"]
    for r, path in zip(t6[:-1], FIXTURE_FILES, strict=True):
        assert path.name in r["figure"]
        assert r["anchor"] == len(zstandard.ZstdCompressor(level=3).compress(path.read_bytes()))
    assert "listing of" in t6[-1]["figure"] and t6[-1]["anchor"] > 0
    assert [r["detail"]["payload_bytes"] for r in rows if r["id"] == "T1"] == [4096, 16384, 65536]
    assert not list(tmp_path.glob("scratchfs-bench-*")), "the run left its work directory behind"


def _benchlib():
    """bench/benchlib.py, loaded from its path: putting bench/ on sys.path (once for each example, before) left its
    run.py, memory.py, context.py ... in front of any later import of those names in this worker."""
    if "benchlib" not in sys.modules:
        spec = importlib.util.spec_from_file_location("benchlib", ROOT / "bench" / "benchlib.py")
        sys.modules["benchlib"] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["benchlib"]


@given(st.lists(st.integers(-10**9, 10**9), min_size=1, max_size=60), st.floats(0, 1))
def test_the_one_percentile_of_the_benchmarks_interpolates_between_ranks(values, q):
    percentile = _benchlib().percentile
    ordered = sorted(values)
    assert percentile(values, 0.5) == statistics.median(values)
    assert percentile(values, 0.0) == ordered[0] and percentile(values, 1.0) == ordered[-1]
    got = percentile(values, q)
    assert ordered[0] <= got <= ordered[-1]
    assert percentile(values, q, 1000) == got * 1000
    assert percentile([], q) is None
