"""The web inspector's guard against a real ``scratchfs serve`` (webguard2): a token given twice, or a wrong one given
beside a right cookie, is refused whatever the order; and a request naming another host (DNS rebinding: a page of
attacker.example whose name resolves to 127.0.0.1) is a 421 before anything else, while the server's own names --
loopback's, the address it is bound to, the name given with ``--host`` -- are served."""

from __future__ import annotations

import json
import os
import socket

import pytest

from scratchfs.web.security import cookie_name

from .web_support import CHROMIUM, require, serve

TOKEN = "webguard2-token-0123456789abcdef"
ENV = {"SCRATCHFS_TOKEN": TOKEN}


def _exchange(port: int, head: str, address: str = "127.0.0.1") -> tuple[int, bytes]:
    """Send ``head`` (a request's line and headers, ``\\r\\n`` separated, without the blank line) with
    ``Connection: close``; returns the status and the body."""
    with socket.create_connection((address, port), timeout=10) as sock:
        sock.sendall(f"{head}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    start, _, body = answer.partition(b"\r\n\r\n")
    return int(start.split()[1]), body


def _get(port: int, target: str, *headers: str, host: str | None = None,
         address: str = "127.0.0.1") -> tuple[int, bytes]:
    lines = [f"GET {target} HTTP/1.1", f"Host: {host if host is not None else f'127.0.0.1:{port}'}", *headers]
    return _exchange(port, "\r\n".join(lines), address)


def test_a_token_given_twice_is_refused_whatever_its_order(tmp_path):
    """``?token=T&token=bad`` passed and ``?token=bad&token=T`` was a 401: the first was believed. Now any request
    giving the token twice in its URL, or two Authorization headers, is one 400 saying so, whatever the order; a
    wrong token in the URL or the header is a 401 also beside a right cookie (it passed: any right one did), while
    the right one beside an earlier server's cookie (the person's browser after a restart) still logs in."""
    with serve(tmp_path / "root", env=ENV) as (found, _):
        port = int(found.group(3))
        twice = b"the URL gives ?token= 2 times: give it once"
        for query in (f"token={TOKEN}&token=bad", f"token=bad&token={TOKEN}", f"token={TOKEN}&token={TOKEN}"):
            for path in ("/api/runs", "/"):
                status, body = _get(port, f"{path}?{query}")
                assert (status, twice in body) == (400, True), (path, query, body)
        headers = (f"Authorization: Bearer {TOKEN}", "Authorization: Bearer bad")
        for pair in (headers, headers[::-1], (headers[0], headers[0])):
            status, body = _get(port, "/api/runs", *pair)
            assert status == 400, pair
            assert json.loads(body)["error"] == {
                "kind": "invalid argument", "message": "the request has 2 Authorization headers: send one"}
        cookie = f"Cookie: {cookie_name(port)}={TOKEN}"
        status, body = _get(port, "/api/runs?token=bad", cookie)
        assert status == 401 and b"the access token in the URL's ?token= is wrong" in body
        status, body = _get(port, "/api/runs", cookie, "Authorization: Bearer bad")
        assert status == 401 and b"the access token in the Authorization header is wrong" in body
        assert _get(port, "/api/runs", cookie)[0] == 200  # the cookie alone
        stale = f"Cookie: {cookie_name(port)}=an-earlier-servers-token"
        assert _get(port, f"/?token={TOKEN}", stale)[0] == 303  # into the cookie, the earlier one replaced
        assert _get(port, f"/api/runs?token={TOKEN}", stale)[0] == 200
        assert _get(port, "/api/runs", stale, f"Authorization: Bearer {TOKEN}")[0] == 200


def test_a_request_naming_another_host_is_refused_first(tmp_path):
    """DNS rebinding: a page of attacker.example, its name made to resolve to 127.0.0.1, is same-origin with the
    inspector as far as its browser knows, and sends ``Host: attacker.example:PORT``. Any Host but this machine's
    loopback names and the server's address, with the server's port, is a 421 -- before the token is looked at,
    so even the URL that carries it is refused there."""
    with serve(tmp_path / "root", env=ENV) as (found, _):
        port = int(found.group(3))
        auth = f"Authorization: Bearer {TOKEN}"
        for host in (f"attacker.example:{port}", "attacker.example", f"127.0.0.1:{port + 1}", "127.0.0.1",
                     f"localhost.attacker.example:{port}", f"127.0.0.1.nip.io:{port}", f"[::2]:{port}", ""):
            for path in ("/api/runs", f"/?token={TOKEN}"):
                status, body = _get(port, path, auth, host=host)
                assert status == 421, (host, path)
                assert b"421 misdirected request: this server answers to localhost:" in body or json.loads(body)[
                    "error"]["kind"] == "misdirected request", body
            assert _get(port, "/api/runs", host=host)[0] == 421  # no token: still 421, not 401
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}", f"[::1]:{port}"):
            assert _get(port, "/api/runs", auth, host=host)[0] == 200, host
        status, _ = _exchange(port, f"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: attacker.example\r\n"
                                    f"{auth}")
        assert status == 400  # (h11's own refusal, or the guard's)
        status, _ = _exchange(port, f"GET /api/runs HTTP/1.0\r\n{auth}")  # HTTP/1.0 without Host: no browser's
        assert status == 200


def test_the_name_and_address_given_with_host_are_served(tmp_path):
    """``--host 0.0.0.0`` serves the address a client connected to and this machine's name; ``--host NAME`` serves
    NAME; neither serves attacker.example."""
    name = socket.gethostname()
    try:
        address = socket.gethostbyname(name)
    except OSError:
        pytest.skip(f"this machine's name {name!r} resolves to no address")
    for bind, hosts in (("0.0.0.0", (name, address, "127.0.0.1")), (name, (name,))):
        with serve(tmp_path / "root", "--host", bind, env=ENV) as (found, _):
            port = int(found.group(3))
            for host in hosts:
                status, _ = _get(port, "/api/runs", f"Authorization: Bearer {TOKEN}", host=f"{host}:{port}",
                                 address=address if host != "127.0.0.1" else "127.0.0.1")
                assert status == 200, (bind, host)
            assert _get(port, "/api/runs", f"Authorization: Bearer {TOKEN}", host=f"attacker.example:{port}",
                        address=address)[0] == 421


def test_chromium_on_a_rebound_name_gets_421_and_the_page_still_works(tmp_path):
    """Chromium told that attacker.example is 127.0.0.1 (``--host-resolver-rules``, as a rebinding DNS server
    would): the inspector's URL opened under that name is refused (421), under 127.0.0.1 it is the page."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    require(sync_playwright is not None, "the playwright package is not installed (pip install -e '.[test]')")
    require(os.path.exists(CHROMIUM), f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")
    with serve(tmp_path / "root", env=ENV) as (found, _), sync_playwright() as p:
        port = int(found.group(3))
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--no-sandbox", "--host-resolver-rules=MAP attacker.example 127.0.0.1"])
        try:
            tab = browser.new_page()
            response = tab.goto(f"http://attacker.example:{port}/?token={TOKEN}")
            assert response.status == 421
            assert "misdirected request" in tab.content()
            response = tab.goto(found.group(1))
            assert response.status == 200 and tab.title()
            assert tab.evaluate("fetch('/api/runs').then(r => r.status)") == 200  # the page's own fetches
        finally:
            browser.close()
