"""``bench/context.py`` cannot rot: it runs whole (every task, every strategy), scratchfs answers every task, and the
table's figures follow from the per-task ones. Nothing here asserts a ratio between strategies."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_context_bench_runs_and_scratchfs_answers_every_task(tmp_path):
    out = tmp_path / "context.json"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "context.py"), "--no-chart", "--out", str(out)],
                          capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    tasks = result["tasks"]
    assert len(tasks) >= 30
    assert all(row["scratchfs"] is not None for row in tasks), [r["task"] for r in tasks if r["scratchfs"] is None]
    for name, summary in result["strategies"].items():
        got = [row[name] for row in tasks if row[name] is not None]
        assert summary["answered"] == len(got)
        assert summary["median"] == statistics.median(got)
    for row in tasks:  # the whole result inline costs its size, and a truncation never more than its cap + marker
        assert row["inline"] in (None, row["size"])
        assert row["head"] is None or row["head"] <= result["cap_bytes"] + 100
        assert row["scratchfs"] <= 1536 + 4 * result["budget_bytes"]  # the stub and at most a few replies
    assert "scratchfs" in done.stdout
