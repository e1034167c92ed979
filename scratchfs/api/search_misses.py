"""A search of a stored content (no view), and what it says when it finds nothing from the start (``next_call``
``None``): the way on when the text the model reads is not the bytes the search looked at -- an HTML page's markup,
terminal output's escape sequences and overstrikes, a text that is not UTF-8, compressed bytes -- so that a miss
there is not silent. Every note keeps its reply within budget: a call in a note repeats a needle or pattern of at most
:data:`HINT_CALL_BYTES`, else names it ("the same call")."""

from __future__ import annotations

import json
import re
from codecs import BOM_UTF8
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from scratchfs.api.bounds import bounded_miss, check_search_end, offset_past_end
from scratchfs.api.empty_places import search_places
from scratchfs.api.encodings import WIDE
from scratchfs.api.entries import reading
from scratchfs.api.miss_hints import WITHOUT_OFFSET, MissNote, no_match_in, plain_miss, whole_too
from scratchfs.api.results import Matches, bounded_resume, stopped_note
from scratchfs.api.search_calls import HINT_CALL_BYTES, same_search
from scratchfs.api.shape import binary_format
from scratchfs.api.shape_binary import WIDE_CODECS, compressed_format
from scratchfs.api.shape_said import not_utf8_said, split_by_controls
from scratchfs.api.shape_settings import FIND_KEY
from scratchfs.api.stub_reads import placeholder_said
from scratchfs.api.view_search import RENDERED_KINDS, rendered_hint
from scratchfs.api.views import reply_size
from scratchfs.engine.pattern_crlf import BOM_START, CRLF_END, CRLF_END_EXACT, bom_line_starts, crlf_line_ends
from scratchfs.engine.search import Matcher, Sink, search
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.limits import DEFAULT_CONTEXT, DEFAULT_MATCHES
from scratchfs.foundation.text import invalid_utf8_bytes, utf8_partial_tail

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

__all__ = ["HINT_CALL_BYTES", "NOT_UTF8_MISS", "SNIFFED_UTF8_BYTES", "compressed_note",
           "single_byte_note", "stored_search", "text_view_hint", "utf16_note", "whole_miss_note"]

SNIFFED_UTF8_BYTES = 64 * 1024
"""Bytes of a content's start read, on a miss of non-ASCII text whose stored shape does not count bytes not UTF-8
(a table's, a JSON document's), to tell whether it is UTF-8."""


def stored_search(scope: Scope, asked: Matches, matcher: Matcher, offset: int, how: tuple[int, type[Sink], int]
                  ) -> Matches:
    """The matches of ``matcher`` in the stored content of ``asked.handle`` from byte ``offset``, as
    :meth:`~scratchfs.api.scope.Scope.search` finds them (``asked``: the empty result carrying the search's settings,
    its ``end`` the byte the content searched ends at; ``how``: ``(bytes of context the engine keeps, the sink,
    cap)``), with :func:`text_view_hint`'s note on a miss (a bounded one's: where it looked).
    A miss of non-ASCII text from the start reads the content's first :data:`SNIFFED_UTF8_BYTES` bytes when its shape
    does not say whether they are UTF-8.

    Raises:
        InvalidArgument: ``offset`` past the end; ``end`` past it or not after ``offset``.
        PatternTimeout, PatternTooLong, NotFound (Expired, Deleted), CorruptBlob: as the search raises them.
    """
    reach, sink, cap = how
    handle = asked.handle
    with scope.store.entries.open(scope.run_id, scope.agent_id, "handle", handle) as opened:
        size, kind = opened.entry.size, opened.entry.content_type
        if offset > size:
            raise offset_past_end(handle, offset, size, search="search", end=asked.end,
                                  again=lambda words, **changed: same_search(asked, words, **changed))
        end = check_search_end(asked.end, offset, size)
        with reading(handle):
            found = search(opened.reader, matcher, offset, reach, asked.max_matches, cap, opened.lines.line_of_frame,
                           sink, end, floor=0 if end is None else offset)  # (bounded: bytes [offset, end) alone)
            result = replace(asked, windows=found.windows, size=size, next_offset=found.next_offset,
                             binary=kind == "binary", held=found.held,
                             stopped=stopped_note(found.stopped, scope.store.settings.pattern_timeout))
            if end is not None:  # (bounded: the hints of a miss over the whole content do not apply)
                missed = not result.windows and result.next_offset is None
                if missed:
                    return search_places(opened, replace(result, note=bounded_miss(offset, end, size)), offset, end)
                resume = bounded_resume(result, result.windows, result.next_offset)
                return replace(result, next_offset=resume, left=None if resume == result.next_offset else
                               result.next_offset)
            return search_places(opened, _hinted(opened, result, offset), offset, None)  # (an empty-only pattern's)


def _hinted(opened: Any, result: Matches, offset: int, said: bool = True) -> Matches:
    """``result`` (a search of ``opened``'s stored content from byte ``offset``) with :func:`text_view_hint`'s note
    on a miss from the start: the content's first :data:`SNIFFED_UTF8_BYTES` bytes read when the note needs them
    (non-ASCII text sought in content whose shape does not say whether it is UTF-8; a pattern holding ``$``); a miss
    it gives no reason for: :func:`~scratchfs.api.miss_hints.plain_miss`'s (``said``: with where it looked). A
    search of UTF-16 text (``result.encoding``: its needle the text's bytes) says where it looked alone: the notes
    for text sought as UTF-8 bytes named the same search with the needle's bytes as its characters. An
    HTML page's source that matches ignoring case gives that match's call (``ignore_case=true``) instead of the
    search of its text view, which is as case-sensitive and would miss it too."""
    size, kind, shape = opened.entry.size, opened.entry.content_type, opened.entry.shape
    if result.encoding in WIDE:  # (UTF-16 sought as its bytes: no hint of UTF-8 bytes, of a pattern, applies)
        missed = not result.windows and result.next_offset is None and result.stopped is None
        return replace(result, note=no_match_in(offset, size) if said else None) if missed else result
    not_utf8 = not_utf8_said(shape)
    missed = _missed(result, offset)  # (what follows only then: a pattern parsed again, a read)
    sniff_utf8 = missed and not _sought(result).isascii() and not not_utf8 and kind != "binary"
    fixed = crlf_line_ends(result.pattern, result.ignore_case, size > 0 and opened.reader.read(size - 1, 1) == b"\r"
                           ) if missed and result.pattern and "$" in result.pattern else None  # (a last lone \r)
    starts = missed and result.pattern is not None and "^" in result.pattern
    head = opened.reader.read(0, min(size, SNIFFED_UTF8_BYTES)) if sniff_utf8 or fixed or starts else b""
    if sniff_utf8 and head:
        not_utf8 = invalid_utf8_bytes(head[: len(head) - utf8_partial_tail(head)] if len(head) < size else head) > 0
    fixed = fixed if b"\r\n" in head else None
    bom = bom_line_starts(fixed or result.pattern or "", result.ignore_case) if starts and head.startswith(
        BOM_UTF8) else None  # (a mark before the first line: ^ written past it, each $ too when lines end in CRLF)
    hinted = text_view_hint(result, kind, offset, shape, not_utf8, bom or fixed, bom is not None, fixed is not None)
    if isinstance(hinted.note, MissNote) and hinted.note.plain == _HTML_MISS:  # (a page's source that holds it in
        # another case: that match, found, rather than a search of the text view, which misses it too)
        cased = plain_miss(opened, hinted, offset, said, spelled=False)
        if cased is not None and not isinstance(cased, str):
            return replace(hinted, note=cased)
        return hinted
    if hinted.note is None and not hinted.windows and hinted.next_offset is None and hinted.stopped is None:
        note = plain_miss(opened, hinted, offset, said)  # (where it looked; a spelling that matches: miss_hints)
        if offset and isinstance(note, str):  # (no spelling hint: the bytes before offset= were not searched,
            # and the search of them all is the way on)
            note = whole_too(note, same_search(hinted, WITHOUT_OFFSET, offset=None))
        return replace(hinted, note=note)
    return hinted


def whole_miss_note(opened: Any, handle: str, needle: bytes | None, pattern: str | None, ignore_case: bool,
                    budget: int | None = None, said: bool = False, encoding: str | None = None
                    ) -> str | Advice | None:
    """The note of a search over the whole stored content of ``opened`` (an open entry, read under
    :func:`~scratchfs.api.entries.reading`) that found nothing -- a count (``count=true``) from byte 0, or the last
    matches (``before=<size>``) from byte 0 --: :func:`text_view_hint`'s, as a forward search from the start that
    found nothing says it (its call a forward search, with the default context and number of matches; a spelling
    that matches, :func:`~scratchfs.api.miss_hints.plain_miss`, without where it looked unless ``said``: a search
    from the end shows no count that says it), or ``None`` when it says nothing; its calls repeat ``budget``, the
    reply budget the call gave; ``encoding``: UTF-16's, whose ``needle`` is its bytes (where it looked alone).
    Raises what a read of the entry raises (NotFound, CorruptBlob)."""
    asked = Matches(handle, needle, [], opened.entry.size, None, pattern, ignore_case, DEFAULT_CONTEXT,
                    DEFAULT_MATCHES, opened.entry.content_type == "binary", budget=budget, encoding=encoding)
    return _hinted(opened, asked, 0, said=said).note


def _missed(found: Matches, offset: int) -> bool:
    """A search from the start that found nothing (no view)."""
    return not offset and not found.windows and found.next_offset is None and not found.view


def _same_call(found: Matches, **changed: object) -> Call:
    """The read_handle call of the search ``found`` answered, on the same handle with the same ``ignore_case``,
    ``context``, ``max_matches`` and ``budget``, with ``changed`` (its match or pattern, a view) instead."""
    return Call.of("read_handle", handle=found.handle, **changed, ignore_case=True if found.ignore_case else None,
                   context=found.context, max_matches=found.max_matches, budget=found.budget)

def _sought(found: Matches) -> str:
    """The needle or pattern of a search, as text."""
    return found.pattern if found.pattern is not None else (found.match or b"").decode("utf-8", "replace")


def _placeholder_note(found: Matches, what: dict[str, str], hit: bool = False,
                      shape: str | None = None) -> Advice | None:
    """What the search ``found`` from the start of ``what`` (``{"match": needle}`` or ``{"pattern": pattern}``) says
    when it sought the placeholder a stub's note writes for it (its words:
    :func:`~scratchfs.api.stub_reads.placeholder_said`), else ``None``; ``hit``: it found the placeholder's own
    text in the content (a ``du`` listing holding ``..._REGEX.rst``), windows the model did not look for. Its
    example is the same call (its ``ignore_case``, ``context``, ``max_matches`` and ``budget`` kept:
    :func:`_same_call`) with a pattern in the placeholder's place: for a settings stub's ``^[ \\t]*KEY\\s*[=:]``,
    the first key its ``shape`` names (:func:`_first_key`) in place of ``KEY``, or any key's pattern when it names
    none."""
    ((name, value),) = what.items()
    if (said := placeholder_said(name, value, hit)) is None:
        return None
    if name == "pattern" and value == FIND_KEY:
        key = _first_key(shape)
        return Advice.of(f"{said}, e.g. " if key != _ANY_KEY else f"{said}; every key: ",
                         _same_call(found, pattern=value.replace("KEY", key)))
    return Advice.of(f"{said} (match= a substring, pattern= a regular expression), e.g. ",
                     _same_call(found, pattern="ERROR|Traceback"))


_SETTINGS_KEY_RE = re.compile(r" keys?(?: \([^)]*\))?: ([^\[(…][^…]*?) \(line ")  # a settings shape's first key
# (its parentheses its own: Foo(bar) is a key of the ":" form)
_ANY_KEY = r"[A-Za-z_][^\s=:]*"
"""Any key of a settings dump, as a regular expression (shape_settings' keys start so and hold no blank, = or :)."""


def _first_key(shape: str | None) -> str:
    """The first key a settings ``shape`` names, as a regular expression (escaped; a group of dotted keys,
    ``kernel.*``, as ``kernel\\.\\S*``), else :data:`_ANY_KEY` (a shape whose first item is a ``[section]`` or a
    shortened key: ``Name`` was named, which most dumps hold no key of)."""
    found = _SETTINGS_KEY_RE.search(shape or "")
    if found is None:
        return _ANY_KEY
    key = found[1]
    return re.escape(key[:-2]) + r"\.\S*" if key.endswith(".*") else re.escape(key)


def _placeholder_hit(found: Matches, offset: int, shape: str | None = None) -> Matches:
    """``found`` (windows found, or a page after the first) with a note when it is a search from the start for a
    stub's placeholder (``pattern="REGEX"``, ``match="TEXT"``, the stub's call run as written) that found the
    placeholder's own text: its windows kept, the note saying it was the placeholder (a miss of one says so too)."""
    what = {"pattern": found.pattern} if found.pattern is not None else {"match": _sought(found)}
    if offset or not found.windows or found.view or (hit := _placeholder_note(found, what, True, shape)) is None:
        return found
    return replace(found, note=hit)


def text_view_hint(found: Matches, content_type: str | None, offset: int, shape: str | None = None,
                   not_utf8: bool = False, crlf_fix: str | None = None, bom: bool = False,
                   crlf: bool = False) -> Matches:
    """``found`` with a ``note`` naming the way on when a search of a stored content from its start found nothing
    (``next_call`` ``None``, no ``view``), ``shape`` its stored shape, ``not_utf8``: its bytes are not all UTF-8:

    * an HTML page: the search of the page's text view. Markup and character references split the text a model reads
      in the stub's preview (``caf&eacute; <b>au</b> lait`` holds no ``"café au lait"``).
    * terminal output holding escape sequences or backspace overstrikes
      (:func:`~scratchfs.api.shape_said.split_by_controls`; ``grep --color``, ``man``): the same needle with
      ``view="text"`` (:func:`~scratchfs.api.view_search.rendered_hint`), or for a pattern how to search the text.
    * content whose bytes are not UTF-8 (``not_utf8``, or its shape says so:
      :func:`~scratchfs.api.shape_said.not_utf8_said`)
      sought with non-ASCII characters, which a search writes as UTF-8 bytes: the pattern that seeks them as single
      bytes of Latin-1 or cp1252 as well (:func:`single_byte_note`).
    * UTF-16 text (its shape names ``UTF-16LE text`` or ``UTF-16BE text``: two bytes a character, which a search
      written as UTF-8 never finds): the pattern that seeks the text as those bytes (:func:`utf16_note`).
    * compressed content (gzip, zstd, zip, xz, bzip2: its shape says ``", compressed"``,
      :func:`~scratchfs.api.shape_binary.compressed_format`): a search cannot see inside it; what works
      (:func:`compressed_note`, about 330 bytes).
    * a pattern holding ``$`` over content whose lines end in ``\\r\\n`` (its first :data:`SNIFFED_UTF8_BYTES`
      bytes hold one): ``$`` matches before a ``\\n`` only, as Python's ``re`` has it -- after a CRLF line's
      ``\\r`` -- so ``value=7000$`` finds no ``value=7000\\r\\n``; ``crlf_fix`` is the pattern with each ``$``
      written ``\\r?$`` or exactly (:func:`~scratchfs.engine.pattern_crlf.crlf_line_ends`), which the note names.
    * a pattern holding ``^`` over content that starts with a UTF-8 byte order mark (``bom``: ``crlf_fix`` is then
      the pattern with each ``^`` written ``^(?:\\xef\\xbb\\xbf)?``, each ``$`` as above where lines end in CRLF:
      :func:`~scratchfs.engine.pattern_crlf.bom_line_starts`): ``^`` never matches at the first line's first
      character, which follows the mark; ``crlf``: the content's lines end in CRLF (told from its bytes, not from
      the pattern, which may hold ``\\r?$`` as written), which the note then says too.

    (A placeholder's own text found from the start: :func:`_placeholder_hit`.) A note ends with the exact call for
    a needle or pattern of at most :data:`HINT_CALL_BYTES` (in bytes of its JSON string; at most about 460 bytes of
    note), else names "the same call". ``found`` itself otherwise. Never raises."""
    if not _missed(found, offset):
        return _placeholder_hit(found, offset, shape)
    what = {"pattern": found.pattern} if found.pattern is not None else {"match": _sought(found)}
    if (placeholder := _placeholder_note(found, what, shape=shape)) is not None:  # (the stub's call run as written)
        return replace(found, note=placeholder)
    packed = compressed_format(shape) if content_type == "binary" else None
    if packed is not None:
        return replace(found, note=compressed_note(found.handle, packed, found.budget))
    if content_type == "binary" and (kind := binary_format(shape)) in WIDE_CODECS:
        return replace(found, note=utf16_note(found, kind or ""))
    spelled = reply_size(_sought(found)) <= HINT_CALL_BYTES
    if content_type == "html":
        return replace(found, note=_html_note(found, what, spelled))
    if content_type in RENDERED_KINDS and split_by_controls(shape):
        split = ("no match in the stored bytes, where escape sequences (colours) and backspace overstrikes split the "
                 "text the view shows")
        if found.pattern is not None:
            return replace(found, note=f"{split}: search that text with match= (a substring) and view=\"text\", or "
                                       "allow them in the pattern (e.g. (?:\\x1b\\[[0-9;]*[mK]|.\\x08)* between "
                                       "characters)")
        way = rendered_hint(found.handle, what["match"], found.ignore_case, found.context, found.max_matches, spelled,
                            found.budget)
        return replace(found, note=MissNote.made(split, f"{split}; search that text: ", way))
    if (not_utf8 or not_utf8_said(shape)) and not _sought(found).isascii():
        return replace(found, note=single_byte_note(found, spelled))
    return found if crlf_fix is None else replace(found, note=_line_ends_note(found, crlf_fix, bom, crlf))


def _line_ends_note(found: Matches, fixed: str, bom: bool, crlf: bool) -> Advice:
    """:func:`text_view_hint`'s note for a pattern whose anchors miss: ``fixed`` its rewrite, ``bom``: one for a
    UTF-8 byte order mark before the first line (each ``^`` written past it, and each ``$`` where ``crlf``, the
    content's lines end in CRLF), else for CRLF line ends (each ``$``)."""
    end = CRLF_END if CRLF_END_EXACT not in fixed else CRLF_END_EXACT  # (the CRLF's \r alone, where an item may
    # match a \r too, or a lone \r ends the content)
    what = f"each ^ written {BOM_START}" + (f" and each $ {end}" if crlf else "") if bom else f"each $ written {end}"
    call = _same_call(found, pattern=fixed) if reply_size(fixed) <= HINT_CALL_BYTES else f"the same call with {what}"
    if bom:
        return Advice.of("no match: the content starts with a UTF-8 byte order mark (EF BB BF), which stands before "
                         f"its first line, so ^ does not match at that line's first character: write {BOM_START} "
                         f"for a line's start{f', and {end} for its end (its lines end in CRLF)' if crlf else ''}: ",
                         call)
    return Advice.of("no match: the content's lines end in \\r\\n, and $ matches before \\n only (as Python's re has "
                     f"it), after a line's \\r: write {end} for a line's end: ", call)


_HTML_MISS = "no match in the page's HTML source, where tags and character references (&eacute;, &nbsp;) split its text"


def _html_note(found: Matches, what: dict, spelled: bool) -> MissNote:
    """:func:`text_view_hint`'s note for an HTML page: the same search of the text the page shows (its ``plain``:
    where it looked and why)."""
    call = _same_call(found, **what, view="text") if spelled else 'the same call with view="text"'
    return MissNote.made(_HTML_MISS, _HTML_MISS, "; search the text the page shows: ", call)


_DECOMPRESSORS = {"gzip": "gunzip", "zstd": "zstd -d", "zip": "unzip -p", "xz": "xz -d", "bzip2": "bunzip2"}


def compressed_note(handle: str, kind: str, budget: int | None = None) -> Advice:
    """What a miss in ``kind``-compressed content (one of :data:`~scratchfs.api.shape_binary.COMPRESSED`) says:
    a search looks at the stored bytes, and these are compressed; the ways on: a byte range (a hex dump, its call
    with the reply ``budget`` the search gave), or the content decompressed where it came from and that output
    searched. About 330 bytes. Never raises."""
    see = Call.of("read_handle", handle=handle, offset=0, length=512, budget=budget)
    return Advice.of(f"no match: the content is {kind}-compressed, and a search cannot see inside it (it looks at "
                     "the stored, compressed bytes; none is decompressed here): read it by byte ranges, offset= and "
                     "length= (a hex dump: ", see, f"), or decompress it where it came from "
                     f"({_DECOMPRESSORS.get(kind, 'its tool')}) and search that output")


def utf16_note(found: Matches, kind: str) -> str | Advice:
    """What a miss in UTF-16 or UTF-32 text (``kind``: one of :data:`~scratchfs.api.shape_binary.WIDE_CODECS`, as
    ``"UTF-16LE text"``) says: a search writes its text as UTF-8 bytes, and each character here is two bytes (``p``
    is ``p\\x00`` in UTF-16LE) or four; for a ``match=`` needle in UTF-16, the same call with ``encoding=``
    (:mod:`scratchfs.api.encodings`), in UTF-32 the call whose pattern seeks it as those bytes (ASCII letters and
    digits as themselves, every other byte as ``\\xHH``, so ``ignore_case`` still folds the letters) when it is at
    most :data:`HINT_CALL_BYTES`; for a pattern, or a longer needle, how to write one. Never raises."""
    codec = WIDE_CODECS.get(kind, "utf-16-be")
    wide = ("four", "bytes") if "32" in codec else ("two", "bytes")  # (a character's bytes, as the words say them)
    said = (f"no match: the content is {kind} ({' '.join(wide)} a character, stored as binary), and a search writes "
            "its text as UTF-8 bytes")
    example = "".join(f"\\x{byte:02x}" if byte < 32 else chr(byte) for byte in "p".encode(codec))
    if found.pattern is None and "16" in codec:  # (UTF-16: a read with its encoding seeks the needle as its bytes)
        return Advice.of(f"{said}; seek it with its encoding: ", _same_call(found, match=_sought(found),
                                                                         encoding="utf-16" + codec[-2:]))
    if found.pattern is None:
        needle = _sought(found)
        pattern = "".join(chr(byte) if chr(byte).isascii() and chr(byte).isalnum() else f"\\x{byte:02x}"
                          for byte in needle.encode(codec, "surrogatepass"))
        if reply_size(pattern) <= HINT_CALL_BYTES:
            return Advice.of(f"{said}; seek it as {kind[:8]} bytes: ", _same_call(found, pattern=pattern))
    return f"{said}: write each character as its {wide[0]} {kind[:8]} {wide[1]} in a pattern ({example} for p)"


NOT_UTF8_MISS = "no match: the stored bytes are not UTF-8, and a search writes text as UTF-8 bytes"
"""How a search's note starts when it missed non-ASCII text in content that is not UTF-8 (:func:`single_byte_note`;
read by no code: the note's type says what it is)."""


def single_byte_note(found: Matches, spelled: bool) -> MissNote:
    """What a miss of non-ASCII text in content that is not UTF-8 says (see :func:`text_view_hint`): for a needle
    whose non-ASCII characters are each one byte in cp1252 or Latin-1, the pattern that seeks each as its UTF-8
    bytes or that byte (``caf(?:é|\\xe9)``, :func:`_either`), as a call when ``spelled`` and that pattern is at most
    :data:`HINT_CALL_BYTES` too; else its longest ASCII part, or, for a pattern, how to write a byte. A
    :class:`MissNote` of which nothing stays (``plain`` ``None``): a search in a single-byte encoding sought the
    bytes as they are. Never raises."""
    said = NOT_UTF8_MISS
    if found.pattern is not None:
        return MissNote.made(None, f"{said}: write a byte of another encoding as \\xHH in the pattern (\\xe9 is a "
                             "Latin-1 or cp1252 \"é\"; (?:é|\\xe9) seeks either)")
    needle = (found.match or b"").decode("utf-8", "replace")
    pieces = [_either(char, found.ignore_case) for char in needle]
    pattern = "".join(piece or "" for piece in pieces)
    if spelled and None not in pieces and reply_size(pattern) <= HINT_CALL_BYTES:
        return MissNote.made(None, f"{said}; seek each non-ASCII character as its Latin-1 or cp1252 byte too: ",
                             _same_call(found, pattern=pattern))
    part = max(re.split(r"[^\x00-\x7f]+", needle), key=len).strip()
    shown = f" (match={json.dumps(part)[:60]})" if part else ""
    return MissNote.made(None, f"{said}; search an ASCII part of it{shown}, or write each byte as \\xHH in a pattern "
                         "(\\xe9 is a Latin-1 or cp1252 \"é\")")


def _single_byte(char: str) -> int | None:
    """The one byte ``char`` is in cp1252 (``€`` is ``0x80``), else in Latin-1, else ``None``."""
    for encoding in ("cp1252", "latin-1"):
        try:
            data = char.encode(encoding)
        except UnicodeEncodeError:
            continue
        if len(data) == 1:
            return data[0]
    return None


def _either(char: str, ignore_case: bool) -> str | None:
    """``char`` in a pattern that seeks it as UTF-8 or as its one byte (:func:`_single_byte`): ``(?:é|\\xe9)``; with
    ``ignore_case`` (ASCII only in a search), its other case too: ``(?:é|É|\\xe9|\\xc9)``. An ASCII character as
    itself (a space left as it is); ``None`` for a character of no single byte."""
    if char.isascii():
        return char if char == " " else re.escape(char)
    cases = [char] + [other for other in (char.lower(), char.upper()) if ignore_case and len(other) == 1 and
                      other != char]
    cases = list(dict.fromkeys(cases))
    units = [_single_byte(case) for case in cases]
    if None in units:
        return None
    return "(?:" + "|".join(cases + [f"\\x{unit:02x}" for unit in units]) + ")"


