"""The time a terminal-output stub's preview takes to render its first lines as a terminal shows them
(:class:`scratchfs.api.terminal_preview.RenderedHead`): :data:`~scratchfs.api.terminal_preview.RENDERED_BYTES`
(256 KiB) of colored progress-bar redraws, as lines of 50, 1,000 and 100,000 redraws (a line longer than the
rendered bytes is not rendered: the last row times giving it up). Best and median of ``REPS`` (5) runs.

    python bench/terminal_preview.py [REPS]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.api.terminal_preview import RENDERED_BYTES, RenderedHead


def _bar(i: int) -> str:
    """One redraw of a colored download bar (rich's, as pip draws it), after its ``\\r``."""
    return (f"\r\x1b[2K   \x1b[38;5;197m{'━' * (i % 40)}\x1b[0m\x1b[38;5;237m{'━' * (40 - i % 40)}\x1b[0m "
            f"\x1b[32m{i}/100 MB\x1b[0m \x1b[31m1.2 MB/s\x1b[0m eta \x1b[36m0:00:{i % 60:02d}\x1b[0m")


def main(reps: int) -> None:
    for redraws in (50, 1_000, 100_000):
        line = "".join(_bar(i) for i in range(redraws)).encode() + b"\n"
        head = (line * (RENDERED_BYTES // len(line) + 2))[: RENDERED_BYTES + 100]
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            RenderedHead(head, 10 * len(head), 4096)
            times.append((time.perf_counter() - start) * 1e3)
        print(f"{redraws:>7,} redraws a line ({len(line):>10,} B): best {min(times):5.1f} ms, "
              f"median {statistics.median(times):5.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
