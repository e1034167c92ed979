"""Where the test suite's time goes, from the log of a run with ``--durations=0`` (what the fifth session of
2026-12-06 quotes for the suite's ~10 minute aim):

    .venv/bin/python -m pytest --durations=0 -q > /tmp/durations.log   # the whole suite, ~13-21 minutes
    .venv/bin/python bench/suite_durations.py /tmp/durations.log

Prints the summed call/setup/teardown seconds, the 25 test files that take longest, the property tests' share (the
``@given`` tests, by the ``max_examples`` they set) and the ``alone`` tests' share (they run one at a time, last).

What it showed for a run at 11:44 UTC on 2026-12-06 (``-n 2``, helper sessions running, 1,264 s of wall time):
2,381 s summed (calls 1,952 s); the longest file ``test_mcp_proxy.py`` 98 s (4%); property tests 399 s (at 300
examples at most), 195 s of it in tests set over 100 examples; the ``alone`` tests' calls 193 s (of the tests marked
so at 13:40)."""

from __future__ import annotations

import ast
import collections
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"\s*([\d.]+)s (call|setup|teardown)\s+(\S+)")


def main(log: str) -> None:
    text = Path(log).read_text(encoding="utf-8", errors="replace")
    rows = [(float(m[1]), m[2], m[3]) for m in map(LINE.match, text.split("slowest durations", 1)[-1].splitlines())
            if m]
    phases, files, calls = collections.Counter(), collections.Counter(), collections.Counter()
    for seconds, phase, node in rows:
        phases[phase] += seconds
        files[node.split("::")[0]] += seconds
        if phase == "call":
            calls[node] += seconds
    print(f"summed {sum(phases.values()):,.0f} s: " + ", ".join(f"{k} {v:,.0f} s" for k, v in phases.items()))
    for name, seconds in files.most_common(25):
        print(f"{seconds:8.1f} s  {name}")
    by_test = collections.Counter()
    for node, seconds in calls.items():
        path, _, rest = node.partition("::")
        by_test[(path, rest.split("[")[0])] += seconds
    counts = collections.Counter()
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and getattr(d.func, "id", getattr(d.func, "attr", "")) == "given"
                    for d in node.decorator_list):
                examples = next((kw.value.value for d in node.decorator_list if isinstance(d, ast.Call)
                                 for kw in d.keywords
                                 if kw.arg == "max_examples" and isinstance(kw.value, ast.Constant)), 100)
                counts[examples] += by_test[(f"tests/{path.name}", node.name)]
    print(f"property tests: {sum(counts.values()):,.0f} s, over 100 examples "
          f"{sum(v for k, v in counts.items() if k > 100):,.0f} s")
    alone = set(subprocess.run([sys.executable, "-m", "pytest", "-m", "alone", "--collect-only", "-q", "-n", "0"],
                               check=False, cwd=ROOT, capture_output=True, text=True).stdout.split())
    print(f"alone tests' calls: {sum(v for k, v in calls.items() if k in alone):,.0f} s")


if __name__ == "__main__":
    main(sys.argv[1])
