"""Range and line reads, and searches, bounded at a byte (``read_handle(..., end=N)``): a member of a tar or zip
read by its offset and length goes on, by its ``next_call``, within the member and ends where it ends -- not into the
next member's header or the archive's padding, as a read of the same length from the last byte shown did -- and a
search with ``offset=`` and ``end=`` looks inside the member alone (:func:`check_search_end`). A read of its last
lines (``line=-N``) takes ``offset=`` too, the member's first byte, as its lower bound (:func:`lines_within`): it
and the reads its ``next_call`` chain back to stop there, never showing the member's header or an earlier member.
In an uncompressed tar, a read of the last lines before ``end=`` given no ``offset=`` takes the first byte of the
member whose data holds byte ``end - 1`` as that bound (:func:`member_start`).

A bounded read treats byte ``end`` as the content's end: it shows no byte from there, its ``remaining`` counts the
bytes before it, its ``next_call`` carries ``end`` (and is ``None`` once the read reaches it), and a character the
bound cuts is shown as the content's last would be (its bytes as U+FFFD), never completed from past the bound.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from scratchfs.api.archive import zip_data_offset
from scratchfs.api.results import LineSlice, Slice
from scratchfs.api.shape_binary import binary_kind
from scratchfs.api.tar_headers import TAR_BLOCK, TarWalk
from scratchfs.api.zip_directory import zip_directory
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import DEFAULT_LINES, DEFAULT_READ_BYTES, MAX_READ_BYTES
from scratchfs.foundation.text import plural

__all__ = ["bounded_lines", "bounded_miss", "bounded_range", "check_end", "check_search_end", "last_lines_within",
           "line_past_end", "lines_within", "member_start", "offset_past_end", "past_bytes", "past_lines", "tail_line"]


def check_end(end: object) -> int | None:
    """``end`` as given to ``read_handle`` (the byte offset in the content the read stops before; ``None``: no
    bound), checked: an integer of at least 1. Returns it, or ``None``. Raises InvalidArgument (not an integer, or
    below 1); a bound past the content's size is refused by :func:`bounded_range`, :func:`bounded_lines` and
    :func:`check_search_end`, which know it."""
    return None if end is None else check_int(end, "end", 1)


def check_search_end(end: int | None, offset: int, size: int) -> int | None:
    """``end`` (checked by :func:`check_end`) of a search from byte ``offset`` of content of ``size`` bytes: the
    search looks at bytes ``[offset, end)`` only, as ``re.finditer(content, offset, end)`` does (a member's bytes:
    offset= its offset, end= where it ends). Returns it, or ``None``. Raises InvalidArgument (``end`` past the
    size, or not after ``offset``)."""
    if end is not None:
        _check_within(offset, end, size)
    return end


def bounded_miss(offset: int, end: int, size: int, name: str = "end") -> str:
    """What a search bounded at ``end`` (from ``offset``, content of ``size`` bytes; ``name``: the argument that
    gave ``end``, ``before`` for a search from the end) that found nothing says: where it looked, that it looked
    nowhere else, and the call that looks on (a search from the end is bounded by ``before=`` too)."""
    searched = f"{plural(end - offset, 'byte')} of {size:,}"
    on = ("the same call without end= searches on to the content's end" if name == "end" else  # (before= bounds
          f"the same call without end= and with before={size} searches on to the content's end")  # where they start)
    return f"no match in bytes {offset}-{end} (offset= to {name}=), the only bytes searched ({searched}): {on}"


def _check_within(start: int, end: int, size: int) -> None:
    if end > size:
        raise InvalidArgument(f"end={end} is past the content's end ({plural(size, 'byte')}): give end= at most {size}")
    if end <= start:
        raise InvalidArgument(f"end={end} is not after the read's start (byte {start}): end= is the byte the read "
                              "stops before")


def bounded_range(sl: Slice, end: int | None) -> Slice:
    """``sl`` (a range read) bounded at byte ``end`` (``None``: unbounded, ``sl`` itself): its bytes from ``end`` on
    left out, its cursor stopping there. Raises InvalidArgument (``end`` past the content's size, or not after the
    range's start)."""
    if end is None:
        return sl
    _check_within(sl.offset, end, sl.size)
    return replace(sl, end=end).prefix(end - sl.offset)


def bounded_lines(ls: LineSlice, end: int | None) -> LineSlice:
    """``ls`` (a line read) bounded at byte ``end`` (``None``: ``ls`` itself): its bytes from ``end`` on left out (a
    line the bound cuts is the last, unterminated, not cut: nothing follows it in the read), its cursor stopping
    there. Raises InvalidArgument (``end`` past the content's size, or not after the read's start)."""
    if end is None:
        return ls
    _check_within(ls.offset, end, ls.size)
    ls = replace(ls, end=end)
    if ls.offset + len(ls.data) < end:
        return ls
    data = ls.data[: end - ls.offset]
    newlines = data.count(b"\n")
    return replace(ls, data=data, lines=newlines + (not data.endswith(b"\n")), cut=False, next_offset=None,
                   next_line=None)


def tail_line(line: object, end: int | None, line_at: Callable[[int], int]) -> object:
    """The line a negative ``line`` names in a line read bounded at byte ``end``: counted back from the line holding
    byte ``end - 1`` (the last line before the bound: ``line=-5, end=E`` is the last 5 lines of a member ending at
    E), as ``tail -n`` counts (one before the first line is the first); ``line_at(offset)`` gives the 1-based line
    holding a content byte. ``line`` itself when it is not a negative integer or there is no bound. Raises
    InvalidArgument (``end`` past the content's end: what ``line_at`` raises for its byte, said of ``end``)."""
    if end is None or type(line) is not int or line >= 0:
        return line
    try:
        last = line_at(end - 1)
    except InvalidArgument:
        raise InvalidArgument(f"end={end} is past the content's end: give end= at most its size") from None
    return max(1, last + 1 + line)


_WALK_AHEAD = 16 * 1024  # bytes member_start's walk reads at once after a header this near the last: the headers of
# small members, 32 a range read (a read each cost ~0.1 ms: 3.1 s for 20,000 members, 0.8 s so); none after a larger
# member's (read ahead there, 2,000 members of 100 KB took 0.33 s for 0.20)


def member_start(read: Callable[[int, int], Slice], end: int, again: Callable[..., Call] | None = None,
                 key: Callable[[], str] | None = None) -> int | None:
    """The first byte of the archive member whose data holds byte ``end - 1`` (``end``: a line read's bound,
    checked), when the content (``read(offset, length)``: its range reads) is an uncompressed tar or a zip as a stub
    tells one (:func:`~scratchfs.api.shape_binary.binary_kind`): a tar walked header by header from its start
    (:class:`~scratchfs.api.tar_headers.TarWalk`, up to that member), a zip's members found from its central directory
    (:func:`~scratchfs.api.zip_directory.zip_directory`, kept under ``key()`` -- the entry's identity, asked after the
    first read -- for the next read of the same zip; then the one local header read whose member holds the byte, a
    compressed one's too: its bytes are its member's); ``None`` when the content is neither or its headers end
    before the byte (a header that is not one). ``again(offset=, end=)``: the read itself with those bounds, for the
    refusal.

    Raises:
        InvalidArgument: byte ``end - 1`` lies in no member's data (a header, a tar's padding, a zip's central
            directory): the refusal names the data ranges of the members before and after it and, when ``again`` is
            given, the calls that read their last lines; a zip with no central directory (cut short), whose members
            ``end=`` alone does not tell, or one whose directory names more than 65,536 members (:data:`_ZIP_MOST`,
            not walked for each read): give ``offset=`` beside it.
        NotFound, CorruptBlob, StoreBusy: what ``read`` raises."""
    first = read(0, TAR_BLOCK)
    kind = binary_kind(first.data)

    def whole(at: int, length: int) -> bytes:  # (the bytes asked, to the content's end: a range read stops at
        parts = []  # MAX_READ_BYTES, less than a zip's end record search or a long tar name asks for)
        while length > 0 and (got := read(at, min(length, MAX_READ_BYTES)).data):
            parts.append(got)
            at, length = at + len(got), length - len(got)
        return b"".join(parts)

    if kind == "tar":
        found = _tar_around(whole, first.size, end)
    elif kind == "zip":
        found = _zip_around(whole, first.size, end, None if key is None else key())
        if found is None:
            raise InvalidArgument(
                f"end={end} is in a zip with no central directory (cut short): end= alone does not tell which "
                "member's last lines to read; give offset= the member's first byte (its data's, after its local "
                "header: 30 bytes, its name and its extra field) beside end=")
    else:
        return None
    if found is None:
        return None
    if isinstance(found, int):
        return found
    raise _in_no_member(kind, end, *found, again)


_ZIP_MOST = 65_536
"""The most central entries :func:`member_start` walks for the member holding a byte (~0.6 s; a directory of 1.5
million entries took 7 s a read)."""
_ZIP_BACK = 64  # central entries looked at back from byte end - 1 for the member holding it (30-byte reads each)
_Span = tuple[str, int, int]  # (a member's name, its data's offset, its bytes)


def _in_no_member(kind: str, end: int, before: _Span | None, after: _Span | None,
                  again: Callable[..., Call] | None) -> InvalidArgument:
    """The refusal of a read of the last lines before ``end``, a byte in no member's data of a ``kind`` archive:
    the members ``before`` and ``after`` it (``None``: none), their data ranges and the reads of their last lines."""
    where = ("a header, a tar's padding or its end blocks" if kind == "tar" else
             "a local header or the central directory")
    parts: list[str | Call] = [f"end={end} lies in no member's data ({where}): no member's last lines end there"]
    for said, span in (("the member before it", before), ("the member after it", after)):
        if span is not None:
            name, offset, length = span
            parts.append(f"; {said}, {name!r}, is bytes {offset}-{offset + length}")
            if again is not None:
                parts += [", its last lines: ", again(offset=offset, end=offset + length)]
    if before is None and after is None:
        parts.append("; no member around it holds data: view=\"members\" lists the members")
    return InvalidArgument(Advice.of(*parts))


def _tar_around(read: Callable[[int, int], bytes], size: int, end: int) -> int | tuple[_Span | None, _Span | None] \
        | None:
    """:func:`member_start` of a tar: the member's first byte, or the members with data before and after ``end``
    when byte ``end - 1`` is in none's data, or ``None``: the walk ended (a header that is not one) before it."""
    ahead = [0, b""]  # (the bytes read at byte ahead[0]: read ahead where the last header was near, small members)

    def within(at: int, length: int) -> bytes:  # (a header claiming data past the end: the walk ends there)
        if at >= size:
            return b""
        if not ahead[0] <= at <= at + length <= ahead[0] + len(ahead[1]):
            near = at - ahead[0] - len(ahead[1]) < _WALK_AHEAD  # (the data skipped since the bytes read last)
            ahead[:] = at, read(at, max(length, _WALK_AHEAD if near else 0))
        return ahead[1][at - ahead[0] : at - ahead[0] + length]

    before: _Span | None = None
    walk = TarWalk(within)
    for member, _ in walk:
        if member.offset >= end:
            return before, (member.name, member.offset, member.size) if member.size else None
        if member.offset < end <= member.offset + member.size:
            return member.offset
        if member.size:
            before = member.name, member.offset, member.size
    return (before, None) if walk.ended == "end" else None


def _zip_around(read: Callable[[int, int], bytes], size: int, end: int, key: str | None) \
        -> int | tuple[_Span | None, _Span | None] | None:
    """:func:`member_start` of a zip: the member's first byte, or the members with data before and after ``end``
    (by their local headers' order) when byte ``end - 1`` is in none's data; ``None``: no central directory. The
    directory is kept under ``key`` (:func:`~scratchfs.api.zip_directory.zip_directory`). Raises InvalidArgument for
    a directory of more than :data:`_ZIP_MOST` entries."""
    found = zip_directory(read, size, key, _ZIP_MOST)
    if found is None:
        return None
    if found.more:
        raise InvalidArgument(
            f"end={end} is in a zip whose central directory names more than {_ZIP_MOST:,} members: end= alone is not "
            "looked up among so many (each read would walk them all); give offset= the member's first byte beside "
            "end= -- view=\"members\" lists each member's offset and the read that ends at its end")
    at = found.before(end)  # (the last member whose local header starts before the byte)

    def span(index: int) -> tuple[int, int, int] | None:  # (its index, its data's offset and bytes held)
        if not 0 <= index < len(found.locals):
            return None
        offset = zip_data_offset(read, found.locals[index])  # (data that a header says runs into the directory:
        held = min(found.lengths[index], found.cd_start - offset)  # to its start, as the listing's read of it)
        return None if offset < 0 or held <= 0 else (index, offset, held)

    before = after = None  # (the nearest members with a local header: a directory may name a header where none
    for index in range(at, max(-1, at - _ZIP_BACK), -1):  # is, or members that overlap -- one of those before may
        spanned = span(index)  # hold the byte)
        if spanned is not None and spanned[1] < end <= spanned[1] + spanned[2]:
            return spanned[1]
        if spanned is not None and end <= spanned[1]:  # (in its local header)
            after = after or spanned
        elif spanned is not None:
            before = before or spanned
    index = at + 1
    while after is None and index < min(len(found.locals), at + 1 + _ZIP_BACK):
        after, index = span(index), index + 1

    def named(one: tuple[int, int, int] | None) -> _Span | None:  # (a name read only for a refusal)
        return None if one is None else (found.name(read, one[0]), one[1], one[2])

    return named(before), named(after)


def lines_within(ls: LineSlice, start: int | None, end: int | None,
                 lines_from: Callable[[int], LineSlice]) -> LineSlice:
    """``ls`` (a read from the end, ``line=-N``) bounded below at byte ``start`` (``offset=`` beside it: a member's
    first byte; ``None``: ``ls`` itself): when it starts before ``start`` (it named a line before the member's
    first, or the line holding ``start`` begins before it, in the member's header), the lines from ``start`` on
    instead (``lines_from(offset)``: the line read from that byte, bounded at ``end``); ``start`` is kept, so its
    ``next_call`` goes back no further. Raises InvalidArgument (``end`` not after ``start``)."""
    if start is None:
        return ls
    if end is not None:
        _check_within(start, end, ls.size)
    if ls.offset < start:
        ls = replace(lines_from(start), asked=ls.asked)
    return replace(ls, start=start)


def last_lines_within(ls: LineSlice, cap: int, read: Callable[[int, int], bytes],
                      lines_from: Callable[[int], LineSlice]) -> LineSlice:
    """A read from the end (``ls``, ``asked`` set) that ``cap`` (bytes) stopped before its bound (``end`` or the
    content's end), as its last whole lines within ``cap`` bytes before the bound -- so it reaches the bound, and its
    next_call goes back from the first line it keeps (read on by bytes, a page stopped short ended the walk back at
    the bound). ``read(offset, length)`` gives content bytes, ``lines_from(offset)`` the line read from that byte
    (bounded at ``end``). When its last line alone is longer than ``cap``: that line's last bytes (``inside``: its
    next_call reads the bytes before them). ``ls`` itself when it reached the bound or did not ask for lines up to
    it."""
    if ls.asked is None or ls.next_offset is None:
        return ls
    at = ls.bound - cap - 1  # (from the byte before them: is the first one a line's first?)
    if at < ls.offset:
        return ls
    start = at + read(at, ls.bound - at).find(b"\n") + 1
    inside = start <= at or start >= ls.bound  # no line starts in them: the last line's last bytes, from a
    last = lines_from(at + 1 if inside else start)  # character's first (LineSlice.last_bytes)
    if ls.first_line + ls.requested <= last.first_line + last.lines - 1:  # (it did not ask up to the bound)
        return ls
    last = replace(last, asked=ls.asked, requested=ls.requested, inside=inside, start=ls.start)
    return last.last_bytes(len(last.data)) if inside else last


def offset_past_end(key: str, offset: int, size: int, kind: str = "handle", search: str | None = None,
                    end: int | None = None, again: Callable[..., Call | str] | None = None) -> InvalidArgument:
    """The refusal of a read from byte ``offset`` past the end of ``key``'s ``size`` bytes (``kind`` ``"handle"``
    or ``"scratch"``), saying how to go on: offsets run from 0 to the size, and the call that reads its last bytes
    (:data:`~scratchfs.foundation.limits.DEFAULT_READ_BYTES`, read_handle's default length), e.g. ``offset 999999
    is past the end of h_... (70,865 bytes: offsets 0 to 70,865); its last bytes: read_handle(handle="h_...",
    offset=66769)``. ``search`` (``"search"``, ``"count"``, or ``"view"``: a search of
    a text view) makes it a search's: from ``offset=0`` it looks through all of it, and a plain search's
    ``before=<size>`` finds the last matches (a count or a view's search takes no ``before``). ``end``: the search's
    ``end=`` bound, if any: past the size, the calls named go without it (the same bytes, and a bound past the
    content is refused); within it, they keep it (from ``offset=0`` to it; ``before=<end>``). ``again(words,
    **changed)``: the search itself with ``changed`` (``offset``, ``before``, ``end``; ``None`` leaves one out) as a
    :class:`~scratchfs.foundation.calls.Call`, or ``words`` (a needle too long to repeat,
    :func:`~scratchfs.api.search_calls.same_search`); without it, the words alone."""
    where = f"offset {offset} is past the end of {key} ({plural(size, 'byte')}: offsets 0 to {size:,})"
    if search is not None:
        word = "count" if search == "count" else "search"
        named = again or (lambda words, **_: words)
        within = end is not None and end <= size
        bound = end if within else None
        first = named(f"the same {word}{' without end=' if end is not None and not within else ''} from offset=0",
                      offset=None, end=bound)
        last = Advice.of(", and ", named(f"with before={bound or size} instead of offset= it", offset=None,
                                         before=bound or size, end=bound),
                         " finds the last matches" + (" before it" if within else "")) if search == "search" else ""
        return InvalidArgument(Advice.of(f"{where}; ", first, f" looks through bytes 0 to end={end}" if within
                                         else " looks through all of it", last))
    tail = max(0, size - DEFAULT_READ_BYTES)  # (a read_handle range read's default length: its call gives none)
    call = Call.of("scratch_read", key=key, offset=tail) if kind == "scratch" else \
        Call.of("read_handle", handle=key, offset=tail)
    return InvalidArgument(Advice.of(f"{where}; its last bytes: ", call))


def line_past_end(handle: str, line: int, lines: int) -> InvalidArgument:
    """The refusal of a line read from ``line``, past the last of ``handle``'s ``lines`` lines, naming the call
    that reads its last lines (at most :data:`~scratchfs.foundation.limits.DEFAULT_LINES`): ``line 9999 is past
    the end of h_... (641 lines): line=-1 is its last line; read_handle(handle="h_...", line=-50, lines=50) reads
    its last 50``."""
    count = max(1, min(lines, DEFAULT_LINES))
    return InvalidArgument(Advice.of(
        f"line {line} is past the end of {handle} ({plural(lines, 'line')}): line=-1 is its last line; ",
        Call.of("read_handle", handle=handle, line=-count, lines=count), f" reads its last {plural(count, 'line')}"))


def past_lines(ls: LineSlice, line: object, lines: int | None) -> LineSlice:
    """``ls`` (a line read from byte ``offset=``; ``line``, ``lines``: the read's arguments) with the note of a read
    from the content's end, which shows no line (:attr:`~scratchfs.api.results.LineSlice.past`): why, and the call
    that reads the last lines -- the same ``line=-N`` without ``offset=``, or the last ``lines`` (at most 50) --, e.g.
    ``offset=641 is the content's end (641 bytes): no line starts there; the last lines: read_handle(handle="h_...",
    line=-3)``. ``ls`` itself when it shows a byte, or the content is empty."""
    if ls.data or ls.offset < ls.size or not ls.total_lines:
        return ls
    back = type(line) is int and line < 0
    count = min(lines or DEFAULT_LINES, ls.total_lines)
    call = Call.of("read_handle", handle=ls.handle, line=line if back else -count, lines=lines if back else count,
                   encoding=ls.encoding)
    said = (f"offset={ls.offset} is the content's end ({plural(ls.size, 'byte')}): "
            + (f"beside line={line} it is the first byte the read may show, and no line lies after it" if back else
               "no line starts there"))
    return replace(ls, past=Advice.of(f"{said}; the last lines: ", call))


def past_bytes(sl: Slice) -> Advice | None:
    """The note of a range read from ``offset=`` the content's end, which shows no byte: why, and the call that reads
    its last bytes (as :func:`offset_past_end` names it); ``None`` when it shows a byte, or the content is empty."""
    if sl.data or sl.offset < sl.size or not sl.size:
        return None
    said = offset_past_end(sl.handle, sl.offset, sl.size, sl.kind).advice
    return Advice.of(f"offset={sl.offset} is the content's end ({plural(sl.size, 'byte')}): no byte follows it; its "
                     "last bytes: ", *said.calls)
