"""jq filters run in a worker process that is killed at a deadline: the ``jq`` binding runs a filter in C holding the
GIL and cannot be interrupted (``last(range(1e10))`` would run for hours at a full core, stall every other thread of
the MCP server and ignore SIGTERM; ``tests/test_jq_runaway.py`` runs such filters). The calling thread waits in
``poll`` (GIL released, signals handled) and, at the deadline, kills the worker and raises
:class:`~scratchfs.foundation.errors.StructureTimeout`.

Every jq run goes to a worker (there is no in-thread slice as in :mod:`scratchfs.engine.pattern_worker`: a jq call
cannot be bounded in the thread at all). A worker is a fresh interpreter running this file by path (it imports only
``jq``; why not ``fork``: see :mod:`scratchfs.engine.pattern_worker`); it keeps its last compiled programs, so a
small read costs a pipe round trip and two pickles. At most
:data:`MAX_WORKERS` run; a call that finds every one busy waits for one until its deadline. A worker that was given
more than :data:`KEEP_AFTER_BYTES` of input is stopped after its call, so idle workers stay small (jq's parse of a
document up to 64 MiB takes several times that). Idle workers are stopped at exit; a worker whose parent is gone
reads end-of-file and exits.
"""

from __future__ import annotations

import atexit
import os
import pickle
import resource
import select
import struct
import subprocess
import sys
import threading
import time
from typing import Any

import jq

__all__ = ["KEEP_AFTER_BYTES", "MAX_WORKERS", "WORKER_MEMORY_BYTES", "run_jq", "workers"]

MAX_WORKERS = 2
"""Most jq worker processes alive at once."""
KEEP_AFTER_BYTES = 4 * 1024 * 1024
"""A worker given more input than this (bytes of the pickled request) is stopped after its call."""
WORKER_MEMORY_BYTES = 4 * 1024**3
"""Address space of a worker (``RLIMIT_AS``): a filter that builds an enormous value (``[range(1e10)]``)
ends there at most, with the worker; a 64 MiB document parses in well under it."""


def _error(mode: str, message: str) -> tuple[str, Any]:
    """The error answer of a request in ``mode`` that failed before any input (see :func:`_apply`)."""
    return "error", message if mode == "text" else (0, message, [])


def _apply(program: Any, mode: str, data: Any) -> Any:
    """``("ok", outputs)`` or ``("error", message)`` for ``mode`` ``"text"`` (one JSON text: the list of outputs);
    for ``"values"`` (a list of inputs): ``("ok", [outputs per input])``, or ``("error", (index, message))`` at the
    first input that fails, with the outputs of the inputs before it."""
    if mode == "text":
        try:
            return "ok", program.input_text(data).all()
        except ValueError as exc:
            return "error", str(exc)
    done: list[list] = []
    for index, value in enumerate(data):
        try:
            done.append(program.input_value(value).all())
        except ValueError as exc:
            return "error", (index, str(exc), done)
    return "ok", done


def run_jq(program_text: str, mode: str, data: Any, deadline: float, retry: bool = True) -> tuple[str, Any]:
    """Run the jq program ``program_text`` (compiled by the caller once already, so it compiles) over ``data`` in a
    worker, until ``deadline`` (a ``time.monotonic()`` value).

    Args:
        program_text: the whole jq program.
        mode: ``"text"`` (``data`` is a str of JSON texts) or ``"values"`` (``data`` is a list of JSON values, each
            one input).
        data: as ``mode`` says.
        deadline: when the worker is killed.
        retry: try a new worker when the one taken turns out dead before the call.

    Returns:
        ``("ok", outputs)`` or ``("error", detail)``: see :func:`_apply`; ``("died", None)``: the worker died (jq
        aborts past the worker's :data:`WORKER_MEMORY_BYTES` of address space).

    Raises:
        TimeoutError: the deadline passed (the worker was killed), or no worker came free before it.
    """
    request = pickle.dumps((program_text, mode, data), protocol=pickle.HIGHEST_PROTOCOL)
    worker = _POOL.take(deadline)
    if worker is None:  # no process to be had (descriptors, memory): in the thread, unbounded, as before workers
        return _apply(jq.compile(program_text), mode, data)
    try:
        _write_frame(worker.process.stdin.fileno(), request, deadline)
    except TimeoutError:  # (an OSError too) the deadline: the worker is stopped
        _POOL.discard(worker)
        raise
    except OSError:  # it died idle (killed from outside): once more, in a new one
        _POOL.discard(worker)
        if retry:
            return run_jq(program_text, mode, data, deadline, retry=False)
        return "died", None
    except BaseException:
        _POOL.discard(worker)
        raise
    try:
        result = pickle.loads(_read_frame(worker.process.stdout.fileno(), deadline))
    except TimeoutError:  # (an OSError too) the deadline: the worker is stopped
        _POOL.discard(worker)
        raise
    except (EOFError, OSError, pickle.UnpicklingError):  # it died under the call (jq aborts when out of memory)
        _POOL.discard(worker)
        return "died", None
    except BaseException:  # KeyboardInterrupt: the worker is stopped
        _POOL.discard(worker)
        raise
    if len(request) > KEEP_AFTER_BYTES:
        _POOL.discard(worker)
    else:
        _POOL.give(worker)
    return result


class _Worker:
    """One worker process (this file run by the same interpreter) and the pipes to it."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", _BOOT, __file__], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, bufsize=0, close_fds=True)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(5)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


class _Pool:
    """Idle workers, and how many are alive (a condition: reads run in many threads)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.cond = threading.Condition()
        self.idle: list[_Worker] = []
        self.alive = 0

    def take(self, deadline: float) -> _Worker | None:
        """An idle or new worker; ``None`` if none can be started. Raises TimeoutError: none came free in time."""
        with self.cond:
            while not self.idle and self.alive >= self.size:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                self.cond.wait(left)
            while self.idle:
                worker = self.idle.pop()
                if worker.process.poll() is None:
                    return worker
                self.alive -= 1  # it died idle (killed from outside)
                worker.stop()
            self.alive += 1
        try:
            return _Worker()
        except OSError:
            self._lost()
            return None
        except BaseException:
            self._lost()
            raise

    def _lost(self) -> None:
        with self.cond:
            self.alive -= 1
            self.cond.notify()

    def give(self, worker: _Worker) -> None:
        with self.cond:
            self.idle.append(worker)
            self.cond.notify()

    def discard(self, worker: _Worker) -> None:
        worker.stop()
        self._lost()


_POOL = _Pool(MAX_WORKERS)


def workers() -> tuple[int, int]:
    """``(alive, idle)``: jq worker processes running, and those of them waiting for a call."""
    with _POOL.cond:
        return _POOL.alive, len(_POOL.idle)


def _wait(fd: int, event: int, deadline: float | None) -> None:
    if deadline is None:
        return
    left = deadline - time.monotonic()
    poller = select.poll()  # not select.select: descriptors past 1024 are common in a busy server
    poller.register(fd, event)
    if left <= 0 or not poller.poll(max(1, int(left * 1000))):
        raise TimeoutError


def _write_frame(fd: int, data: bytes, deadline: float | None) -> None:
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        _wait(fd, select.POLLOUT, deadline)
        view = view[os.write(fd, view[: 1 << 20]) :]


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    out = bytearray()
    while len(out) < size:
        _wait(fd, select.POLLIN, deadline)
        chunk = os.read(fd, min(size - len(out), 1 << 24))
        if not chunk:
            raise EOFError("the worker closed its pipe")
        out += chunk
    return bytes(out)


def _read_frame(fd: int, deadline: float | None) -> bytes:
    (size,) = struct.unpack("<Q", _read_exactly(fd, 8, deadline))
    return _read_exactly(fd, size, deadline)


@atexit.register
def _stop_idle_workers() -> None:
    with _POOL.cond:
        idle, _POOL.idle = _POOL.idle, []
    for worker in idle:
        _POOL.discard(worker)


def serve() -> None:
    """The worker's loop over stdin and stdout: ``(program text, mode, data)`` in, :func:`_apply`'s answer out;
    returns when stdin closes (the parent is gone or stopped it)."""
    source, sink = sys.stdin.buffer.fileno(), sys.stdout.buffer.fileno()
    try:
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        soft = WORKER_MEMORY_BYTES if hard == resource.RLIM_INFINITY else min(hard, WORKER_MEMORY_BYTES)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ValueError, OSError):  # a platform without it: the time limit alone
        pass
    cache: dict[str, Any] = {}
    while True:
        try:
            program_text, mode, data = pickle.loads(_read_frame(source, None))
        except (EOFError, OSError):
            return
        program = cache.get(program_text)
        try:
            if program is None:
                if len(cache) >= 16:
                    cache.clear()
                program = cache[program_text] = jq.compile(program_text)
            answer = _apply(program, mode, data)
        except ValueError as exc:  # does not compile (the caller compiled it first, so not expected)
            answer = _error(mode, str(exc))
        del data
        try:
            reply = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except RecursionError:  # jq (C) builds values deeper than Python can encode
            reply = pickle.dumps(_error(mode, "the result is JSON nested too deeply to return; "
                                              "select a shallower part"))
        _write_frame(sink, reply, None)


# the worker is this file run by path (not imported as part of the package, so it starts quickly), with neither
# the working directory nor this file's directory on sys.path
_BOOT = "import sys; del sys.path[0]; import runpy; runpy.run_path(sys.argv[1], run_name='__scratchfs_worker__')"

if __name__ == "__scratchfs_worker__":
    serve()
