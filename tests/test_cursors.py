"""The one listing-cursor codec (:mod:`scratchfs.foundation.cursors`): the same bytes the three codecs it replaced
wrote (scratchpad listing, CLI inspector, web inspector), round trips, and one typed error for anything else."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api import inspector, results, store_listing
from scratchfs.engine.protocols import Entry
from scratchfs.foundation import cursors
from scratchfs.foundation.errors import InvalidArgument

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)
ID = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=60)  # ids scratchfs accepts
TIME = st.floats(0, 2e9, allow_nan=False)


def _old(values: list, ascii_only: bool) -> str:
    return base64.urlsafe_b64encode(json.dumps(values, ensure_ascii=ascii_only).encode()).decode().rstrip("=")


@given(created=TIME, agent=ID, kind=st.sampled_from(["scratch", "handle"]), key=ID)
def test_listing_cursors_are_the_old_bytes_and_round_trip(created, agent, kind, key):
    entry = Entry._make([None] * len(Entry._fields))._replace(created_at=created, agent_id=agent, kind=kind, key=key)
    listing = results.listing_tag("run", agent, kind, "")
    text = results.encode_cursor(entry, listing)
    values = [created, agent, kind, key, listing]
    if len(json.dumps(values, ensure_ascii=False).encode()) <= 256:  # (longer ones are packed when that is shorter)
        assert text == _old(values, False)
    else:
        assert len(text) <= len(_old(values, False))
    assert results.decode_cursor(text, listing) == (created, agent, kind, key)
    with pytest.raises(InvalidArgument, match="of another listing"):
        results.decode_cursor(text, results.listing_tag("another run", agent, kind, ""))


@given(run=ID, created=TIME, row=st.integers(0, 2**63 - 1))
def test_inspector_cursors_are_the_old_bytes_and_round_trip(run, created, row):
    text = store_listing.encode_cursor((run, created, row))
    if len(json.dumps([run, created, row])) <= 256:  # (longer ones are packed when that is shorter)
        assert text == _old([run, created, row], True)
    else:
        assert len(text) <= len(_old([run, created, row], True))
    assert store_listing.decode_cursor(text) == (run, created, row)


@pytest.mark.parametrize("bad", ["", "not a cursor", "!!!", _old([1, "a", "b"], False), _old([True, "a", "b", "c"],
                                                                                              False),
                                 _old(["1", "a", "b", "c"], False), _old({"a": 1}, False), None, 12])
def test_anything_else_is_one_typed_error(bad):
    with pytest.raises(InvalidArgument, match="not a listing cursor"):
        cursors.decode_cursor(bad, (cursors.NUMBER, cursors.TEXT, cursors.TEXT, cursors.TEXT), "not a listing cursor")


# -- forged cursors (attacker's trial): every field checked for its type and range, in the one decoder -----------

def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.fixture
def listed(tmp_path, clock):
    from scratchfs import ScratchStore
    with ScratchStore(tmp_path / "root", clock=clock) as store:
        scope = store.scope("r", "a")
        for i in range(5):
            clock.advance(1)
            scope.scratch_write(f"k{i}", "v")
        scope.spill(b"x" * 100)
        yield store, scope


def _listings(store, scope):
    """Every listing that takes a cursor: the scratchpad's and the run's pages, the MCP tool, the CLI inspector's
    and the web inspector's listing and fsck (name -> call(cursor) -> a page or a raised error)."""
    from click.testing import CliRunner
    from starlette.testclient import TestClient

    from scratchfs.api.contract import ScratchTools
    from scratchfs.cli import main
    from scratchfs.web import create_app

    tools = ScratchTools(scope)
    web = TestClient(create_app(store, "t" * 24), headers={"Authorization": "Bearer " + "t" * 24})
    root = str(store.root)

    def cli(*args):
        result = CliRunner().invoke(main, ["--root", root, *args], catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        if result.exit_code == 2:  # a usage error: one line on stderr
            assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
            raise InvalidArgument(result.stderr)
        assert result.exit_code == 0, (result.exit_code, result.output)
        return result

    def get(path, **params):
        reply = web.get(path, params=params)
        assert reply.status_code in (200, 400), (reply.status_code, reply.text)
        if reply.status_code == 400:
            raise InvalidArgument(reply.json()["error"]["message"])
        return reply.json()

    def tool(cursor):
        reply = tools.call("scratch_list", {"cursor": cursor})
        if "error" in reply:
            raise InvalidArgument(reply["error"])
        return reply

    return {
        "scratch_page": lambda c: scope.scratch_page(cursor=c),
        "list_page_for_run": lambda c: store.list_page_for_run("r", cursor=c),
        "scratch_list tool": tool,
        "inspector fsck": lambda c: inspector.fsck(store, after=c),
        "inspector iter_entries": lambda c: list(store_listing.iter_entries(store, store.now(),
                                                                        after=store_listing.decode_cursor(c))),
        "cli ls": lambda c: cli("ls", "--after", c),
        "web entries": lambda c: get("/api/runs/r/scratch", cursor=c),
        "web fsck": lambda c: get("/api/fsck", after=c),
    }


FORGED = {
    "lone surrogate key": '[1,"a","scratch","\\ud800","t"]',
    "lone surrogate agent": '[1,"\\udc00","scratch","k1","t"]',
    "lone surrogate run": '["\\ud800", 1.0, 1]',
    "row id past 2**63": '["r", 1.0, 99999999999999999999999]',
    "row id below -2**63": '["r", 1.0, -99999999999999999999999]',
    "NaN time": '[NaN,"a","scratch","k1","t"]',
    "Infinity time": '[Infinity,"a","scratch","k1","t"]',
    "1e400 time": '[1e400,"a","scratch","k1","t"]',
    "huge int time": '[' + "9" * 400 + ',"a","scratch","k1","t"]',
    "NaN inspector time": '["r", NaN, 1]',
    "-Infinity inspector time": '["r", -Infinity, 1]',
    "empty agent": '[1,"","scratch","k1","t"]',
    "control character in key": '[1,"a","scratch","k\\u0000","t"]',
    "unknown kind": '[1,"a","blob","k1","t"]',
    "empty run": '["", 1.0, 1]',
}


@pytest.mark.parametrize("name", sorted(FORGED))
def test_a_forged_cursor_is_one_typed_error_in_every_listing(listed, name):
    store, scope = listed
    for where, call in _listings(store, scope).items():
        with pytest.raises(InvalidArgument, match=r"not a (listing )?cursor") as err:
            call(_b64(FORGED[name]))
        assert "Unicode" not in str(err.value) and "Overflow" not in str(err.value), where


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
    | st.sampled_from(["a", "r", "k1", "scratch", "handle", "\ud800", "\udfff", ""]),
    lambda inner: st.lists(inner, max_size=3), max_leaves=6)


NEAR_NUMBER = st.integers() | st.floats() | st.sampled_from([2**63, -(2**63) - 1, 10**400, 1e308])
NEAR_TEXT = (st.sampled_from(["a", "r", "k1", "scratch", "handle", "", "\ud800", "k\udfff", "\x00"])
             | st.text(st.characters(), max_size=8))
NEAR_LISTING = st.tuples(NEAR_NUMBER, NEAR_TEXT, NEAR_TEXT, NEAR_TEXT, NEAR_TEXT).map(list)
NEAR_INSPECTOR = st.tuples(NEAR_TEXT, NEAR_NUMBER, NEAR_NUMBER).map(list)


@given(values=st.lists(JSON_VALUES, max_size=5) | NEAR_LISTING | NEAR_INSPECTOR)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_json_array_as_a_cursor_is_a_page_or_invalid_argument(listed, values):
    store, scope = listed
    text = json.dumps(values)  # NaN, Infinity and lone surrogates written as Python's json writes them
    for where, call in _listings(store, scope).items():
        try:
            call(_b64(text))
        except InvalidArgument:
            pass
        except Exception as exc:
            pytest.fail(f"{where}: {text!r} raised {type(exc).__name__}: {exc}")


def test_a_long_cursor_is_packed_and_read_back_and_a_forged_packing_is_refused():
    """A key of 512 quotes made a listing cursor of 1,368 characters, too long for its row's next_call at the
    smallest budget: a long cursor's JSON is packed (raw DEFLATE) when that is shorter; short ones are as before."""
    import base64
    import zlib

    from scratchfs.foundation.cursors import KEY, NUMBER, TEXT, decode_cursor, encode_cursor
    from scratchfs.foundation.errors import InvalidArgument

    values = [1.5, '"' * 512, "tag"]
    cursor = encode_cursor(values)
    assert len(cursor) < 80 and decode_cursor(cursor, [NUMBER, KEY, TEXT], "bad") == values
    short = [1.5, "k", "tag"]
    assert base64.urlsafe_b64decode(encode_cursor(short) + "==").startswith(b"[")
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = b"\x00" + packer.compress(b"[" + b" " * 10**6 + b"1]") + packer.flush()
    for forged in (bomb, b"\x00not deflate", b"\x00" + zlib.compress(b"[1]")[2:-6]):
        with pytest.raises(InvalidArgument, match="bad"):
            decode_cursor(base64.urlsafe_b64encode(forged).decode().rstrip("="), [NUMBER], "bad")


def test_an_overlong_cursor_is_one_typed_error_in_every_listing(listed):
    """A cursor is at most MAX_CURSOR_CHARS (4,096) characters -- the tools' schema said so, but the Python faces,
    the CLI and the web inspector decoded any length: 32 MiB of base64 took 3.9 s to refuse. No cursor made is
    longer (a listing cursor of the longest key of escapes and a 256-byte agent is under 900 characters)."""
    store, scope = listed
    made = scope.scratch_page(limit=1).next_cursor
    values = json.loads(base64.urlsafe_b64decode(made + "=" * (-len(made) % 4)))
    padded = _b64(" " * 15000 + json.dumps(values))  # (a cursor any listing would take, but for its length)
    for where, call in _listings(store, scope).items():
        with pytest.raises(InvalidArgument, match=r"not a (listing )?cursor|cursor: 20,?\d+ characters") as err:
            call(padded)
        assert len(str(err.value)) < 400, where


def test_a_cursor_of_32_mib_is_refused_at_once():
    import time

    from scratchfs.foundation.cursors import NUMBER, decode_cursor

    cursor = "A" * (32 << 20)
    started = time.thread_time()  # (this thread's CPU: no `alone` mark needed)
    with pytest.raises(InvalidArgument, match="bad: 'AAAA"):
        decode_cursor(cursor, [NUMBER], "bad")
    assert time.thread_time() - started < 0.05


def test_a_huge_non_text_cursor_is_refused_without_writing_it_out():
    """A cursor that is not text was shown in the message as ``str(cursor)[:60]``: the whole str() of a list of
    3 million numbers was built first (~0.3 s). Both codecs name its type instead."""
    import time

    from scratchfs.engine.structure.paging import CursorKey
    from scratchfs.engine.structure.paging import decode_cursor as read_cursor
    from scratchfs.foundation.cursors import NUMBER, decode_cursor

    huge = list(range(3_000_000))
    for call in (lambda: decode_cursor(huge, [NUMBER], "bad"), lambda: read_cursor(huge, 1, CursorKey("r", 1))):
        started = time.thread_time()  # (this thread's CPU: no `alone` mark needed)
        with pytest.raises(InvalidArgument, match="'list'"):
            call()
        assert time.thread_time() - started < 0.05
