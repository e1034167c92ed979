"""A DeferredStore closed just as its retry thread opens the store: the ``on_open`` callback (which starts the
sweeper) never runs on a store already closed."""

from __future__ import annotations

import threading
import time

from scratchfs import ScratchStore
from scratchfs.api.deferred_store import DeferredStore
from scratchfs.foundation.errors import StoreBusy


class _SlowRelease:
    """A lock that lingers 0.2 s after each release, with ``released`` set then: a close() in another thread gets
    in between the opening's lock and what follows it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.released = threading.Event()

    def __enter__(self):
        return self.lock.__enter__()

    def __exit__(self, *exc_info):
        self.lock.__exit__(*exc_info)
        if threading.current_thread().name == "scratchfs-open":
            self.released.set()
            time.sleep(0.2)
        return False


def test_on_open_never_sees_a_closed_store(tmp_path):
    tries = []
    seen = []

    def open_store():
        tries.append(1)
        if len(tries) == 1:
            raise StoreBusy("busy for now")
        return ScratchStore(tmp_path / "root")

    deferred = DeferredStore(open_store, on_open=lambda store: seen.append(store.closed), retry=0.01)
    slow = _SlowRelease()
    deferred._lock = slow  # (the window between the opening's lock and on_open, widened)
    deferred.start()
    assert slow.released.wait(10)
    deferred.close()
    time.sleep(0.3)
    assert seen == [False]
