"""fsck of a store whose agent directory holds many names scratchfs did not write beside many entries whose files are
gone (a segment removed): open10's filter that keeps a link an entry's check already told from being told again
scanned every problem for each foreign name (quadratic); rr5 made it one set of the problems' directories
(``scratchfs.api.inspector.fsck``).

    python bench/fsck_foreign.py [N]        # default 4000: N entries spilled, their files removed, N foreign files

At 06:16 UTC, 2026-12-06 (rr5, load ~3): N = 4000, 4.55 s with open10's filter, 0.36-0.44 s with rr5's. At 07:45
UTC, alternating this checkout and ``ba32627`` (before either; the script copied into a ``git archive``): 0.43 and
0.28 s against 0.33 and 0.33 s -- the filter costs nothing measurable now.
"""

from __future__ import annotations

import glob
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    with tempfile.TemporaryDirectory() as root:
        with ScratchStore(root=root) as store:
            scope = store.scope("r", "a")
            for _ in range(n):
                scope.spill(os.urandom(64) * 300, source_tool="bench")
        files = glob.glob(f"{root}/**/*.zst", recursive=True) + glob.glob(f"{root}/**/*.zseg", recursive=True)
        agent = os.path.dirname(files[0])
        for file in files:
            os.unlink(file)
        for i in range(n):
            Path(agent, f"foreign{i}.txt").touch()
        with ScratchStore(root=root) as store:
            start = time.perf_counter()
            report = fsck(store)
            took = time.perf_counter() - start
        print(f"{n} entries, {len(files)} files removed, {n} foreign files: {len(report.problems):,} problems, "
              f"fsck {took:.2f} s")


if __name__ == "__main__":
    main()
