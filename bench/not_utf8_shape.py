"""Shape detection of contents that are not all UTF-8 (a legacy encoding's letters), this checkout against another's,
in back-to-back processes: what sizing the shape's not-UTF-8 clause costs (the codec a browser would decode a page
with is looked for only in a sample that starts like a page).

    python bench/not_utf8_shape.py [OTHER_ROOT] [ROUNDS]     # default: this checkout alone, 3 rounds

Contents: 2 MiB of Latin-1 CSV rows (no page: its sample is not decoded for a page's codec) and a 2 MiB Latin-1 HTML
page (decoded for it, as before). Printed per checkout and content: the best of 15 ``describe`` calls in ms, per
round, with the load average.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

_WORKER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from scratchfs.api import shape_html
from scratchfs.api.shape import describe
row = "caf\u00e9 cr\u00e8me, na\u00efve r\u00e9sum\u00e9, d\u00e9j\u00e0 vu, \u00e9t\u00e9 " * 2 + "\n"
csv = (row * 40000).encode("latin-1")[: 2 * 1024 * 1024]
page = ("<html><head><title>t</title></head><body>" + "<p>" + row * 30000).encode("latin-1")[: 2 * 1024 * 1024]
for name, data in (("Latin-1 CSV", csv), ("Latin-1 page", page)):
    lines, best = data.count(b"\n"), float("inf")
    for _ in range(15):
        if hasattr(shape_html, "_LAST_CODEC"):  # (the last sample's codec, where the checkout keeps it: none, as a
            shape_html._LAST_CODEC[0] = None  # spill of new content finds it)
        start = time.perf_counter()
        describe(data, len(data), lines)
        best = min(best, time.perf_counter() - start)
    print(f"{name:13} {best * 1000:6.2f} ms")
"""


def _run(root: Path) -> str:
    done = subprocess.run([sys.executable, "-c", _WORKER, str(root)], capture_output=True, text=True, check=True,
                          cwd=root)
    return done.stdout


def main() -> None:
    other = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else None
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    for round_ in range(rounds):
        print(f"round {round_ + 1}, load average {os.getloadavg()[0]:.2f}")
        for root in ([other] if other else []) + [HERE]:
            for line in _run(root).splitlines():
                print(f"  {root.name:12} {line}")


if __name__ == "__main__":
    main()
