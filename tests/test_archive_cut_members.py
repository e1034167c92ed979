"""``view="members"`` of an archive cut short: a member whose data runs past the content's end -- a tar cut at a size
limit, the way tool outputs are -- or, in a zip, into the central directory (a header that lies about its size) says
so with ``stored``, the bytes of it that are there, and its ``read`` reads only those. Before, the listing gave the
header's length as if every byte were there (``m1.txt`` 5,000 bytes at 6,144 of an 8,000-byte tar) and a ``read``
of ``length=5000``; nothing told the archive was cut. Found by the hostile helper (2026-12-04) with damaged and cut
tars and zips; the Hypothesis test checks every member's stored bytes against the content for any cut."""

from __future__ import annotations

import io
import struct
import tarfile
import zipfile

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools


def a_tar(sizes: list[int]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for n, size in enumerate(sizes):
            info = tarfile.TarInfo(f"m{n}.txt")
            info.size = size
            tar.addfile(info, io.BytesIO(bytes([97 + n % 26]) * size))
    return out.getvalue()


def members(tools: ScratchTools, data: bytes) -> list[dict]:
    handle = tools.scope.spill(data, source_tool="t").handle
    reply = tools.read_handle(handle, view="members", budget=65536)
    assert reply["next_call"] is None
    return reply["members"]


def test_a_tar_cut_inside_a_member_says_how_many_of_its_bytes_are_there(tmp_path):
    with ScratchStore(tmp_path / "root") as store:
        tools = ScratchTools(store.scope("r", "a"))
        listed = members(tools, a_tar([5000, 5000, 5000])[:8000])
        assert [(m["name"], m["offset"], m["length"], m.get("stored")) for m in listed] == [
            ("m0.txt", 512, 5000, None), ("m1.txt", 6144, 5000, 1856)]
        assert parse_call(listed[1]["read"])[1] == {"handle": listed[1]["read"].split('"')[1], "offset": 6144,
                                                    "length": 1856, "end": 8000}
        whole = members(tools, a_tar([5000, 5000]))  # a whole tar: no stored
        assert all("stored" not in m for m in whole) and [m["length"] for m in whole] == [5000, 5000]
        cut_at_data = members(tools, a_tar([5000, 5000])[:6144])  # the content ends where m1's data starts
        assert cut_at_data[1]["stored"] == 0 and "read" not in cut_at_data[1]


def test_a_zip_member_whose_size_runs_into_the_central_directory_says_so(tmp_path):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("a.txt", b"a" * 300)
        archive.writestr("b.txt", b"b" * 300)
    data = bytearray(out.getvalue())
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 20, 10**6)  # a.txt's compressed size: a lie
    with ScratchStore(tmp_path / "root") as store:
        listed = members(ScratchTools(store.scope("r", "a")), bytes(data))
    first = listed[0]
    assert first["length"] == 10**6 and first["stored"] == central - first["offset"]
    assert parse_call(first["read"])[1]["length"] == first["stored"]
    assert "stored" not in listed[1]


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(0, 3000), min_size=1, max_size=5), cut=st.floats(0.05, 1.0))
def test_every_read_a_listing_gives_lies_within_the_content(tmp_path_factory, sizes, cut):
    data = a_tar(sizes)
    data = data[: max(600, int(len(data) * cut))]
    with ScratchStore(tmp_path_factory.mktemp("cut") / "root") as store:
        listed = members(ScratchTools(store.scope("r", "a")), data)
    for member, size in zip(listed, sizes, strict=False):  # (members cut whole off are not listed)
        there = min(size, max(0, len(data) - member["offset"]))
        assert member["length"] == size and member.get("stored", size) == there
        if "read" in member:
            args = parse_call(member["read"])[1]
            assert args["offset"] == member["offset"] and args["length"] == min(there, 65536) > 0
        else:
            assert there == 0
