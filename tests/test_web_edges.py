"""The web inspector's last open guards (webedges3), against a real ``scratchfs serve`` (or ``create_app`` under
uvicorn on a Unix socket, as an embedder runs it): a request target in absolute form is judged by its authority,
as RFC 9112 says a server must, and served by its path when that passes; a 421 of a server whose address is
unknown says something true; and ``--allow-host`` lets a reverse proxy's names through, the default still strict."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

import pytest

from scratchfs import ScratchStore
from scratchfs.web import create_app, download
from scratchfs.web.security import allowed_host

from .cli_run import invoke
from .services import free_port
from .web_support import ask, read_slowly, serve

TOKEN = "webedges3-token-0123456789abcdef"
ENV = {"SCRATCHFS_TOKEN": TOKEN}
AUTH = f"Authorization: Bearer {TOKEN}"


def _exchange(port: int | str, request: str) -> tuple[int, bytes]:
    """Send ``request`` whole (line, headers, blank line) on a TCP connection to 127.0.0.1:``port``, or on the Unix
    socket at the path ``port``; returns the status and the body, read to the end."""
    family, address = (socket.AF_UNIX, port) if isinstance(port, str) else (socket.AF_INET, ("127.0.0.1", port))
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(address)
        sock.sendall(request.encode("latin-1"))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    start, _, body = answer.partition(b"\r\n\r\n")
    return int(start.split()[1]), body




def _get(port: int | str, target: str, host: str | None, *headers: str, version: str = "1.1") -> tuple[int, bytes]:
    lines = [f"GET {target} HTTP/{version}", *([f"Host: {host}"] if host is not None else []), *headers,
             "Connection: close"]
    return _exchange(port, "\r\n".join(lines) + "\r\n\r\n")


def test_an_absolute_form_target_is_judged_by_its_authority_and_served_by_its_path(tmp_path):
    """``GET http://evil.example/api/runs HTTP/1.1`` with this server's Host: RFC 9112 section 3.2.2 has a server
    ignore Host then and take the target's authority, so the authority must name this server as Host must (421
    otherwise, before the token is looked at). It was a 404 (the router matched ``http://evil.example/api/runs`` as
    a path), and the right authority was a 404 too, where a server MUST accept the absolute form."""
    with serve(tmp_path / "root", env=ENV) as (found, _):
        port = int(found.group(3))
        own = f"127.0.0.1:{port}"
        for authority in ("evil.example", f"evil.example:{port}", f"a@127.0.0.1:{port}", f"127.0.0.1:{port + 1}",
                          "127.0.0.1", f"localhost.evil.example:{port}"):
            status, body = _get(port, f"http://{authority}/api/runs", own, AUTH)
            assert status == 421, authority
            assert json.loads(body)["error"]["kind"] == "misdirected request"
            assert f"not to the request's target names {json.dumps(authority)}" in json.loads(body)["error"]["message"]
            status, body = _get(port, f"http://{authority}/?token={TOKEN}", own)  # the page: text, still 421
            assert status == 421 and body.startswith(b"421 misdirected request: "), authority
            status, _ = _get(port, f"http://{authority}/api/runs", None, AUTH, version="1.0")  # HTTP/1.0, no Host
            assert status == 421, authority
        for authority in (own, f"localhost:{port}", f"[::1]:{port}"):
            status, body = _get(port, f"http://{authority}/api/runs/nope/scratch?limit=5", own, AUTH)
            assert (status, json.loads(body)["note"]) == (200, "no live entries of run 'nope'"), authority
            assert _get(port, f"http://{authority}/api/runs", None, AUTH, version="1.0")[0] == 200
        # its authority stands in for Host (which the RFC has a server ignore): no second Host for the guard to miss
        assert _get(port, f"http://{own}/api/runs", "evil.example", AUTH)[0] == 200
        assert _get(port, "http://evil.example/api/runs", own, AUTH)[0] == 421
        assert _get(port, f"http://{own}/api/runs", own)[0] == 401  # the token is asked for as ever
        status, body = _get(port, f"ftp://{own}/api/runs", own, AUTH)
        assert status == 400 and b"another scheme than http" in body


def test_a_421_of_a_server_whose_address_is_unknown_names_no_port(tmp_path):
    """``create_app`` under uvicorn on a Unix socket (an embedder's choice) has no server address in its scope:
    the 421 said ``this server answers to localhost:None or 127.0.0.1:None``. It now names the loopback names
    without a port; loopback's names are still served there."""
    import uvicorn

    store = ScratchStore(tmp_path / "root")
    path = str(tmp_path / "inspector.sock")
    server = uvicorn.Server(uvicorn.Config(create_app(store, TOKEN), uds=path, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        status, body = _get(path, "/", "evil.example")
        assert status == 421
        assert body.decode() == ("421 misdirected request: this server answers to localhost, 127.0.0.1 or [::1] (with "
                                 "the port it listens on) (and the names it was started with), not to the Host "
                                 '"evil.example": open the URL that `scratchfs serve` printed, or the one you were '
                                 "given for this server\n")
        assert _get(path, "/api/runs", "localhost:8080", AUTH)[0] == 200
    finally:
        server.should_exit = True
        thread.join(10)
        store.close()


def test_allow_host_lets_a_proxys_names_through_and_nothing_else(tmp_path):
    """A reverse proxy that sends its own name in Host was refused, with no way out. ``--allow-host NAME`` (any
    port: a proxy's is its own, and none for 80 and 443) and ``--allow-host NAME:PORT`` (that port, or none for 80
    or 443), also from ``$SCRATCHFS_ALLOW_HOST``, are served; a name under them, another port of a NAME:PORT, or
    any other name is still a 421, and without the option the proxy's name is a 421 as before."""
    args = ("--allow-host", "Inspector.Example", "--allow-host", "proxy.example:8443")
    cases = {"inspector.example": 200, "INSPECTOR.example:9999": 200, "proxy.example:8443": 200,
             "proxy.example:8444": 421, "proxy.example": 421, "sub.inspector.example": 421, "evil.example": 421,
             "inspector.example.evil.example": 421}
    with serve(tmp_path / "root", *args, env=ENV) as (found, _):
        port = int(found.group(3))
        for host, expected in cases.items():
            assert _get(port, "/api/runs", host, AUTH)[0] == expected, host
            assert _get(port, f"http://{host}/api/runs", None, AUTH, version="1.0")[0] == expected, host
        assert _get(port, "/api/runs", f"127.0.0.1:{port}", AUTH)[0] == 200  # its own names as ever
    with serve(tmp_path / "root", env={**ENV, "SCRATCHFS_ALLOW_HOST": "inspector.example proxy.example:443"}) as (
            found, _):
        port = int(found.group(3))
        for host, expected in (("inspector.example:1", 200), ("proxy.example", 200), ("proxy.example:8443", 421)):
            assert _get(port, "/api/runs", host, AUTH)[0] == expected, host
    with serve(tmp_path / "root", env=ENV) as (found, _):  # the default: strict
        assert _get(int(found.group(3)), "/api/runs", "inspector.example", AUTH)[0] == 421


def test_allow_host_refuses_what_is_no_host_name(tmp_path, monkeypatch):
    """A wildcard, a URL, userinfo, a path or a bad port is a usage error naming the option (exit 2), before any
    store is opened or address bound. The first value through ``python -m scratchfs`` (the exit status and streams a
    shell sees), the others in this process through click's runner (the same option callback; 0.4 s of CPU a start
    less), the store's opening made a failure there so that a value let through fails the test, not serves."""
    ScratchStore(tmp_path / "root").close()
    environment = {k: v for k, v in os.environ.items() if k not in ("SCRATCHFS_TOKEN", "SCRATCHFS_ALLOW_HOST")}
    first, *others = ("*.example.com", "http://inspector.example", "a@inspector.example", "inspector.example/x",
                      "inspector.example:0", "inspector.example:65536", "in_spector.example", "", "[not-v6]:80")
    done = subprocess.run([sys.executable, "-m", "scratchfs", "serve", "--root", str(tmp_path / "root"), "--port",
                           "0", "--allow-host", first], capture_output=True, text=True, timeout=60, env=environment)
    replies = [(first, done.returncode, done.stdout, done.stderr)]

    def opened(*_args, **_kwargs):
        raise AssertionError("a store was opened past --allow-host")

    monkeypatch.setattr(sys.modules["scratchfs.cli.serve"], "DeferredStore", opened)
    for value in others:
        result = invoke(tmp_path / "root", "serve", "--port", "0", "--allow-host", value, scope=(),
                        env={"SCRATCHFS_TOKEN": None, "SCRATCHFS_ALLOW_HOST": None})
        replies.append((value, result.exit_code, result.stdout, result.stderr))
    for value, code, stdout, stderr in replies:
        assert code == 2, (value, stderr)
        assert stdout == "" and "Invalid value for '--allow-host'" in stderr, value
        assert ("no wildcards" if "*" in value else "is no host name") in stderr, value


@pytest.mark.alone(waits=True)
def test_create_app_under_plain_uvicorn_gives_back_the_slots_of_downloads_never_read(store, monkeypatch):
    """The 30 s stall deadline was ``scratchfs serve``'s protocol's: ``create_app`` under plain uvicorn (an embedder)
    kept the 16 download slots of a client that asked for 16 downloads and read none for as long as it stayed, every
    other download a 503. The app owns the deadline now (``download.STALL_SECONDS``; 1 s here): a write of a download
    that waits that long for its client cuts it short, and its slot comes back."""
    import uvicorn

    monkeypatch.setattr(download, "STALL_SECONDS", 1.0, raising=False)
    handle = store.scope("r", "a").spill(b"0123456789abcdef\n" * (24 << 16)).handle  # 24 MiB, compressible
    path = f"/api/runs/r/agents/a/handles/{handle}/content"
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(store, TOKEN), host="127.0.0.1", port=port, log_level="critical",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    held: list[socket.socket] = []
    try:
        while not server.started:
            time.sleep(0.01)
        for _ in range(download.MAX_DOWNLOADS):
            sock, first = ask(port, path, TOKEN, receive_buffer=2048)
            held.append(sock)
            assert first.startswith(b"HTTP/1.1 200")
        sock, refused = ask(port, path, TOKEN)
        sock.close()
        assert refused.startswith(b"HTTP/1.1 503")  # every slot taken
        deadline, status = time.monotonic() + 10, b""  # (each write waits 1 s for a client that reads nothing,
        while not status.startswith(b"HTTP/1.1 200") and time.monotonic() < deadline:  # then a slot comes back; a
            time.sleep(0.1)  # fixed 3.5 s sleep before)
            sock, status = ask(port, path, TOKEN)
            sock.close()
        assert status.startswith(b"HTTP/1.1 200")
    finally:
        for sock in held:
            sock.close()
        server.should_exit = True
        thread.join(10)


@pytest.mark.alone(waits=True)
def test_create_app_under_plain_uvicorn_keeps_a_download_read_slowly(store, monkeypatch):
    """The app's stall deadline judges a client by the bytes it takes, not by how long one write waits: a client
    reading 8 KiB every 0.2 s keeps its download past a 1 s deadline, to the bytes expected (a write waits tens of
    seconds for such a client: the kernel takes from the server's buffer a third of its send queue at a time; a
    deadline on each write alone cut a client reading 40 KB/s after 30 s, and this one after 1 s)."""
    import uvicorn

    monkeypatch.setattr(download, "STALL_SECONDS", 1.0, raising=False)
    content = bytes(range(256)) * (16 << 10)  # 4 MiB
    handle = store.scope("r", "a").spill(content).handle
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(store, TOKEN), host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        sock, got = ask(port, f"/api/runs/r/agents/a/handles/{handle}/content", TOKEN, receive_buffer=2048)
        assert read_slowly(sock, got) == content
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.mark.parametrize(("value", "said"), [
    ("a.example,b.example", "is several names or none: give each as an item of its own"),
    ("a.example b.example", "is several names or none"),
    ("café.example", "give an international name in its ASCII form (xn--...): 'xn--caf-dma.example'"),
])
def test_an_allowed_host_of_several_names_or_past_ascii_says_how_to_give_it(value, said):
    """``--allow-host a.example,b.example`` (or $SCRATCHFS_ALLOW_HOST so) was 'is no host name: give NAME or NAME:PORT'
    -- nothing said of one name an item, the variable's names split by spaces; ``café.example`` nothing of the xn--
    form a proxy sends in Host (hostile36)."""
    with pytest.raises(ValueError, match=re.escape(said)):
        allowed_host(value)
