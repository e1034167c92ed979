"""The web inspector attacked by its own clients (hostile29): downloads asked for and never read. Each download holds
its blob open and about 6 MiB of frames read and decompressed ahead; 256 clients (the connection bound) that asked
for a download and read nothing of it held 1.4 GiB of the server's memory, for as long as they stayed, and one such
client kept ``scratchfs serve`` from stopping."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import threading
import time

import pytest
from starlette.testclient import TestClient

from scratchfs import ScratchStore
from scratchfs.web import create_app
from scratchfs.web.download import MAX_DOWNLOADS

from .services import free_port
from .web_support import ask, read_slowly, serve

TOKEN = "hostile-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}




@pytest.mark.alone(waits=True)
def test_downloads_never_read_are_bounded_and_their_slots_come_back(store):
    import uvicorn

    handle = store.scope("r", "a").spill(b"0123456789abcdef\n" * (24 << 16)).handle  # 24 MiB, compressible
    path = f"/api/runs/r/agents/a/handles/{handle}/content"
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(store, TOKEN), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    held: list[socket.socket] = []
    try:
        while not server.started:
            time.sleep(0.01)
        for _ in range(MAX_DOWNLOADS):  # each asks, reads its first bytes and no more
            sock, first = ask(port, path, TOKEN, receive_buffer=2048)
            held.append(sock)
            assert first.startswith(b"HTTP/1.1 200")
        sock, refused = ask(port, path, TOKEN)
        while chunk := sock.recv(4096):  # (to the end: Connection: close)
            refused += chunk
        sock.close()
        head, _, body = refused.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503") and b"retry-after: 5" in head.lower()
        assert json.loads(body)["error"] == {
            "kind": "busy", "message": f"{MAX_DOWNLOADS} downloads are being served already, the most at once: "
                                       "retry in a few seconds, once one ends"}
        sock, listing = ask(port, "/api/runs", TOKEN)
        sock.close()
        assert listing.startswith(b"HTTP/1.1 200")  # the rest of the API answers on
        held.pop().close()  # one client goes: its slot comes back
        deadline, status = time.monotonic() + 5, b""
        while not status.startswith(b"HTTP/1.1 200") and time.monotonic() < deadline:
            sock, status = ask(port, path, TOKEN)
            sock.close()
            time.sleep(0.05)
        assert status.startswith(b"HTTP/1.1 200")
    finally:
        for sock in held:
            sock.close()
        server.should_exit = True
        thread.join(10)


def test_a_download_refused_or_sent_whole_gives_its_slot_back(store):
    scope = store.scope("r", "a")
    handle = scope.spill(b"line\n" * 50_000).handle
    client = TestClient(create_app(store, TOKEN), headers=AUTH)
    base = "/api/runs/r/agents/a"
    for _ in range(MAX_DOWNLOADS + 2):
        assert client.get(f"{base}/handles/h_aaaaaaaaaaaaaaaaaaaaaaaa/content").status_code == 404
        assert client.get(f"{base}/scratchpad/content?key=nope").status_code == 404
        assert client.get(f"{base}/handles/{handle}/content").content == b"line\n" * 50_000
        assert client.head(f"{base}/handles/{handle}/content").status_code == 200
    assert client.app.app.state.downloads.used == 0


@pytest.mark.alone(waits=True)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_download_never_read_does_not_keep_the_server_from_stopping(tmp_path, signum):
    """uvicorn's stop waited for every response to end, and one whose client reads nothing never does: ``scratchfs
    serve`` went on for ever after SIGTERM or Ctrl-C (seen for 30 s, then SIGKILL). Such a connection is closed when
    the stop begins; the server ends at once, without a traceback."""
    root = tmp_path / "root"
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill(b"0123456789abcdef\n" * (24 << 16)).handle
    with serve(root, env={"SCRATCHFS_TOKEN": TOKEN}) as (found, proc):
        port = int(found.group(3))
        held = [ask(port, f"/api/runs/r/agents/a/handles/{handle}/content", TOKEN, receive_buffer=2048)[0]
                for _ in range(3)]
        try:
            time.sleep(0.5)  # (its writing paused: the client's window and the server's buffers are full)
            started = time.monotonic()
            proc.send_signal(signum)
            try:
                proc.wait(6)
            except subprocess.TimeoutExpired:
                pytest.fail(f"still serving {time.monotonic() - started:.1f} s after signal {signum}")
            assert proc.returncode == 128 + signum
            assert b"Traceback" not in proc.stderr.read()
        finally:
            for sock in held:
                sock.close()


@pytest.mark.alone(waits=True)
def test_the_page_and_health_answer_while_every_thread_is_busy(store, monkeypatch):
    """The API's reads run on a pool of 40 threads; the page's shell, its assets and ``/api/health`` waited for one
    too, so 60 searches running to their time limit kept ``/api/health`` waiting 10 s. Those handlers now run on the
    event loop: here 50 listings that each take 2 s (the index slowed down) leave them answering at once."""
    import uvicorn

    from scratchfs.web import api

    slow = api.stats_in_sql
    monkeypatch.setattr(api, "stats_in_sql", lambda *a, **k: (time.sleep(2), slow(*a, **k))[1])
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(store, TOKEN), host="127.0.0.1", port=port,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    busy: list[socket.socket] = []
    try:
        while not server.started:
            time.sleep(0.01)
        for _ in range(50):
            busy.append(socket.create_connection(("127.0.0.1", port)))
            busy[-1].sendall(f"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
                             "\r\n".encode())
        time.sleep(0.3)  # (every thread of the pool asleep in a listing)
        for path in ("/api/health", "/", "/static/app.js", "/runs/r", "/api/openapi.json"):
            started = time.monotonic()
            sock, first = ask(port, path, TOKEN)
            sock.close()
            assert first.startswith(b"HTTP/1.1 200"), path
            assert time.monotonic() - started < 1.0, path
    finally:
        for sock in busy:
            sock.close()
        server.should_exit = True
        thread.join(10)


def _guarded_server(store, monkeypatch, stall_seconds: float) -> tuple[object, threading.Thread, int]:
    """A uvicorn server of the inspector with ``scratchfs serve``'s protocol (its stall deadline ``stall_seconds``)
    on a free port, started."""
    import uvicorn

    from scratchfs.cli import serve_guard

    monkeypatch.setattr(serve_guard, "STALL_SECONDS", stall_seconds, raising=False)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(store, TOKEN), host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off", http=serve_guard.guarded_h11()))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return server, thread, port


@pytest.mark.alone(waits=True)
def test_downloads_their_clients_stop_reading_give_their_slots_back(store, monkeypatch):
    """A client holding the token asked for 16 downloads and read none: every slot stayed taken for as long as it
    stayed connected, and every other download was a 503. A connection whose client takes nothing of a paused
    answer for ``STALL_SECONDS`` (30 s; 1 s here) is closed now, and its slot comes back."""
    handle = store.scope("r", "a").spill(b"0123456789abcdef\n" * (24 << 16)).handle  # 24 MiB, compressible
    path = f"/api/runs/r/agents/a/handles/{handle}/content"
    server, thread, port = _guarded_server(store, monkeypatch, 1.0)
    held: list[socket.socket] = []
    try:
        for _ in range(MAX_DOWNLOADS):
            sock, first = ask(port, path, TOKEN, receive_buffer=2048)
            held.append(sock)
            assert first.startswith(b"HTTP/1.1 200")
        sock, refused = ask(port, path, TOKEN)
        sock.close()
        assert refused.startswith(b"HTTP/1.1 503")
        deadline, status = time.monotonic() + 10, b""  # (the writing paused, then 1 s without progress: a slot
        while not status.startswith(b"HTTP/1.1 200") and time.monotonic() < deadline:  # comes back; a fixed 3.5 s
            time.sleep(0.1)  # sleep before)
            sock, status = ask(port, path, TOKEN)
            sock.close()
        assert status.startswith(b"HTTP/1.1 200")
        closed = 0
        for sock in held:  # each was closed: what the server sent before, then the end (or a reset)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)  # (read at 2 KiB a turn it took 5 s)
            sock.settimeout(2)
            try:
                while sock.recv(1 << 20):
                    pass
                closed += 1
            except ConnectionResetError:
                closed += 1
            except TimeoutError:
                pass
        assert closed == MAX_DOWNLOADS
    finally:
        for sock in held:
            sock.close()
        server.should_exit = True
        thread.join(10)


@pytest.mark.alone(waits=True)
def test_a_download_read_slowly_is_not_cut_by_the_stall_deadline(store, monkeypatch):
    """A client that reads slowly -- 8 KiB every 0.2 s, its answer's writing paused all along -- makes progress in
    every period of the stall deadline (1 s here) and keeps its download for 5 s, to the bytes expected."""
    content = bytes(range(256)) * (16 << 10)  # 4 MiB
    handle = store.scope("r", "a").spill(content).handle
    server, thread, port = _guarded_server(store, monkeypatch, 1.0)
    try:
        sock, got = ask(port, f"/api/runs/r/agents/a/handles/{handle}/content", TOKEN, receive_buffer=2048)
        assert read_slowly(sock, got) == content
    finally:
        server.should_exit = True
        thread.join(10)
