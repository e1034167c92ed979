"""Cost of the jq worker's check for NaN and infinity literals outside strings (``numbers.non_json_constant``), run
on every jq read of a whole document: the string-blanking pass alone against the check as it runs (a candidate
scan first, the pass only when one stands as a value would).

    python bench/constant_scan.py [FILE]     # default: fixtures/api-ec2-service-model.json repeated to ~3 MB
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.engine.structure import numbers


def best_ms(run, text: str, reps: int = 5) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run(text)
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "fixtures" / "api-ec2-service-model.json"
    text = path.read_text(encoding="utf-8")
    if not argv:
        text = "[" + ",".join([text] * max(1, 3_000_000 // len(text))) + "]"
    blank = best_ms(lambda t: numbers._CONSTANT.search(numbers._STRING_TEXT.sub('""', t)), text)
    check = best_ms(numbers.non_json_constant, text)
    print(f"{len(text):,} characters: string-blanking pass {blank:.1f} ms, non_json_constant {check:.1f} ms "
          f"({blank / check:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
