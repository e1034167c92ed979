"""Helpers of the web inspector's tests: a real ``scratchfs serve`` process, and skipping (or failing, when
``SCRATCHFS_REQUIRE_SERVICES=1``, as in CI) when a service such as Chromium is missing."""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from scratchfs import ScratchStore

URL_RE = re.compile(r"scratchfs inspector: (http://(\S+?):(\d+)/\?token=(\S+))\n\Z")
CHROMIUM = "/usr/bin/chromium"


def require(available: bool, reason: str) -> None:
    """Skip the test when ``available`` is false, or fail it when the environment requires every service."""
    if available:
        return
    if os.environ.get("SCRATCHFS_REQUIRE_SERVICES") == "1":
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


def read_line(proc: subprocess.Popen, timeout: float) -> str:
    """The first line the process writes on stdout within ``timeout`` seconds ('' if none)."""
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    line = b""
    while not line.endswith(b"\n") and time.monotonic() < deadline:
        if selector.select(max(0.0, deadline - time.monotonic())):
            chunk = os.read(proc.stdout.fileno(), 1)
            if not chunk:
                break
            line += chunk
    selector.close()
    return line.decode()


_LIMITED = ("import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (%d, %d)); "
            "sys.argv[0] = 'scratchfs'; runpy.run_module('scratchfs', run_name='__main__')")


@contextlib.contextmanager
def serve(root: Path, *args: str, env: dict[str, str] | None = None,
          files_limit: int | None = None) -> Iterator[tuple[re.Match, subprocess.Popen]]:
    """Run ``scratchfs serve --root ROOT --port 0 ARGS`` until the block ends; yield the match of its URL line
    (groups: url, host, port, token) and the process (``files_limit``: its limit of open descriptors)."""
    environment = {k: v for k, v in os.environ.items() if k != "SCRATCHFS_TOKEN"}
    environment.update(env or {})
    if not root.exists() and "SCRATCHFS_INDEX" not in environment:  # serve opens a store, never makes one
        ScratchStore(root).close()
    launch = ["-m", "scratchfs"] if files_limit is None else ["-c", _LIMITED % (files_limit, files_limit)]
    proc = subprocess.Popen([sys.executable, *launch, "serve", "--root", str(root), "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    try:
        line = read_line(proc, 30)
        found = URL_RE.match(line)
        assert found, f"no URL line on stdout: {line!r}; stderr: {proc.stderr.read1(4096) if proc.poll() else ''!r}"
        yield found, proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def ask(port: int, path: str, token: str, receive_buffer: int | None = None) -> tuple[socket.socket, bytes]:
    """A connection (its receive buffer ``receive_buffer`` bytes) that asks for ``path`` with the bearer ``token``
    and reads the first bytes of the answer (its status line), and no more."""
    sock = socket.socket()
    if receive_buffer is not None:  # (before the connection: its window is set then)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect(("127.0.0.1", port))
    sock.settimeout(5)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
                 "Connection: close\r\n\r\n".encode())
    return sock, sock.recv(2048)


def read_slowly(sock: socket.socket, got: bytes, seconds: float = 5.0) -> bytes:
    """The content of the answer ``sock`` carries (``got``: its first bytes), read 8 KiB every 0.2 s for ``seconds``,
    then to its end (a failed assertion if the server closes it meanwhile)."""
    with sock:
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            chunk = sock.recv(8192)
            assert chunk, f"closed after {time.monotonic() - started:.1f} s"
            got += chunk
            time.sleep(0.2)
        sock.settimeout(10)
        while chunk := sock.recv(1 << 20):
            got += chunk
    return unchunked(got.partition(b"\r\n\r\n")[2])


def unchunked(body: bytes) -> bytes:
    """The content of an HTTP/1.1 body in chunked transfer coding."""
    out, at = b"", 0
    while True:
        end = body.index(b"\r\n", at)
        size = int(body[at:end], 16)
        if size == 0:
            return out
        out += body[end + 2:end + 2 + size]
        at = end + 2 + size + 2
