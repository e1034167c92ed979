"""A tar's or a zip's members listed whole, page by page (``view="members"``): a stub lists only the members whose
headers lie in its first 512 KiB, at most 64 -- a user with a tar of 400 files could not find member 300. The read
lists each member's name, the offset and length of its data and the byte-range call that reads it, within the reply
budget, with a cursor; a zip's are read from its central directory at the end, compressed ones saying so."""

from __future__ import annotations

import io
import json
import re
import struct
import tarfile
import zipfile
import zlib

import pytest

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.mcp.server import ScopeResolver, run_scratch_tool
from tests.test_budgets import call_args


def big_tar(count: int = 400, each: int = 4000) -> tuple[bytes, list[tarfile.TarInfo]]:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for n in range(count):
            data = (f"member {n}\n".encode() * (each // 10 + 1))[:each]
            info = tarfile.TarInfo(f"dir/file-{n:04d}.txt" if n != 7 else "dir/" + "long-name-" * 12 + "x.txt")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = buf.getvalue()
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return data, tar.getmembers()


def follow(store, handle: str, budget: int = 8192) -> list[dict]:
    """Every page of the members read, following each next_call exactly as written (the MCP face)."""
    resolver = ScopeResolver(store, "r", "a")
    call: dict | None = {"handle": handle, "view": "members", "budget": budget}
    pages = []
    while call is not None:
        result = run_scratch_tool(resolver, "read_handle", call, None)
        text = result.content[0].text
        assert not result.is_error, text
        assert len(text.encode("utf-8")) <= budget
        reply = json.loads(text)
        pages.append(reply)
        assert len(pages) < 500
        call = call_args(reply["next_call"])[1] if reply["next_call"] else None
    return pages


def test_a_tar_of_400_members_is_listed_whole_page_by_page_and_member_300_read(tmp_path):
    data, infos = big_tar()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="t")
        assert 'view="members"' in stub.note  # the stub names the read that lists them all
        pages = follow(store, stub.handle)
        assert len(pages) > 1
        members = [m for page in pages for m in page["members"]]
        assert [m["name"] for m in members] == [i.name for i in infos]
        assert [m["offset"] for m in members] == [i.offset_data for i in infos]
        assert [m["length"] for m in members] == [i.size for i in infos]
        three_hundred = members[300]
        assert three_hundred["read"] == (f'read_handle(handle="{stub.handle}", offset={infos[300].offset_data}, '
                                         f"length={infos[300].size}, end={infos[300].offset_data + infos[300].size})")
        read = ScratchTools(scope).read_handle(**call_args(three_hundred["read"])[1])
        assert read["data"].startswith("member 300\n")
        # the Python API: the same members (a page of budget= bytes: the reply's own fields aside, more of them)
        page = scope.structure.members(stub.handle)
        assert page.items[: len(pages[0]["members"])] == pages[0]["members"] and page.cursor


def test_a_zip_is_listed_from_its_central_directory_stored_and_compressed_members_both(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for n in range(300):
            method = zipfile.ZIP_STORED if n % 2 else zipfile.ZIP_DEFLATED
            archive.writestr(zipfile.ZipInfo(f"docs/page-{n:03d}.txt"), f"page {n}\n" * 200, compress_type=method)
    data = b"#!/bin/sh\nexit 0\n" + buf.getvalue()  # data before the archive (a self-extractor): offsets shift
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(buf.getvalue(), source_tool="t")
        assert 'view="members"' in stub.note
        stub = scope.spill(data, source_tool="t")
        members = [m for page in follow(store, stub.handle) for m in page["members"]]
        assert [m["name"] for m in members] == [i.filename for i in infos]
        for member, info in zip(members, infos, strict=True):
            local = info.header_offset  # (zipfile counts the bytes before the archive in)
            name_len, extra_len = int.from_bytes(data[local + 26 : local + 28], "little"), int.from_bytes(
                data[local + 28 : local + 30], "little")
            assert member["offset"] == local + 30 + name_len + extra_len
            assert member["length"] == info.compress_size
            if info.compress_type == zipfile.ZIP_STORED:
                assert "compressed" not in member and member["read"].endswith(
                    f"length={info.file_size}, end={member['offset'] + info.file_size})")
                got = data[member["offset"] : member["offset"] + member["length"]]
                assert got == f"page {int(info.filename[10:13])}\n".encode() * 200
            else:
                assert member["compressed"] == "deflate" and member["size"] == info.file_size
                assert "read" not in member


def test_a_cursor_edited_or_of_another_entry_is_refused_and_other_content_too(tmp_path):
    data, _ = big_tar(120, 100)
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(data, source_tool="t").handle
        page = scope.structure.members(handle, budget=1024)
        assert page.cursor
        number, tag = page.cursor.rsplit(".", 1)
        with pytest.raises(InvalidArgument, match="cursor"):
            scope.structure.members(handle, cursor=f"{int(number.split('.')[0]) + 512}.{tag}")
        text = scope.spill(b"just text\n" * 2000, source_tool="t").handle
        with pytest.raises(InvalidArgument, match="tar or zip"):
            scope.structure.members(text)
        gz = scope.spill(__import__("gzip").compress(data), source_tool="t").handle
        with pytest.raises(InvalidArgument, match="compressed"):
            scope.structure.members(gz)


def test_a_hostile_tar_ends_the_listing_at_the_bad_header_with_a_note(tmp_path):
    data, infos = big_tar(10, 100)
    at = infos[5].offset  # (its header)
    broken = data[:at] + b"\xff" * 512 + data[at + 512 :]
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        page = scope.structure.members(scope.spill(broken, source_tool="t").handle)
        assert [m["name"] for m in page.items] == [i.name for i in infos[:5]]
        assert page.cursor is None and re.search(rf"byte {at}\b", page.extra["note"])


def test_the_cli_lists_members_too(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from scratchfs.cli import main

    data, infos = big_tar(80, 100)
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "root"))
    with ScratchStore(tmp_path / "root") as store:
        handle = store.scope("r", "a").spill(data, source_tool="t").handle
    done = CliRunner().invoke(main, ["read-handle", handle, "--run", "r", "--agent", "a", "--view", "members"],
                              catch_exceptions=False)
    assert done.exit_code == 0, done.output
    reply = json.loads(done.stdout)
    assert [m["name"] for m in reply["members"]] == [i.name for i in infos[: len(reply["members"])]]
    assert reply["next_call"] and 'view="members"' in reply["next_call"]


def test_a_tar_of_meta_headers_alone_ends_its_listing_without_reading_it_all(tmp_path):
    """A tar of empty GNU ``K`` headers (meta headers, no member after them) was walked to its end, a read a
    header: the walk stops 4 MiB of meta headers after the last member, with a note."""
    member = tarfile.TarInfo("a.txt")
    member.size = 3
    head = member.tobuf(tarfile.GNU_FORMAT) + b"abc".ljust(512, b"\0")
    meta = tarfile.TarInfo("././@LongLink")
    meta.type = b"K"
    data = head + meta.tobuf(tarfile.GNU_FORMAT) * 20_000 + bytes(1024)  # 10 MB
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        page = scope.structure.members(scope.spill(data, source_tool="t").handle)
        assert [m["name"] for m in page.items] == ["a.txt"] and page.cursor is None
        assert "byte 1024" in page.extra["note"]


def test_a_zip_whose_end_record_lies_is_refused_and_a_cut_directory_ends_the_listing(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for n in range(5):
            archive.writestr(f"f{n}.txt", "x" * 100)
    data = buf.getvalue()
    end = data.rfind(b"PK\x05\x06")
    lying = data[: end + 12] + (10**9).to_bytes(4, "little") + data[end + 16 :]  # a directory larger than the file
    cd = end - int.from_bytes(data[end + 12 : end + 16], "little")
    second = data.find(b"PK\x01\x02", cd + 4)
    cut = data[:second] + b"XX" + data[second + 2 :]  # the second central header's signature broken
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        with pytest.raises(InvalidArgument, match="end of central directory"):
            scope.structure.members(scope.spill(lying, source_tool="t").handle)
        page = scope.structure.members(scope.spill(cut, source_tool="t").handle)
        assert [m["name"] for m in page.items] == ["f0.txt"] and page.cursor is None
        assert f"ends at byte {second}" in page.extra["note"]


def test_a_zip64_archive_is_listed_from_its_zip64_end_record_and_extra_fields(tmp_path, monkeypatch):
    """The Zip64 path (APPNOTE 4.3.14-15, 4.5.3) without 65,536 members or 4 GiB: the standard library's own
    writer, its limits lowered, writes a Zip64 end record and locator (more than 5 members) and Zip64 extra fields
    holding every size and local-header offset over 1,000 (``0xFFFFFFFF`` in the header), as it does past the real
    limits; bytes before the archive shift every offset."""
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 5)
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 1000)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for n in range(40):
            method = zipfile.ZIP_STORED if n % 3 else zipfile.ZIP_DEFLATED
            archive.writestr(zipfile.ZipInfo(f"z/part-{n:02d}.txt"), f"part {n}\n" * (30 + 40 * n),
                             compress_type=method)
    data = b"\x7fprefix\n" * 100 + buf.getvalue()
    assert b"PK\x06\x06" in data and b"PK\x06\x07" in data  # a Zip64 end record and its locator were written
    central = data[data.index(b"PK\x01\x02"):]
    assert b"\xff\xff\xff\xff" in central  # and central headers whose fields are in their Zip64 extra field
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
    with ScratchStore(tmp_path) as store:
        # the stub walks the local headers: a Zip64 one's sizes are in its extra field, and the walk goes on past it
        plain = store.scope("r", "a").spill(buf.getvalue(), source_tool="t")
        assert "26 of 40 members stored (uncompressed), 14 compressed" in plain.shape
        stub = store.scope("r", "a").spill(data, source_tool="t")
        members = [m for page in follow(store, stub.handle, budget=2048) for m in page["members"]]
    assert [m["name"] for m in members] == [i.filename for i in infos]
    for member, info in zip(members, infos, strict=True):
        local = info.header_offset
        assert data[local : local + 4] == b"PK\x03\x04"
        name_len, extra_len = (int.from_bytes(data[local + k : local + k + 2], "little") for k in (26, 28))
        assert member["offset"] == local + 30 + name_len + extra_len
        assert member["length"] == info.compress_size
        if info.compress_type == zipfile.ZIP_STORED:
            got = data[member["offset"] : member["offset"] + member["length"]]
            assert got == f"part {int(info.filename[7:9])}\n".encode() * (30 + 40 * int(info.filename[7:9]))
        else:
            assert member["compressed"] == "deflate" and member["size"] == info.file_size


def _stored_zip(count: int) -> bytes:
    """A zip of ``count`` stored members ``NNNNN`` holding ``line NNNNN\\n``, with no Zip64 record, as Python's
    ``zipfile`` writes up to 65,535 members (its end record's count is then 0xFFFF, in full); written here by
    struct, as fast as the test needs (zipfile's writer takes ~2 s over 65,535), and checked by zipfile's reader."""
    local_parts, central_parts, at = [], [], 0
    for n in range(count):
        name, data = b"%05d" % n, b"line %05d\n" % n
        crc = zlib.crc32(data)
        local_parts.append(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, len(data), len(data),
                                       len(name), 0) + name + data)
        central_parts.append(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, crc, len(data),
                                         len(data), len(name), 0, 0, 0, 0, 0, at) + name)
        at += len(local_parts[-1])
    central = b"".join(central_parts)
    return b"".join(local_parts) + central + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, min(count, 0xFFFF),
                                                          min(count, 0xFFFF), len(central), at, 0)


def test_a_zip_of_65535_members_with_no_zip64_record_is_listed_and_its_last_members_lines_read(tmp_path):
    """65,535 members fit the end record's count (0xFFFF), so zipfile writes no Zip64 record: such a zip's end record
    was taken for a Zip64 one missing its record -- 'no end of central directory record: its members cannot be
    listed', and a member's last lines by end= alone refused as a zip cut short (hostile36)."""
    data = _stored_zip(0xFFFF)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        assert len(infos) == 0xFFFF and archive.read("65534") == b"line 65534\n"
    assert b"PK\x06\x07" not in data
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(data, source_tool="t").handle
        page = scope.structure.members(handle)
        assert [m["name"] for m in page.items[:2]] == ["00000", "00001"] and page.cursor is not None
        last = infos[-1]
        end = last.header_offset + 30 + len(last.filename) + last.file_size
        read = ScratchTools(scope).call("read_handle", {"handle": handle, "line": -1, "end": end})
        assert read["data"] == "line 65534\n" and read["offset"] == end - 11


def test_a_zip_directory_past_the_walk_bound_refuses_end_alone_and_names_offset_beside_it(tmp_path, monkeypatch):
    """A line read by end= alone walked the whole central directory for the member holding the byte, every read: a
    crafted directory of 1.5 million entries (76 MB) took 7 s a read (hostile36). Past a bound (65,536 entries:
    lowered here) it is refused naming offset= beside end=, and that read, from the listing, reads the member."""
    from scratchfs.api import bounds

    monkeypatch.setattr(bounds, "_ZIP_MOST", 32)
    data = _stored_zip(40)
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        handle = scope.spill(data, source_tool="t").handle
        member = scope.structure.members(handle).items[39]
        end = member["offset"] + member["length"]
        with pytest.raises(InvalidArgument, match=r"more than 32 members: end= alone.*give offset="):
            tools.call("read_handle", {"handle": handle, "line": -1, "end": end})
        read = tools.call("read_handle", {"handle": handle, "line": -1, "offset": member["offset"], "end": end})
        assert read["data"] == "line 00039\n"
        monkeypatch.setattr(bounds, "_ZIP_MOST", 40)  # (at the bound: looked up as before)
        assert tools.call("read_handle", {"handle": handle, "line": -1, "end": end})["data"] == "line 00039\n"
