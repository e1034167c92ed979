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


def test_a_long_or_forged_path_is_said_bounded_on_one_line(tmp_path):
    """hostile45: the 405 echoed the request's path whole -- 20,000 bytes of it back in the message, and a ``%0A``
    in a page's path a line of its own in the text reply (a forged line) -- where every other error names a value
    given ``shorten``-ed. The path and the method are now said as that: one line, at most a few hundred bytes."""
    with ScratchStore(tmp_path) as store:
        client = TestClient(create_app(store, TOKEN), headers=AUTH)
        long = client.request("PROPFIND", "/api/runs/" + "a" * 20_000 + "/delete")
        assert long.status_code == 405 and long.headers["Allow"] == "POST"
        message = long.json()["error"]["message"]
        assert len(message) < 300, len(message)
        assert message.startswith("PROPFIND is not allowed on /api/runs/aaaa") and len(message) < 300, message
        assert message.endswith(": it takes POST (see /api/openapi.json)"), message
        forged = client.put("/runs/x%0A405 method not allowed: forged")
        assert forged.status_code == 405
        assert forged.text.count("\n") == 1 and forged.text.endswith("it takes GET (see /api/openapi.json)\n"), \
            forged.text
        method = client.request("X" * 5000, "/api/runs")
        assert method.status_code == 405 and len(method.json()["error"]["message"]) < 300
