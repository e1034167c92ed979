"""The web inspector's JSON API through Starlette's test client: values against the store's own answers (the
model-facing contract, the inspector, the fixtures parsed by the standard library), paging, errors as statuses."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from scratchfs.api.contract import ScratchTools
from scratchfs.api.inspector import stats
from scratchfs.web import create_app
from scratchfs.web.structure import MAX_CELL_CHARS, json_tree
from tests.conftest import FIXTURES

TOKEN = "test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def client(store):
    with TestClient(create_app(store, TOKEN), headers=AUTH) as c:
        yield c


def h_url(scope, handle: str, tail: str = "") -> str:
    return f"/api/runs/{scope.run_id}/agents/{scope.agent_id}/handles/{handle}{tail}"


def test_runs_list_agents_counts_bytes_and_next_expiry(store, clock, client):
    a = store.scope("run-a", "agent-1")
    a.spill(b"x" * 10_000, source_tool="t1", ttl=100)
    a.spill(b"y" * 20_000, source_tool="t2", ttl=50)
    store.scope("run-a", "agent-2").scratch_write("plan", "step 1", ttl=30)
    clock.advance(5)
    store.scope("run-b", "agent-1").spill(b"z" * 300, ttl=500)
    body = client.get("/api/runs").json()
    assert [r["run_id"] for r in body["runs"]] == ["run-b", "run-a"]  # most recently written first
    run_a = body["runs"][1]
    entries = store.list_entries_for_run("run-a")
    assert run_a["entries"] == 3 and run_a["handles"] == 2 and run_a["scratch"] == 1
    assert run_a["bytes_in"] == 30_006 == sum(e.size for e in entries)
    assert run_a["bytes_on_disk"] == sum(e.stored_size for e in entries)
    assert run_a["next_expiry"] == min(e.expires_at for e in entries)
    assert run_a["next_expiry_in"] == pytest.approx(25.0)  # the scratch value: 30 s, 5 s ago
    assert [(g["agent_id"], g["entries"], g["bytes_in"]) for g in run_a["agents"]] == [
        ("agent-1", 2, 30_000), ("agent-2", 1, 6)]


def test_the_runs_list_is_aggregated_by_the_index_not_loaded_entry_by_entry(store, clock, client, monkeypatch):
    """``GET /api/runs`` loaded every entry of the store at each call -- about 1 s at 100,000 entries, and the runs
    page polls it every 3 s (atk23). It takes the index's per-scope aggregates (the ``stats`` query), with each run's
    last write; a run whose entries have all expired (not swept yet) is not listed, as before."""
    store.scope("run-old", "agent-1").spill(b"o" * 500, ttl=10)
    clock.advance(3)
    store.scope("run-a", "agent-1").spill(b"x" * 1000, ttl=100)
    clock.advance(4)
    store.scope("run-a", "agent-2").scratch_write("k", b"v", ttl=100)
    written = clock.now
    clock.advance(20)  # run-old's entry expired, unswept
    monkeypatch.setattr(store, "list_entries", lambda: pytest.fail("GET /api/runs loaded every entry"))
    body = client.get("/api/runs").json()
    assert [(r["run_id"], r["entries"], r["last_write"]) for r in body["runs"]] == [("run-a", 2, written)]
    assert [(g["agent_id"], g["entries"]) for g in body["runs"][0]["agents"]] == [("agent-1", 1), ("agent-2", 1)]


def test_run_entries_are_paged_by_cursor_without_loss_or_repeat(store, clock, client):
    scope = store.scope("run-p", "agent-1")
    other = store.scope("run-p", "agent-2")
    keys = []
    for i in range(23):
        clock.advance(0.5)
        keys.append((scope if i % 3 else other).spill(f"entry {i} ".encode() * 50).handle)
    seen, cursor, pages = [], None, 0
    while True:
        params = {"limit": 10} | ({"cursor": cursor} if cursor else {})
        page = client.get("/api/runs/run-p/scratch", params=params).json()
        pages += 1
        seen += [e["key"] for e in page["entries"]]
        assert page["remaining"] == 23 - len(seen)
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == 3 and seen == keys
    only = client.get("/api/runs/run-p/scratch", params={"agent": "agent-2", "limit": 1000}).json()
    assert [e["key"] for e in only["entries"]] == keys[0::3]
    first = client.get("/api/runs/run-p/scratch", params={"limit": 1}).json()["entries"][0]
    assert first["size"] == len(b"entry 0 " * 50) and first["ratio"] == round(first["size"] / first["stored_size"], 3)
    assert client.get("/api/runs/run-p/scratch", params={"cursor": "not-a-cursor"}).status_code == 400
    assert client.get("/api/runs/run-p/scratch", params={"limit": 1001}).status_code == 400
    assert client.get("/api/runs/nobody/scratch").json()["entries"] == []


def test_an_id_with_a_slash_is_named_by_query_as_the_description_says(store, client):
    # an id may hold "/"; a path segment cannot (not even as %2F), a query parameter can: the OpenAPI description
    # says exactly that (schemathesis found ?agent=1/0 accepted while the description refused it)
    from scratchfs.web.openapi import openapi

    stub = store.scope("run/s", "1/0").spill(b"x" * 10_000)
    page = client.get("/api/runs/run-s2/scratch", params={"agent": "1/0"}).json()
    assert page["entries"] == []
    store.scope("run-s2", "1/0").scratch_write("k", "v")
    page = client.get("/api/runs/run-s2/scratch", params={"agent": "1/0"}).json()
    assert [(e["agent_id"], e["key"]) for e in page["entries"]] == [("1/0", "k")]
    stats = client.get("/api/stats", params={"run": "run/s"}).json()
    assert json.dumps(stats).count(stub.handle) == 0 and "run/s" in json.dumps(stats)
    assert client.get("/api/runs/run%2Fs/scratch").status_code == 404
    doc = openapi()
    params = {p["name"]: p["schema"] for p in doc["paths"]["/api/runs/{run}/scratch"]["get"]["parameters"]}
    assert re.fullmatch(params["agent"]["pattern"].strip("^$"), "1/0")
    assert not re.fullmatch(params["run"]["pattern"].strip("^$"), "run/s")


def test_entry_metadata(store, clock, client, fixture_data):
    scope = store.scope("run-m", "agent-1")
    stub = scope.spill(fixture_data["api-ec2-service-model.json"], source_tool="aws.describe", ttl=600)
    clock.advance(100)
    meta = client.get(h_url(scope, stub.handle)).json()
    assert meta["key"] == stub.handle and meta["kind"] == "handle" and meta["source_tool"] == "aws.describe"
    assert meta["size"] == len(fixture_data["api-ec2-service-model.json"]) and meta["lines"] == stub.lines
    assert meta["content_type"] == "json" and meta["expires_in"] == pytest.approx(500.0)
    assert "blob" not in meta
    scope.scratch_write("notes", "α" * 10)
    note = client.get("/api/runs/run-m/agents/agent-1/scratchpad", params={"key": "notes"}).json()
    assert note["kind"] == "scratch" and note["size"] == 20


@pytest.mark.parametrize("args", [
    {"offset": 1000, "length": 5000},
    {"offset": 3, "length": 1},
    {"line": 120, "lines": 40},
    {"match": "Ownership", "context": 50, "max_matches": 5},
    {"pattern": "^<h2 .*ownership", "ignore_case": True, "max_matches": 3},
    {"match": "the", "offset": 200_000, "max_matches": 2, "context": 0},
    {"match": "Ownership", "context": "line", "max_matches": 5},
    {"line": -40, "lines": 40},
    {"line": -10**6, "lines": 2},
    {"match": "Ownership", "before": 524273, "max_matches": 3},
    {"pattern": "^<h2 .*ownership", "ignore_case": True, "before": 300_000, "context": "line", "max_matches": 2},
])
def test_reads_are_the_model_facing_contract(store, client, fixture_data, args):
    scope = store.scope("run-r", "agent-1")
    handle = scope.spill(fixture_data["browser-rust-book.html"]).handle
    params = {k: str(v).lower() if isinstance(v, bool) else v for k, v in args.items()}
    got = client.get(h_url(scope, handle, "/read"), params=params)
    assert got.status_code == 200
    full = ScratchTools(scope).call("read_handle", {"handle": handle, **args}, full_windows=True)
    assert got.json() == full  # (the inspector's windows of whole lines keep their offsets: it marks matches by them)
    model = ScratchTools(scope).call("read_handle", {"handle": handle, **args})
    if args.get("context") == "line":  # the model's window of a whole line is its line and data, the same bytes
        assert full["windows"] and all("offset" in w and "cut" not in w for w in full["windows"])
        full["windows"] = [{"line": w["line"], "data": w["data"]} for w in full["windows"]]
    assert model == full


def test_reads_keep_the_contract_budgets_and_checks(store, client):
    scope = store.scope("run-r", "agent-1")
    handle = scope.spill(b"abc\n" * 30_000).handle
    too_long = client.get(h_url(scope, handle, "/read"), params={"length": 100_000})
    assert too_long.status_code == 400 and too_long.json()["error"]["kind"] == "invalid argument"
    assert "65536" in too_long.json()["error"]["message"]
    mixed = client.get(h_url(scope, handle, "/read"), params={"line": 3, "match": "abc"})
    assert mixed.status_code == 400
    assert client.get(h_url(scope, handle, "/read"), params={"offset": "1e3"}).status_code == 400
    assert client.get(h_url(scope, handle, "/read"), params={"ignore_case": "maybe", "match": "a"}).status_code == 400
    for context in ("lines", "-1", "1.5", "8193"):  # one message naming both forms, as over MCP
        bad = client.get(h_url(scope, handle, "/read"), params={"match": "abc", "context": context})
        assert bad.status_code == 400 and bad.json()["error"]["message"].startswith(
            'context must be an integer from 0 to 8192 (bytes shown on each side of a match) or "line"')
    assert client.get(h_url(scope, handle, "/read"), params={"line": 0}).status_code == 400
    unknown = client.get(h_url(scope, handle, "/read"), params={"column": "name"})  # a typo of columns
    assert unknown.status_code == 400
    allowed = unknown.json()["error"]["message"].split("; allowed: ")[1].split(", ")
    assert "columns" in allowed and "row" in allowed  # columns (repeatable) was left out of the list
    for budget in (None, 2048, 65536):  # the reply budget, as over MCP: the JSON text fits it, and says how to go on
        params = {"length": 65536} | ({"budget": budget} if budget else {})
        got = client.get(h_url(scope, handle, "/read"), params=params)
        assert got.json() == ScratchTools(scope).call("read_handle", {"handle": handle, **params})
        assert len(got.content) <= (budget or 8192) and got.json()["next_offset"] == got.json()["length"] > 0


def test_json_tree_of_the_fixture(store, client, fixture_data):
    scope = store.scope("run-j", "agent-1")
    handle = scope.spill(fixture_data["api-ec2-service-model.json"]).handle
    doc = json.loads(fixture_data["api-ec2-service-model.json"])
    root = client.get(h_url(scope, handle, "/tree")).json()
    assert root["type"] == "object" and root["count"] == len(doc)
    assert [c["key"] for c in root["children"]] == list(doc)
    assert root["children"][0] == {"key": "version", "path": "/version", "type": "string", "value": doc["version"]}
    ops = client.get(h_url(scope, handle, "/tree"), params={"path": "/operations", "limit": 100}).json()
    assert ops["count"] == len(doc["operations"]) and ops["next_offset"] == 100
    assert [c["key"] for c in ops["children"]] == list(doc["operations"])[:100]
    rest = client.get(h_url(scope, handle, "/tree"), params={"path": "/operations", "offset": 100, "limit": 500})
    assert [c["key"] for c in rest.json()["children"]] == list(doc["operations"])[100:]
    name = next(iter(doc["operations"]))
    leaf = client.get(h_url(scope, handle, "/tree"), params={"path": f"/operations/{name}/http/method"}).json()
    assert leaf["type"] == "string" and leaf["value"] == doc["operations"][name]["http"]["method"]
    assert client.get(h_url(scope, handle, "/tree"), params={"path": "/nope"}).status_code == 400
    assert client.get(h_url(scope, handle, "/tree"), params={"path": "operations"}).status_code == 400
    text = scope.spill(b"not json at all " * 1000).handle
    assert client.get(h_url(scope, text, "/tree")).json()["error"]["kind"] == "invalid argument"


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


def _rebuild(scope, handle: str, path: str, kind: str):
    node = json_tree(scope, handle, path, 0, 500)
    assert node["next_offset"] is None
    build = {} if kind == "object" else []
    for child in node["children"]:
        value = _rebuild(scope, handle, child["path"], child["type"]) if "count" in child else child["value"]
        if kind == "object":
            build[child["key"]] = value
        else:
            build.append(value)
    return build


@settings(max_examples=40)
@given(doc=st.dictionaries(st.text(max_size=8), _json, max_size=6) | st.lists(_json, max_size=6))
def test_json_tree_rebuilds_the_document(store, doc):
    """Walking the tree node by node (JSON pointers with ~ and / in keys included) gives back json.loads' answer."""
    scope = store.scope("run-h", "agent-1")
    handle = scope.spill(json.dumps(doc).encode() + b" " * 9000).handle
    kind = "object" if isinstance(doc, dict) else "array"
    assert _rebuild(scope, handle, "", kind) == json.loads(json.dumps(doc))


def test_csv_table_of_the_fixture(store, client, fixture_data):
    scope = store.scope("run-c", "agent-1")
    handle = scope.spill(fixture_data["query-packages-by-month.csv"]).handle
    records = list(csv.reader(io.StringIO(fixture_data["query-packages-by-month.csv"].decode(), newline="")))
    page = client.get(h_url(scope, handle, "/table"), params={"row": 200, "rows": 50}).json()
    assert page["columns"] == records[0] == ["name", "version", "month", "summary"]
    assert page["rows"] == records[201:251] and page["total_rows"] == len(records) - 1
    assert page["next_row"] == 250 and page["partial"] is False
    last = client.get(h_url(scope, handle, "/table"), params={"row": len(records) - 3, "rows": 500}).json()
    assert last["rows"] == records[-2:] and last["next_row"] is None


def test_scratchpad_read_is_the_contract(store, client):
    scope = store.scope("run-s", "agent-1")
    scope.scratch_write("plan/1", "é" * 5000)
    got = client.get("/api/runs/run-s/agents/agent-1/scratchpad/read",
                     params={"key": "plan/1", "offset": 1, "length": 100}).json()
    assert got == ScratchTools(scope).call("scratch_read", {"key": "plan/1", "offset": 1, "length": 100})
    assert got["offset"] == 2 and got["data"] == "é" * 49  # whole characters, as over MCP


def test_stats_and_fsck(store, client):
    scope = store.scope("run-f", "agent-1")
    stub = scope.spill(b"hello world\n" * 2000)
    body = client.get("/api/stats", params={"soon": 7200}).json()
    expected = [s.to_dict() for s in stats(store.list_entries(), store.now(), 7200.0)]
    assert body["scopes"] == expected and body["scopes"][0]["expiring_soon"] == 1
    clean = client.get("/api/fsck").json()
    assert clean["clean"] is True and clean["entries_checked"] == 1 and clean["bytes_checked"] == 24_000
    entry = store.list_entries()[0]
    os.unlink(store.blobs.path(entry.run_id, entry.agent_id, entry.blob))
    broken = client.get("/api/fsck", params={"deep": "false"}).json()
    assert broken["clean"] is False and broken["missing"] == 1
    problem = broken["problems"][0]
    assert problem["key"] == stub.handle and not problem["path"].startswith("/")  # relative to the root


@pytest.mark.parametrize(("path", "status", "kind"), [
    ("/api/runs/run-x/agents/agent-1/handles/h_aaaaaaaaaaaaaaaaaaaaaaaa", 404, "not found"),
    ("/api/runs/run-x/agents/agent-1/handles/not-a-handle", 400, "invalid argument"),
    ("/api/runs/run%01x/scratch", 400, "invalid argument"),
    ("/api/runs/run-x/agents/ag%0aent/handles/h_aaaaaaaaaaaaaaaaaaaaaaaa/read", 400, "invalid argument"),
    ("/api/runs/" + "r" * 257 + "/scratch", 400, "invalid argument"),
    ("/api/runs?bogus=1", 400, "invalid argument"),
    ("/api/runs/run-x/agents/agent-1/scratchpad?key=", 400, "invalid argument"),
    ("/api/nothing-here", 404, "not found"),
])
def test_errors_are_json_with_the_status_of_their_kind(client, path, status, kind):
    got = client.get(path)
    assert got.status_code == status
    assert got.headers["content-type"] == "application/json"
    assert got.json()["error"]["kind"] == kind


def test_a_pattern_timeout_says_where_to_resume(store, client):
    store.pattern_timeout = 0.2
    scope = store.scope("run-t", "agent-1")
    data = b"x" * 1000 + b"\n" + b"a" * 40 + b"b\n"
    handle = scope.spill(data).handle
    got = client.get(h_url(scope, handle, "/read"), params={"pattern": "(a|aa)+$"})
    error = got.json()["error"]
    assert got.status_code == 400 and error["kind"] == "invalid argument"
    assert 0 <= error["resume_offset"] <= len(data) and f"offset={error['resume_offset']}" in error["message"]


def test_openapi_names_every_api_route(client):
    from scratchfs.web.app import routes

    doc = client.get("/api/openapi.json").json()
    api_paths = {r.path for r in routes() if r.path.startswith("/api/") and r.path != "/api/openapi.json"}
    assert set(doc["paths"]) == api_paths
    assert doc["paths"]["/api/runs/{run}/scratch"]["get"]["parameters"][0]["name"] == "run"



def _model_text(scope, handle: str) -> str:
    """The whole text view the model reads with ``view="text"``, page after page."""
    parts, page = [], scope.structure.text(handle, budget=65536)
    parts.append(page.text)
    while page.cursor is not None:
        page = scope.structure.text(handle, cursor=page.cursor, budget=65536)
        parts.append(page.text)
    return "".join(parts)


def test_html_text_of_the_fixture(store, client, fixture_data):
    scope = store.scope("run-t", "agent-1")
    html = b"<html><head><title>T</title><style>p{}</style></head><body><h1>Own&amp;ership</h1>" \
           b"<script>var x = '<p>no</p>';</script><p>Rust  is\n  safe</p><ul><li>one</li><li>two</li></ul></body>"
    handle = scope.spill(html + b" " * 9000).handle
    got = client.get(h_url(scope, handle, "/text")).json()
    assert got["data"] == _model_text(scope, handle) and got["size"] == len(got["data"].encode())  # the model's
    assert "Own&ership" in got["data"] and "Rust is safe" in got["data"] and "no" not in got["data"]
    book = scope.spill(fixture_data["browser-rust-book.html"]).handle
    first = client.get(h_url(scope, book, "/text"), params={"length": 1000}).json()
    assert first["length"] == len(first["data"].encode()) == first["next_offset"] > 996 and "<" not in first["data"]
    assert "The Rust Programming Language" in first["data"]
    whole = "".join(_web_text_pages(client, h_url(scope, book, "/text"), 65536))
    assert len(whole.encode()) == first["size"] and "What Is Ownership?" in whole and "<script" not in whole
    assert whole == _model_text(scope, book)


def _web_text_pages(client, url: str, length: int) -> list[str]:
    """The pages of the web /text reply, following ``next_offset`` from 0; each page's offset, length and
    next_offset checked against the UTF-8 bytes of its data."""
    pages, at = [], 0
    while at is not None:
        got = client.get(url, params={"offset": at, "length": length}).json()
        assert got["offset"] == at and got["length"] == len(got["data"].encode())
        assert got["next_offset"] in (None, at + got["length"])
        pages.append(got["data"])
        at = got["next_offset"]
    return pages


@pytest.mark.parametrize("length", [65536, 1001])
def test_html_text_size_is_the_bytes_served_as_the_model_counts_them(store, client, fixture_data, length):
    """The web /text reply's ``size`` and offsets are UTF-8 bytes of the text, the numbers the model's
    read_handle(view="text") gives: the fixture's text is 363,525 bytes and 360,714 characters, and ``size`` was the
    characters (a 1.9 MB page: 1,308,920 against the 1,317,675 bytes its pages served). (366,648 and 363,837 until
    the view marked raised text: the book's "−(2<sup>7</sup>) to 2<sup>7</sup> − 1" read "−(27) to 27 − 1"; 366,654
    and 363,843 until code in a ``<pre>`` kept its lines, each indented as the block it is in; 404,509 and 401,698
    until a ``<div>`` indented nothing, helper replies7.)"""
    scope = store.scope("run-t", "agent-1")
    book = scope.spill(fixture_data["browser-rust-book.html"]).handle
    url = h_url(scope, book, "/text")
    size = client.get(url, params={"length": 1}).json()["size"]
    served = "".join(_web_text_pages(client, url, length))
    model = ScratchTools(scope).read_handle(book, view="text")
    assert size == len(served.encode()) == model["size"] == 363_525 != len(served)
    assert served == _model_text(scope, book)
    inside = served.encode().index("\u2019".encode()) + 1  # an offset inside a 3-byte character starts after it
    got = client.get(url, params={"offset": inside, "length": 2}).json()
    assert (got["offset"], got["data"]) == (inside + 2, served.encode()[inside + 2 : inside + 4].decode())


def test_run_entries_stream_from_the_index_with_the_listing_cursor(store, clock, client, monkeypatch):
    from scratchfs.api.store_listing import decode_cursor, iter_entries

    scope = store.scope("run-q", "agent-1")
    keys = []
    for i in range(7):
        clock.advance(0.5)
        written = scope.spill(f"entry {i} ".encode() * 50) if i % 2 else scope.scratch_write(f"k{i}", b"v")
        keys.append(written.handle if i % 2 else written.key)
    for name in ("list_entries", "list_entries_for_run"):  # the page comes from keyset pages, not a whole listing
        monkeypatch.setattr(store, name, lambda *a, **k: pytest.fail("the whole listing was loaded"))
    page = client.get("/api/runs/run-q/scratch", params={"limit": 2, "kind": "handle"}).json()
    assert [e["key"] for e in page["entries"]] == keys[1:4:2] and page["remaining"] == 1
    cursor = decode_cursor(page["next_cursor"])  # the cursor ls prints
    assert [e.key for e, _ in iter_entries(store, store.now(), "run-q", after=cursor)] == keys[4:]
    rest = client.get("/api/runs/run-q/scratch", params={"cursor": page["next_cursor"], "kind": "handle"}).json()
    assert [e["key"] for e in rest["entries"]] == [keys[5]] and rest["next_cursor"] is None
    assert client.get("/api/runs/run-q/scratch", params={"cursor": "nonsense"}).status_code == 400


def test_stats_are_aggregated_by_the_index_as_the_cli_does(store, clock, client, monkeypatch):
    from scratchfs.api.inspector import stats_in_sql

    scope = store.scope("run-g", "agent-1")
    scope.spill(b"kept\n" * 100)
    scope.spill(b"short-lived\n" * 100, ttl=1)
    clock.advance(2)  # expired, not swept yet: counted apart, as scratchfs stats counts it
    for name in ("list_entries", "list_entries_for_run"):
        monkeypatch.setattr(store, name, lambda *a, **k: pytest.fail("every row was loaded"))
    body = client.get("/api/stats", params={"run": "run-g"}).json()
    assert body["scopes"] == [s.to_dict() for s in stats_in_sql(store, body["now"], 300.0, "run-g")]
    assert (body["scopes"][0]["entries"], body["scopes"][0]["expired"]) == (1, 1)


def test_stats_of_a_scope_with_only_expired_entries_are_valid_json(store, clock, client):
    store.scope("run-e", "agent-1").spill(b"short-lived\n" * 100, ttl=1)
    clock.advance(2)  # expired, not swept: the scope has no live entry
    response = client.get("/api/stats", params={"run": "run-e"})
    assert response.status_code == 200, response.text
    (scope,) = response.json()["scopes"]
    assert (scope["entries"], scope["expired"], scope["oldest"], scope["next_expiry"]) == (0, 1, None, None)


def test_the_web_table_is_the_models_rows(store, client):
    scope = store.scope("run-c2", "agent-1")
    data = "name\tnote\n" + "".join(f"n{i}\tpart;of;{i};one|cell, still\n" for i in range(300))
    handle = scope.spill(data.encode() + b"\n" * 2000).handle
    model, page = [], scope.structure.rows(handle, 1, 10_000, budget=65536)
    model += page.items
    while page.cursor is not None:
        page = scope.structure.rows(handle, cursor=page.cursor, budget=65536)
        model += page.items
    web = client.get(h_url(scope, handle, "/table"), params={"rows": 500}).json()
    assert web["columns"] == page.extra["header"] == ["name", "note"]
    assert web["rows"] == model and web["total_rows"] == 300 and web["partial"] is False


def test_the_web_table_of_a_table_aligned_by_spaces_is_the_models_rows(store, client):
    scope = store.scope("run-c2", "agent-1")
    data = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "ps-auxww.txt").read_bytes()
    stub = scope.spill(data, source_tool="ps auxww")
    page = scope.structure.rows(stub.handle, 1, 10_000, budget=65536)
    web = client.get(h_url(scope, stub.handle, "/table"), params={"rows": 500}).json()
    assert stub.shape.startswith("table aligned by spaces") and page.cursor is None
    assert web["columns"] == page.extra["header"] and web["columns"][-1] == "COMMAND"
    assert web["rows"] == [[cell[:MAX_CELL_CHARS] for cell in row] for row in page.items]
    assert web["total_rows"] == len(page.items) == 103


def test_the_web_table_of_a_table_drawn_with_pipes_is_the_models_rows(store, client):
    scope = store.scope("run-c3", "agent-1")
    data = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "sqlite-table-packages.txt").read_bytes()
    stub = scope.spill(data, source_tool="sqlite3 -table")
    page = scope.structure.rows(stub.handle, 1, 10_000, budget=65536)
    web = client.get(h_url(scope, stub.handle, "/table"), params={"rows": 500}).json()
    assert stub.shape.startswith("table in +---+ borders") and page.cursor is None
    assert web["columns"] == page.extra["header"] == ["name", "version", "month"]
    assert web["rows"] == page.items and web["total_rows"] == len(page.items) == 30


def test_fsck_is_bounded_and_served_again_while_fresh(store, client, monkeypatch):
    """A GET checks at most ?limit= entries (then gives the cursor to go on) and one report is served again, with its
    age, instead of a new check per GET: GETs cannot pin a core."""
    import scratchfs.web.api as web_api

    scope = store.scope("run-b", "agent-1")
    for i in range(5):
        scope.spill(b"line %d\n" % i * 2000)
    calls = []
    real = web_api.fsck
    monkeypatch.setattr(web_api, "fsck", lambda *a, **k: calls.append(k) or real(*a, **k))
    first = client.get("/api/fsck", params={"limit": 2}).json()
    assert first["entries_checked"] == 2 and first["next_cursor"] and first["age"] == 0
    again = client.get("/api/fsck", params={"limit": 2}).json()
    assert len(calls) == 1 and again["age"] >= 0 and {**again, "age": 0} == first
    rest = client.get("/api/fsck", params={"limit": 2, "after": first["next_cursor"]}).json()
    assert rest["entries_checked"] == 2 and len(calls) == 2
    whole = client.get("/api/fsck").json()  # the store holds fewer entries than the default limit: all, orphans too
    assert whole["entries_checked"] == 5 and whole["next_cursor"] is None and calls[-1]["limit"] == 10_000
    monkeypatch.setattr(web_api, "FSCK_CACHE_SECONDS", 0.0)
    client.get("/api/fsck")
    assert len(calls) == 4  # stale: checked again
    assert client.get("/api/fsck", params={"limit": 0}).status_code == 400
    assert client.get("/api/fsck", params={"after": "not a cursor"}).status_code == 400


def test_fsck_of_exactly_limit_entries_is_whole_without_an_aggregate_query(store, client, monkeypatch):
    """fsck reads one entry past its limit to tell whether the check is whole: a check of exactly the entries there
    are gives no cursor and looks for orphans (it gave a cursor and no orphan check before; the web view ran an
    aggregate query over the whole index to decide instead)."""
    import scratchfs.web.api as web_api
    from scratchfs.api.inspector import fsck

    scope = store.scope("run-f", "agent-1")
    for i in range(3):
        scope.spill(b"entry %d\n" % i * 20_000)
    (one, *_) = store.list_entries()
    os.makedirs(os.path.dirname(store.blobs.path(one.run_id, one.agent_id, "z" * 24)), exist_ok=True)
    with open(store.blobs.path(one.run_id, one.agent_id, "z" * 24), "wb") as junk:
        junk.write(b"junk\n")  # an orphan with no seek table
    report = fsck(store, limit=3)
    assert (report.entries_checked, report.next_cursor, report.counts()["incomplete"]) == (3, None, 1)
    bounded = fsck(store, limit=2)
    assert bounded.entries_checked == 2 and bounded.next_cursor and bounded.counts()["incomplete"] == 0
    rest = fsck(store, limit=1, after=bounded.next_cursor)
    assert (rest.entries_checked, rest.next_cursor, rest.counts()["incomplete"]) == (1, None, 1)
    monkeypatch.setattr(web_api, "stats_in_sql", lambda *a, **k: pytest.fail("an aggregate query for fsck"))
    got = client.get("/api/fsck", params={"limit": 3}).json()
    assert (got["entries_checked"], got["next_cursor"], got["incomplete"]) == (3, None, 1)


def test_run_entries_count_the_remaining_entries_without_walking_them(store, clock, client, monkeypatch):
    from scratchfs.api import store_listing

    scope = store.scope("run-c", "agent-1")
    for i in range(40):
        clock.advance(0.01)
        scope.spill(f"entry {i} ".encode() * 30) if i % 4 else scope.scratch_write(f"k{i}", b"v")
    walked = []
    real_page = store.index.page
    monkeypatch.setattr(store.index, "page", lambda *a: walked.append(a[2]) or real_page(*a))
    monkeypatch.setattr(store_listing, "PAGE_ROWS", 8)  # entries are read 8 at a time
    page = client.get("/api/runs/run-c/scratch", params={"limit": 5}).json()
    assert page["count"] == 5 and page["remaining"] == 35 and len(walked) == 1  # not every page after it
    walked.clear()
    page = client.get("/api/runs/run-c/scratch", params={"limit": 5, "kind": "scratch"}).json()
    assert page["count"] == 5 and page["remaining"] == 5 and len(walked) <= 3
    assert [e["key"] for e in page["entries"]] == [f"k{i}" for i in range(0, 20, 4)]
    last = client.get("/api/runs/run-c/scratch", params={"limit": 5, "kind": "scratch",
                                                        "cursor": page["next_cursor"]}).json()
    assert (last["count"], last["remaining"], last["next_cursor"]) == (5, 0, None)


def test_html_text_says_partial_when_the_text_was_cut(store, client, monkeypatch):
    """An HTML entry larger than the text view reads (the model's view="text" refuses it) is shown from its first
    bytes with ``partial`` true; ``partial`` was always false."""
    import scratchfs.web.structure as web_structure

    scope = store.scope("run-h", "agent-1")
    html = b"<html><body>" + b"".join(b"<p>paragraph %d \xc3\xa9t\xc3\xa9</p>" % i for i in range(2000))
    handle = scope.spill(html + b"</body></html>").handle
    whole = client.get(h_url(scope, handle, "/text")).json()
    assert whole["partial"] is False and "paragraph 1999 \u00e9t\u00e9" in whole["data"]
    at = html.index(b"paragraph 39 ") + len(b"paragraph 39 ") + 1
    monkeypatch.setattr(web_structure, "MAX_HTML_TEXT_BYTES", at)  # cuts inside the first "é" of paragraph 39
    web_structure._cache.clear()
    cut = client.get(h_url(scope, handle, "/text")).json()
    assert cut["partial"] is True and cut["size"] < whole["size"]
    assert "paragraph 38 \u00e9t\u00e9" in cut["data"] and "paragraph 39" in cut["data"]
    assert "paragraph 40" not in cut["data"]
    assert "\ufffd" not in cut["data"]  # cut on a character boundary


def test_json_tree_gives_every_number_as_written(store, client):
    """A number no double is keeps its text (1e400 was inf, sent as the invalid JSON Infinity; 1.00000000000000000001
    was 1.0); the reply is valid JSON."""
    scope = store.scope("run-n", "agent-1")
    doc = b'{"big": 1e400, "fine": 1.00000000000000000001, "id": 12345678901234567890, "f": 1.5, "z": -0.0}'
    handle = scope.spill(doc + b" " * 9000).handle
    got = client.get(h_url(scope, handle, "/tree"))
    assert got.status_code == 200
    children = {c["key"]: c for c in json.loads(got.text, parse_constant=pytest.fail)["children"]}
    assert (children["big"]["value"], children["big"]["text"]) == (None, "1E+400")
    assert (children["fine"]["value"], children["fine"]["text"]) == (1.0, "1.00000000000000000001")
    assert children["id"]["text"] == "12345678901234567890"
    assert "text" not in children["f"] and children["f"]["value"] == 1.5
    assert str(children["z"]["value"]) == "-0.0"
    root = json_tree(scope, handle, "/big")
    assert (root["value"], root["text"]) == (None, "1E+400")


@pytest.mark.parametrize(("path", "name", "value", "bounds"), [
    ("read", "offset", "9" * 26, "between 0 and 999999999999999999"),
    ("read", "length", "1" + "0" * 400, "between 1 and 65536"),
    ("/api/fsck", "limit", str(10**23), "between 1 and"),
    ("/api/fsck", "limit", "0", "between 1 and"),
    ("/api/runs/run-1/scratch", "limit", "99999999999999999999", "between 1 and 1000"),
    ("/api/stats", "soon", "9" * 30, "between 0 and"),
    ("tree", "limit", "1000000000000000000000", "between 1 and 500"),
])
def test_an_out_of_range_integer_is_called_out_of_range_with_the_range(store, client, path, name, value, bounds):
    """Attacker's trial: ``offset=99999999999999999999999999`` was 'offset must be an integer'."""
    handle = store.scope("run-1", "agent-1").spill(b'{"a": 1}' * 2000).handle
    if not path.startswith("/"):
        path = f"/api/runs/run-1/agents/agent-1/handles/{handle}/{path}"
    reply = client.get(path, params={name: value})
    assert reply.status_code == 400
    message = reply.json()["error"]["message"]
    assert message.startswith(f"{name} is out of range: ") and bounds in message, message
    assert "must be an integer" in client.get(path, params={name: "1x"}).json()["error"]["message"]


@pytest.mark.parametrize("path", ["/api/runs/run-k/agents/agent-1/scratchpad",
                                  "/api/runs/run-k/agents/agent-1/scratchpad/read",
                                  "/runs/run-k/agents/agent-1/scratchpad"])
def test_a_scratchpad_view_names_its_missing_or_repeated_key(store, client, path):
    """Attacker's trial: without ``?key=`` the scratchpad's metadata and page answered "key must be text, not
    NoneType: None" and its read "scratch_read: key: None is not of type 'string'" (a Python type where a query
    parameter is missing); the page took the last of two ``?key=`` where the API refuses a repeated parameter."""
    store.scope("run-k", "agent-1").scratch_write("plan", "step 1")
    missing = client.get(path)
    assert missing.status_code == 400
    message = missing.json()["error"]["message"] if path.startswith("/api") else missing.text
    assert "query parameter key is required" in message and "None" not in message, message
    twice = client.get(path, params=[("key", "plan"), ("key", "other")])
    assert twice.status_code == 400
    assert "key given twice" in (twice.json()["error"]["message"] if path.startswith("/api") else twice.text)
    assert client.get(path, params={"key": "plan"}).status_code == 200


@pytest.mark.parametrize("name", ["browser-rust-book.html", "api-ec2-service-model.json"])
def test_a_download_is_every_byte_of_the_entry(store, client, fixture_data, name):
    """.../content streams the whole content (a read gives at most 64 KiB), with a file name for a browser."""
    scope = store.scope("run-d", "agent-1")
    data = fixture_data[name]
    handle = scope.spill(data, source_tool="t").handle
    got = client.get(h_url(scope, handle, "/content"))
    assert got.status_code == 200 and got.content == data
    assert got.headers["content-type"] == "application/octet-stream"
    assert got.headers["content-disposition"] == f'attachment; filename="{handle}.{name.rsplit(".", 1)[1]}"'
    assert got.headers["x-content-type-options"] == "nosniff"
    scope.scratch_write("notes/../a b", data)
    url = f"/api/runs/{scope.run_id}/agents/{scope.agent_id}/scratchpad/content"
    value = client.get(url, params={"key": "notes/../a b"})
    assert value.content == data and 'filename="notes_.._a_b.' in value.headers["content-disposition"]


@pytest.mark.parametrize(("key", "own"), [
    ("отчёт/итог", "отчёт_итог"), ("données 2026", "données 2026"), ("报告\\备份", "报告_备份"),
    ("rapport\u202efdp.exe", None),  # a right-to-left override would show another extension: not offered
    ("plain-ascii", None),
])
def test_a_key_in_another_script_downloads_under_its_own_letters(store, client, key, own):
    """A scratchpad key in Cyrillic or Chinese downloaded as ``____.txt`` (every character outside [A-Za-z0-9._-]
    made ``_``): the file name now also carries RFC 6266's ``filename*`` with the key's own letters (a path separator
    or control character still ``_``), which browsers prefer; the ASCII ``filename`` stays for the others."""
    scope = store.scope("run-d", "agent-1")
    scope.scratch_write(key, b"plain text\n")
    got = client.get(f"/api/runs/{scope.run_id}/agents/{scope.agent_id}/scratchpad/content", params={"key": key})
    assert got.status_code == 200 and got.content == b"plain text\n"
    value = got.headers["content-disposition"]
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in key)
    assert value.startswith(f'attachment; filename="{ascii_name}.txt"'), value
    if own is None:
        assert "filename*" not in value
    else:
        assert value.endswith("; filename*=UTF-8''" + urllib.parse.quote(own + ".txt", safe="")), value


def test_a_download_refused_before_its_first_byte_is_a_json_error(store, client):
    scope = store.scope("run-d", "agent-1")
    handle = scope.spill(b"line\n" * 5000, source_tool="t").handle
    url = f"/api/runs/{scope.run_id}/agents/{scope.agent_id}/scratchpad/content"
    missing = client.get(h_url(scope, "h_" + "a" * 24, "/content"))
    assert missing.status_code == 404 and missing.json()["error"]["kind"] == "not found"
    assert client.get(h_url(scope, handle, "/content"), params={"offset": 3}).status_code == 400
    assert client.get(url).json()["error"]["message"] == "query parameter key is required"
    assert client.get(url, params={"key": "nothing"}).status_code == 404
    assert TestClient(client.app).get(h_url(scope, handle, "/content")).status_code == 401  # no token


def _blob_descriptors(root) -> list[str]:
    """The files under ``root``'s runs this process holds open (once per descriptor)."""
    runs = str(root / "runs")
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(runs):
            found.append(target[len(runs):])
    return found


def test_a_download_asked_by_head_or_left_midway_closes_its_blob_at_once(tmp_path):
    """A real server (uvicorn): HEAD of a download (headers only) and a GET whose client goes away after the first
    bytes leave no descriptor open on the blob -- before, the frame iterator, opened for the response, was closed
    only by the garbage collector (a HEAD never iterates it; a dropped client left it in a cycle with its
    exception), so descriptors piled up between collections, each keeping a deleted blob's disk space. (The store
    keeps a few blobs open in a cache of its own: those of a read are the baseline.)"""
    import gc
    import random
    import socket
    import threading
    import time

    import uvicorn

    from scratchfs import ScratchStore

    from .services import free_port

    data = random.Random(7).randbytes(1 << 20) * 24  # 24 MiB: more than the sockets' buffers hold
    with ScratchStore(tmp_path) as store:
        handle = store.scope("r", "a").spill(data).handle
        b"".join(store.scope("r", "a").iter_content("handle", handle))
        kept = _blob_descriptors(tmp_path)  # (the store's own cache of open blobs)
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(create_app(store, TOKEN), host="127.0.0.1", port=port,
                                               log_level="warning", lifespan="off"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        gc.disable()
        try:
            while not server.started:
                time.sleep(0.01)
            path = f"/api/runs/r/agents/a/handles/{handle}/content"
            for method in ("HEAD", "HEAD", "GET", "GET"):
                with socket.create_connection(("127.0.0.1", port)) as sock:
                    sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                                 f"Authorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n".encode())
                    assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            deadline = time.monotonic() + 5
            while _blob_descriptors(tmp_path) != kept and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _blob_descriptors(tmp_path) == kept
        finally:
            gc.enable()
            server.should_exit = True
            thread.join(10)




def damaged_spill(root, data: bytes) -> str:
    """Spill ``data`` into a store at ``root``, flip a byte in the middle of its blob, and return its handle."""
    from pathlib import Path

    from scratchfs import ScratchStore

    with ScratchStore(root) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(data).handle
        (entry,) = scope.list_entries()
        path = Path(store.blobs.locate("r", "a", entry.blob))
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    return handle


def test_a_download_cut_short_by_a_damaged_frame_is_incomplete_and_logged_without_a_traceback(tmp_path,
                                                                                           fixture_data):
    """Through a real server: the sound frames' bytes, then the connection closed before the end (the client sees
    an incomplete transfer, never wrong bytes); the server's stderr says so in a line or two (before: about 60
    lines of 'Exception in ASGI application' and its traceback)."""
    import http.client

    from tests.web_support import serve

    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    handle = damaged_spill(tmp_path / "root", data)
    with serve(tmp_path / "root") as (found, proc):
        conn = http.client.HTTPConnection(found.group(2), int(found.group(3)), timeout=30)
        conn.request("GET", f"/api/runs/r/agents/a/handles/{handle}/content",
                     headers={"Authorization": f"Bearer {found.group(4)}"})
        response = conn.getresponse()
        assert response.status == 200
        with pytest.raises(http.client.IncompleteRead) as cut:
            response.read()
        conn.close()
        proc.terminate()
        proc.wait(10)
        err = proc.stderr.read().decode()
    assert 0 < len(cut.value.partial) < len(data) and data.startswith(cut.value.partial)
    assert "the download was cut short: " in err and "does not decompress" in err
    assert "Traceback" not in err and "Exception in ASGI application" not in err


def test_a_head_of_a_download_decompresses_nothing(tmp_path, fixture_data):
    """HEAD of ``.../content`` answered the headers at once but then went on iterating the whole entry, as
    Starlette's streaming response does for every method (uvicorn drops the body of a HEAD): every frame was read
    and decompressed for nothing -- a HEAD of a 1 GiB entry cost what its GET does -- and one of a damaged entry
    was logged as a download cut short, with uvicorn's 'ASGI callable returned without completing response'.
    Through a real server: a HEAD of a damaged entry gets the GET's headers, and nothing reads past them."""
    import http.client

    from tests.web_support import serve

    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    handle = damaged_spill(tmp_path / "root", data)
    with serve(tmp_path / "root") as (found, proc):
        auth = {"Authorization": f"Bearer {found.group(4)}"}
        conn = http.client.HTTPConnection(found.group(2), int(found.group(3)), timeout=30)
        conn.request("HEAD", f"/api/runs/r/agents/a/handles/{handle}/content", headers=auth)
        response = conn.getresponse()
        assert response.status == 200 and response.read() == b""
        assert response.getheader("content-type") == "application/octet-stream"
        assert response.getheader("content-disposition") == f'attachment; filename="{handle}.txt"'
        assert response.getheader("x-content-type-options") == "nosniff"
        conn.request("GET", "/api/runs", headers=auth)  # the same connection: the HEAD's handler has finished
        assert json.loads(conn.getresponse().read())["runs"][0]["run_id"] == "r"
        conn.close()
        proc.terminate()
        proc.wait(10)
        err = proc.stderr.read().decode()
    assert "cut short" not in err and "ERROR" not in err, err


def test_a_read_takes_every_argument_the_tool_and_the_openapi_description_name(store, client, fixture_data):
    """The OpenAPI description lists the read's query parameters from the read_handle tool's schema -- count, slurp
    and raw_offset among them -- but the handler kept its own list without them: ?count=true, ?slurp=true (a slurp
    reply's next_call, 'the same arguments as query parameters') and ?raw_offset= were 400 'unknown query parameter'
    (atk27). The handler takes its parameters from the same schema."""
    from scratchfs.api.tools import TOOL_SPECS
    from scratchfs.web.openapi import openapi

    scope = store.scope("run-r", "agent-1")
    table = scope.spill(fixture_data["query-packages-by-month.csv"], source_tool="sql").handle
    terminal = scope.spill((FIXTURES / "tools" / "pytest-color-v.txt").read_bytes(), source_tool="pytest").handle
    tools = ScratchTools(scope)
    for handle, args in [(table, {"match": "2026-11", "count": True}),
                         (table, {"pattern": "^a", "count": True, "ignore_case": True, "offset": 100}),
                         (table, {"jq": "group_by(.month) | map([.[0].month, length])", "slurp": True,
                                  "budget": 2048}),
                         (table, {"jq": ".[].name", "slurp": True, "budget": 2048}),
                         (terminal, {"view": "text", "raw_offset": 2000})]:
        params = {k: str(v).lower() if isinstance(v, bool) else v for k, v in args.items()}
        got = client.get(h_url(scope, handle, "/read"), params=params)
        assert got.status_code == 200, got.text
        assert got.json() == tools.call("read_handle", {"handle": handle, **args})
        if got.json().get("next_call") and "cursor" in got.json()["next_call"]:  # its next page, as query params
            cursor = got.json()["next_call"].split('cursor="', 1)[1].split('"', 1)[0]
            more = client.get(h_url(scope, handle, "/read"), params={**params, "cursor": cursor})
            assert more.status_code == 200 and more.json()["first"] > 1
    assert client.get(h_url(scope, table, "/read"), params={"match": "a", "count": "yes"}).status_code == 400
    named = {p["name"] for p in openapi()["paths"]["/api/runs/{run}/agents/{agent}/handles/{handle}/read"]["get"][
        "parameters"]} - {"run", "agent", "handle"}
    assert named == set(TOOL_SPECS["read_handle"].input_schema["properties"]) - {"handle"}
    for name in named - {"columns"}:  # each one known to the handler (a wrong value is the tool's 400, not 'unknown')
        answer = client.get(h_url(scope, table, "/read"), params={name: "0"})
        assert "unknown query parameter" not in answer.text, name


def test_an_unknown_query_parameter_is_told_with_the_one_meant(store, client):
    """?lenght=3 was told "unknown query parameter 'lenght'; allowed: ..." without the one meant, where the tools and
    the settings name it (found by the newuser helper, reading by curl as the README shows)."""
    scope = store.scope("run-r", "agent-1")
    handle = scope.spill("x" * 10_000, source_tool="t").handle
    got = client.get(h_url(scope, handle, "/read"), params={"lenght": "3"})
    assert got.status_code == 400
    assert got.json()["error"]["message"].startswith("unknown query parameter 'lenght' (did you mean 'length'?); "
                                                     "allowed: before, budget, columns, ")
    assert "did you mean" not in client.get(h_url(scope, handle, "/read"), params={"zzz": "3"}).text


@pytest.mark.parametrize(("view", "fixture", "name", "end"), [
    ("text", "browser-rust-book.html", "offset", "size"),
    ("tree", "api-ec2-service-model.json", "offset", "count"),
    ("table", "query-packages-by-month.csv", "row", "total_rows"),
])
def test_a_view_paged_past_its_end_is_a_400_as_every_read_past_the_end_is(store, client, fixture_data, view,
                                                                          fixture, name, end):
    """``.../text?offset=`` past the end of the text was a 200 with empty data (and the tree's offset, the table's
    row, likewise), where the model's reads and every other endpoint answer a bad parameter with a 400 JSON error
    (helper newuser's finding). At the end (the size, the count) is an empty page, as a read at a content's size
    is; one past it is refused, naming the end."""
    scope = store.scope("run-1", "agent-1")
    handle = scope.spill(fixture_data[fixture]).handle
    url = h_url(scope, handle, "/" + view)
    last = client.get(url).json()[end]
    assert last > 0
    at_end = client.get(url, params={name: str(last)})
    assert at_end.status_code == 200, at_end.text
    assert at_end.json()[{"text": "data", "tree": "children", "table": "rows"}[view]] in ("", [])
    for past in (last + 1, 10**15):
        reply = client.get(url, params={name: str(past)})
        assert reply.status_code == 400, reply.text
        assert reply.headers["content-type"] == "application/json"
        error = reply.json()["error"]
        assert error["kind"] == "invalid argument"
        assert error["message"].startswith(f"{name} {past} is past the ") and f"{last:,}" in error["message"], error


def test_an_entry_views_of_a_handle_gone_say_why_as_a_read_does(store, client):
    """The metadata, tree, table and text views said 'no live handle ...' of a handle deleted, expired or removed by
    fsck --repair, where a read (and MCP, and the CLI) says which and when."""
    from scratchfs.api.inspector import fsck

    scope = store.scope("run-1", "agent-1")
    repaired = scope.spill(os.urandom(100_000)).handle
    deleted = scope.spill(b"[1, 2]" * 5000).handle
    store.blobs.unlink("run-1", "agent-1", store.index.lookup("run-1", "agent-1", "handle", repaired,
                                                              store.now()).blob)
    assert fsck(store, repair=True).remaining == 0
    assert scope.delete_entry("handle", deleted)
    for handle, said in ((repaired, "was removed by fsck --repair (its stored copy was missing) at "),
                         (deleted, "was deleted at ")):
        for tail in ("", "/tree", "/table", "/text", "/read"):
            reply = client.get(h_url(scope, handle, tail))
            assert reply.status_code == 404, reply.text
            assert said in reply.json()["error"]["message"], (tail, reply.json())


def test_an_error_carries_the_calls_its_message_advises_and_they_read_on(store, client):
    """A read past the end named its way on only in its message text (``read_handle(handle="h_...", line=-50,
    lines=50)``): a client had to parse a tool call out of prose. The error carries each call as data, whose
    arguments the route takes as its query: followed, they read the last lines."""
    scope = store.scope("run-r", "agent-1")
    content = b"".join(b"line %d\n" % n for n in range(1, 301))
    handle = scope.spill(content).handle
    refused = client.get(h_url(scope, handle, "/read"), params={"line": 9999})
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["calls"] == [{"tool": "read_handle", "arguments": {"handle": handle, "line": -50}}]
    assert 'read_handle(handle="' + handle + '", line=-50)' in error["message"]
    query = {k: v for k, v in error["calls"][0]["arguments"].items() if k != "handle"}
    followed = client.get(h_url(scope, handle, "/read"), params=query)
    assert followed.json()["data"].encode() == b"".join(content.splitlines(keepends=True)[-50:])
    plain = client.get(h_url(scope, handle, "/read"), params={"offset": "x"}).json()["error"]
    assert "calls" not in plain


def test_a_listing_says_at_most_the_ttl_to_expiry(store, clock, client):
    """rr9: after the clock stepped back (or on a test's store, born in 2100, read on the wall clock) the inspector
    listed ``expires_in`` as ``expires_at - now``, 10,600 s for a value of ttl=600 that the first read caps at
    now + 600, and that ``scratch_list`` and ``ls`` list as 600."""
    store.scope("run-t", "agent-1").scratch_write("k", "v", ttl=600)
    clock.set(clock.now - 10_000)
    page = client.get("/api/runs/run-t/scratch").json()
    assert [(e["key"], e["expires_in"]) for e in page["entries"]] == [("k", 600.0)]
