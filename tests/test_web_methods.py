"""A request by a method a route does not take (a GET to a delete route, which takes POST; a POST to a read) was
answered "Method Not Allowed" and no more (leftovers5): the 405 now says the method given and the ones the route
takes, from the ``Allow`` header Starlette's routing sets, in the JSON error under /api/ and in the text elsewhere."""

from __future__ import annotations

from starlette.testclient import TestClient

from scratchfs import ScratchStore
from scratchfs.web.app import create_app

TOKEN = "t" * 43
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_a_method_not_taken_is_told_the_one_to_use(tmp_path):
    with ScratchStore(tmp_path) as store:
        handle = store.scope("run-m", "agent-1").spill(b"x" * 10_000).handle
        client = TestClient(create_app(store, TOKEN, allow_delete=True), headers=AUTH)
        url = f"/api/runs/run-m/agents/agent-1/handles/{handle}/delete"
        got = client.get(url)
        assert got.status_code == 405 and got.headers["Allow"] == "POST"
        assert got.json() == {"error": {"kind": "method not allowed", "message": (
            f"GET is not allowed on {url}: it takes POST (see /api/openapi.json)")}}
        read = client.post("/api/runs")
        assert read.status_code == 405
        assert read.json()["error"]["message"] == \
            "POST is not allowed on /api/runs: it takes GET (see /api/openapi.json)"
        page = client.put("/runs/run-m")
        assert page.status_code == 405
        assert page.text == "405 method not allowed: PUT is not allowed on /runs/run-m: it takes GET (see " \
                            "/api/openapi.json)\n"
        assert len(store.list_entries()) == 1
