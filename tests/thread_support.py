"""A helper of the runaway tests: how far another thread gets while a call runs (whether the call held the GIL)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


def ticks_during(call: Callable[[], object]) -> int:
    """Run ``call`` (its exception, if any, propagates) while a thread counts ~1,000 ticks a second (a 1 ms sleep
    between ticks); return the ticks counted while it ran."""
    count = [0]
    stop = threading.Event()

    def counter() -> None:
        while not stop.is_set():
            count[0] += 1
            time.sleep(0.001)

    thread = threading.Thread(target=counter)
    thread.start()
    before = count[0]
    try:
        call()
    finally:
        during = count[0] - before
        stop.set()
        thread.join()
    return during
