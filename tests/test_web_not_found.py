"""A missing, expired or deleted entry at the web inspector is told for a person, not for a model: the page of
``/runs/run-nope/agents/x/handles/h_...`` showed the model's advice ("copy the handle whole from the stub that gave
it ..., or run the tool that made it again"; a key: "scratch_list lists the keys of this scope", with the call as
data), which a person at a browser cannot act on (newuser14). The API's error now says what is known, then where to
go on -- the entry likely meant, else the run's listing when it holds live entries, else the runs' -- with ``see``,
the page's path, which the page shows as a link.

And a run's listing of a run with no live entries stays a 200 with no entries, as ``scratchfs ls --run nope`` exits
0 (an empty listing is no error; a run exists only by its entries, and one whose entries all expired cannot be
told from one that never was), now with a ``note`` in the words of the CLI's stderr line."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from scratchfs.web import create_app

TOKEN = "test-token-0123456789abcdef"
MODEL_WORDS = ("run the tool that made it again", "write it again", "copy the handle", "scratch_list", "stub")


@pytest.fixture
def client(store):
    with TestClient(create_app(store, TOKEN), headers={"Authorization": f"Bearer {TOKEN}"}) as c:
        yield c


def _missing(client, path, **params):
    reply = client.get(path, params=params)
    assert reply.status_code == 404, reply.text
    error = reply.json()["error"]
    assert error["kind"] == "not found"
    assert not any(words in error["message"] for words in MODEL_WORDS), error
    assert "calls" not in error  # (a model's calls: scratch_list, read_handle)
    return error


H = "h_" + "a" * 24


@pytest.mark.parametrize("tail", ["", "/read", "/tree", "/content"])
def test_a_handle_of_a_run_with_no_entries_links_the_runs(client, tail):
    error = _missing(client, f"/api/runs/run-nope/agents/x/handles/{H}{tail}")
    assert error["message"].startswith(f"no handle '{H}' in this scope (run 'run-nope', agent 'x'); ")
    assert "run 'run-nope' holds no live entries" in error["message"] and "listed at / (JSON: /api/runs)" in \
        error["message"]
    assert error["see"] == {"href": "/", "text": "runs"}


def test_a_handle_missing_from_a_live_run_links_its_listing(store, client):
    store.scope("run 1", "agent-2").spill(b"x\n" * 6000)
    error = _missing(client, f"/api/runs/run%201/agents/agent-1/handles/{H}")
    assert "the live entries of run 'run 1' are listed at /runs/run%201 (JSON: /api/runs/run%201/scratch)" in \
        error["message"]
    assert error["see"] == {"href": "/runs/run%201", "text": "run run 1"}
    assert client.get("/api/runs/run%201/scratch").json()["count"] == 1  # (the listing it names holds it)


def test_an_expired_or_deleted_entry_says_when_and_links_the_run(store, clock, client):
    scope = store.scope("run-1", "agent-1")
    expired = scope.spill(b"x\n" * 6000, ttl=10).handle
    deleted = scope.spill(b"y\n" * 6000).handle
    scope.spill(b"z\n" * 6000)  # (the run holds live entries)
    scope.scratch_write("plan", b"v", ttl=10)
    assert scope.delete_entry("handle", deleted)
    clock.advance(20)
    base = "/api/runs/run-1/agents/agent-1"
    for path, params, said in ((f"{base}/handles/{expired}", {}, f"handle '{expired}' expired at "),
                               (f"{base}/handles/{deleted}/read", {}, f"handle '{deleted}' was deleted at "),
                               (f"{base}/scratchpad", {"key": "plan"}, "key 'plan' expired at "),
                               (f"{base}/scratchpad/read", {"key": "plan"}, "key 'plan' expired at ")):
        error = _missing(client, path, **params)
        assert error["message"].startswith(said), error
        assert error["see"] == {"href": "/runs/run-1", "text": "run run-1"}


def test_the_entry_likely_meant_is_linked(store, client):
    scope = store.scope("run-1", "agent-1")
    handle = scope.spill(b"x\n" * 6000).handle
    scope.scratch_write("plans", b"v")
    base = "/api/runs/run-1/agents/agent-1"
    typo = handle[:-1] + ("a" if handle[-1] != "a" else "b")
    error = _missing(client, f"{base}/handles/{typo}")
    assert error["see"] == {"href": f"/runs/run-1/agents/agent-1/handles/{handle}", "text": handle}
    assert f"did you mean '{handle}'?" in error["message"]
    error = _missing(client, f"{base}/scratchpad", key="plan")
    assert error["see"] == {"href": "/runs/run-1/agents/agent-1/scratchpad?key=plans", "text": "plans"}
    error = _missing(client, f"{base}/scratchpad", key=handle)  # a handle given as a key: its own page
    assert error["see"]["href"] == f"/runs/run-1/agents/agent-1/handles/{handle}"
    assert "it is the handle of a spilled result" in error["message"]
    assert client.get(error["see"]["href"].replace("/runs/", "/api/runs/", 1)).status_code == 200


def test_a_run_with_no_entries_lists_none_with_a_note(store, client):
    store.scope("run-1", "agent-1").spill(b"x\n" * 6000)
    for path, params, note in (("/api/runs/nope/scratch", {}, "no live entries of run 'nope'"),
                               ("/api/runs/run-1/scratch", {"agent": "x"}, "no live entries of agent 'x' in run "
                                                                            "'run-1'"),
                               ("/api/runs/run-1/scratch", {"kind": "scratch"}, "no scratchpad values of run "
                                                                                "'run-1'")):
        reply = client.get(path, params=params)
        assert reply.status_code == 200
        assert (reply.json()["entries"], reply.json()["note"]) == ([], note)
    assert "note" not in client.get("/api/runs/run-1/scratch").json()
