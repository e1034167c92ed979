"""The edges of a member's reads (helper readedges2), on archives made by ``tar`` and ``zip`` on this machine
(``fixtures/tools/``) and by Python's ``tarfile`` and ``zipfile``:

1. a zip member's last lines read by ``end=`` alone (``line=-N``, the ``end=`` of the call its stub names) walked
   back out of the member, into its local header and the member before: the member is now found from ``end=`` by the
   zip's central directory, as a tar's is by its headers;
2. an ``end=`` in no member's data (a tar header, its padding, a zip's local header or central directory) had no
   member, so no bound: it is one typed error naming the data ranges of the members around it and the calls that read
   their last lines;
3. a line read (``line=-N`` or ``lines=``) or a range read from ``offset=`` the content's end showed nothing and said
   nothing: its note says why and names the call that reads the last lines (or bytes);
4. every call the replies name -- ``next_call``, a note's ``calls``, a refusal's calls --, followed from a member's
   read as the stub and the listing name it, forwards and back, stays in the member, never repeats and ends.
"""

from __future__ import annotations

import io
import itertools
import json
import re
import tarfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.api.search_window import window_hits
from tests.archives import call_args, tar_of

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
ARCHIVES = ["tar-cf-logs.tar", "zip-0-logs.zip", "zip-0-stream-logs.zip", "zip-logs.zip"]
MOST_PAGES = 300


def _members(raw: bytes) -> list[tuple[str, int, int]]:
    """Each member's (name, data offset, stored bytes), as Python's tarfile or zipfile reads them."""
    if raw.startswith(b"PK"):
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            out = []
            for info in archive.infolist():
                local = raw[info.header_offset : info.header_offset + 30]
                start = info.header_offset + 30 + int.from_bytes(local[26:28], "little") + \
                    int.from_bytes(local[28:30], "little")
                out.append((info.filename, start, info.compress_size))
            return out
    with tarfile.open(fileobj=io.BytesIO(raw)) as archive:
        return [(info.name, info.offset_data, info.size) for info in archive.getmembers()]


def _stub_read_calls(note: str) -> list[dict]:
    """The arguments of the member reads a stub's note names (``offset=, length=, end=``)."""
    calls = [parse_call(text.strip().rstrip("."))[1] for text in note.split("Next: ", 1)[1].split(" | ")]
    return [call for call in calls if "end" in call]


def _walk(tools: ScratchTools, first: dict, start: int, end: int) -> tuple[list[dict], set[str]]:
    """Every reply of ``first`` and of each call the replies name (next_call, a note's calls, a refusal's calls),
    each reply checked to show no byte outside ``[start, end)``; no call made twice along one chain (a loop), no
    chain longer than MOST_PAGES, none left without an end. Returns the replies and the calls made."""
    replies: list[dict] = []
    made: set[str] = set()
    todo = [first]
    while todo:
        call = todo.pop()
        key = repr(sorted(call.items()))
        if key in made:
            continue
        made.add(key)
        assert len(made) < MOST_PAGES, call
        try:
            reply = tools.call("read_handle", call)
        except InvalidArgument as exc:  # (a refusal names how to go on: followed too, each within the member)
            todo += [dict(c.arguments) for c in exc.calls]
            replies.append({"refused": str(exc), "call": call})
            continue
        if "offset" in reply and "length" in reply:
            assert start <= reply["offset"] and reply["offset"] + reply["length"] <= end, (call, reply)
        replies.append(reply)
        named = [call_args(reply["next_call"])] if reply.get("next_call") else []
        assert not named or repr(sorted(named[0].items())) not in made, ("a loop", call, named)
        named += [c["arguments"] for c in reply.get("calls", [])]  # (a note's calls may name one made already)
        for then in named:
            assert then.get("end", end) <= end and then.get("offset", start) >= start, (call, then)
        todo += named
    return replies, made


def _chain(tools: ScratchTools, call: dict | None) -> list[dict]:
    pages = []
    while call is not None:
        pages.append(tools.call("read_handle", call))
        assert len(pages) < MOST_PAGES, call
        call = call_args(pages[-1]["next_call"]) if pages[-1]["next_call"] else None
    return pages


def _shown(raw: bytes, pages: list[dict]) -> bytes:
    return b"".join(raw[page["offset"] : page["offset"] + page["length"]] for page in pages)


@pytest.mark.parametrize("name", ARCHIVES)
def test_a_member_s_last_lines_by_the_end_its_stub_names_stay_in_the_member(scratch_scope, name):
    """As a model reads a member the stub names (``offset=, length=, end=``), then its last lines by that ``end=``
    alone: every page of the walk back holds the member's bytes only, and they join to the whole member (a zip's
    went on into its local header and the member before)."""
    raw = (TOOLS / name).read_bytes()
    stub = scratch_scope.spill(raw, source_tool="tar")
    tools = ScratchTools(scratch_scope)
    members = _members(raw)
    named = _stub_read_calls(stub.note)
    stored = name != "zip-logs.zip"  # (a deflated member's bytes are not its text: the stub names no read of it)
    assert [(c["offset"], c["end"]) for c in named] == [(m[1], m[1] + m[2]) for m in members][:stored]
    for _, start, length in members:
        end = start + length
        for back in (3, 50):
            pages = _chain(tools, {"handle": stub.handle, "line": -back, "end": end})
            assert all(start <= p["offset"] and p["offset"] + p["length"] <= end for p in pages), pages
            assert _shown(raw, pages[::-1]) == raw[start:end]


@pytest.mark.parametrize("name", ARCHIVES)
def test_an_end_in_no_member_s_data_is_refused_naming_the_members_around_it(scratch_scope, name):
    """``end=`` in a header, a tar's padding or a zip's central directory: one typed error naming the data ranges
    of the members before and after it, whose calls read their last lines, within them."""
    raw = (TOOLS / name).read_bytes()
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    tools = ScratchTools(scratch_scope)
    members = _members(raw)
    spans = [(start, start + length) for _, start, length in members]
    gaps = [(0, spans[0][0])] + [(a[1], b[0]) for a, b in itertools.pairwise(spans)] + [(spans[-1][1], len(raw))]
    for index, (low, high) in enumerate(gaps):
        for end in sorted({low + 1, (low + high) // 2, high}):
            if not low < end <= high or any(s < end <= e for s, e in spans):
                continue
            with pytest.raises(InvalidArgument) as refused:
                tools.call("read_handle", {"handle": handle, "line": -3, "end": end})
            words = str(refused.value)
            assert f"end={end} lies in no member's data" in words
            around = [spans[i] for i in (index - 1, index) if 0 <= i < len(spans)]
            assert [(c["offset"], c["end"]) for c in (dict(c.arguments) for c in refused.value.calls)] == around
            for start, stop in around:
                assert f"is bytes {start}-{stop}" in words
                pages = _chain(tools, {"handle": handle, "offset": start, "line": -3, "end": stop})
                assert _shown(raw, pages[::-1]) == raw[start:stop]


@pytest.mark.parametrize(("asked", "then"), [({"line": -3}, {"line": -3}), ({"lines": 3}, {"line": -3, "lines": 3}),
                                             ({"line": -2, "lines": 2}, {"line": -2, "lines": 2})])
def test_a_line_read_from_the_content_s_end_says_why_it_shows_no_line_and_how_to_read_the_last(scratch_scope, asked,
                                                                                                then):
    raw = (TOOLS / "tar-cf-logs.tar").read_bytes()
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    tools = ScratchTools(scratch_scope)
    reply = tools.call("read_handle", {"handle": handle, "offset": len(raw), **asked})
    assert reply["lines"] == 0 and reply["next_call"] is None
    assert reply["note"].startswith(f"offset={len(raw)} is the content's end (10,240 bytes): ")
    assert reply["calls"] == [{"tool": "read_handle", "arguments": {"handle": handle, **then}}]
    last = tools.call("read_handle", reply["calls"][0]["arguments"])
    assert last["lines"] >= 1 and last["offset"] + last["length"] == len(raw)


def test_a_range_read_from_the_content_s_end_names_the_call_of_its_last_bytes(scratch_scope):
    raw = (TOOLS / "zip-0-logs.zip").read_bytes()
    handle = scratch_scope.spill(raw, source_tool="zip").handle
    tools = ScratchTools(scratch_scope)
    reply = tools.call("read_handle", {"handle": handle, "offset": len(raw)})
    assert reply["length"] == 0 and reply["note"].startswith("offset=2095 is the content's end (2,095 bytes)")
    assert reply["calls"] == [{"tool": "read_handle", "arguments": {"handle": handle}}]  # (offset=0: its last 4 KiB)
    assert "note" not in tools.call("read_handle", {"handle": handle, "offset": len(raw) - 1})


def _every_member_walk(scope, raw: bytes) -> None:
    """Each member read as the listing names it (its ``read``), forwards by lines, back by ``line=-N`` with its
    ``end=`` alone and with ``offset=``: every call the replies and refusals name followed to its end in the member,
    every byte of the member shown."""
    handle = scope.spill(raw, source_tool="tar").handle
    tools = ScratchTools(scope)
    listed = tools.call("read_handle", {"handle": handle, "view": "members"})
    reads = {item["offset"]: call_args(item["read"]) for item in listed["members"] if "read" in item}
    compressed = {item["offset"] for item in listed["members"] if "compressed" in item}  # (no read: its bytes still
    # are its member's, and every read of them stays there)
    for _, start, length in _members(raw):
        if not length:
            continue
        end = start + length
        read = {"handle": handle, "offset": start, "length": min(length, 65536), "end": end}
        assert reads.get(start, read) == read and (start in reads or start in compressed)
        for first in (read, {"handle": handle, "offset": start, "lines": 2, "end": end, "budget": 2048},
                      {"handle": handle, "line": -2, "end": end, "budget": 2048},
                      {"handle": handle, "offset": start, "line": -2, "lines": 2, "end": end},
                      {"handle": handle, "offset": start, "length": 100, "end": end}):
            replies, _ = _walk(tools, first, start, end)
            shown = bytearray(length)
            for reply in replies:
                if "offset" in reply and "length" in reply:
                    shown[reply["offset"] - start : reply["offset"] - start + reply["length"]] = \
                        raw[reply["offset"] : reply["offset"] + reply["length"]]
            assert bytes(shown) == raw[start:end], first  # (no byte of the member left unshown: no dead end)


@pytest.mark.parametrize("name", ARCHIVES)
def test_every_call_a_member_s_reads_name_stays_in_it_and_ends(scratch_scope, name):
    _every_member_walk(scratch_scope, (TOOLS / name).read_bytes())


_TEXT = st.lists(st.text(alphabet="ab é\t", max_size=60), max_size=25).map(lambda lines: "\n".join(lines).encode())


def _zip_of(files: list[bytes], stream: bool) -> bytes:
    """A stored zip of ``files``, written to a seekable file or (``stream``) to a pipe-like one: data descriptors."""
    out = io.BytesIO()

    class Pipe(io.RawIOBase):
        def writable(self) -> bool:
            return True

        def write(self, b) -> int:
            return out.write(b)

    with zipfile.ZipFile(Pipe() if stream else out, "w", zipfile.ZIP_STORED) as archive:
        for i, data in enumerate(files):
            archive.writestr(f"m{i}.txt", data)
    return out.getvalue()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(_TEXT, min_size=1, max_size=4), kind=st.sampled_from(["tar", "zip", "zip-stream"]))
def test_every_call_of_a_member_s_reads_stays_in_it_in_random_archives(scratch_scope, files, kind):
    raw = tar_of([(f"m{i}.txt", d) for i, d in enumerate(files)]) if kind == "tar" else \
        _zip_of(files, kind == "zip-stream")
    _every_member_walk(scratch_scope, raw)


@pytest.mark.parametrize("sought", [{"match": "line"}, {"pattern": "line [0-9]"}])
def test_a_search_from_the_end_with_offset_equal_to_before_names_the_search_of_the_matches_before(scratch_scope,
                                                                                                  sought):
    """``offset=`` the content's end (or any byte) with ``before=`` the same byte searches nothing: it said ``no match
    in bytes 10240-10240`` and no call; it names the search of the last matches before that byte."""
    raw = (TOOLS / "tar-cf-logs.tar").read_bytes()
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    tools = ScratchTools(scratch_scope)
    for at in (len(raw), 2100):
        reply = tools.call("read_handle", {"handle": handle, **sought, "offset": at, "before": at})
        assert reply["windows"] == [] and reply["next_call"] is None
        assert reply["note"].startswith(f"offset={at} equals before={at}: no byte lies between them")
        assert reply["calls"] == [{"tool": "read_handle", "arguments": {"handle": handle, **sought, "before": at}}]
        found = tools.call("read_handle", reply["calls"][0]["arguments"])
        regex = re.escape(sought["match"]) if "match" in sought else sought["pattern"]
        assert max(hit["offset"] for window in found["windows"] for hit in window_hits(window)) == \
            max(m.start() for m in re.finditer(regex.encode(), raw[:at]))


@pytest.mark.parametrize("count", [1, 3000])
def test_the_member_of_a_tail_read_is_found_in_a_zip_past_one_range_read(scratch_scope, count):
    """A zip past 65,557 bytes (a 100 KB member, or 3,000 members: a central directory over 64 KiB): its end record
    is looked for in its last 65,557 bytes, more than one range read gives (64 KiB): the zip was said to have no
    central directory, and the tail read refused."""
    files = [b"y" * 99_999 + b"\n"] if count == 1 else [b"m %d\n" % i for i in range(count)]
    raw = _zip_of([*files, b"last 1\nlast 2\n"], stream=False)
    handle = scratch_scope.spill(raw, source_tool="zip").handle
    _, start, length = _members(raw)[-1]
    pages = _chain(ScratchTools(scratch_scope), {"handle": handle, "line": -1, "end": start + length})
    assert [page["data"] for page in pages] == ["last 2\n", "last 1\n"]


def test_the_cli_s_raw_read_from_the_content_s_end_says_so_on_stderr_naming_the_command(tmp_path, monkeypatch):
    """``scratchfs read-handle H --offset <size> [--line -3 | --lines 3]`` printed nothing at all and exited 0: it
    says why on stderr and names the command that reads the last lines (bytes), which runs as pasted."""
    import shlex

    from click.testing import CliRunner

    from scratchfs import ScratchStore
    from scratchfs.cli import main

    ScratchStore(tmp_path / "root").close()
    for name, value in (("ROOT", str(tmp_path / "root")), ("RUN_ID", "run-1"), ("AGENT_ID", "agent-1")):
        monkeypatch.setenv(f"SCRATCHFS_{name}", value)
    runner = CliRunner()
    raw = (TOOLS / "tar-cf-logs.tar").read_bytes()
    handle = json.loads(runner.invoke(main, ["spill", str(TOOLS / "tar-cf-logs.tar")]).stdout)["handle"]
    last_three = raw[raw.index(b"file3 line 39\n") :]  # (its last line: the member's padding and the zero blocks)
    for asked, shown in ((["--line", "-3"], last_three), (["--lines", "3"], last_three), ([], raw[-4096:])):
        said = runner.invoke(main, ["read-handle", handle, "--offset", str(len(raw)), *asked])
        assert said.exit_code == 0 and said.stdout_bytes == b""
        assert said.stderr.startswith(f"scratchfs: --offset {len(raw)} is the content's end (10,240 bytes): ")
        command = shlex.split(said.stderr.split(": ")[-1])
        assert command[command.index("read-handle") + 1] == handle
        last = runner.invoke(main, command[command.index("read-handle") :])
        assert last.exit_code == 0 and last.stdout_bytes == shown
