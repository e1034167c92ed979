"""The CPU of ``read_mixes.check_read_modes`` on a plain range read (every ``read_handle`` runs it), in microseconds
a call: timeit, 20,000 calls, best of 5.

    python bench/read_mode_checks.py

At 07:40 UTC, 2026-12-06: 3.2 us with whether a refusal's call can write each value judged on every read, 1.7 us
with it judged only when a refusal is built (``_Calls.handle``).
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.api.read_mixes import check_read_modes


def _range_read() -> None:
    check_read_modes(offset=4096, length=4096, line=None, lines=None, searching=False, context=None, max_matches=None,
                     before=None, ignore_case=False, handle="h_" + "a" * 24)


if __name__ == "__main__":
    best = min(timeit.repeat(_range_read, number=20_000, repeat=5)) / 20_000
    print(f"check_read_modes, a range read: {best * 1e6:.2f} us a call")
