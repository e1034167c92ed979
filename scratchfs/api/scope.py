"""One ``(run_id, agent_id)`` of a store: spills, reads and the scratchpad, each a public verb with one result type.

Reads: :meth:`Scope.read_range` (:class:`~scratchfs.api.results.Slice`), :meth:`Scope.read_lines`
(:class:`~scratchfs.api.results.LineSlice`), :meth:`Scope.search` (:class:`~scratchfs.api.results.Matches`),
:meth:`Scope.scratch_read_range` (a :class:`~scratchfs.api.results.Slice` of a scratchpad value); and
:meth:`Scope.read_handle`, the model-facing verb, a thin dispatcher over the first three. A whole content, for
a program rather than a model: :meth:`Scope.iter_content` (its frames' bytes, one after another, in constant memory).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from scratchfs.api import offloading
from scratchfs.api.bounds import (
    bounded_lines,
    bounded_range,
    check_end,
    last_lines_within,
    line_past_end,
    lines_within,
    member_start,
    offset_past_end,
    past_lines,
    tail_line,
)
from scratchfs.api.counting import search_matcher
from scratchfs.api.entries import reading
from scratchfs.api.last_search import last_search
from scratchfs.api.policy import Observation
from scratchfs.api.preview import PREVIEW_MODES
from scratchfs.api.read_mixes import check_read_modes
from scratchfs.api.results import LineSlice, Matches, Slice, short_digest
from scratchfs.api.scope_entries import EntryVerbs
from scratchfs.api.search_calls import searched_on, view_end_refusal
from scratchfs.api.search_misses import stored_search
from scratchfs.api.structure_entry import entry_identity
from scratchfs.api.structured import StructureReads
from scratchfs.api.stub import Stub
from scratchfs.api.view_search import view_search
from scratchfs.api.views import reply_size
from scratchfs.api.wide_search import wide_parts
from scratchfs.engine import segments
from scratchfs.engine.line_windows import LineSink
from scratchfs.engine.lines import read_lines
from scratchfs.engine.protocols import Entry
from scratchfs.engine.search import Sink
from scratchfs.engine.structure.html import view_spaces
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import Changed, InvalidArgument
from scratchfs.foundation.limits import (
    DEFAULT_CONTEXT,
    DEFAULT_LINES,
    DEFAULT_MATCHES,
    DEFAULT_READ_BYTES,
    LINE_WINDOW_BYTES,
    MAX_LINES,
    MAX_MATCHES,
    MAX_READ_BYTES,
)
from scratchfs.foundation.text import plural

if TYPE_CHECKING:
    from scratchfs.api.store import ScratchStore


_AGAIN_BYTES = 256  # the longest call (as the model receives it) a Changed error writes out; a longer key is the
# model's own: named, not copied

def _same_version(key: str, version: str, entry: Entry) -> None:
    """Raise Changed unless ``entry`` is still the value of ``version`` (checked before the page's offset is). The
    message says what is known: the live value's version and size differ from the one given -- it was written again
    since a read gave that version, or none did (a version is a digest: one made up, or of another key, looks the
    same)."""
    found = value_version(entry)
    if found != version:
        again: str | Call = Call.of("scratch_read", key=key)  # the key once, and only when short: the model's own
        name = key if checks.repeatable(key) else "this key"
        if reply_size(str(again)) > _AGAIN_BYTES:
            again, name = "scratch_read with this key and no offset or version", "this key"
        raise Changed(Advice.of(f"the value of {name} is version {found!r} ({plural(entry.size, 'byte')}), not "
                                f"{version!r}: it was written again since the read that gave {version!r}, or no read "
                                "of it gave that version; read it again from offset 0: ", again))


def value_version(entry: Entry) -> str:
    """The version of a stored value: 8 base32 characters of a BLAKE2b digest of its blob's token (random, new with
    every write: two writes at one clock reading with the same sizes are still two versions), when it was written
    (epoch seconds) and its sizes and line count -- what a write changes and nothing else does (a TTL refresh, moving
    its bytes to another segment, rebuilding the index from the blobs: the segment record and the blob file name keep
    the token, the binding frame the time): their :func:`~scratchfs.api.results.short_digest`."""
    token = segments.token_of(entry.blob)
    return short_digest((token, entry.created_at, entry.size, entry.stored_size, entry.lines))


class Scope(EntryVerbs):
    """One ``(run_id, agent_id)`` of a store: spills, reads and the scratchpad, all limited to that pair.

    Obtain one with :meth:`ScratchStore.scope`. Another scope's handle or key, an expired one and a missing one all
    raise the same :class:`~scratchfs.foundation.errors.NotFound`. Every method may also raise
    :class:`~scratchfs.foundation.errors.StoreBusy` (the index stayed locked past the busy timeout),
    :class:`~scratchfs.foundation.errors.StorageError` (the file system failed) and
    :class:`~scratchfs.foundation.errors.StoreClosed`.
    """

    def __init__(self, store: ScratchStore, run_id: str, agent_id: str) -> None:
        self.store = store
        self.run_id = run_id
        self.agent_id = agent_id

    def __repr__(self) -> str:
        return f"Scope(run_id={self.run_id!r}, agent_id={self.agent_id!r})"

    @property
    def structure(self) -> StructureReads:
        """Reads that follow the structure of an output: ``jq``, ``records``, ``rows``, ``text``, ``select``
        (:mod:`scratchfs.api.structured`)."""
        return StructureReads(self)

    # -- spilling -------------------------------------------------------------------------------------------------

    def spill(self, content: object, source_tool: str | None = None, ttl: float | None = None, *,
              preview: str | None = None) -> Stub:
        """Store a result out of context (always, whatever its size) and return its stub.

        Args:
            content: ``bytes``, ``str`` (stored as UTF-8), a binary file object, or an iterable of byte chunks;
                streams are never held in memory whole.
            source_tool: the tool that produced it.
            ttl: seconds until it expires, 1 to 30 days' worth (default: the store's ``default_ttl``).
            preview: ``"head"`` or ``"head+tail"`` (default: the store's ``preview_mode``).

        Returns:
            a :class:`~scratchfs.api.stub.Stub`: ``handle``, ``preview``, ``size`` (bytes), ``lines``,
            ``content_type``, ``shape``, ``note``; its compact JSON is at most 1.5 KiB.

        Raises:
            InvalidArgument: bad content, tool name, TTL or preview mode.
            QuotaExceeded: the run would go over ``run_quota_bytes`` or ``run_quota_entries``; nothing was stored.
            StorageError: the file system refused (disk full, file-size limit); nothing was stored. (A delete of
                the run that overtakes the write is not an error: the write is ordered before it and deleted.)
            StoreBusy: the index stayed locked past the busy timeout; nothing was stored.
            OSError: reading ``content`` failed (its file's ``read``, its iterator), raised as it was, not as the
                store's StorageError; nothing was stored.
        """
        tool = checks.check_tool(source_tool)
        ttl = checks.check_ttl(ttl, self.store.settings.default_ttl)
        mode = None if preview is None else checks.check_choice(preview, "preview mode", PREVIEW_MODES)
        _, stub = self._entries.write(self.run_id, self.agent_id, "handle", checks.new_handle(), content, tool, ttl,
                                      mode)
        assert stub is not None
        return stub

    def offload(self, obs: Observation, *, extra_bytes: int = 0) -> Observation:
        """Apply the spill policy to a tool result: return it unchanged, or with its content replaced by the stub
        (compact JSON text) and the :class:`~scratchfs.api.stub.Stub` attached as ``stub``. The preview mode is the
        store's ``preview_modes`` entry for the observation's result class, else its ``preview_mode``.

        A ``dict``, ``list`` or ``tuple`` content (a tool's structured result) is judged, and spilled, as its JSON text
        -- ``json.dumps(content, ensure_ascii=False)``, what an agent loop sends the model -- and comes back as it was
        when it is not spilled; one that has no JSON text passes through, logged at WARNING level (one another thread
        keeps changing as it is written, three times, becomes the refusal notice below instead). That text is spilled
        as it is written, in pieces (:mod:`scratchfs.api.offloading`): a large structure is never held as text whole
        (54 MiB of JSON offloaded with 8.5 MiB of peak memory growth, not 110: ``python bench/offload_memory.py``).
        Other content that is not ``str`` or bytes-like passes through untouched (turn it into text first).

        A ``result_class`` that is neither ``None`` (unknown: never spilled, as the policy says) nor a known class
        (:data:`~scratchfs.api.policy.KNOWN_CLASSES` or the store's ``spill_classes``) is never spilled either: a
        misspelling, logged at WARNING level once per class, naming the known classes and the closest one.

        ``extra_bytes``: bytes of JSON a text content costs the model beside its text, counted toward the threshold
        (:func:`~scratchfs.api.policy.should_spill`): the proxy's for a result of several MCP text blocks, stored
        joined, each past the first costing its wrapper.

        Never raises for a failed spill. A run at its quota (:class:`QuotaExceeded`) is the operator's bound on what
        a run keeps, and the context is what it protects: the content becomes a notice of at most 1.5 KiB with a
        preview, what was refused and why (``refused`` set; :func:`~scratchfs.api.stub.refusal_notice`). Any other
        failure lets the original observation go through unchanged when its content is at most the store's
        ``passthrough_max_bytes`` as the model receives it (``None``: any size), else the content becomes the same
        kind of notice, naming the error's kind and saying to retry (the store out of reach) or to ask the tool for
        less (``refused`` set; :mod:`scratchfs.api.spill_failure`). Either is logged at ERROR level -- one line
        naming the error's kind and message for a :class:`ScratchError` (quota exceeded, busy, storage, ...: the
        store's expected refusals), with the traceback only for any other exception (a bug).
        """
        return offloading.offload(self, obs, extra_bytes)

    def read_range(self, handle: str, offset: int = 0, length: int | None = None) -> Slice:
        """Bytes ``[offset, offset + length)`` of a spilled result (``length`` 4096 by default, capped at
        :data:`~scratchfs.foundation.limits.MAX_READ_BYTES`); decompresses only the frames that cover the range.

        Raises:
            InvalidArgument: a malformed handle; ``offset`` not an integer in ``[0, size]``; a bad ``length``.
            NotFound (Expired, Deleted): no live entry of this scope has this handle. CorruptBlob: a damaged blob.
        """
        handle = checks.check_handle(handle)
        return self._range("handle", handle, offset, length)

    def scratch_read_range(self, key: str, offset: int = 0, length: int | None = None,
                           version: str | None = None) -> Slice:
        """Bytes ``[offset, offset + length)`` of a scratchpad value, as :meth:`read_range` reads a spilled result
        (``length`` 4096 by default, capped at 64 KiB); the slice's ``version`` names the value read (8 characters,
        :func:`value_version`) and its ``next_call`` (``scratch_read``) repeats it.

        Args:
            version: from an earlier page's ``next_call``: the value must still be the one that page read.

        Raises:
            InvalidArgument: a bad key, offset, length or version. NotFound, CorruptBlob: as :meth:`read_range`.
            Changed: ``version`` was given and the key was written again since (the pages would be of two values).
        """
        key = checks.check_key(key)
        return self._range("scratch", key, offset, length, None if version is None else checks.check_version(version))

    def _range(self, kind: str, key: str, offset: object, length: object, version: str | None = None) -> Slice:
        return self._range_entry(kind, key, offset, length, version)[1]

    def _range_entry(self, kind: str, key: str, offset: object, length: object,
                     version: str | None = None) -> tuple[Entry, Slice]:
        """:meth:`_range` and the entry's row it read."""
        offset = checks.check_int(offset, "offset", 0)
        length = min(checks.check_int(DEFAULT_READ_BYTES if length is None else length, "length", 1), MAX_READ_BYTES)
        check = None if version is None else functools.partial(_same_version, key, version)
        entry, data = self._entries.read_range(self.run_id, self.agent_id, kind, key, offset, length, check)
        size, end = entry.size, offset + len(data)
        found = value_version(entry) if kind == "scratch" else None
        return entry, Slice(key, offset, data, size, end if end < size else None, length, kind,
                            entry.content_type == "binary", version=found)

    def read_lines(self, handle: str, line: int | None = None, lines: int | None = None, *, offset: int | None = None,
                   cap: int = MAX_READ_BYTES) -> LineSlice:
        """Lines ``line`` to ``line + lines - 1`` (1-based; negative from the end, as a Python index: ``-1`` is
        the last line, ``line=-50, lines=50`` the last 50 and, as ``tail -n`` does, a ``line`` before the first line
        starts at the first; a line ends at ``\\n`` only, see
        :mod:`scratchfs.engine.lines`); or, with ``offset`` instead of ``line``, ``lines`` lines from content byte
        ``offset`` (the rest of the line it falls in counts as the first): the cursor of a line read cut inside a line.
        ``lines`` is 50 by default, at most 10,000, and the bytes at most ``cap`` (64 KiB at most; a longer line is cut
        and ``next_call`` goes on from where it stops, by lines). Finds line N from per-frame line counts.

        Raises:
            InvalidArgument: a malformed handle, ``line`` 0 or past the last line, ``offset`` past the end, both
                ``line`` and ``offset``, ``lines`` or ``cap`` out of range.
            NotFound (Expired, Deleted), CorruptBlob: as :meth:`read_range`.
        """
        handle = checks.check_handle(handle)
        if line is not None and offset is not None:
            raise InvalidArgument("a line read starts at a line or at a byte offset, not both")
        first = checks.check_line(1 if line is None else line)
        asked = first if first < 0 else None  # (from the end: the reply says so if it named a line before the first)
        start = None if offset is None else checks.check_int(offset, "offset", 0)
        count = checks.check_int(DEFAULT_LINES if lines is None else lines, "lines", 1, MAX_LINES)
        cap = checks.check_int(cap, "cap", 1, MAX_READ_BYTES)
        with self._entries.open(self.run_id, self.agent_id, "handle", handle) as opened:
            entry = opened.entry
            with reading(handle):
                if start is not None:
                    if start > entry.size:
                        raise offset_past_end(handle, start, entry.size)
                elif first < 0:  # from the end, as tail -n counts: before the first line, from the first
                    first = max(1, entry.lines + 1 + first)
                elif first > max(entry.lines, 1):
                    raise line_past_end(handle, first, entry.lines)
                got = read_lines(opened.reader, opened.lines, first, count, cap, start)
                first = got.line  # with an offset: the line that holds it, counted as the read decoded its frame
        end = got.offset + len(got.data)
        more = end < entry.size
        # the next read starts after the last whole line, or in the line the cap cut (its rest at next_offset)
        return LineSlice(handle, got.offset, got.data, entry.size, first, got.lines, entry.lines,
                         first + got.newlines if more else None, end if more else None, got.cut, count,
                         entry.content_type == "binary", asked=asked)

    def search(self, handle: str, match: str | bytes | None = None, pattern: str | None = None, offset: int = 0, *,
               ignore_case: bool = False, context: int | str | None = None, max_matches: int | None = None,
               cap: int = MAX_READ_BYTES, view: str | None = None, before: int | None = None,
               end: int | None = None, budget: int | None = None, encoding: str | None = None) -> Matches:
        """Non-overlapping matches starting at or after byte ``offset``: a substring (``match``; text is searched as
        UTF-8) or a Python ``re`` pattern over the bytes (``pattern``; ``^``/``$`` per line, ASCII ``ignore_case``;
        see :mod:`scratchfs.engine.search`); empty matches are not reported. Each match gets up to ``context`` bytes
        (default 200) on each side, or ``context="line"``: the line holding it, at most ``LINE_WINDOW_BYTES`` a side
        (:mod:`scratchfs.engine.line_windows`: a window cut there says so in its ``line_cut``); overlapping windows
        merged; at most ``max_matches`` (default 20) matches and ``cap`` bytes of windows (64 KiB at most) per call.
        Pass the result's ``next_offset`` as ``offset=`` to resume; ``before``: the last matches before that byte
        (:mod:`scratchfs.api.last_search`, whose errors it raises too); ``end``: the search looks at bytes
        ``[offset, end)`` alone (a member's: matches wholly inside, as ``re``'s ``endpos``; the next call repeats it;
        a miss says where it looked: :func:`~scratchfs.api.bounds.check_search_end`); ``budget``: the reply budget
        the caller gave (bytes), which each call its refusals and notes advise repeats (``None``: none). Streams the
        blob; ``view="text"``: an HTML page's text view (Unicode spaces sought as ``" "``), offsets and lines the
        view's; terminal output as shown, offsets the stored output's (:func:`~scratchfs.api.view_search.view_search`,
        whose errors it raises too); ``encoding``: UTF-16's, :func:`~scratchfs.api.wide_search.wide_parts`'s.

        Raises:
            InvalidArgument: a malformed handle; both or neither of ``match``/``pattern``; an empty, too long or
                invalid needle or pattern; ``offset`` or ``max_matches`` out of range; a ``context`` that is
                neither an integer from 0 to 8192 nor ``"line"``; ``end`` past the size, not after ``offset``
                (nor ``before``) or with ``view``.
            PatternTimeout: past ``pattern_timeout`` (``resume_offset``: where it stood; ``skip_offset``: the call's).
            PatternTooLong: a pattern match is longer than the reach bound (16 KiB).
            NotFound (Expired, Deleted), CorruptBlob: as :meth:`read_range`.
        """
        handle = checks.check_handle(handle)
        offset = checks.check_int(offset, "offset", 0)
        context = checks.check_context(DEFAULT_CONTEXT if context is None else context)
        reach, sink = (LINE_WINDOW_BYTES + 2, LineSink) if context == "line" else (context, Sink)
        max_matches = checks.check_int(DEFAULT_MATCHES if max_matches is None else max_matches, "max_matches", 1,
                                       MAX_MATCHES)
        ignore_case = checks.check_flag(ignore_case, "ignore_case")
        cap = max(checks.check_int(cap, "cap", 1, MAX_READ_BYTES), 2 * reach + 1)
        if (end := check_end(end)) is not None and view is not None:
            raise view_end_refusal(handle, match, pattern, offset, end, (view, ignore_case, context, max_matches),
                                   budget)
        shown = match  # (terminal output's view shows Unicode spaces as they are: sought so, view_search)
        if view is not None:  # an HTML page's text view writes each Unicode space (&nbsp;) as " ": so is its needle
            match, pattern = (view_spaces(t) if isinstance(t, str) else t for t in (match, pattern))
        needle, matcher = search_matcher(match, pattern, ignore_case, self.store.settings.pattern_timeout, lambda **s:
                                         Call.of("read_handle", handle=handle, **s, offset=offset, view=view,
                                                 before=before, end=end, ignore_case=ignore_case or None,
                                                 context=context, max_matches=max_matches, budget=budget))
        matcher, sink = wide_parts(self, handle, encoding, matcher, sink)  # (UTF-16: its code units, lines)
        asked = Matches(handle, needle, [], 0, None, pattern, ignore_case, context, max_matches, budget=budget,
                        view=view, encoding=encoding)  # (the settings ride on an empty result, and the calls it
        # advises repeat them; UTF-16's encoding: its needle is that text's bytes, which a miss's note reads so)
        how, bounded = (reach, sink, cap), replace(asked, end=end)
        return searched_on(bounded, functools.partial(last_search, self, bounded, matcher, offset, before, how)
                           if before is not None else functools.partial(view_search, self, asked, matcher, offset,
                                                                        how, shown) if view is not None else
                           functools.partial(stored_search, self, bounded, matcher, offset, how), before)

    def read_handle(self, handle: str, offset: int = 0, length: int | None = None, *,
                    match: str | bytes | None = None, pattern: str | None = None, ignore_case: bool = False,
                    context: int | str | None = None, max_matches: int | None = None, line: int | None = None,
                    lines: int | None = None, cap: int = MAX_READ_BYTES, before: int | None = None,
                    end: int | None = None, budget: int | None = None) -> Slice | LineSlice | Matches:
        """The model-facing read verb: a byte range (:meth:`read_range`, the default), a line range
        (:meth:`read_lines`: ``line``, ``lines``) or a search (:meth:`search`: ``match`` or ``pattern``, with
        ``offset``, ``ignore_case``, ``context``, ``max_matches``, ``before``); ``cap`` bounds the content bytes of a
        line read or of a search's windows (64 KiB at most); ``end``: each stops before that byte (a member's end,
        :mod:`scratchfs.api.bounds`; ``budget``: a search's, :meth:`search`). Every result says how to go on:
        ``next_offset`` / ``next_line``, ``remaining`` bytes and ``next_call``.

        Raises:
            InvalidArgument: options of different modes mixed, and whatever the chosen read raises.
            PatternTimeout, PatternTooLong, NotFound, CorruptBlob, StoreBusy, StorageError: as the chosen read.
        """
        searching = match is not None or pattern is not None
        check_read_modes(offset=offset, length=length, line=line, lines=lines, searching=searching,
                         ignore_case=ignore_case, context=context, max_matches=max_matches, before=before,
                         handle=None if isinstance(match, bytes) else handle,  # (the calls its refusal names)
                         asked={"match": match, "pattern": pattern, "end": end, "budget": budget})
        if line is not None or lines is not None:
            back, end, given = type(line) is int and line < 0, check_end(end), line  # (line=-N: the last N before end)
            start = offset if line is None and offset else None
            low = offset or None if back else None  # (line=-N, offset=O: no line before byte O, a member's first)
            asked = line if end is not None and back else None  # (its next_call goes back)
            line = tail_line(line, end, lambda at: self.read_lines(handle, None, 1, offset=at, cap=1).first_line)
            if back and low is None and end is not None:  # (a tar or zip member's last lines: no further back)
                low = self._member_start(handle, end, functools.partial(
                    Call.of, "read_handle", handle=handle, line=asked, lines=lines, budget=budget))

            def lines_from(at: int) -> LineSlice:
                return bounded_lines(self.read_lines(handle, None, lines, offset=at, cap=cap), end)

            got = bounded_lines(self.read_lines(handle, line, lines, offset=start, cap=cap), end)
            got = lines_within(got if asked is None else replace(got, asked=asked), low, end, lines_from)
            got = past_lines(got, given, lines)
            return last_lines_within(got, cap, lambda at, n: self.read_range(handle, at, n).data, lines_from)
        if not searching:
            return bounded_range(self.read_range(handle, offset, length), check_end(end))
        return self.search(handle, match, pattern, offset, ignore_case=ignore_case, context=context,
                           max_matches=max_matches, cap=cap, before=before, end=end, budget=budget)

    def _member_start(self, handle: str, end: int, again: Callable[..., Call]) -> int | None:
        """:func:`~scratchfs.api.bounds.member_start` of the entry ``handle`` (a read of its last lines bounded at
        ``end`` alone), a zip's directory kept under the entry's identity (its blob token, from the reads)."""
        handle, blobs = checks.check_handle(handle), []

        def read(at: int, length: int) -> Slice:
            entry, got = self._range_entry("handle", handle, at, length)
            blobs[:] = [entry.blob]
            return got

        return member_start(read, end, again, lambda: entry_identity(handle, blobs[0]))


__all__ = ["Scope", "value_version"]
