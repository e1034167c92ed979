"""Binary content's shape, told from its first bytes: its format by magic number, whether it is compressed (then no
search finds its text and no read decompresses it: only byte ranges read it), an uncompressed tar's first members
and where each one's data lies -- and a zip's stored uncompressed (method 0), whose bytes are their text: such a zip
is no compressed content --, an image's width and height.

Sources: the magic numbers are those of each format's specification -- gzip RFC 1952 section 2.3.1 (``1f 8b``), zstd
RFC 8878 section 3.1.1 (``28 b5 2f fd``), xz's file format 1.2.1 section 2.1.1.1 (``fd 37 7a 58 5a 00``), bzip2
(``BZh``, a block size ``1``-``9``, the block magic ``31 41 59 26 53 59``), zip's APPNOTE.TXT 4.3.7 (a local file
header ``PK 03 04``), POSIX.1 pax/ustar (``ustar`` at byte 257 of the first header), PNG, GIF, JPEG, WebP (RFC 9649:
``RIFF``, a size, ``WEBP``). An uncompressed tar's members are read from the headers in the first bytes as the
stdlib's ``tarfile`` reads them, in linear time (:mod:`scratchfs.api.tar_headers`; a member cut by their end is still
listed: its header is whole); a zip's first members are named from their local file headers (APPNOTE.TXT 4.3.7; the
central directory is at the end, past the first bytes), which give each one's compression method and, past the
header's name and extra field, where its data starts; a gzip-compressed tar (``.tgz``) has its first members named
by decompressing the first bytes (``zlib``: their offsets are of the decompressed stream, so not given). An image's
dimensions are read by the ``imagesize`` package (pure Python, no dependencies: the header fields of PNG's IHDR,
GIF's logical screen, JPEG's SOF, WebP's VP8/VP8L/VP8X and more), never by decoding pixels.
"""

from __future__ import annotations

import io
import re
import struct
import zlib
from collections.abc import Callable
from typing import NamedTuple

from scratchfs.api.shape_cjk import multibyte_clause, multibyte_codec
from scratchfs.api.shape_words import kib, plural, short_name
from scratchfs.api.tar_headers import TAR_BLOCK, TarMember, TarWalk, tar_checksum_ok

__all__ = ["BINARY_MAGIC", "COMPRESSED", "FORMATS", "NUL_SEPARATED", "STARTS", "TAR_MAGIC_AT", "UTF16_FORMATS",
           "WIDE_CODECS", "binary_kind", "binary_shape", "compressed_format", "nul_separated", "tar_listing",
           "tar_members", "utf16_bare", "zip64_sizes", "zip_members"]

BINARY_MAGIC = ((b"\x89PNG", "PNG image"), (b"\x1f\x8b", "gzip"), (b"PK\x03\x04", "zip"), (b"%PDF", "PDF"),
                (b"\x28\xb5\x2f\xfd", "zstd"), (b"\x7fELF", "ELF"), (b"\xff\xd8\xff", "JPEG image"),
                (b"GIF8", "GIF image"), (b"SQLite format 3\x00", "SQLite database"), (b"\xfd7zXZ\x00", "xz"),
                *((b"BZh%d1AY&SY" % level, "bzip2") for level in range(1, 10)),
                (b"\xff\xfe\x00\x00", "UTF-32LE text"), (b"\x00\x00\xfe\xff", "UTF-32BE text"),  # (before UTF-16LE:
                (b"\xff\xfe", "UTF-16LE text"), (b"\xfe\xff", "UTF-16BE text"))  # its mark starts theirs; by the mark)
"""(first bytes, format) of the formats told by how they start; a tar (``ustar`` at byte 257) and a WebP image
(``RIFF``, 4 bytes, ``WEBP``) are told by :func:`binary_kind` too."""
UTF16_FORMATS = frozenset({"UTF-16LE text", "UTF-16BE text"})
"""Text of two bytes a character, told by its byte order mark or, without one, by its NUL bytes (:func:`utf16_bare`):
no search written as UTF-8 finds its text."""
WIDE_CODECS = {"UTF-16LE text": "utf-16-le", "UTF-16BE text": "utf-16-be", "UTF-32LE text": "utf-32-le",
               "UTF-32BE text": "utf-32-be"}
"""The codec of each format of text wider than a byte a character: :data:`UTF16_FORMATS` and UTF-32 text (four bytes
a character, told by its byte order mark alone: ``FF FE 00 00`` -- not UTF-16LE's ``FF FE`` -- or ``00 00 FE FF``),
which no search written as UTF-8 finds either."""
COMPRESSED = frozenset({"gzip", "zstd", "bzip2", "xz", "zip"})
"""Formats whose bytes are compressed: no search (``match=``, ``pattern=``) finds their text -- but a zip's members
may be stored uncompressed (method 0): its shape then says so, not ``compressed`` (:func:`compressed_format`)."""
FORMATS = frozenset({name for _, name in BINARY_MAGIC} | {"tar", "WebP image"})
"""Every format :func:`binary_kind` names."""
_IMAGES = frozenset({"PNG image", "JPEG image", "GIF image", "WebP image"})
TAR_MAGIC_AT = 257
"""Where a tar's first header holds ``ustar``: its magic field (POSIX.1-2017, pax; GNU writes ``"ustar "``)."""
_MOST_MEMBERS = 64  # members read from the first bytes for a listing (a stub shows about 20)
_TGZ_BYTES = 64 * 1024  # decompressed bytes of a .tgz looked at for its first members' names
STARTS = tuple({magic[:1] for magic, _ in BINARY_MAGIC} | {b"RIFF"})
"""The first bytes of every format but a tar: content that starts with none (and has no ``ustar`` at byte 257)
starts no format, told by one ``startswith``."""


def binary_kind(sample: bytes) -> str | None:
    """The format ``sample`` (a content's first bytes) starts (one of :data:`FORMATS`), or ``None``: its magic number
    and the header fields after it (:data:`_HEADER_AGREES`: a WebP's size field and first chunk, PNG's IHDR, gzip's
    method...) -- or a header that does not agree is no format, and a tar is told by
    ``ustar`` at byte 257 *and* a first header whose checksum holds (a JSON document or a log with ``ustar`` there
    was told a tar, so binary: its jq and search refused). Never raises."""
    if sample.startswith(STARTS):
        if sample.startswith(b"RIFF") and sample[8:12] == b"WEBP":
            return "WebP image" if _HEADER_AGREES["WebP image"](sample) else None
        found = next((name for magic, name in BINARY_MAGIC if sample.startswith(magic)), None)
        if found is not None:
            agrees = _HEADER_AGREES.get(found)
            return found if agrees is None or agrees(sample) else None
    if sample[TAR_MAGIC_AT : TAR_MAGIC_AT + 5] != b"ustar" or len(sample) < TAR_BLOCK:
        return None
    return "tar" if tar_checksum_ok(sample[:TAR_BLOCK]) else None  # (text with "custard" at byte 256 is no tar)


def _webp(sample: bytes) -> bool:
    """RFC 9649 section 2.5: the RIFF size (bytes from offset 8) holds ``WEBP`` and a chunk header at least, is even
    (chunks are padded to even sizes) and at most 2**32 - 10; the first chunk is ``VP8 ``, ``VP8L`` or ``VP8X``."""
    size = int.from_bytes(sample[4:8], "little")
    return 12 <= size <= 2**32 - 10 and not size % 2 and sample[12:16] in (b"VP8 ", b"VP8L", b"VP8X")


def _xz(sample: bytes) -> bool:
    """xz file format 1.2.1 section 2.1.1.2-3: the stream flags (a zero byte, a check type 0-15) and their CRC32."""
    return (len(sample) >= 12 and sample[6] == 0 and sample[7] < 16
            and zlib.crc32(sample[6:8]) == int.from_bytes(sample[8:12], "little"))


_ZIP_METHODS = frozenset({*range(21), 93, 94, 95, 96, 97, 98, 99})  # APPNOTE.TXT 4.4.5 (and 99: AE-x encryption)
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\ufff0-\uffff]")
"""What no text holds: C0 and C1 controls (but tab, line ends, form feed, escape), a lone surrogate, a private use
character (U+E000-F8FF), a specials block one (U+FFF0-FFFF: U+FFFD, an undecodable unit). About 13% of random
UTF-16 code units, and of compressed data's."""
_WIDE_PROBE = 1024  # bytes after a byte order mark read to tell whether what follows is text


def _wide_text(codec: str, mark: int) -> Callable[[bytes], bool]:
    """Whether a sample that starts with ``codec``'s byte order mark (``mark`` bytes) holds text of it after the mark:
    at most one character in 20 of its first :data:`_WIDE_PROBE` bytes :data:`_NOT_TEXT` (``ff fe`` before a PNG
    image or random bytes was named UTF-16LE text, its preview their bytes as CJK and private use characters). RFC
    2781 section 3.2: the mark says the byte order of text, not that text follows."""
    unit = 4 if "32" in codec else 2

    def agrees(sample: bytes) -> bool:
        body = sample[mark : mark + _WIDE_PROBE]
        body = body[: len(body) // unit * unit]
        try:
            text = body.decode(codec)  # (text: at C speed; else each unit in error through its handler)
        except UnicodeDecodeError:
            text = body.decode(codec, "surrogatepass" if unit == 2 else "replace")
        if text[-1:] and "\ud800" <= text[-1] <= "\udbff" and len(sample) > mark + _WIDE_PROBE:
            text = text[:-1]  # (a pair the probe's end cuts)
        return 20 * len(_NOT_TEXT.findall(text)) <= len(text)
    return agrees


_HEADER_AGREES = {
    **{kind: _wide_text(codec, 4 if "32" in codec else 2) for kind, codec in (
        ("UTF-16LE text", "utf-16-le"), ("UTF-16BE text", "utf-16-be"), ("UTF-32LE text", "utf-32-le"),
        ("UTF-32BE text", "utf-32-be"))},
    "WebP image": _webp,
    # PNG 3rd edition 5.2-5.3: the whole 8-byte signature, then IHDR (13 bytes), the first chunk
    "PNG image": lambda s: s[:16] == b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR",
    # RFC 1952 2.3.1: CM 8 (deflate), FLG's reserved bits 5-7 zero
    "gzip": lambda s: len(s) >= 10 and s[2] == 8 and not s[3] & 0xE0,
    # APPNOTE.TXT 4.3.7: a whole local header, version needed at most 6.3, a method the note lists
    "zip": lambda s: len(s) >= 30 and s[4] <= 63 and int.from_bytes(s[8:10], "little") in _ZIP_METHODS,
    # RFC 8878 3.1.1.1.1.4: the frame header descriptor's reserved bit (3) is zero
    "zstd": lambda s: len(s) >= 6 and not s[4] & 0x08,
    "xz": _xz,
    "PDF": lambda s: s[4:5] == b"-" and s[5:6].isdigit(),  # ISO 32000 7.5.2: %PDF-1.7
    "ELF": lambda s: len(s) >= 7 and s[4] in (1, 2) and s[5] in (1, 2) and s[6] == 1,  # class, data, version 1
    "JPEG image": lambda s: len(s) >= 4 and 0xC0 <= s[3] <= 0xFE,  # ITU T.81 B.1.1.3: a marker follows SOI
    "GIF image": lambda s: s[:6] in (b"GIF87a", b"GIF89a"),  # GIF89a section 17: signature and version
    # sqlite.org/fileformat.html 1.3: a page size a power of two, 512 to 32768 (1: 65536); payload fractions 64/32/32
    "SQLite database": lambda s: int.from_bytes(s[16:18], "big") in _SQLITE_PAGES and s[21:24] == b"\x40\x20\x20",
}
"""Whether the header fields after each format's magic number agree with it (the magic number alone told a WebP
image whatever its size field said, a PNG image of ``\\x89PNG`` and text): a content whose header does not is no
format (:func:`binary_kind`). bzip2's is in its magic (the first block's); UTF-16's and UTF-32's byte order mark
is followed by text (:func:`_wide_text`)."""
_SQLITE_PAGES = frozenset({1, *(2**n for n in range(9, 16))})


def tar_members(head: bytes, most: int = _MOST_MEMBERS) -> list[TarMember]:
    """The first members (at most ``most``) of the uncompressed tar whose first bytes are ``head``, read from their
    512-byte headers by :class:`TarWalk` (the same reader lists a whole tar page by page), in time linear in
    ``len(head)``; those past ``head`` are not listed (a member whose data runs past it is). Never raises."""
    found: list[TarMember] = []
    for member, _ in TarWalk(lambda at, n: head[at : at + n], 0, len(head)):
        if len(found) >= most:
            break
        found.append(member)
    return found


def tar_listing(members: list[TarMember], limit: int, archive: str = "tar") -> tuple[str, int]:
    """A stub's preview of a tar (or of a zip's stored members, ``archive="zip"``): a heading and one line a member
    (``NAME  SIZE  at OFFSET``: its data's bytes and byte offset), as many whole lines as fit ``limit`` characters,
    then ``… N more`` if that fits too. Returns ``(text, members shown)``; ``("", 0)`` when not even the heading and
    one member fit."""
    lines = [f"{archive} members (name, bytes, offset of its data):"]
    used = len(lines[0])
    for member in members:
        mark = "/" if member.kind == "dir" and not member.name.endswith("/") else ""
        line = f"{short_name(member.name, 80)}{mark}  {member.size:,}  at {member.offset}"
        if used + 1 + len(line) > limit:
            break
        lines.append(line)
        used += 1 + len(line)
    shown = len(lines) - 1
    more = f"… {len(members) - shown} more in the first bytes"
    if shown < len(members) and used + 1 + len(more) <= limit:
        lines.append(more)
    return ("\n".join(lines), shown) if shown else ("", 0)


def binary_shape(sample: bytes, size: int) -> str:
    """The shape of binary content whose first bytes are ``sample``: ``"binary, SIZE[, FORMAT[, DETAILS]]; starts
    with HEX"`` -- a compressed format says so and what it allows, a tar how many members its first bytes hold, a
    gzip-compressed tar its first members' names, an image its width×height in pixels. Never raises."""
    kind = binary_kind(sample) or utf16_bare(sample)
    detail = ""
    if kind in COMPRESSED and not (kind == "zip" and _zip_plain(sample)):
        detail = ", compressed"  # (the stub's note says what that allows: byte ranges, no search)
        names = _tgz_names(sample) if kind == "gzip" else _zip_names(sample) if kind == "zip" else []
        if names:
            detail += f"; {'a tar inside' if kind == 'gzip' else 'members'}: " + ", ".join(
                short_name(name, 40) for name in names[:6]) + (", …" if len(names) > 6 else "")
    elif kind == "zip" and _zip_plain(sample):  # (members stored uncompressed: their bytes are their text)
        detail = ", " + _zip_stored_detail(sample, size)
        names = _zip_names(sample)
        if names:
            detail += "; members: " + ", ".join(short_name(name, 40) for name in names[:6]) + (
                ", …" if len(names) > 6 else "")
    elif kind == "tar":
        members = tar_members(sample)
        count = plural(len(members), "member")
        detail = (f", at least {count}" if len(members) >= _MOST_MEMBERS
                  else f", {count} in the first {kib(len(sample))}" if size > len(sample) else f", {count}")
    elif kind in _IMAGES:
        width, height = _dimensions(sample)
        detail = f", {width}×{height} pixels" if 0 < width < 2**31 and 0 < height < 2**31 else ""  # (PNG's limit)
    head = sample[:8].hex(" ")
    named = None if kind else multibyte_codec(sample, size <= len(sample))  # (Shift-JIS: no binary, its text)
    listed = f", {kind}{detail}" if kind else multibyte_clause(named) if named else nul_separated(sample, size)
    return f"binary, {kib(size)}{listed}" + (f"; starts with {head}" if head else "")


_CONTROLS = re.compile(rb"[\x01-\x1f\x7f]")  # (a line end too: text lines holding NULs are no list of names)
NUL_SEPARATED = "text separated by NUL bytes"
"""What the shape of binary content that is text items each ended by a NUL byte says (:func:`nul_separated`)."""


def nul_separated(sample: bytes, size: int) -> str:
    """``", text separated by NUL bytes (as find -print0 or git ls-files -z print it), N items: first, second, …"``
    when ``sample`` (the first bytes of ``size``) is UTF-8 text items each ended by a NUL byte -- file names, ``env
    -0``'s variables -- with no control byte (no tab or line end either) and no empty item but the last; else
    ``""``.
    The count is estimated from the sample's items per byte when the sample is not all of it. Never raises."""
    whole = len(sample) >= size
    body = sample if whole else sample[: sample.rfind(b"\0") + 1]  # (the last item may be cut by the sample's end)
    items = body.split(b"\0")
    if items[-1] == b"":
        items.pop()
    if len(items) < 2 or b"" in items or _CONTROLS.search(body) is not None:
        return ""
    try:
        names = body.decode("utf-8").split("\0", 4)[:4]  # (NUL is one byte in UTF-8: the same items, decoded once)
    except UnicodeDecodeError:
        return ""
    count = plural(len(items), "item") if whole else "~" + plural(round(len(items) * size / len(body)), "item")
    first = ", ".join(short_name(name, 40).replace(";", "?") for name in names) + (", …" if len(items) > 4 else "")
    return f", {NUL_SEPARATED} (as find -print0 or git ls-files -z print it), {count}: {first}"


_UTF16_PROBE = 4096  # bytes of a sample looked at for UTF-16 text without a byte order mark
_TEXT_BYTES = bytes(range(32, 127)) + b"\t\n\r"  # printable ASCII, a tab, a line end (counted by translate, in C)


def utf16_bare(sample: bytes) -> str | None:
    """``"UTF-16LE text"`` or ``"UTF-16BE text"`` for a ``sample`` with no byte order mark whose first
    :data:`_UTF16_PROBE` bytes read as mostly ASCII text in UTF-16 (as ``iconv -t UTF-16LE`` writes it): nine in ten
    of one parity's bytes NUL and nine in ten of the other's printable ASCII, a tab or a line end; else ``None``
    (text of other scripts in UTF-16 is not told without its mark). Never raises."""
    head = sample[: _UTF16_PROBE - _UTF16_PROBE % 2]
    half = len(head) // 2
    if half < 16 or (len(sample) % 2 and len(sample) <= _UTF16_PROBE):
        return None
    for kind, zeros, chars in (("UTF-16LE text", head[1::2], head[0::2]), ("UTF-16BE text", head[0::2], head[1::2])):
        if zeros.count(0) * 10 >= half * 9 and (half - len(chars.translate(None, _TEXT_BYTES))) * 10 >= half * 9:
            return kind
    return None


def _dimensions(sample: bytes) -> tuple[int, int]:
    """An image's (width, height) in pixels as shown (an EXIF rotation applied), or ``(-1, -1)``: ``imagesize``
    reads them from the header fields, and gives ``(-1, -1)`` for anything it cannot read (imported at the first
    image, not at every process's start: ``tests/test_start_imports.py``)."""
    import imagesize

    return imagesize.get(_Reads(sample))


_MOST_IMAGE_READS = 2048
"""Reads ``imagesize`` may make of a sample: a JPEG's SOF comes after a few APPn segments, but a hostile one is
64 KiB of 4-byte segments (or of bytes between markers), each a read or more (16,000 of them took 64 ms; a
512 KiB sample 8 times that)."""


class _Reads(io.BytesIO):
    """A sample ``imagesize`` reads at most :data:`_MOST_IMAGE_READS` times: then a read raises ``EOFError``, which
    ``imagesize.get`` turns into ``(-1, -1)`` as it does any error."""

    def __init__(self, sample: bytes) -> None:
        super().__init__(sample)
        self.reads = 0

    def read(self, size: int | None = -1, /) -> bytes:
        self.reads += 1
        if self.reads > _MOST_IMAGE_READS:
            raise EOFError("an image header of more reads than any real one")
        return super().read(size)


_ZIP_HEADER = struct.Struct("<4sHHHHHIIIHH")
"""A zip local file header (APPNOTE.TXT 4.3.7): signature, version, flags, method, time, date, CRC-32, compressed
and uncompressed sizes, name and extra field lengths; the name follows, then the extra field, then the data."""


class _ZipHeader(NamedTuple):
    """A zip member as its local file header gives it: ``name``, ``method`` (0: stored, 8: deflated...),
    ``flags``, ``packed`` (bytes of its data as stored; -1 when the header does not give them) and ``offset`` (byte
    offset of its data: the header's end, past the name and the extra field)."""

    name: str
    method: int
    flags: int
    packed: int
    offset: int


def _zip_headers(sample: bytes, most: int = _MOST_MEMBERS) -> list[_ZipHeader]:
    """A zip's first members (at most ``most``), from the local file headers in ``sample`` (the central directory
    is at the end, past the first bytes): each header's compressed size leads to the next; a member whose size its
    header does not give (a data descriptor follows it, flag bit 3; or a Zip64 one without its extra field) is the
    last listed (``packed`` -1).
    Names are UTF-8 when flag bit 11 says so, else code page 437 (APPNOTE.TXT appendix D). Never raises."""
    found: list[_ZipHeader] = []
    at = 0
    while len(found) < most and at + _ZIP_HEADER.size <= len(sample) and sample.startswith(b"PK\x03\x04", at):
        _, _, flags, method, _, _, _, packed, _, name_bytes, extra = _ZIP_HEADER.unpack_from(sample, at)
        start = at + _ZIP_HEADER.size
        name = sample[start : start + name_bytes].decode("utf-8" if flags & 0x800 else "cp437", "replace")
        if packed == 0xFFFFFFFF:  # Zip64: the sizes are in the extra field (a local header holds both)
            packed, _, _ = zip64_sizes(sample[start + name_bytes : start + name_bytes + extra], packed, 0xFFFFFFFF, 0)
        known = not ((flags & 0x8 and not packed) or packed == 0xFFFFFFFF)
        found.append(_ZipHeader(name, method, flags, packed if known else -1, start + name_bytes + extra))
        if not known:
            break
        at = start + name_bytes + extra + packed
    return found


def zip64_sizes(extra: bytes, packed: int, unpacked: int, local: int) -> tuple[int, int, int]:
    """``(packed, unpacked, local)``: the compressed and uncompressed sizes (bytes) and the local header's offset
    (bytes from the archive's start; a local header gives 0) a zip header writes, those written ``0xFFFFFFFF``
    taken from its Zip64 extra field ``extra`` (APPNOTE.TXT 4.5.3: id 1, 8 bytes each, little-endian, in the order
    uncompressed, compressed, offset, of those so written). Never raises: a field the extra does not hold stays as
    written."""
    wanted = [name for name, value in (("unpacked", unpacked), ("packed", packed), ("local", local))
              if value == 0xFFFFFFFF]
    values = {"packed": packed, "unpacked": unpacked, "local": local}
    pos = 0
    while wanted and pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, pos)
        if tag == 1:
            for n, name in enumerate(wanted[: length // 8]):
                values[name] = int.from_bytes(extra[pos + 4 + 8 * n : pos + 12 + 8 * n], "little")
            break
        pos += 4 + length
    return values["packed"], values["unpacked"], values["local"]


def _zip_names(sample: bytes, most: int = 16) -> list[str]:
    """The names of a zip's first members (:func:`_zip_headers`)."""
    return [header.name for header in _zip_headers(sample, most)]


def _stored(header: _ZipHeader) -> bool:
    """Whether a zip member's data is its bytes as they are: stored (method 0), not encrypted (flag bit 0), of a
    size its header gives."""
    return header.method == 0 and not header.flags & 0x1 and header.packed >= 0


def _files(sample: bytes) -> list[_ZipHeader]:
    """The first members of the zip starting ``sample`` that are no directory (whose name ends in ``/``)."""
    return [header for header in _zip_headers(sample) if not header.name.endswith("/")]


def _zip_plain(sample: bytes) -> bool:
    """Whether a member (no directory) among the zip's first is stored uncompressed (:func:`_stored`)."""
    return any(map(_stored, _files(sample)))


def _zip_stored_detail(sample: bytes, size: int) -> str:
    """What a shape says of a zip some of whose first members are stored: ``"N members stored (uncompressed)"``, or
    ``"K of N members stored (uncompressed), M compressed"``, and ``" in the first 512 KiB"`` when ``sample`` is
    not the whole content (of ``size`` bytes)."""
    files = _files(sample)
    stored = sum(map(_stored, files))
    said = (f"{plural(len(files), 'member')} stored (uncompressed)" if stored == len(files) else
            f"{stored} of {plural(len(files), 'member')} stored (uncompressed), {len(files) - stored} compressed")
    return said + (f" in the first {kib(len(sample))}" if size > len(sample) else "")


def zip_members(head: bytes, most: int = _MOST_MEMBERS) -> tuple[list[TarMember], int]:
    """``(the members stored uncompressed among the first of the zip whose first bytes are head, as tar members --
    name, bytes, offset of their data, kind "file" or "dir" --, how many others, directories aside, are compressed
    or encrypted)``: a stored member's bytes are read by ``offset=`` and ``length=`` as a tar member's. Its data's
    offset is its local header's end (APPNOTE.TXT 4.3.7: the 30-byte header, the name and the local extra field); a
    member whose header is cut by the end of ``head`` is not listed. Never raises."""
    headers = _zip_headers(head, most)
    stored = [TarMember(h.name, h.packed, h.offset, "dir" if h.name.endswith("/") else "file")
              for h in headers if _stored(h) and h.offset <= len(head)]
    return stored, sum(1 for h in headers if not h.name.endswith("/") and not _stored(h))


def _tgz_names(sample: bytes) -> list[str]:
    """The first member names of the tar a gzip stream starting ``sample`` holds (``[]``: not a tar, or unreadable):
    at most :data:`_TGZ_BYTES` of it decompressed."""
    try:
        data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(sample, _TGZ_BYTES)
    except zlib.error:
        return []
    if data[TAR_MAGIC_AT : TAR_MAGIC_AT + 5] != b"ustar":
        return []
    return [member.name for member in tar_members(data, 16)]


def compressed_format(shape: str | None) -> str | None:
    """The compressed format (one of :data:`COMPRESSED`) a binary entry's stored ``shape`` names when it says
    ``compressed`` after it (``"binary, 3 KiB, gzip, compressed; ..."``: no search finds its text), else ``None`` --
    a zip whose first members hold stored ones says ``"zip, 5 members stored (uncompressed)"`` instead. Never
    raises."""
    if not shape or not shape.startswith("binary, "):
        return None
    named = shape.split(";", 1)[0].split(", ")[2:]
    return named[0] if len(named) > 1 and named[0] in COMPRESSED and named[1] == "compressed" else None
