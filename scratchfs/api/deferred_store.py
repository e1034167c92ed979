"""A store a long-running face opens when it can: ``scratchfs mcp``, ``mcp-proxy`` and ``serve`` start and serve
while the index database is out of reach or busy, and the store opens as soon as it answers, without a restart.

An MCP proxy that exited because PostgreSQL was down when it started cost the agent every upstream tool (a fleet
trial); once a store is open, an outage is already a typed error of each call (the index's circuit breaker,
:mod:`scratchfs.engine.postgres_pool`) and ``offload`` passes results through. :class:`DeferredStore` gives the
start-up the same behaviour: the first opening is tried at once; when it fails because the index (or object store)
is out of reach for now -- a :class:`~scratchfs.foundation.errors.StorageError` flagged ``unavailable``, as the web
inspector's 503 is -- or busy for now (:class:`~scratchfs.foundation.errors.StoreBusy`: SQLite or the schema lock
locked, PostgreSQL's ``lock_timeout``; too many connections is flagged ``unavailable``), logged once, a daemon thread
tries again every :data:`RETRY_SECONDS` (each attempt bounded by the busy timeout), and meanwhile
:meth:`DeferredStore.get`
raises, at once, one ``StorageError`` (``unavailable``, ``retry_after`` seconds) naming the outage and when to
retry. Any other failure of the first opening (a wrong password, a schema newer than this scratchfs, an index and
blobs that do not belong together, a bad setting) is raised by :meth:`DeferredStore.start`, as before: it is a
setting to fix, not an outage to wait out. A call never waits for an opening: the thread does the waiting.

**Fork.** A ``fork()`` child holds no thread of its parent but the forking one (POSIX ``fork()``): a child of a
process whose store was not open yet had no thread trying, and its store never opened. A child starts its own thread
the first time it asks for the store (:meth:`DeferredStore.get`, :attr:`DeferredStore.store`) while it is not open;
its lock is made anew (:func:`scratchfs.foundation.forks.renewed_in_child`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from scratchfs.api.settings import Settings
from scratchfs.api.store import ScratchStore
from scratchfs.engine.backends import ENV_BLOBS, ENV_INDEX, describe_url
from scratchfs.foundation import forks
from scratchfs.foundation.errors import ScratchError, StorageError, out_of_reach
from scratchfs.foundation.text import one_line

log = logging.getLogger(__name__)

RETRY_SECONDS = 2.0
"""Seconds between two attempts to open a store whose index was out of reach (and what a call is told to wait)."""


def store_name(store: Mapping[str, Any] | None) -> str:
    """The store that keywords of :class:`ScratchStore` (``index``, ``blobs``; unset: ``$SCRATCHFS_INDEX`` /
    ``$SCRATCHFS_BLOBS``) name, as a start-up line says it before it is open: no password, no query."""
    store = store or {}
    index = store.get("index", os.environ.get(ENV_INDEX))
    blobs = store.get("blobs", os.environ.get(ENV_BLOBS))
    return f"the store with index {describe_url(index)} and blobs {describe_url(blobs)}"


class DeferredStore:
    """The store of a face that must keep serving through an outage at start-up (see the module docstring).

    Args:
        open_store: makes the :class:`ScratchStore` (blocking; raises as ``ScratchStore`` does).
        settings: the settings the store is opened with (known before it opens: the tools' descriptions use them).
        on_open: called with the store once it is open (e.g. to start its sweeper), from the thread that opened it,
            before a :meth:`close` closes it (never after).
        retry: seconds between two attempts while the store is out of reach.
        name: the store as a start-up line names it before it is open (no password: ``describe_url``).
    """

    def __init__(self, open_store: Callable[[], ScratchStore], settings: Settings | None = None, *,
                 on_open: Callable[[ScratchStore], Any] | None = None, retry: float = RETRY_SECONDS,
                 name: str = "the store") -> None:
        self._open_store = open_store
        self.name = name
        self.settings = settings or Settings()
        self._on_open = on_open
        self.retry = retry
        self._store: ScratchStore | None = None
        self._failure: ScratchError | None = None
        self._lock = forks.renewed_in_child(self, "_lock", threading.Lock)  # (a fork() child: a new one)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def store(self) -> ScratchStore | None:
        """The open store, or ``None`` while it could not be opened (a fork child with no thread trying starts one)."""
        store = self._store
        if store is None:
            self._keep_trying_here()
        return store

    @property
    def failure(self) -> ScratchError | None:
        """Why the last attempt to open the store failed (``None`` once it is open)."""
        return None if self._store is not None else self._failure

    def start(self) -> DeferredStore:
        """Try to open the store now; if its backends are out of reach, go on trying in a daemon thread.

        Raises:
            ScratchError: the opening failed for another reason than an outage (a setting to fix: see the module
                docstring); nothing is left running.
        """
        try:
            self._opened(self._open_store())
        except ScratchError as exc:
            if not out_of_reach(exc):
                raise
            self._failure = exc
            # (INFO: each face's start-up line says it -- ``not open yet (<the failure>) ...`` --; a WARNING here came
            # before that line, the same failure twice in a client's log, and the first line said no store (newuser22))
            log.info("scratchfs: the store cannot be opened yet (%s); serving anyway, trying again every %g s",
                     one_line(str(exc)), self.retry)
            self._start_thread()
        return self

    def _start_thread(self) -> None:
        self._thread = threading.Thread(target=self._keep_trying, name="scratchfs-open", daemon=True)
        self._thread.start()

    def _keep_trying_here(self) -> None:
        """Start a thread that tries again if this process has none while the store is not open: a fork() child's
        parent thread is not in the child (POSIX ``fork()`` copies the calling thread only)."""
        thread = self._thread
        if thread is None or thread.is_alive() or self._stop.is_set():
            return
        with self._lock:
            if self._store is None and self._thread is thread and not self._stop.is_set():
                self._start_thread()

    def get(self) -> ScratchStore:
        """The open store.

        Raises:
            StorageError: not open yet (``unavailable = True``, ``retry_after`` seconds): names the outage and when
                to retry; raised at once, never after a wait.
        """
        store = self._store
        if store is not None:
            return store
        self._keep_trying_here()
        failure = self._failure
        error = StorageError(f"the store is not open: {failure}; this server keeps serving and opens it as soon as "
                             f"it answers (it tries every {self.retry:g} s): retry in {self.retry:g} s or more")
        error.unavailable = True  # type: ignore[attr-defined]
        error.retry_after = self.retry  # type: ignore[attr-defined]
        raise error

    def _opened(self, store: ScratchStore) -> None:
        with self._lock:  # (on_open inside: a close() waits for it, so it never runs on a store already closed)
            if self._stop.is_set():  # closed while it was opening: nobody will close it but us
                store.close()
                return
            self._store = store
            if self._on_open is not None:
                self._on_open(store)

    def _keep_trying(self) -> None:
        while not self._stop.wait(self.retry):
            try:
                store = self._open_store()
            except ScratchError as exc:
                self._failure = exc
                continue
            except Exception as exc:  # a bug must not end the retries silently
                log.exception("scratchfs: opening the store failed")
                self._failure = StorageError(f"opening the store failed: {type(exc).__name__}: {exc}")
                continue
            self._opened(store)
            log.warning("scratchfs: the store is open now (its index answers again)")
            return

    def close(self) -> None:
        """Stop trying and close the store if it opened. Idempotent."""
        with self._lock:
            self._stop.set()
            store, self._store = self._store, None
        if store is not None:
            store.close()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=1.0)  # (an opening in flight is bounded by busy_timeout; it closes what it opens)

    def __enter__(self) -> DeferredStore:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()


__all__ = ["RETRY_SECONDS", "DeferredStore", "out_of_reach", "store_name"]
