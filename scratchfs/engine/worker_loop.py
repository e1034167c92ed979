"""The worker's side of :mod:`scratchfs.engine.worker_pipe`: the loop a worker process runs. It reads its requests
framed on stdin (:func:`requests`), caps its own CPU time before each (``RLIMIT_CPU``, :func:`limit_cpu`), its stderr
file (``RLIMIT_FSIZE``, :func:`limit_stderr`) and, if its worker file asks, its address space (``RLIMIT_AS``,
:func:`limit_memory`), and writes each answer framed to stdout (:func:`reply`).

Standard library only: a worker loads this file by path, after ``worker_pipe``
(:data:`~scratchfs.engine.worker_pipe.BOOT`), without the ``scratchfs`` package."""

from __future__ import annotations

import contextlib
import math
import pickle
import resource
import select
import signal
import struct
import sys
import time
from collections.abc import Iterator
from typing import Any

from scratchfs.engine.worker_pipe import CPU_SLACK_SECONDS, STDERR_BYTES, read_frame, wait_for, write_frame

__all__ = ["limit_cpu", "limit_memory", "limit_stderr", "reply", "requests"]


def requests() -> Iterator[Any]:
    """In a worker: the requests (unpickled) on stdin, until it closes (the parent is gone or stopped it) or none
    comes for the idle time given as ``argv[3]`` (seconds; see :class:`~scratchfs.engine.worker_pipe.Worker`).
    Before yielding one, caps the process's CPU time at what it used so far plus the request's time limit plus
    :data:`~scratchfs.engine.worker_pipe.CPU_SLACK_SECONDS` (:func:`limit_cpu`). No core files: a worker that crashes
    (jq past its C stack) or that SIGXCPU ends leaves none."""
    source = sys.stdin.buffer.fileno()
    idle_exit = float(sys.argv[3]) if len(sys.argv) > 3 else None
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    limit_stderr()
    write_frame(sys.stdout.buffer.fileno(), b"", None)  # ready: the worker file is loaded (Worker.wait_ready)
    while True:
        try:
            idle_deadline = None if idle_exit is None else time.monotonic() + idle_exit
            wait_for(source, select.POLLIN, idle_deadline)
            frame = read_frame(source, None)
        except (EOFError, OSError):  # TimeoutError too: idle for idle_exit seconds
            return
        (limit,) = struct.unpack_from("<d", frame)
        limit_cpu(None if limit < 0 else limit)
        yield pickle.loads(memoryview(frame)[8:])


def limit_cpu(seconds: float | None) -> None:
    """In a worker: let the process use ``seconds`` more of CPU time, plus
    :data:`~scratchfs.engine.worker_pipe.CPU_SLACK_SECONDS` (``None``: up to the hard limit), before SIGXCPU ends it
    (``RLIMIT_CPU``'s soft limit, whole seconds, at most the hard limit); a platform without it keeps the parent's
    kill alone."""
    try:
        soft = hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if seconds is not None:
            usage = resource.getrusage(resource.RUSAGE_SELF)
            soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds + CPU_SLACK_SECONDS)
            if hard != resource.RLIM_INFINITY:
                soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (ValueError, OSError):
        pass


def limit_stderr() -> None:
    """In a worker: cap the files it writes (its stderr file: see :class:`~scratchfs.engine.worker_pipe.Worker`) at
    :data:`~scratchfs.engine.worker_pipe.STDERR_BYTES` (``RLIMIT_FSIZE``, or the hard limit if lower), with SIGXFSZ
    ignored so that a write past it fails instead of ending the process; a platform without it keeps its stderr
    unbounded."""
    try:
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        soft = STDERR_BYTES if hard == resource.RLIM_INFINITY else min(hard, STDERR_BYTES)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    except (ValueError, OSError, AttributeError):
        pass


def reply(answer: bytes) -> None:
    """In a worker: write ``answer`` (a pickle) to stdout as one frame."""
    write_frame(sys.stdout.buffer.fileno(), answer, None)


def limit_memory(max_bytes: int) -> None:
    """In a worker: cap the process's address space (``RLIMIT_AS``) at ``max_bytes``, or the hard limit if lower;
    a platform without it keeps the time limit alone."""
    try:
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        soft = max_bytes if hard == resource.RLIM_INFINITY else min(hard, max_bytes)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ValueError, OSError):
        pass
