"""The web inspector's security list, one test per line: loopback by default, a token on every request, the URL
printed with the token, the token moved into a cookie, read-only unless --allow-delete (then POST + CSRF), no
directory listing, no request path reaching the file system, CSP and nosniff on every response, entry content never
HTML, path parameters checked as the API checks them."""

from __future__ import annotations

import asyncio
import builtins
import os
import re
import urllib.error
import urllib.request
from http.cookies import SimpleCookie

import psutil
import pytest
from starlette.testclient import TestClient

from scratchfs.foundation import checks
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.web import create_app
from scratchfs.web.app import routes
from scratchfs.web.page import ASSETS
from scratchfs.web.security import CSP, cookie_name, csrf_token
from tests.web_support import serve

TOKEN = "sec-token-0123456789abcdefghij"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
EVIL = b"<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"


@pytest.fixture
def seeded(store):
    scope = store.scope("run-1", "agent-1")
    handle = scope.spill(EVIL * 200, source_tool="evil.tool").handle
    scope.scratch_write("note", "<b>bold?</b>")
    return store, scope, handle


def _urls(handle: str) -> list[tuple[str, str]]:
    """(method, url) for every route, its parameters filled in."""
    fill = {"{run}": "run-1", "{agent}": "agent-1", "{handle}": handle, "{name:str}": "app.js"}
    out = []
    for route in routes():
        path = route.path
        for name, value in fill.items():
            path = path.replace(name, value)
        if "scratchpad" in path:
            path += "?key=note"
        out += [(method, path) for method in sorted(route.methods - {"HEAD"})]
    return out


def test_binds_to_loopback_by_default(tmp_path):
    with serve(tmp_path / "root") as (found, proc):
        assert found.group(2) == "127.0.0.1"
        listening = [c for c in psutil.Process(proc.pid).net_connections(kind="inet") if c.status == "LISTEN"]
        assert listening and {c.laddr.ip for c in listening} == {"127.0.0.1"}
        assert {c.laddr.port for c in listening} == {int(found.group(3))}


def test_every_request_needs_the_token_also_on_loopback(seeded, tmp_path):
    store, _, handle = seeded
    app = create_app(store, TOKEN, allow_delete=True)
    anonymous, wrong = TestClient(app), TestClient(app, headers={"Authorization": "Bearer " + "x" * len(TOKEN)})
    for method, url in _urls(handle):
        for client in (anonymous, wrong):
            got = client.request(method, url, follow_redirects=False)
            assert got.status_code == 401, (method, url)
    assert TestClient(app).get("/api/runs", params={"token": TOKEN[:-1]}).status_code == 401
    assert len(store.list_entries()) == 2  # nothing was deleted by the refused POSTs
    for method, url in _urls(handle):
        assert TestClient(app, headers=AUTH).request(method, url).status_code != 401, (method, url)
    with serve(tmp_path / "root", env={"SCRATCHFS_TOKEN": TOKEN}) as (found, _):  # the real server, on loopback
        base = f"http://127.0.0.1:{found.group(3)}"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/api/runs", timeout=10)
        refused.value.close()
        assert refused.value.code == 401
        with urllib.request.urlopen(urllib.request.Request(base + "/api/runs", headers=AUTH), timeout=10) as ok:
            assert ok.status == 200


def test_prints_the_url_with_the_token_on_stdout_flushed(tmp_path):
    # stdout is a pipe (block-buffered): the line arrives while the server runs only because it is flushed
    with serve(tmp_path / "r", env={"SCRATCHFS_TOKEN": TOKEN}) as (found, _):
        assert found.group(4) == TOKEN
        url = found.group(1)
        opener = urllib.request.build_opener(_NoRedirect())
        with pytest.raises(urllib.error.HTTPError) as moved:
            opener.open(url, timeout=10)
        moved.value.close()
        assert moved.value.code == 303 and moved.value.headers["Location"] == "/"
    with serve(tmp_path / "r", "--token", "given-on-the-command-line", env={"SCRATCHFS_TOKEN": TOKEN}) as (found, _):
        assert found.group(4) == "given-on-the-command-line"
    with serve(tmp_path / "r") as (one, _), serve(tmp_path / "r") as (two, _):
        assert len(one.group(4)) >= 32 and one.group(4) != two.group(4) != TOKEN


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_a_bad_token_option_is_one_line_and_exit_2(tmp_path):
    import subprocess
    import sys

    got = subprocess.run([sys.executable, "-m", "scratchfs", "serve", "--root", str(tmp_path), "--token", "short"],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.count("\n") == 1 and got.stderr.startswith("scratchfs: invalid argument: the token")


def test_the_page_moves_the_token_into_an_httponly_samesite_cookie(seeded):
    store, _, handle = seeded
    app = create_app(store, TOKEN)
    got = TestClient(app).get(f"/runs/run-1?token={TOKEN}&x=1", follow_redirects=False)
    assert got.status_code == 303 and got.headers["location"] == "/runs/run-1?x=1"
    cookie = SimpleCookie(got.headers["set-cookie"])[cookie_name(80)]
    assert cookie.value == TOKEN and cookie["httponly"] is True and cookie["samesite"] == "Strict"
    assert cookie["path"] == "/"
    with TestClient(app, cookies={cookie_name(80): TOKEN}) as browser:
        page = browser.get(f"/runs/run-1/agents/agent-1/handles/{handle}")
        assert page.status_code == 200 and TOKEN not in page.text
        assert browser.get("/api/runs").status_code == 200
    assert TestClient(app, cookies={cookie_name(81): TOKEN}).get("/api/runs").status_code == 401  # another port's


@pytest.mark.parametrize("path", ["//evil.example/x", "///evil.example", "//evil.example"])
def test_the_token_redirect_stays_on_this_server(store, path):
    """The redirect that moves ``?token=`` into the cookie wrote the request's path as it came: for
    ``GET //evil.example/x?token=...`` that is ``Location: //evil.example/x``, which a browser follows to another host
    (an open redirect; a link from any page of the same site -- another port of 127.0.0.1 -- carries the cookie, so
    any ``?token=`` value did, until a wrong one became a 401 whatever cookie goes with it). The Location is a path of
    this server, one leading slash, also when the cookie that goes with the right token is an earlier server's."""
    guard = create_app(store, TOKEN)
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    async def send(message: dict) -> None:
        sent.append(message)

    stale_cookie = [(b"cookie", f"{cookie_name(8765)}=an-earlier-servers-token".encode())]
    for query, cookie in ((f"token={TOKEN}", []), (f"token={TOKEN}", stale_cookie)):
        sent.clear()
        scope = {"type": "http", "method": "GET", "path": path, "query_string": query.encode(), "root_path": "",
                 "headers": [(b"host", b"127.0.0.1:8765"), *cookie], "server": ("127.0.0.1", 8765)}
        asyncio.run(guard(scope, receive, send))
        location = dict(sent[0]["headers"])[b"location"].decode()
        assert sent[0]["status"] == 303 and location.startswith("/") and not location.startswith("//"), location


def test_read_only_unless_allow_delete(seeded):
    store, scope, handle = seeded
    client = TestClient(create_app(store, TOKEN), headers=AUTH)
    for method, url in _urls(handle):
        if method == "POST":
            got = client.post(url)
            assert got.status_code == 403 and got.json()["error"]["kind"] == "forbidden", url
    assert len(store.list_entries()) == 2 and scope.scratch_read("note") == b"<b>bold?</b>"


def test_deletes_need_a_post_with_the_token_and_a_csrf_safe_header(store):
    app = create_app(store, TOKEN, allow_delete=True)
    jar = {cookie_name(80): TOKEN}
    csrf = {"X-Scratchfs-Csrf": csrf_token(TOKEN)}
    scope = store.scope("run-d", "agent-1")
    handle = scope.spill(b"x" * 10_000).handle
    scope.scratch_write("k", "v")
    store.scope("run-d", "agent-2").scratch_write("k", "v")
    store.scope("run-e", "agent-1").scratch_write("k", "v")
    url = f"/api/runs/run-d/agents/agent-1/handles/{handle}/delete"
    cookie_only = TestClient(app, cookies=jar)
    assert cookie_only.get(url).status_code == 405  # never by GET (a link or an image cannot delete)
    assert cookie_only.post(url).status_code == 403  # the cookie alone: a cross-site form would carry it
    assert cookie_only.post(url, headers={"X-Scratchfs-Csrf": "0" * 64}).status_code == 403
    assert cookie_only.post(url, headers={**csrf, "Origin": "http://evil.example"}).status_code == 403
    assert cookie_only.post(url, headers={**csrf, "Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert len(store.list_entries()) == 4
    page = cookie_only.post(url, headers={**csrf, "Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"})
    assert page.status_code == 200 and page.json() == {"handle": handle, "deleted": True}
    bearer = TestClient(app, headers=AUTH)
    assert bearer.post("/api/runs/run-d/agents/agent-1/scratchpad/delete", params={"key": "k"}).json()["deleted"]
    assert bearer.post("/api/runs/run-d/agents/agent-2/delete").json()["deleted"] == 1
    assert bearer.post("/api/runs/run-e/delete").json()["deleted"] == 1
    assert store.list_entries() == []


def test_the_page_carries_the_csrf_token_and_no_inline_script_or_style(seeded):
    store, _, _handle = seeded
    html = TestClient(create_app(store, TOKEN), headers=AUTH).get("/").text
    assert f'<meta name="scratchfs-csrf" content="{csrf_token(TOKEN)}">' in html
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts == [(' src="/static/app.js" defer', "")]
    assert "<style" not in html and " style=" not in html and " on" not in html.split("<body", 1)[1]


def test_no_directory_listing(seeded):
    store, _, _ = seeded
    client = TestClient(create_app(store, TOKEN), headers=AUTH)
    for url in ("/static", "/static/", "/static/%2e%2e", "/api", "/api/", "/runs", "/runs/", "/static/index.html",
                "/index.sqlite", "/runs/run-1/agents", "/runs/run-1/agents/agent-1", "/api/runs/run-1/agents"):
        got = client.get(url, follow_redirects=False)
        assert got.status_code == 404, url
        assert "app.css" not in got.text and "index.sqlite" not in got.text


def test_no_path_from_a_request_reaches_the_file_system(seeded, monkeypatch):
    store, _scope, handle = seeded
    root = os.path.realpath(store.root)
    opened: list[str] = []
    real_open, real_os_open, real_scandir = builtins.open, os.open, os.scandir

    def note(path, dir_fd=None):
        if isinstance(path, (str, bytes, os.PathLike)):
            path = os.fsdecode(path)
            if dir_fd is not None:  # an openat() walk: the name is relative to that directory
                path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
            opened.append(os.path.realpath(path))

    monkeypatch.setattr(builtins, "open", lambda f, *a, **k: (note(f), real_open(f, *a, **k))[1])
    monkeypatch.setattr(os, "open", lambda f, *a, **k: (note(f, k.get("dir_fd")), real_os_open(f, *a, **k))[1])
    monkeypatch.setattr(os, "scandir", lambda p=".": (note(p), real_scandir(p))[1])
    client = TestClient(create_app(store, TOKEN), headers=AUTH)
    hostile = ["..", "../..", "%2e%2e", "..%2f..%2fetc", "%2fetc%2fpasswd", "~", "run-1%00", "C:%5cwindows"]
    for part in hostile:
        for url in (f"/api/runs/{part}/scratch", f"/api/runs/{part}/agents/{part}/handles/{handle}",
                    f"/api/runs/run-1/agents/{part}/handles/{handle}/read", f"/static/{part}",
                    f"/static/{part}%2fpyproject.toml", f"/runs/{part}/agents/agent-1/handles/{handle}",
                    f"/api/runs/run-1/agents/agent-1/scratchpad/read?key={part}"):
            got = client.get(url)
            assert got.status_code in (200, 400, 404), url
            assert b"[project]" not in got.content and b"root:" not in got.content
    assert client.get(f"/api/runs/run-1/agents/agent-1/handles/{handle}/read").status_code == 200
    outside = [p for p in opened if not p.startswith(root + os.sep)]
    assert opened and outside == []  # the reads did open blobs, and only under the root


def test_every_response_sets_csp_and_nosniff(seeded):
    store, _, handle = seeded
    app = create_app(store, TOKEN)
    authed, anonymous = TestClient(app, headers=AUTH), TestClient(app)
    responses = [
        authed.get("/"), authed.get("/runs/run-1"), authed.get("/static/app.js"), authed.get("/static/app.css"),
        authed.get("/api/runs"), authed.get(f"/api/runs/run-1/agents/agent-1/handles/{handle}/read"),
        authed.get("/api/openapi.json"), authed.get("/api/runs/%01/scratch"), authed.get("/nothing"),
        authed.get("/api/nothing"), authed.get("/api/runs/run-1/delete"), authed.post("/api/runs/run-1/delete"),
        authed.get("/runs/%01"), anonymous.get("/"), anonymous.get("/api/runs"),
        anonymous.get(f"/?token={TOKEN}", follow_redirects=False),
    ]
    assert {r.status_code for r in responses} == {200, 303, 400, 401, 403, 404, 405}
    for r in responses:
        assert r.headers["content-security-policy"] == CSP, r.url
        assert r.headers["x-content-type-options"] == "nosniff", r.url
    script_src = re.search(r"script-src ([^;]*)", CSP).group(1)
    assert script_src == "'self'" and "unsafe" not in CSP and "default-src 'none'" in CSP


def test_entry_content_is_never_rendered_as_html(seeded):
    store, _, handle = seeded
    client = TestClient(create_app(store, TOKEN), headers=AUTH)
    read = client.get(f"/api/runs/run-1/agents/agent-1/handles/{handle}/read", params={"length": 200})
    assert read.headers["content-type"] == "application/json" and read.json()["data"].startswith("<script>")
    page = client.get(f"/runs/run-1/agents/agent-1/handles/{handle}")
    assert page.headers["content-type"].startswith("text/html") and "__pwned" not in page.text
    script = ASSETS["app.js"][0].decode()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script, sink  # the page sets text only


@pytest.mark.parametrize(("url", "value", "check"), [
    ("/api/runs/{v}/scratch", "bad\x01run", checks.check_run_id),
    ("/api/runs/run-1/agents/{v}/handles/h_aaaaaaaaaaaaaaaaaaaaaaaa", "a" * 257, checks.check_agent_id),
    ("/api/runs/run-1/agents/agent-1/handles/{v}", "h_AAAAAAAAAAAAAAAAAAAAAAAA", checks.check_handle),
    ("/api/runs/run-1/agents/agent-1/scratchpad?key={v}", "k" * 513, checks.check_key),
    ("/runs/{v}", "bad\x7frun", checks.check_run_id),
])
def test_path_parameters_go_through_the_api_id_checks(seeded, url, value, check):
    store, _, _ = seeded
    client = TestClient(create_app(store, TOKEN), headers=AUTH)
    with pytest.raises(InvalidArgument) as expected:
        check(value)
    got = client.get(url.format(v=urllib.request.quote(value)))
    assert got.status_code == 400
    assert str(expected.value) in (got.json()["error"]["message"] if url.startswith("/api/") else got.text)


def test_a_websocket_is_refused_even_with_the_token(seeded):
    from starlette.websockets import WebSocketDisconnect

    store, _, _ = seeded
    with pytest.raises(WebSocketDisconnect) as closed, \
            TestClient(create_app(store, TOKEN), headers=AUTH).websocket_connect("/api/runs"):
        pass
    assert closed.value.code == 1008


def test_a_port_in_use_is_one_line_and_exit_4(tmp_path):
    import socket
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        got = subprocess.run([sys.executable, "-m", "scratchfs", "serve", "--root", str(tmp_path), "--port",
                              str(port)], capture_output=True, text=True, timeout=60)
    assert got.returncode == 4 and got.stdout == ""
    assert got.stderr.count("\n") == 1
    assert got.stderr.startswith(f"scratchfs: storage: cannot listen on 127.0.0.1:{port}")
    # what to do next, said (it was the system's "Address already in use" alone: found by the newuser helper)
    assert got.stderr.endswith("; give another --port (--port 0: any free one), or stop what listens there\n")


def _serve_refused(monkeypatch, root, *args: str):
    """``scratchfs serve --root ROOT ARGS`` in this process (click's runner: the same options and messages as
    ``python -m scratchfs``, whose exit status and streams ``test_a_port_in_use_is_one_line_and_exit_4`` checks, at
    0.4 s of CPU less a start), uvicorn's server made a failure: a command let through fails the test, never serves."""
    import uvicorn

    from tests.cli_run import invoke

    def served(*_args, **_kwargs):
        raise AssertionError(f"serve {args} was not refused")

    monkeypatch.setattr(uvicorn, "Server", served)
    return invoke(root, "serve", *args, scope=())


def test_a_host_that_is_no_address_of_this_machine_is_a_usage_error_of_host(tmp_path, monkeypatch):
    """``serve --host 10.255.255.1`` failed as ``storage: cannot listen ... Cannot assign requested address``, exit 4,
    as if the machine had failed (newuser14): the option is wrong, so it is a usage error naming it, exit 2, and
    what to give instead. (A port in use stays exit 4: the test above.)"""
    got = _serve_refused(monkeypatch, tmp_path, "--port", "0", "--host", "192.0.2.1")  # (TEST-NET-1, RFC 5737: no
    assert got.exit_code == 2 and got.stdout == ""  # machine's address)
    assert got.stderr.count("\n") == 1
    assert got.stderr.startswith("scratchfs: usage: Invalid value for '--host': 192.0.2.1 is no address of this "
                                 "machine (")
    assert "give one of this machine's, e.g. 127.0.0.1 (the default, this machine alone) or 0.0.0.0" in got.stderr


@pytest.mark.parametrize("host", ["", " ", "[]"])
def test_an_empty_host_is_a_usage_error_of_host(tmp_path, monkeypatch, host):
    """``serve --host ''`` bound every interface, printed a URL with no host (``http://:PORT/``) and warned that
    " is not a loopback address" (hostile27): it is a usage error naming the option, exit 2, and what to give."""
    got = _serve_refused(monkeypatch, tmp_path, "--port", "0", "--host", host)
    assert (got.exit_code, got.stdout, got.stderr.count("\n")) == (2, "", 1), got.stderr
    assert got.stderr.startswith("scratchfs: usage: Invalid value for '--host': is empty: give one of this "
                                 "machine's addresses, e.g. 127.0.0.1")


def test_the_start_line_as_json(tmp_path):
    import json
    import subprocess
    import sys

    from tests.web_support import read_line

    proc = subprocess.Popen([sys.executable, "-m", "scratchfs", "serve", "--root", str(tmp_path), "--port", "0",
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        start = json.loads(read_line(proc, 30))
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()
    assert start["host"] == "127.0.0.1" and len(start["token"]) >= 32
    assert start["url"] == f"http://127.0.0.1:{start['port']}/?token={start['token']}"


@pytest.mark.parametrize("neighbour", ['a=b"c', 'prefs={"theme":"dark"}', "a=b c", "_ga=GA1.1.1; lang=é", "a=\\",
                                       "flag", f"{cookie_name(80)}=wrong-token-set-by-another-port"])
def test_the_token_cookie_is_found_beside_any_other_cookie(seeded, neighbour):
    """Cookies are shared by every port of a host, so the inspector's Cookie header also carries those of whatever
    else runs on 127.0.0.1 -- a JSON value, a space, a quote, a bare name, text not ASCII -- and any page of another
    port can set one, of the inspector's own cookie name too (with a narrower Path, sent first). The guard parsed
    the header with :class:`http.cookies.SimpleCookie`, which stops at the first cookie it cannot read: the
    person's own valid token cookie after it went unseen and every request was a 401. Each cookie is read as a
    browser sends it (``name=value`` pairs split at ``;``), and the token of any of them counts."""
    store, _, _ = seeded
    app = create_app(store, TOKEN)
    for header in (f"{neighbour}; {cookie_name(80)}={TOKEN}", f"{cookie_name(80)}={TOKEN}; {neighbour}"):
        got = TestClient(app).get("/api/runs", headers={"Cookie": header.encode()})
        assert got.status_code == 200, header
        assert [r["run_id"] for r in got.json()["runs"]] == ["run-1"]
    for header in (neighbour, f"{neighbour}; {cookie_name(81)}={TOKEN}", f"{cookie_name(80)}x={TOKEN}"):
        assert TestClient(app).get("/api/runs", headers={"Cookie": header.encode()}).status_code == 401, header


def _fetch_metadata(site: str, mode: str, dest: str) -> dict[str, str]:
    return {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": mode, "Sec-Fetch-Dest": dest}


def test_a_page_of_another_port_cannot_make_the_inspector_work_for_it(seeded):
    """Every port of 127.0.0.1 is the same site, so ``SameSite=Strict`` sends the token cookie with requests that a
    page served on another port makes -- a dev server, a page an agent's browser tool opened, anything local.
    Only state-changing requests checked where they came from: an ``<img>`` or ``<script>`` of such a page, or a
    ``fetch(..., {mode: "no-cors"})``, made the inspector run what it named with the person's cookie: a deep fsck
    of 100,000 entries, a pattern search or jq filter until its time limit, every time the page asked (it cannot
    read the answers, but it can keep the machine's cores busy, and time them). A request whose Fetch Metadata says
    another site or origin made it as a subresource (anything but a top-level navigation) is refused with 403
    before it reaches the app; a link followed from such a page (a navigation) still opens the inspector."""
    store, _, handle = seeded
    app = create_app(store, TOKEN)
    browser = TestClient(app, cookies={cookie_name(80): TOKEN})
    fsck_url = "/api/fsck?limit=100000&deep=true"
    read_url = f"/api/runs/run-1/agents/agent-1/handles/{handle}/read?pattern=(a|a)*b"
    for site in ("same-site", "cross-site"):
        for mode, dest in (("no-cors", "image"), ("no-cors", "script"), ("no-cors", "empty"), ("cors", "empty"),
                           ("navigate", "iframe"), ("navigate", "embed"), ("no-cors", "style")):
            for method in ("GET", "HEAD"):
                for url in (fsck_url, read_url, "/", f"/api/runs/run-1/agents/agent-1/handles/{handle}/content"):
                    got = browser.request(method, url, headers=_fetch_metadata(site, mode, dest))
                    assert got.status_code == 403, (site, mode, dest, method, url)
                    assert got.headers["content-security-policy"] == CSP
    for purpose in ("prefetch", "prefetch;prerender"):  # speculation rules: navigations no one clicked
        got = browser.get(fsck_url, headers={**_fetch_metadata("same-site", "navigate", "document"),
                                             "Sec-Purpose": purpose})
        assert got.status_code == 403, purpose
    assert app.app.state.fsck_cache == {}  # no check ran
    got = browser.get(fsck_url, headers=_fetch_metadata("same-site", "no-cors", "image"))
    assert got.json()["error"] == {"kind": "forbidden", "message": "a request made by a page of another site or "
                                   "origin (same-site, no-cors, image) may not use the inspector"}
    for site in ("same-site", "cross-site", "none"):  # a link followed, a typed or bookmarked URL
        page = browser.get("/runs/run-1", headers=_fetch_metadata(site, "navigate", "document"))
        assert page.status_code == 200 and 'data-run="run-1"' in page.text
    own = browser.get(fsck_url, headers=_fetch_metadata("same-origin", "cors", "empty"))  # the page's own fetch
    assert own.status_code == 200 and own.json()["entries_checked"] == 2
    assert TestClient(app, headers=AUTH).get("/api/runs").json()["runs"][0]["run_id"] == "run-1"  # no metadata


def test_a_page_of_another_port_cannot_make_the_api_work_by_navigating_or_prefetching(seeded):
    """What headless Chromium 150 sent, seen by a header-logging server on another port of 127.0.0.1: a speculation
    rules prefetch or prerender of a page of another port came with ``Sec-Fetch-Site: none`` (not ``same-site``)
    and ``Sec-Purpose``, and the guard let every ``none`` through, so a page's ``<script type=speculationrules>``
    made the inspector run a deep fsck with the person's cookie; and a page that navigated itself, or a window it
    opened, to ``/api/fsck?deep=true`` or a pattern search (``Sec-Fetch-Site: same-site``, ``navigate``,
    ``document``) was served, as often as it navigated. A prefetch or prerender is refused whatever its site, and
    a navigation from another site or origin opens the pages only, not the JSON API."""
    store, _, handle = seeded
    app = create_app(store, TOKEN)
    browser = TestClient(app, cookies={cookie_name(80): TOKEN})
    fsck_url = "/api/fsck?limit=100000&deep=true"
    read_url = f"/api/runs/run-1/agents/agent-1/handles/{handle}/read?pattern=(a|a)*b"
    for purpose in ("prefetch", "prefetch;prerender"):
        for url in (fsck_url, read_url, "/runs/run-1"):
            got = browser.get(url, headers={**_fetch_metadata("none", "navigate", "document"), "Sec-Purpose": purpose})
            assert got.status_code == 403, (purpose, url)
    got = browser.get(fsck_url, headers={**_fetch_metadata("none", "navigate", "document"), "Sec-Purpose": "prefetch"})
    assert got.json()["error"]["message"] == ("a prefetch or prerender (none, navigate, document) may not use the "
                                              "inspector: open the page itself")
    for site in ("same-site", "cross-site"):
        for url in (fsck_url, read_url, f"/api/runs/run-1/agents/agent-1/handles/{handle}/content"):
            got = browser.get(url, headers=_fetch_metadata(site, "navigate", "document"))
            assert got.status_code == 403, (site, url)
            assert "may not open the JSON API" in got.json()["error"]["message"]
        page = browser.get(f"/runs/run-1/agents/agent-1/handles/{handle}",
                           headers=_fetch_metadata(site, "navigate", "document"))
        assert page.status_code == 200 and f'data-handle="{handle}"' in page.text  # a link still opens a page
    assert app.app.state.fsck_cache == {}  # no check ran
    typed = browser.get(fsck_url, headers=_fetch_metadata("none", "navigate", "document"))  # typed in the bar
    assert typed.status_code == 200 and typed.json()["entries_checked"] == 2


@pytest.mark.parametrize(("url", "named"), [
    ("/api/runs/run-1/agents/agent-1/scratchpad/read?key=%FF", "the query"),
    ("/api/runs/run-1/agents/agent-1/scratchpad?key=n%C3", "the query"),
    ("/api/runs/%FF/scratch", "the path"),
    ("/runs/%ED%A0%80", "the path"),  # a UTF-16 surrogate, which UTF-8 does not encode
    ("/api/runs/run-1/agents/agent-1/handles/{handle}/read?match=%C0%AF", "the query"),  # an overlong '/'
])
def test_a_url_that_is_not_utf8_is_refused_not_read_as_another_name(seeded, url, named):
    """The server decoded percent-escapes that are not UTF-8 as U+FFFD (errors="replace", in uvicorn for the path and
    Starlette for the query), so ``?key=%FF`` -- a key no client can have written -- read the entry whose key is
    U+FFFD, ``/api/runs/%FF/scratch`` listed the run named U+FFFD, and ``match=%C0%AF`` searched for U+FFFD U+FFFD:
    another entry's bytes, quietly. A URL whose path or query is not UTF-8 once percent-decoded is refused (400)."""
    store, scope, handle = seeded
    store.scope("\ufffd", "agent-1").scratch_write("k", "the run named U+FFFD")
    scope.scratch_write("\ufffd", "the key U+FFFD")
    scope.scratch_write("n\ufffd", "the key n U+FFFD")
    scope.spill(b"\xef\xbf\xbd\xef\xbf\xbd" * 5000, source_tool="t")
    client = TestClient(create_app(store, TOKEN), headers=AUTH)
    got = client.get(url.format(handle=handle))
    assert got.status_code == 400, got.text
    message = f"{named} of the URL is not UTF-8 once its %-escapes are decoded"
    if url.startswith("/api/"):
        assert got.json()["error"] == {"kind": "invalid argument", "message": message}
    else:
        assert got.text == f"400 invalid argument: {message}\n"
    assert got.headers["content-security-policy"] == CSP
    fine = client.get("/api/runs/run-1/agents/agent-1/scratchpad/read", params={"key": "\ufffd"})
    assert fine.status_code == 200 and fine.json()["data"] == "the key U+FFFD"


def test_a_token_given_on_the_command_line_is_warned_about(tmp_path):
    """``--token`` puts the token in the process's arguments, which every local user reads (``ps``,
    ``/proc/PID/cmdline``), and the server listens on loopback, which every local user reaches: anyone on the
    machine could read the store through the inspector, and nothing said so. A token given by option now gets a
    warning on stderr naming ``$SCRATCHFS_TOKEN``, which stays private to the user (``/proc/PID/environ`` is
    0400); one from the environment or made at random gets none."""
    token = "given-on-the-command-line"
    with serve(tmp_path / "r", "--token", token) as (found, proc):
        assert found.group(4) == token
        with open(f"/proc/{proc.pid}/cmdline", "rb") as cmdline:
            assert token.encode() in cmdline.read().split(b"\0")  # what ps shows any user
        proc.terminate()
        proc.wait(10)
        err = proc.stderr.read().decode()
    lines = [line for line in err.splitlines() if "--token" in line]
    assert lines == ["scratchfs: warning: --token puts the token in the process's arguments, which every local "
                     "user can read (ps): give it in $SCRATCHFS_TOKEN instead"], err
    assert token not in err
    for env in ({"SCRATCHFS_TOKEN": token}, {}):
        with serve(tmp_path / "r", env=env) as (_, proc):
            proc.terminate()
            proc.wait(10)
            assert "--token" not in proc.stderr.read().decode()
