"""Worker processes over pipes, shared by the engines that must stop on time: regex searches
(:mod:`scratchfs.engine.pattern_worker`), jq filters (:mod:`scratchfs.engine.structure.jq_worker`) and HTML reads
(:mod:`scratchfs.engine.structure.html_worker`).

A worker is a fresh interpreter (``sys.executable -c BOOT``) that loads this file and its sibling
:mod:`scratchfs.engine.worker_loop` (the worker's side: its requests, its limits, its answers) by path under their
package names (the worker file's ``from scratchfs.engine.worker_pipe import ...`` finds them without the ``scratchfs``
package) and runs the worker file by path as ``__scratchfs_worker__``, neither the working directory nor the file's on
``sys.path``.
Not ``fork``: a forked child that frees the store's SQLite connections and file locks (CPython clears other threads'
states after ``fork``) can checkpoint or unlink the parent's WAL (SQLite forbids a connection across ``fork()``);
``multiprocessing``'s spawn would re-import the parent's ``__main__`` (the CLI) in every worker.

Requests and answers are frames -- an 8-byte little-endian length, then that many bytes (a pickle) -- over the
worker's stdin and stdout; the parent's writes and reads wait in ``poll`` until a deadline (``time.monotonic()``,
the GIL released), so a worker that stops reading or answering costs the caller no more than its time limit. A new
worker first writes an empty frame once its worker file is loaded: a call's time limit counts from then, so that an
interpreter's start on a loaded machine is never reported as the request running out of time.

A worker never outlives its parent for long. Every worker of every :class:`Pool`, busy or idle, is killed at the
parent's exit or stop (:func:`kill_workers`); an idle worker whose parent is gone (killed) reads end-of-file and
exits; and a busy one caps its own CPU time at each request's time limit plus :data:`CPU_SLACK_SECONDS`
(``RLIMIT_CPU``, set before the request runs: SIGXCPU's default action ends the process even inside C code that
holds the GIL, where no watchdog thread could run). The parent kills a worker at the deadline anyway (CPU time never
runs ahead of wall time in these single-threaded workers); the CPU cap is the backstop for an orphan whose parent
was SIGKILLed mid-call. Not ``PR_SET_PDEATHSIG``: it fires when the *thread* that started the worker ends, and
workers are started from request threads.

Idle workers do not stay for the life of a long-running process (each is a Python process with its libraries loaded): a
pool hands out no worker idle for more than its ``idle_seconds`` (:data:`IDLE_SECONDS`; it stops it and starts a new
one), and a worker that gets no request for 1.5 times that exits by itself (exit status 0). The margin keeps the two
from crossing; and should a request still reach a worker that has just exited that way, the pool runs it once more in a
new one.

A worker's stderr (fd 2: what jq's C code prints when it runs out of memory, lxml's or Python's warnings, a crash
message) never reaches the parent's: it goes to an anonymous file of the worker's own (``memfd``, else an unlinked
temporary file; ``/dev/null`` when neither can be made), emptied before each request and capped at :data:`STDERR_BYTES`
(``RLIMIT_FSIZE`` in the worker, SIGXFSZ ignored: writes past it fail). When a worker dies under a call, the last line
it wrote there is the call's answer (:meth:`Pool.run`), for a one-line error. Standard library only: this file runs in
the workers."""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from scratchfs.foundation import forks

__all__ = ["BOOT", "BOOT_SECONDS", "CPU_SLACK_SECONDS", "GIVEN_UP", "IDLE_SECONDS", "LAST_WORDS_CHARS", "POOLS",
           "STDERR_BYTES", "WATCHED", "WORKERS_KILLED", "WORKER_NAME", "NoWorker", "Pool", "PoolBusy", "Worker",
           "given_up", "kill_workers", "read_frame", "wait_for", "write_frame"]

WORKER_NAME = "__scratchfs_worker__"
"""``__name__`` of a worker file run in a worker process."""
BOOT = ("import os, sys, runpy, importlib.util as u; del sys.path[0]\n"
        "for name in ('worker_pipe', 'worker_loop'):\n"
        "    path = os.path.join(os.path.dirname(sys.argv[1]), name + '.py')\n"
        "    s = u.spec_from_file_location('scratchfs.engine.' + name, path)\n"
        "    sys.modules[s.name] = m = u.module_from_spec(s)\n"
        "    s.loader.exec_module(m)\n"
        "runpy.run_path(sys.argv[2], run_name=sys.modules['scratchfs.engine.worker_pipe'].WORKER_NAME)")
"""The program a worker interpreter runs (``-c``): ``argv[1]`` is this file, ``argv[2]`` the worker file; it loads
this file, then :mod:`scratchfs.engine.worker_loop` (which imports from it), from ``argv[1]``'s directory."""
_CHUNK = 1 << 20
_READ_BYTES = 1 << 24  # the most one read asks for, and a frame buffer's first size (16 MiB)
BOOT_SECONDS = 30.0
"""Most seconds a new worker may take to start (its interpreter and its worker file's imports) before it says it is
ready; a call's time limit counts from then (:meth:`Pool.run`). One that takes longer is :class:`NoWorker`."""
_SIGXCPU = getattr(signal, "SIGXCPU", 0)  # (the signal RLIMIT_CPU's soft limit sends; none on Windows)
CPU_SLACK_SECONDS = 2.0
"""Seconds of CPU time a worker may use past a request's time limit before ``RLIMIT_CPU`` ends it."""
IDLE_SECONDS = 60.0
"""Default ``idle_seconds`` of a :class:`Pool`: a worker idle longer is not reused; one idle 1.5 times that exits."""
STDERR_BYTES = 64 * 1024
"""Most bytes a worker keeps of its stderr during one request (``RLIMIT_FSIZE``); its writes past them fail."""
LAST_WORDS_CHARS = 200
"""Most characters of a dead worker's last stderr line given back (:meth:`Worker.last_words`)."""


class NoWorker(OSError):
    """No worker process could be started (out of descriptors, memory or processes); the message names the errno.
    The caller must not run the request in its own thread instead: nothing could stop it there."""


class PoolBusy(TimeoutError):
    """Every worker of a pool stayed busy until the call's deadline: the call was not run (the message names the
    pool and its size)."""


class Worker:
    """One worker process running the worker file ``script`` (a path), and the pipes to it."""

    def __init__(self, script: str, idle_exit: float = 1.5 * IDLE_SECONDS) -> None:
        """Start it; it exits by itself after ``idle_exit`` seconds without a request; its stderr goes to a file of
        its own (:func:`_stderr_file`), never to the parent's. Raises OSError when no process can be started
        (descriptors, memory)."""
        self.stderr, self.said, self.started, self.ready = _stderr_file(), "", time.monotonic(), False
        self.thread: int | None = None  # the ident of the thread whose call it runs; None while idle
        try:
            self.process = subprocess.Popen([sys.executable, "-c", BOOT, __file__, script, repr(float(idle_exit))],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, close_fds=True,
                                            stderr=subprocess.DEVNULL if self.stderr is None else self.stderr)
        except BaseException:
            self._close_stderr()
            raise
        self.idle_since = time.monotonic()

    def send(self, request: bytes, deadline: float | None) -> None:
        """Write the frame of ``request`` (a pickle), led by its time limit (8 bytes, a little-endian double:
        seconds until ``deadline``, negative for none) for the worker's CPU cap. Raises TimeoutError (the worker must
        then be discarded), OSError (it died)."""
        limit = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
        if self.stderr is not None:  # the request's stderr alone (the file is in append mode: writes go to its end)
            with contextlib.suppress(OSError):
                os.ftruncate(self.stderr, 0)
        fd = self.process.stdin.fileno()
        _write_all(fd, struct.pack("<Qd", len(request) + 8, limit), deadline)
        _write_all(fd, request, deadline)

    def wait_ready(self, seconds: float) -> float:
        """Wait at most ``seconds`` for a new worker's first frame, the empty one
        :func:`~scratchfs.engine.worker_loop.requests` writes once its worker file is loaded, and return the seconds
        since it was started. Raises TimeoutError (not ready in time: it must then be discarded), EOFError or OSError
        (it died starting: a worker file that fails to import)."""
        # the length alone: garbage before it (a library writing to fd 1) must not size an allocation (MemoryError)
        if any(_read_exactly(self.process.stdout.fileno(), 8, time.monotonic() + seconds)):
            raise OSError(errno.EPROTO, "the worker's first frame was not the empty one of a worker that is ready")
        self.ready = True
        return time.monotonic() - self.started

    def receive(self, deadline: float | None) -> bytes:
        """Read the answer frame's bytes. Raises TimeoutError (the worker must then be discarded), EOFError or
        OSError (it died)."""
        return read_frame(self.process.stdout.fileno(), deadline)

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.process.poll() is None

    def last_words(self) -> str:
        """The last non-blank line the worker wrote to its stderr during its last request (until :meth:`stop`), as
        one line of at most :data:`LAST_WORDS_CHARS` characters (control characters as spaces, undecodable bytes
        as U+FFFD); ``""`` when it wrote none (or its stderr is ``/dev/null``)."""
        if self.stderr is None:
            return self.said
        try:
            size = os.fstat(self.stderr).st_size
            tail = os.pread(self.stderr, min(size, 4096), max(0, size - 4096))
        except OSError:
            return ""
        lines = [line for line in tail.decode("utf-8", "replace").splitlines() if line.strip()] or [""]
        line = "".join(" " if not char.isprintable() else char for char in lines[-1]).strip()
        return line if len(line) <= LAST_WORDS_CHARS else line[: LAST_WORDS_CHARS - 3] + "..."

    def stop(self) -> None:
        """Kill the process and close its pipes and its stderr file."""
        self.process.kill()
        self.process.wait(5)
        for pipe in filter(None, (self.process.stdin, self.process.stdout)):
            pipe.close()
        self.said = self.last_words()  # all it wrote: it is dead
        self._close_stderr()

    def _close_stderr(self) -> None:
        if self.stderr is not None:
            fd, self.stderr = self.stderr, None
            os.close(fd)


def _stderr_file() -> int | None:
    """A descriptor (close-on-exec) of a new anonymous file in append mode for a worker's stderr: a ``memfd``, else
    an unlinked temporary file; ``None`` (the worker gets ``/dev/null``) when neither can be made."""
    try:
        fd = os.memfd_create("scratchfs-worker-stderr")
    except (AttributeError, OSError):
        try:
            fd, path = tempfile.mkstemp(prefix="scratchfs-worker-stderr-")
        except OSError:
            return None
        with contextlib.suppress(OSError):
            os.unlink(path)
    try:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    except OSError:
        os.close(fd)
        return None
    return fd


class Pool:
    """The workers of one worker file: idle ones, and how many are alive (a condition: calls come from many threads).

    Args:
        script: the worker file's path.
        size: most workers alive at once.
        label: what its workers run, for messages (``"jq"``, ``"HTML"``).
        idle_seconds: a worker idle longer is not handed out again (stopped); it exits by itself after 1.5 times it.
    """

    def __init__(self, script: str, size: int, label: str = "", idle_seconds: float = IDLE_SECONDS) -> None:
        self.script, self.size, self.label, self.idle_seconds = script, size, label, idle_seconds
        self.cond = forks.renewed_in_child(self, "cond", threading.Condition, then=Pool.forget)  # (a fork() child)
        self.idle: list[Worker] = []
        self.alive = 0
        self.workers: set[Worker] = set()  # every one running, busy or idle (killed at exit)
        POOLS.append(self)

    def take(self, deadline: float | None = None) -> Worker | None:
        """An idle or new worker. With a ``deadline``, waits until one comes free (raises PoolBusy past it);
        without, ``None`` when every one is busy. Raises NoWorker when none can be started (descriptors, memory)."""
        return None if (taken := self._take(deadline)) is None else taken[0]

    def _take(self, deadline: float | None) -> tuple[Worker, float] | None:
        """:meth:`take`, with the seconds the call waited for busy workers to come free: 0.0 when one was idle or
        a new one could be started at once (that start is no wait for the pool: on a loaded machine it can take
        half of a short limit)."""
        waited_from = None
        with self.cond:
            while not self.idle and self.alive >= self.size:
                if deadline is None:
                    return None
                if given_up():  # (woken by GivenUp.cancel, scratchfs.engine.giving_up: not run, no worker taken)
                    raise TimeoutError
                left = deadline - time.monotonic()
                if left <= 0:
                    raise PoolBusy(f"busy: all {self.size} {self.label} worker processes were in use until the time "
                                   "limit; the call was not run")
                waited_from = time.monotonic() if waited_from is None else waited_from
                self.cond.wait(left)
            waited = 0.0 if waited_from is None else time.monotonic() - waited_from
            while self.idle:
                worker = self.idle.pop()
                if worker.alive() and time.monotonic() - worker.idle_since <= self.idle_seconds:
                    return worker, waited
                self.alive -= 1  # it died idle (killed from outside, or its idle time ran out)
                self.workers.discard(worker)
                worker.stop()
            self.alive += 1
        try:
            if WORKERS_KILLED.is_set():
                raise OSError(errno.ESHUTDOWN, "the process is being stopped")
            worker = Worker(self.script, 1.5 * self.idle_seconds)
        except OSError as exc:
            self._lost()
            name = errno.errorcode.get(exc.errno or 0, "")
            raise NoWorker(f"no worker process could be started ({name + ': ' if name else ''}"
                           f"{exc.strerror or exc})") from exc
        except BaseException:
            self._lost()
            raise
        with self.cond:
            self.workers.add(worker)
        return worker, waited

    def run(self, request: bytes, deadline: float, keep: bool = True, retry: bool = True,
            wait: bool = True) -> tuple[str, Any]:
        """Send ``request`` (a pickle) to a worker (waiting for one until ``deadline``) and wait for its answer.

        A worker started for the call is waited for until it is ready (at most :data:`BOOT_SECONDS`), and
        ``deadline`` moves on by the time it took to start: an interpreter's start and its imports, seconds on a
        loaded machine, are no part of the request's time limit (a regex that backtracks, a jq filter run away).
        A call given up (:mod:`scratchfs.engine.giving_up`) before it has a worker (woken if waiting) is not run.

        Args:
            keep: put the worker back among the idle ones after the answer (else stop it: it grew large).
            retry: try a new worker when the one taken turns out dead before the call.
            wait: wait for a worker to come free; else, when every one is busy, answer ``("busy", None)`` at once.

        Returns:
            ``("ok", answer)`` (unpickled); ``("died", last words)``: the worker died under the call (out of memory),
            with the last line it wrote to its stderr (:meth:`Worker.last_words`, ``""`` for none);
            ``("busy", None)``: (``wait=False`` only) every worker was busy, the call was not run.

        Raises:
            TimeoutError: the deadline passed (the worker was stopped), or the worker reached the CPU time it was
                given for the call (SIGXCPU: it ran while this side, starved of CPU, had not yet stopped it).
            PoolBusy: no worker came free before the deadline, or the call waited for one longer than it then had
                to run (a TimeoutError too).
            NoWorker: no worker could be started (descriptors, memory), or a new one was not ready within
                :data:`BOOT_SECONDS`.
        """
        began = _before(deadline)  # already past: TimeoutError, no idle worker killed, no new one started to kill
        taken = self._take(deadline if wait else None)
        if taken is None:  # without waiting: every one busy
            return "busy", None
        worker, waited = taken
        worker.thread = threading.get_ident()  # (then the check: scratchfs.engine.giving_up marks, then kills)
        if given_up():  # (the call was given up: not run)
            self.discard(worker)
            raise TimeoutError
        got = began + waited  # when a busy worker came free (a new one's start is the call's own time, not a wait)
        if not worker.ready:  # the time limit is the request's: it counts from when a new worker is ready for it
            start = self._started(worker)
            if start is None:  # it died starting: once more in a new one, else its last words
                return self.run(request, deadline, keep, False, wait) if retry else ("died", worker.last_words())
            deadline += start
        sent = False
        try:
            worker.send(request, deadline)
            sent = True
            answer = pickle.loads(worker.receive(deadline))
        except TimeoutError:  # (an OSError too) the deadline: the worker is stopped
            self.discard(worker)
            raise self._waited(began, got, deadline) from None
        except (EOFError, OSError, pickle.UnpicklingError):  # it died: idle (killed from outside) or under the call
            self.discard(worker)
            if retry and (not sent or worker.process.returncode == 0):  # before reading the request: in a new one
                return self.run(request, deadline, keep, False, wait)
            return self._death(worker, began, got, deadline)
        except BaseException:  # KeyboardInterrupt: the worker is stopped
            self.discard(worker)
            raise
        (self.give if keep else self.discard)(worker)
        return "ok", answer

    def _started(self, worker: Worker) -> float | None:
        """Wait for a new worker to be ready; the seconds its start took, or ``None`` when it died starting (it is
        discarded then). Raises NoWorker (not ready within :data:`BOOT_SECONDS`: discarded)."""
        try:
            return worker.wait_ready(BOOT_SECONDS)
        except TimeoutError:  # (an OSError too)
            self.discard(worker)
            raise NoWorker(f"no worker process could be started (a new {self.label} worker was not ready within "
                           f"{BOOT_SECONDS:.0f} s)") from None
        except (EOFError, OSError):
            self.discard(worker)
            return None
        except BaseException:
            self.discard(worker)
            raise

    def _death(self, worker: Worker, began: float, got: float, deadline: float) -> tuple[str, str]:
        """What the death of ``worker`` (stopped, reaped) under a call answers: ``("died", its last words)``; one
        ended by the CPU time it was given for the call (SIGXCPU, :func:`~scratchfs.engine.worker_loop.limit_cpu`:
        it ran on while this side, starved of CPU, had not yet stopped it at the deadline) raises the deadline's
        error (:meth:`_waited`), as its call ran past its time limit."""
        if _SIGXCPU and worker.process.returncode == -_SIGXCPU:
            raise self._waited(began, got, deadline)
        return "died", worker.last_words()

    def _waited(self, began: float, got: float, deadline: float) -> TimeoutError:
        """The error of a call stopped at ``deadline``: PoolBusy when it spent more of its time waiting for a busy
        worker to come free (from ``began`` until it ``got`` one; starting a new one is not waiting) than it had left
        to run, else a plain TimeoutError (also when it never waited: its deadline may have passed before it asked
        for a worker, spent by the caller reading and pickling a large request on a loaded machine)."""
        if got - began <= max(0.0, deadline - got):
            return TimeoutError()
        return PoolBusy(f"busy: all {self.size} {self.label} worker processes were in use for {got - began:.1f} s of "
                        f"the time limit; the call got the last {max(0.0, deadline - got):.1f} s and was stopped")

    def _lost(self) -> None:
        with self.cond:
            self.alive -= 1
            self.cond.notify()

    def give(self, worker: Worker) -> None:
        """Put a worker that answered back among the idle ones."""
        worker.idle_since, worker.thread = time.monotonic(), None
        with self.cond:
            self.idle.append(worker)
            self.cond.notify()

    def discard(self, worker: Worker) -> None:
        """Stop a worker (timed out, died, or too large to keep)."""
        worker.stop()
        with self.cond:
            self.workers.discard(worker)
        self._lost()

    def forget(self) -> None:
        """In a ``fork()`` child: hold none of the parent's workers (their busy ones were counted as alive for good,
        the threads that would give them back being the parent's; another thread's lock may be held), closing the
        child's copies of their pipes and stderr files; the parent's processes go on serving it. Raises nothing."""
        for worker in self.workers:
            worker.process.poll()  # not the child's child: done with it here (ECHILD), never killed from here
            for pipe in filter(None, (worker.process.stdin, worker.process.stdout)):
                pipe.close()
            worker._close_stderr()
        self.idle, self.workers, self.alive = [], set(), 0  # (``cond``: made anew by forks.renewed_in_child)

    def counts(self) -> tuple[int, int]:
        """``(alive, idle)``: worker processes running, and those of them waiting for a call."""
        with self.cond:
            return self.alive, len(self.idle)

    def stop_idle(self) -> None:
        """Stop the idle workers."""
        with self.cond:
            idle, self.idle = self.idle, []
        for worker in idle:
            self.discard(worker)

    def kill_all(self) -> None:
        """Kill every worker, busy ones too (at exit: a call still waiting on one sees it die)."""
        self.stop_idle()
        with self.cond:
            busy = list(self.workers)
        for worker in busy:
            try:
                worker.process.kill()
                worker.process.wait(1)
            except (OSError, subprocess.TimeoutExpired):
                pass


POOLS: list[Pool] = []
WORKERS_KILLED = threading.Event()
"""Set by :func:`kill_workers` ``final``: no worker is started after it (NoWorker); a call that sees it gives up."""
GIVEN_UP: set[int] = set()  # idents of the threads whose call was given up (here, not in giving_up: workers load this)
WATCHED: set[int] = set()  # idents of the threads running a call that may be given up (GivenUp.run)


def given_up() -> bool:
    """Whether this thread's call was given up (:mod:`~scratchfs.engine.giving_up`) or :data:`WORKERS_KILLED` is set."""
    return WORKERS_KILLED.is_set() or threading.get_ident() in GIVEN_UP


@atexit.register
def kill_workers(final: bool = False) -> None:
    """Kill every worker of every pool, busy ones too (a call waiting on one sees it die): at exit, and when a server
    is stopped (``final``: no worker is started after it in this process -- :class:`NoWorker` -- and a call that
    sees :data:`WORKERS_KILLED` gives up, so a search or jq read still running ends now, not at its time limit)."""
    if final:
        WORKERS_KILLED.set()
    for pool in POOLS:
        pool.kill_all()



def _before(deadline: float) -> float:
    """Now, or TimeoutError when ``deadline`` has passed already."""
    if deadline <= (now := time.monotonic()):
        raise TimeoutError
    return now


def wait_for(fd: int, event: int, deadline: float | None) -> None:
    """Wait in ``poll`` until ``fd`` is ready for ``event`` (``select.POLLIN`` or ``select.POLLOUT``) or ``deadline``
    (``time.monotonic()``; ``None``: return at once, the caller's read or write blocking). Raises TimeoutError."""
    if deadline is None:
        return
    left = deadline - time.monotonic()
    poller = select.poll()  # not select.select: descriptors past 1024 are common in a busy server
    poller.register(fd, event)
    if left <= 0 or not poller.poll(max(1, int(left * 1000))):
        raise TimeoutError


def write_frame(fd: int, data: bytes, deadline: float | None) -> None:
    """Write ``data`` as one frame to ``fd``, in pieces of at most 1 MiB, each waiting until ``deadline`` (``None``:
    no limit). Raises TimeoutError, OSError."""
    _write_all(fd, struct.pack("<Q", len(data)), deadline)
    _write_all(fd, data, deadline)


def _write_all(fd: int, data: bytes, deadline: float | None) -> None:
    """Write all of ``data`` to ``fd``, each piece waiting until ``deadline``. Raises TimeoutError, OSError."""
    view = memoryview(data)
    while view:
        wait_for(fd, select.POLLOUT, deadline)
        view = view[os.write(fd, view[:_CHUNK]) :]


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytearray:
    # read in place into a buffer grown (doubling, from 16 MiB) as the bytes arrive: a length claims what a broken
    # peer likes, the memory taken is what it sent. (pickle reads a bytearray: no copy to bytes at the end)
    out = bytearray(min(size, _READ_BYTES))
    got = 0
    while got < size:
        if got == len(out):
            out.extend(bytes(min(size - got, got)))
        wait_for(fd, select.POLLIN, deadline)
        with memoryview(out) as view:
            n = os.readv(fd, [view[got : got + _READ_BYTES]])
        if not n:
            raise EOFError("the worker closed its pipe")
        got += n
    return out


def read_frame(fd: int, deadline: float | None) -> bytes:
    """The bytes of the next frame on ``fd``, waiting until ``deadline`` (``None``: no limit). Raises TimeoutError,
    EOFError (the pipe closed), OSError."""
    (size,) = struct.unpack("<Q", _read_exactly(fd, 8, deadline))
    return _read_exactly(fd, size, deadline)
