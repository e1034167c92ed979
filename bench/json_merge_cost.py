"""``describe`` of JSON documents whose arrays' items are merged from a sample (branch jsonshape): typical ones (3,000
items of a list API, 100 wide objects, 5,000 JSON lines, 50 small items) and adversarial ones (8^4 nested objects
each ending in arrays, arrays of arrays 5 deep), process CPU time, best of 5, for two checkouts in alternating
processes (the same module names cannot be loaded twice in one).

    python bench/json_merge_cost.py [BEFORE_ROOT] [ROUNDS]     # default: /work/main, 2 rounds; AFTER is this checkout
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib


def _documents() -> dict[str, bytes]:
    def tree(depth: int) -> object:
        return {f"k{i}": tree(depth - 1) for i in range(8)} if depth else [[{"a": [1, [2, {"b": [3]}]]}] * 2]

    docs = {
        "3,000 list items": json.dumps({"items": [{"id": i, "tags": ["a", "b"][: i % 3], "price": {"amount": i}}
                                                  for i in range(3000)]}),
        "100 objects of 300 keys": json.dumps([{f"k{j}": j for j in range(300)} for _ in range(100)]),
        "5,000 JSON lines": "\n".join(json.dumps({"id": i, "v": [1] * (i % 3), "s": "x" * (i % 50)})
                                      for i in range(5000)),
        "50 small items": json.dumps([{"id": i, "name": "n"} for i in range(50)]),
        "8^4 objects of arrays": json.dumps(tree(4)),
        "arrays of arrays": json.dumps([[[[[[i, [i]]] * 3] * 3] * 3] * 3 for i in range(300)]),
    }
    return {name: text.encode()[: 512 * 1024] for name, text in docs.items()}


def one(root: str) -> dict[str, float]:
    """Milliseconds of CPU per ``describe`` of each document, with ``scratchfs`` imported from ``root``."""
    sys.path.insert(0, root)
    from scratchfs.api.shape import describe

    figures = {}
    for name, data in _documents().items():
        lines = data.count(b"\n") + 1
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            describe(data, len(data), lines)
            best = min(best, time.process_time() - start)
        figures[name] = best * 1000
    return figures


def main(argv: list[str]) -> int:
    pair = benchlib.checkout_pair(__file__, argv, one, 2)
    if pair is None:
        return 0
    before, after, runs = pair
    for case in runs[after][0]:
        was = min(run[case] for run in runs[before])
        now = min(run[case] for run in runs[after])
        print(f"{case}: {was:,.2f} -> {now:,.2f} ms ({was / now:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
