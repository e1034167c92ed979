"""Every member of a stored tar or zip, listed page by page (``read_handle(handle, view="members")``): a stub lists
only the members whose headers lie in its first bytes, and at most 64 of them.

Each member is ``{name, offset, length, read}`` -- its data's byte offset and length in the archive (bytes) and the
range call that reads it (``length`` at most :data:`~scratchfs.foundation.limits.MAX_READ_BYTES`, ``end`` where the
member ends: the call's ``next_call`` goes on within the member, and is null at its end) -- plus ``kind`` when it is no
regular file (``"dir"``, ``"link"``, ``"other"``: no data, no ``read``); a zip member that is compressed or encrypted
gives ``compressed`` (its method: ``"deflate"``, ``"bzip2"``, ``"lzma"``, ``"zstd"``, ``"encrypted"``, ...) and ``size``
(its bytes once extracted) instead of ``read``: its stored bytes are not its text, and no read here decompresses them. A
member whose data runs past the content's end (an archive cut short: a tool's output cut at a size limit) or, in a zip,
into its central directory (a header that lies) adds ``stored``, the bytes of it that are there, which its ``read``
reads (none: no ``read``).

Sources: a tar is walked header by header from its start by
:class:`~scratchfs.api.tar_headers.TarWalk` (the stub's linear reader, not ``tarfile``: its pax parser is slow on
hostile input, CVE-2024-6232), one read a header, each member's data skipped unread. A zip is listed from its
central directory, at the end (APPNOTE.TXT 4.3.16: the end of central directory record, ``PK 05 06``, within the
last 65,557 bytes; 4.3.14-15: Zip64's record and locator, ``PK 06 06`` / ``PK 06 07``; 4.3.12: each central file
header, ``PK 01 02``; 4.5.3: the Zip64 extra field, id 1), not from its local headers: a member whose local header
gives no sizes (a data descriptor follows its data) or a member after it is still listed. Each member's data offset
is read from its local header (4.3.7: 30 bytes, then the name and the local extra field, whose lengths may differ
from the central directory's). Bytes before the archive (a self-extracting zip) shift every offset; the directory's
own position says by how much.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from scratchfs.api.shape_binary import binary_kind, zip64_sizes
from scratchfs.api.tar_headers import TarWalk
from scratchfs.engine.structure.paging import (
    CursorKey,
    ItemPage,
    check_budget,
    decode_cursor,
    encode_cursor,
    fill_items,
)
from scratchfs.foundation.calls import render_call
from scratchfs.foundation.errors import BadCursor, InvalidArgument
from scratchfs.foundation.limits import MAX_READ_BYTES

__all__ = ["MEMBERS_VIEW", "members_page", "zip_data_offset", "zip_entries", "zip_member_name"]

MEMBERS_VIEW = "members"
"""The ``view=`` of ``read_handle`` that lists an archive's members."""
_PROBE_BYTES = 4096  # first bytes read to tell the format
_EOCD = struct.Struct("<4sHHHHIIH")  # signature, disk, cd disk, entries here, entries, cd size, cd offset, comment
_EOCD64_LOCATOR = struct.Struct("<4sIQI")  # signature, disk, offset of the Zip64 EOCD record, disks
_EOCD64 = struct.Struct("<4sQHHIIQQQQ")  # signature, size, versions, disks, entries here, entries, cd size, offset
_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")
"""A central file header (APPNOTE.TXT 4.3.12): signature, versions, flags, method, time, date, CRC-32, compressed
and uncompressed sizes, name, extra and comment lengths, disk, attributes, local header offset."""
_METHODS = {8: "deflate", 9: "deflate64", 12: "bzip2", 14: "lzma", 93: "zstd", 95: "xz", 98: "ppmd", 99: "encrypted"}
_CENTRAL_READ = 64 * 1024  # bytes of the central directory read at once
_T = TypeVar("_T")


def members_page(read: Callable[[int, int], bytes], size: int, handle: str, cursor: str | None, budget: int,
                 entry: str | None, misfit: Callable[[], str]) -> ItemPage:
    """One page of the members of the tar or zip of ``size`` bytes that ``read(offset, length)`` reads (the entry
    ``handle``), from ``cursor`` (a former page's, or ``None``: the first), within ``budget`` bytes of JSON
    (``ItemPage`` named ``members``, items as the module docstring says, ``extra["note"]`` when the listing ended
    before the archive did or a member is compressed). ``entry``: what the cursors are bound to; ``misfit``: the
    refusal of content that is no archive (what it holds and the reads that fit it:
    :func:`~scratchfs.api.misfit.members_misfit`).

    Raises:
        InvalidArgument: the content is no tar or zip (``misfit()``), a zip whose central directory is not where
            its end record says, or a cursor not made by this read of this entry."""
    budget = check_budget(budget, "budget")
    kind = binary_kind(read(0, _PROBE_BYTES))
    if kind == "zip" or (kind is None and _end_record(read, size) is not None):
        return _zip_page(read, size, handle, cursor, budget, CursorKey(MEMBERS_VIEW + "\0zip", size, entry))
    if kind != "tar":
        raise InvalidArgument(misfit())
    key = CursorKey(MEMBERS_VIEW + "\0tar", size, entry)
    start = decode_cursor(cursor, 1, key)[0] if cursor is not None else 0
    walk = TarWalk(read, start)
    items = ((at, _tar_item(member, handle, size), False) for member, at in walk)
    page = fill_items(ItemPage("members", 1), items, 0, budget, 1 << 30, lambda at, _: encode_cursor([at], key))
    if page.cursor is None and walk.ended != "end":
        page.extra["note"] = (f"the listing ends at byte {walk.at}: a header there is not one a tar holds"
                              if walk.ended == "header" else
                              f"the listing ends at byte {walk.at}: a sparse member, whose data is not its bytes")
    if start and page.items == [] and page.part is None and walk.at == start and walk.ended != "end":
        raise BadCursor(f"cursor points at byte {start}, which is no member's header: start the read again "
                        "without a cursor")
    return page


def _tar_item(member: Any, handle: str, size: int) -> dict[str, Any]:
    item: dict[str, Any] = {"name": member.name, "offset": member.offset, "length": member.size}
    held = _held(member.offset, member.size, size)
    if held is not None:
        item["stored"] = held
    if member.kind != "file":
        item["kind"] = member.kind
    elif member.size and held != 0:
        item["read"] = _member_read(handle, member.offset, member.size if held is None else held)
    return item


def _member_read(handle: str, offset: int, length: int) -> str:
    """The range call that reads a member's ``length`` bytes at ``offset``: bounded at their end
    (:mod:`scratchfs.api.bounds`), so that its ``next_call`` stays in the member and ends with it."""
    return render_call("read_handle", handle=handle, offset=offset, length=min(length, MAX_READ_BYTES),
                       end=offset + length)


def _held(offset: int, length: int, bound: int) -> int | None:
    """The bytes of a member's data (``length`` bytes at ``offset``) that lie before ``bound`` -- the content's end,
    or a zip's central directory --, when fewer than ``length`` (an archive cut short, or a header that lies), else
    ``None``: the member's ``stored``, what its ``read`` reads."""
    if offset < 0 or offset + length <= bound:
        return None
    return max(0, bound - offset)


def _end_record(read: Callable[[int, int], bytes], size: int) -> tuple[int, int, int, int] | None:
    """``(entries, central directory size, its offset as written, the end record's offset)`` of the zip of ``size``
    bytes, from its end of central directory record (the last ``PK 05 06`` of the last 65,557 bytes whose
    directory lies before it, one whose comment ends the content first: Python's ``zipfile`` takes a record a
    comment holds), Zip64's when its locator lies just before that record (APPNOTE 4.3.15, as Python's ``zipfile``
    reads it: whether or not the record's own fields are full), else the record's own, full fields and all (a zip of
    65,535 members has no Zip64 record: its count is 0xFFFF); ``None``: none there."""
    start = max(0, size - _EOCD.size - 0xFFFF)
    tail = read(start, size - start)
    ats = []
    at = tail.rfind(b"PK\x05\x06")
    while at >= 0:
        ats.append(at)
        at = tail.rfind(b"PK\x05\x06", 0, at)
    # (first the one whose comment ends the zip: a comment may hold another record, a zip's own or made up)
    ats.sort(key=lambda at: at + _EOCD.size + int.from_bytes(tail[at + 20 : at + 22], "little") != len(tail))
    for at in ats:
        if at + _EOCD.size <= len(tail):
            _, _, _, _, count, cd_size, cd_offset, _ = _EOCD.unpack_from(tail, at)
            where = start + at
            found = _zip64_record(read, where)  # looked for whatever the record says: a writer may add one when
            if found is not None:  # no field is full (Python's zipfile past a lowered limit), and the directory
                return found  # then ends at the Zip64 record, not at this one
            if 0xFFFFFFFF not in (cd_size, cd_offset) and cd_size <= where:  # (a count of 0xFFFF with no Zip64 record:
                return count, cd_size, cd_offset, where  # the count -- zipfile writes 65,535 members so)
    return None


def _zip64_record(read: Callable[[int, int], bytes], where: int) -> tuple[int, int, int, int] | None:
    """The Zip64 end record's ``(entries, directory size, its offset as written, the record's offset)``, its
    locator just before the end record at ``where``; ``None`` when not there or not whole."""
    if where < _EOCD64_LOCATOR.size:
        return None
    signature, _, written_at, _ = _EOCD64_LOCATOR.unpack(read(where - _EOCD64_LOCATOR.size, _EOCD64_LOCATOR.size))
    if signature != b"PK\x06\x07":
        return None
    # the record just before its locator (as zipfile looks for it: bytes before the archive shift the offset the
    # locator gives), else where the locator says (a record with an extensible data sector, APPNOTE 4.3.14.2)
    for record_at in dict.fromkeys((where - _EOCD64_LOCATOR.size - _EOCD64.size, written_at)):
        record = read(record_at, _EOCD64.size) if 0 <= record_at < where else b""
        if len(record) == _EOCD64.size and record.startswith(b"PK\x06\x06"):
            *_, count, cd_size, cd_offset = _EOCD64.unpack(record)
            return (count, cd_size, cd_offset, record_at) if cd_size <= record_at else None
    return None


def _zip_page(read: Callable[[int, int], bytes], size: int, handle: str, cursor: str | None, budget: int,
              key: CursorKey) -> ItemPage:
    """A page of a zip's members, from its central directory (:func:`members_page`)."""
    found = _end_record(read, size)
    if found is None:
        raise InvalidArgument(f"{handle} starts as a zip but has no end of central directory record: its members "
                              "cannot be listed (read its local headers by range)")
    _, cd_size, cd_offset, end = found
    cd_start = end - cd_size
    shift = cd_start - cd_offset  # (bytes before the archive: a self-extractor's)
    index, at = decode_cursor(cursor, 2, key) if cursor is not None else (0, cd_start)
    if not cd_start <= at <= end:
        raise BadCursor(f"cursor points at byte {at}, outside the central directory: start the read again "
                        "without a cursor")
    page = ItemPage("members", index + 1)
    stopped: list[int] = []  # (where a central header that is not one ended the directory, if one did)
    def item(name: str, flags: int, method: int, packed: int, unpacked: int, local: int) -> dict[str, Any]:
        return _zip_item(read, handle, name, flags, method, packed, unpacked, local, cd_start)

    items = ((place, made, False) for place, made in _central(read, at, end, index, shift, stopped, item))
    fill_items(page, items, 0, budget, 1 << 30, lambda place, _: encode_cursor(place, key))
    if page.cursor is None and stopped:
        page.extra["note"] = (f"the listing ends at byte {stopped[0]}, before the central directory's end "
                              f"({end}): a header there is not one")
    if any("compressed" in item for item in page.items):
        said = page.extra.get("note")
        page.extra["note"] = ("a member with `compressed` holds compressed (or encrypted) bytes: extract it with an "
                              "unzip tool; no read here decompresses it") + (f"; {said}" if said else "")
    return page


def _central(read: Callable[[int, int], bytes], at: int, end: int, index: int, shift: int, stopped: list[int],
             item: Callable[[str, int, int, int, int, int], _T]) -> Iterator[tuple[tuple[int, int], _T]]:
    """``((index, offset of its central header), item)`` for each member from the central header at ``at`` on, to
    the directory's ``end`` or the first header that is not one (its offset then appended to ``stopped``); the item
    is ``item(name, flags, method, compressed size, size, offset of its local header)``."""
    block, block_at = b"", at
    while at < end:
        if at + _CENTRAL.size > block_at + len(block):
            block, block_at = read(at, min(_CENTRAL_READ, end - at)), at
        head = block[at - block_at : at - block_at + _CENTRAL.size]
        if len(head) < _CENTRAL.size or not head.startswith(b"PK\x01\x02"):
            stopped.append(at)
            return
        fields = _CENTRAL.unpack(head)
        flags, method, packed, unpacked, name_len, extra_len, comment_len, local = (
            fields[3], fields[4], *fields[8:13], fields[16])
        whole = _CENTRAL.size + name_len + extra_len + comment_len
        if at + whole > block_at + len(block):
            block, block_at = read(at, max(whole, min(_CENTRAL_READ, end - at))), at
        body = block[at - block_at + _CENTRAL.size : at - block_at + whole]
        if len(body) < whole - _CENTRAL.size:
            stopped.append(at)
            return
        name = body[:name_len].decode("utf-8" if flags & 0x800 else "cp437", "replace")
        packed, unpacked, local = zip64_sizes(body[name_len : name_len + extra_len], packed, unpacked, local)
        yield (index, at), item(name, flags, method, packed, unpacked, local + shift)
        index, at = index + 1, at + whole


def _zip_item(read: Callable[[int, int], bytes], handle: str, name: str, flags: int, method: int, packed: int,
              unpacked: int, local: int, data_end: int) -> dict[str, Any]:
    """A zip member as the listing gives it; its data's offset read from its local header (-1 when that is not
    there: then it has no ``read``); ``stored`` when its data runs past ``data_end``, where the central directory
    starts (:func:`_held`)."""
    offset = zip_data_offset(read, local)
    item: dict[str, Any] = {"name": name, "offset": offset, "length": packed}
    held = _held(offset, packed, data_end)
    if held is not None:
        item["stored"] = held
    if name.endswith("/"):
        item["kind"] = "dir"
    elif method != 0 or flags & 0x1:
        item["compressed"] = "encrypted" if flags & 0x1 else _METHODS.get(method, f"method {method}")
        item["size"] = unpacked
    elif offset >= 0 and packed and held != 0:
        item["read"] = _member_read(handle, offset, packed if held is None else held)
    return item


def zip_data_offset(read: Callable[[int, int], bytes], local: int) -> int:
    """The byte offset of a zip member's data, from its local header at byte ``local`` (APPNOTE 4.3.7: 30 bytes, then
    the name and the local extra field); -1 when no local header is there."""
    header = read(local, 30) if local >= 0 else b""
    if len(header) < 30 or not header.startswith(b"PK\x03\x04"):
        return -1
    return local + 30 + int.from_bytes(header[26:28], "little") + int.from_bytes(header[28:30], "little")


def zip_entries(read: Callable[[int, int], bytes], size: int, most: int | None = None) \
        -> tuple[list[tuple[int, int, int]], int, int] | None:
    """Each member of the zip of ``size`` bytes that ``read(offset, length)`` reads, from its central directory (as
    the listing reads it, none of the local headers read): ``(offset of its local header, its stored bytes, offset of
    its central header)``, in the directory's order, to its end or the first central header that is not one, or the
    first ``most`` + 1 of them (``None``: all); where the directory starts (no member's data goes past it:
    :func:`_held`) and where it ends (:func:`zip_member_name` reads a member's name from it). ``None`` when the zip
    has no end of central directory record (cut short) or its directory is not where it says."""
    found = _end_record(read, size)
    if found is None:
        return None
    _, cd_size, cd_offset, end = found
    cd_start = end - cd_size
    entries = _central(read, cd_start, end, 0, cd_start - cd_offset, [],
                       lambda _n, _f, _m, packed, _u, local: (local, packed))
    return [(local, packed, at) for (_, at), (local, packed) in
            itertools.islice(entries, None if most is None else most + 1)], cd_start, end


def zip_member_name(read: Callable[[int, int], bytes], central: int, end: int) -> str:
    """The name of the zip member whose central header is at byte ``central`` (one :func:`zip_entries` gave) of the
    directory ending at byte ``end``, decoded as the listing decodes it (UTF-8 when flagged, else CP437); ``""`` when
    no central header is there."""
    return next((name for _, name in _central(read, central, end, 0, 0, [], lambda name, *_: name)), "")
