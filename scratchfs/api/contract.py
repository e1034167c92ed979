"""The one model-facing JSON contract: every reply a model receives, from MCP, the adapter, the CLI's ``--json`` and
the web API, is built here and fitted into its budget (:mod:`scratchfs.api.views`).

Every result is one JSON object; every read says how to go on: ``next_offset`` / ``next_line``,
``remaining`` bytes and ``next_call``, the exact call that reads on (``null`` at the end), repeating the settings the
call gave that shape the next page, ``budget`` (when given) included. Sizes and offsets are bytes
of the content; ``ttl`` and ``expires_in`` are seconds; ``expires_at`` is epoch seconds. ``data`` is text (invalid
bytes as U+FFFD, counted by ``replaced``) or, for binary content, a hex dump (``"encoding": "hexdump"``) -- but a
byte range (or a search window) of binary content that is text (a tar member of JSON lines) is text,
``"encoding": "text"``.

* ``read_handle`` by range: ``{handle, offset, length, size, next_offset, remaining, next_call, data}``
  (``remaining`` only while the read goes on: at its end ``next_offset`` and ``next_call`` null say it): whole UTF-8
  characters (a character cut by the end of the range is left for the next read; a range starting inside a character
  starts after it, and ``offset`` says where; a range shorter than the character at its start returns that whole
  character, so a reader always gets on).
* by lines: the range keys plus ``first_line, lines, total_lines, next_line, cut``; a read cut inside a line (by the
  cap or the budget) goes on by ``offset=next_offset, lines=N``: no byte is skipped. A negative ``line`` counts from
  the end (``-1``: the last line; ``first_line`` is the positive number); one before the first line reads from line
  1, as ``tail -n`` does, and adds a ``note`` saying so. Such a read that reaches the end goes back by its
  ``next_call`` (``line=-N`` before ``end=``, the byte it starts at) to line 1 -- or to byte ``offset=`` given
  beside a negative ``line`` (a member's first: :func:`~scratchfs.api.bounds.lines_within`); the budget cuts it from
  the front (its last lines whole; a line longer than the budget: its last bytes, the rest before them read next).
* by ``match`` / ``pattern``: ``{handle, match (or pattern, ignore_case), size, next_offset, more, remaining,
  next_call, windows: [{line, offset, length, data}]}``, a whole line's (``context="line"``) ``{line, data}``
  (:mod:`scratchfs.api.search_reply` says each field: merged
  windows, ``cut``, a reply over budget, ``view="text"``, ``before``); ``ignore_case`` only when true, ``more``
  (true) and ``remaining`` only while matches may follow (a finished search: ``next_offset`` and ``next_call`` null).
* ``scratch_write``: ``{key, size, ttl, expires_at}`` (whole seconds); ``scratch_read``: a range read of the value
  (``key`` for ``handle``, ``next_call`` names ``scratch_read``); ``scratch_list``: ``{prefix, entries: [{key, size,
  expires_in, preview}], next_call}`` (``spilled=true``: ``{spilled, entries: [{handle, tool, size, shape,
  expires_in}], next_call}``, newest first); ``scratch_delete``: ``{key, deleted}``, and a ``note`` when nothing was.

The budget holds the whole reply: the arguments it echoes and ``next_call`` are measured first
(:class:`~scratchfs.api.fixed.Squeeze`); an echo too long is shortened (``"shortened": {argument: full length}``), a
``next_call`` that cannot fit is ``null`` with a ``note``, and only then does the reply give its cursor
(``next_cursor``, a structure page's ``cursor``, a scratchpad value's ``version`` beside ``next_offset``) alone.
Tool errors are at most ``MIN_REPLY_BYTES`` bytes; the calls a refusal names repeat the ``budget`` the call gave
(:func:`keeps_budget`).
"""

from __future__ import annotations

import base64
import binascii
import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from scratchfs.api.bounds import bounded_range, check_end
from scratchfs.api.counting import count_matches
from scratchfs.api.encodings import WIDE, check_encoding, least_bytes, sought_in
from scratchfs.api.listing import listing_reply, spilled_row
from scratchfs.api.misfit import plain_view
from scratchfs.api.missing import LOST_KEY, handle_started
from scratchfs.api.past_last import from_end
from scratchfs.api.preview import shown_preview
from scratchfs.api.read_mixes import refuse_mixed
from scratchfs.api.read_replies import (
    STRUCTURE_ARGUMENTS,
    first_character,
    lines_reply,
    range_reply,
    structure_reply,
    ttl_json,
    whole_seconds,
)
from scratchfs.api.results import Matches, Slice
from scratchfs.api.scope import Scope
from scratchfs.api.search_calls import ENCODING_STRUCTURE, encoding_refusal
from scratchfs.api.search_commits import with_commits
from scratchfs.api.search_encoded import as_given, refused_as_given
from scratchfs.api.search_reply import count_reply, matches_reply
from scratchfs.api.search_rows import with_rows
from scratchfs.api.search_window import window_hits, window_json
from scratchfs.api.tools import TOOL_SPECS, check_arguments, check_not_empty, check_shape
from scratchfs.api.views import lead_inside_character, reply_size, reply_text, to_json
from scratchfs.api.wide_lines import lines_or_search
from scratchfs.foundation.calls import Advice, Call, render_call
from scratchfs.foundation.checks import HANDLE_RE, check_flag, check_handle, check_int, check_key, integral
from scratchfs.foundation.errors import BadCursor, InvalidArgument, ScratchError
from scratchfs.foundation.limits import (
    DEFAULT_READ_BYTES,
    LIST_PREVIEW_CHARS,
    MAX_LIST_ENTRIES,
    MAX_READ_BYTES,
    MAX_REPLY_BYTES,
    MIN_REPLY_BYTES,
)
from scratchfs.foundation.text import utf8_text

A_HANDLE_IS_NO_KEY = ("this is a handle of a spilled result, not a scratchpad key: {delete} removes only "
                       "scratchpad values, and spilled results expire after their TTL")
"""The note of ``scratch_delete`` given a handle (a run at its quota told the model to free room), ``{delete}``
the verb (``scratch_delete``); the CLI's ``scratch-delete`` says it too, naming itself."""

# -- the tools ------------------------------------------------------------------------------------------------------

_BUDGETED = frozenset(name for name, spec in TOOL_SPECS.items() if "budget" in spec.input_schema["properties"])
"""The tools that take ``budget=`` (``read_handle``, ``scratch_read``, ``scratch_list``)."""


def keeps_budget(method: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """``method`` (a tool's, with a ``budget`` argument) whose refusals name each call of a tool that takes a budget
    with the caller's own ``budget``, when it gave one in range and the call names none (``read_handle(...,
    slurp=true, budget=4096)`` of one JSON document: the jq read it advises, ``budget=4096`` too). The arguments are
    bound only when a refusal is raised."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def kept(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return method(*args, **kwargs)
        except ScratchError as exc:
            _keep_budget(exc, signature.bind(*args, **kwargs).arguments.get("budget"))
            raise

    return kept


def _keep_budget(exc: ScratchError, budget: object) -> None:
    """Give each call ``exc`` advises of a budgeted tool the caller's ``budget`` (3000.0 as 3000) when in range, the
    call names none (:func:`keeps_budget`) and the tool error stays whole with it (:func:`error_text` cuts more)."""
    budget = integral(budget)
    if type(budget) is int and MIN_REPLY_BYTES <= budget <= MAX_REPLY_BYTES:
        exc.recall(lambda call: call.given(budget=budget) if call.verb in _BUDGETED else call,
                   keep=lambda said: _whole(_error_line(exc.kind, said)))


def _marked(scope: Scope, found: Matches) -> Matches:
    """``found`` with each window's row (a table's: :func:`with_rows`) and commit (a git log's:
    :func:`with_commits`). Never raises."""
    return with_commits(scope, with_rows(scope, found))


class ScratchTools:
    """The model-facing tools over one scope (or a function that picks the scope per call).

    Args:
        scope: a :class:`~scratchfs.api.scope.Scope`, or a function returning one.

    Each method takes the tool's arguments as keywords and returns the contract's JSON object (a ``dict``) within
    its budget (the store's ``reply_budget_bytes`` unless the call gives ``budget``); :meth:`call` does the same by
    tool name after checking the arguments against the schema. All raise
    :class:`~scratchfs.foundation.errors.ScratchError` subclasses: ``InvalidArgument`` (bad arguments), ``NotFound``
    (no live handle or key in this scope), ``CorruptBlob``, ``StoreBusy``, ``StorageError``.
    """

    def __init__(self, scope: Scope | Callable[[], Scope]) -> None:
        self._scope = scope

    @property
    def scope(self) -> Scope:
        """The scope the next call works in."""
        return self._scope if isinstance(self._scope, Scope) else self._scope()

    def call(self, name: object, arguments: object = None, *, full_windows: bool = False) -> dict[str, Any]:
        """Run tool ``name`` with ``arguments`` (checked against its schema) and return its result object.
        ``full_windows`` (not a tool argument: the web inspector's): a read_handle search's windows of whole lines
        keep their offsets and match fields (:func:`~scratchfs.api.search_window.window_json`).

        Raises:
            InvalidArgument: ``name`` (of any type) is not a tool's, or bad ``arguments`` (:func:`check_arguments`).
            ScratchError: the others, as the tool's method raises them."""
        try:
            args = self.check(name, arguments)  # every text (list items too) checked as UTF-8 here
        except ScratchError as exc:  # (read_handle(handle="notes", budget=3000): its scratch_read keeps the budget)
            _keep_budget(exc, arguments.get("budget") if isinstance(arguments, Mapping) else None)
            raise
        if name == "read_handle":  # so a structure read does not check its texts again
            return self._read_handle(True, **args, full_windows=full_windows)
        return getattr(self, name)(**args)

    def check(self, name: object, arguments: object = None) -> dict[str, Any]:
        """:func:`~scratchfs.api.tools.check_arguments` of tool ``name``'s ``arguments`` (what :meth:`call` checks
        first; a face that checks them before it calls, the CLI, calls this), read_handle's ``handle`` cut short
        refused naming the live handle of this scope it starts (:meth:`_cut_short`), a ``row`` or ``record`` below 1
        naming the read of what it meant (:func:`~scratchfs.api.past_last.from_end`: ``row=-1`` the last row, found
        by a read past the last). Returns the arguments checked. Raises InvalidArgument."""
        try:
            return check_arguments(name, arguments)
        except InvalidArgument as exc:
            cut = self._cut_short(exc, arguments) if name == "read_handle" else None
            if cut is None and name == "read_handle":  # (row=-1: the call reading the last row)
                cut = from_end(exc, arguments, functools.partial(self.call, name))
            if cut is None or cut is exc:
                raise
        raise cut  # (outside the except: no chained error)

    def _cut_short(self, exc: ScratchError, arguments: object) -> InvalidArgument | None:
        """``exc``, the refusal of read_handle's ``handle`` argument, naming the live handle of this scope it is the
        start of, when it is a handle cut short that starts exactly one (:func:`~scratchfs.api.missing.
        handle_started`: never another scope's), as the refusal of a handle in capitals or quotes names the one it
        holds; ``None`` otherwise -- any other refusal, or a scope out of reach (the refusal stands alone)."""
        handle = arguments.get("handle") if isinstance(arguments, Mapping) else None
        if not isinstance(handle, str) or not isinstance(exc, InvalidArgument) or HANDLE_RE.match(handle):
            return None
        try:
            check_handle(handle)
        except InvalidArgument as own:
            if str(own) != str(exc):  # (another argument's refusal)
                return None
        try:
            scope = self.scope
            meant = handle_started(scope.store.entries.index, scope.run_id, scope.agent_id, handle, scope.store.now())
        except ScratchError:
            return None
        if meant is None:
            return None
        return InvalidArgument(f"{exc}; did you mean {meant!r}, the one handle of this scope that starts so (it was "
                               "cut short: copy all 26 characters)?")

    @staticmethod
    def _given_budget(budget: int | None) -> int | None:
        """The caller's ``budget`` checked (bytes), or ``None`` when it gave none. Raises InvalidArgument."""
        return None if budget is None else check_int(budget, "budget", MIN_REPLY_BYTES, MAX_REPLY_BYTES)

    @classmethod
    def _budgeted(cls, scope: Scope, budget: int | None) -> tuple[int, int | None]:
        """``(the reply's budget, the budget its next_call repeats)``: the caller's ``budget`` (checked) for both,
        or the store's default and ``None`` (a next_call names only the settings the call gave)."""
        given = cls._given_budget(budget)
        return (scope.store.settings.reply_budget_bytes if given is None else given), given

    def read_handle(self, handle: str, offset: int = 0, length: int | None = None, line: int | None = None,
                    lines: int | None = None, match: str | None = None, pattern: str | None = None,
                    ignore_case: bool = False, context: int | str | None = None, max_matches: int | None = None,
                    budget: int | None = None, before: int | None = None, encoding: str | None = None,
                    **structure: Any) -> dict[str, Any]:
        """``read_handle`` by range, by lines, by match / pattern (``before``: the last matches before that byte,
        :mod:`scratchfs.api.last_search`; see :meth:`Scope.read_handle`, whose checks
        apply: mixing the options of two modes is an invalid argument), or by structure (``jq``, ``record``,
        ``records``, ``row``, ``rows``, ``columns``, ``view``, ``select``, ``cursor``: :func:`structure_reply`); a
        search with ``view="text"`` searches the text view (:meth:`~scratchfs.api.scope.Scope.search`);
        see the module docstring for the result; ``encoding``: :mod:`scratchfs.api.encodings` (no structure read).
        An argument given empty (``match=""``, ``jq=""``, ``columns=[]``) is refused as :meth:`call` refuses it
        (:func:`~scratchfs.api.tools.check_not_empty`): InvalidArgument naming the call that works; so is a structure
        read's argument of no JSON type (:func:`~scratchfs.api.tools.check_shape`)."""
        given = {"handle": handle, "offset": offset or None, "length": length, "line": line, "lines": lines,
                 "match": match, "pattern": pattern, "ignore_case": ignore_case or None, "context": context,
                 "max_matches": max_matches, "budget": budget, "before": before, "encoding": encoding, **structure}
        check_not_empty("read_handle", {k: v for k, v in given.items() if v is not None})
        check_shape("read_handle", structure)  # (JSON values, as a call's: the reads, their advice and reply take them)
        return self._read_handle(False, handle, offset, length, line, lines, match, pattern, ignore_case, context,
                                 max_matches, budget, before, encoding, **structure)

    @keeps_budget
    def _read_handle(self, checked: bool, handle: str, offset: int = 0, length: int | None = None,
                     line: int | None = None, lines: int | None = None, match: str | None = None,
                     pattern: str | None = None, ignore_case: bool = False, context: int | str | None = None,
                     max_matches: int | None = None, budget: int | None = None, before: int | None = None,
                     encoding: str | None = None, full_windows: bool = False, **structure: Any) -> dict[str, Any]:
        """:meth:`read_handle`; ``checked``: its texts were checked as UTF-8 already (by :meth:`call`);
        ``full_windows``: :meth:`call`'s. The options of two modes mixed are refused before the scope is asked for
        (a face's store may be out of reach)."""
        counting = structure.pop("count", None)
        counting = counting is not None and check_flag(counting, "count")
        if structure.get("slurp") is not None and not check_flag(structure["slurp"], "slurp"):
            structure["slurp"] = None  # (slurp=false: the read it would be without it)
        given = {k: v for k, v in structure.items() if v is not None}
        asked = {"length": length, "line": line, "lines": lines, "match": match, "pattern": pattern,
                 "context": context, "max_matches": max_matches, "before": before, "end": given.pop("end", None)}
        try:
            refuse_mixed(counting, given, asked, offset, ignore_case, handle, {"budget": budget, "encoding": encoding})
        except InvalidArgument as exc:
            raise self._view_at_line(exc, handle, given, asked, counting or offset or ignore_case, budget) from None
        end = check_end(asked["end"])
        said = {**asked, "offset": offset or None, **given, "ignore_case": ignore_case or None,  # (the read's own)
                "count": counting or None, "budget": self._given_budget(budget)}
        if (single := check_encoding(encoding)) is not None and given:
            raise encoding_refusal(handle, said, encoding) if match or pattern else InvalidArgument(
                f"{ENCODING_STRUCTURE}: read it without encoding= (a structure read decodes its content itself)")
        scope = self.scope
        single, sought = sought_in(single, lambda: scope.read_range(handle, 0, 2).data, {"handle": handle, **said})
        budget, echo = self._budgeted(scope, budget)
        if counting:
            with refused_as_given(match, pattern, single):
                counted = count_matches(scope, handle, *sought, offset, ignore_case=ignore_case, budget=echo, end=end,
                                        even=single if single in WIDE else None)  # (UTF-16: its code units, lines)
            return count_reply(replace(counted, match=match, pattern=pattern, encoding=single), budget)
        if given:
            if given.keys() == {"view"} and (match or pattern):  # (refuse_mixed let only a text view's search by)
                result = scope.search(handle, match, pattern, offset, ignore_case=ignore_case, context=context,
                                      max_matches=max_matches, cap=min(MAX_READ_BYTES, budget), view=given["view"],
                                      before=before, end=end, budget=echo)
                return matches_reply(replace(result, budget=echo), budget, full_windows)  # (the view's offsets, lines)
            return structure_reply(scope, handle, offset, given, budget, checked=checked, call_budget=echo)
        cap = min(MAX_READ_BYTES, budget)
        if not (match or pattern or ignore_case or line is not None or lines is not None or context is not None
                or max_matches is not None or before is not None):  # (a range: one read takes the bytes before it)
            requested = min(max(check_int(DEFAULT_READ_BYTES if length is None else length, "length", 1),
                                least_bytes(single)), MAX_READ_BYTES)  # (UTF-16: a character at least)
            return self._range(lambda at, n: replace(scope.read_range(handle, at, n), encoding=single), offset,
                               requested, budget, echo, end)
        with refused_as_given(match, pattern, single):
            result = lines_or_search(scope, handle, single, offset, length, match=sought[0], pattern=sought[1],
                                     ignore_case=ignore_case, context=context, max_matches=max_matches, line=line,
                                     lines=lines, cap=cap, before=before, end=end, budget=echo)
        result = replace(result, budget=echo, encoding=single)  # its next_call repeats the budget and encoding
        if isinstance(result, Matches):  # (of a table: the row of each match, which a rows read takes)
            return matches_reply(as_given(_marked(scope, result), match, pattern), budget, full_windows)
        lead = 0 if line is not None or result.binary or single else min(3, result.offset)  # lines from a byte offset:
        if lead and result.data[:1] and result.data[0] & 0xC0 == 0x80:  # a continuation byte: it may fall inside a
            # character (the bytes before tell); then they start at the next one, as a range read does
            skip = lead_inside_character(result.data, scope.read_range(handle, result.offset - lead, lead).data)
            result = replace(result, offset=result.offset + skip, data=result.data[skip:])  # (no newline skipped)
        return lines_reply(result, budget)

    def _view_at_line(self, refused: InvalidArgument, handle: str, given: Mapping[str, Any],
                      asked: Mapping[str, Any], other: object, budget: int | None) -> InvalidArgument:
        """``refused`` (of ``view="text"`` with ``line=``, the mix of two reads) naming the text view of terminal
        output from that stored line, ``raw_offset`` its first byte: the shape of coloured output gives its
        sections' lines (``FAILURES (line 661)``), and the refusal named only ``raw_offset=N``, a byte the model
        did not have. ``refused`` unchanged for an HTML page (whose view knows no stored byte), text with nothing
        to render (:func:`~scratchfs.api.misfit.plain_view`: its view is refused), a line that does not read, or a
        store out of reach; and for any other mix (``given`` the structure read's arguments, ``asked`` the others',
        ``other`` true when the call counts or gives an offset or ignore_case too)."""
        line = asked.get("line")
        if other or given != {"view": "text"} or line is None or any(
                value is not None for name, value in asked.items() if name not in ("line", "lines")):
            return refused
        try:
            scope = self.scope
            entry = scope.entry("handle", check_handle(handle))
            if entry is None or plain_view(lambda at, n: scope.read_range(handle, at, n).data, entry.content_type,
                                           entry.shape) or entry.content_type not in ("text", "log"):
                return refused  # (an HTML page, or text with nothing to render: its own refusal stands)
            at = scope.read_lines(handle, check_int(line, "line", -(2**63), 2**63), 1, cap=1).offset
            budget = self._given_budget(budget)
        except ScratchError:
            return refused
        return InvalidArgument(Advice.of(refused, f"; line {line:,} of the stored output starts at byte {at:,}, and "
                                         "its text view from there is: ", Call.of(
                                             "read_handle", handle=handle, view="text", raw_offset=at, budget=budget)))

    @staticmethod
    def _range(read: Callable[[int, int], Slice], offset: int, requested: int, budget: int, echo: int | None,
               end: int | None = None) -> dict[str, Any]:
        """A range reply of ``requested`` bytes from ``offset`` (at most ``budget`` read; ``echo``: the budget its
        next_call repeats; ``end``: a bound, :mod:`scratchfs.api.bounds`). One read takes the up to 3
        bytes before the range too (does it start inside a character?); a range shorter than the character it starts
        with is read again, a little wider, so that the reply holds that whole character."""
        offset = check_int(offset, "offset", 0)
        lead = min(3, offset)
        try:
            wide = read(offset - lead, min(requested, budget) + lead)
        except InvalidArgument:
            wide = None
        if wide is None or offset > wide.size:
            wide = read(offset, 1)  # raises the error that names this offset (past the end)
        before = wide.data[:lead]
        sl = bounded_range(replace(wide, offset=offset, data=wide.data[lead:], requested=requested, budget=echo),
                           end).prefix(min(requested, budget))
        reply = range_reply(sl, budget, before)
        if not reply["length"] and sl.data and reply["next_offset"] is not None and reply.get("encoding") != "hexdump":
            wider = read(sl.offset, len(sl.data) + 3)
            lead = lead_inside_character(wider.data, before)
            wider = wider.prefix(lead + first_character(wider.data[lead:]))  # that one character, whole
            reply = range_reply(bounded_range(replace(wider, requested=sl.requested, budget=echo), end), budget, before)
        return reply

    def scratch_write(self, key: str, value: str, encoding: str = "utf-8", ttl: float | None = None
                      ) -> dict[str, Any]:
        """``scratch_write``: store ``value`` (text, or base64 when ``encoding="base64"``) under ``key`` for ``ttl``
        seconds (``None``: the store's default); returns ``{key, size (bytes), ttl (seconds), expires_at (epoch
        seconds)}``. Raises InvalidArgument (bad base64, an unknown encoding, a bad key or ttl), QuotaExceeded,
        StorageError, StoreBusy."""
        if encoding == "base64":
            try:
                data: str | bytes = base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                raise InvalidArgument("value is not valid base64") from None
        elif encoding == "utf-8":
            data = value
        else:
            raise InvalidArgument(f"encoding must be 'utf-8' or 'base64': {encoding!r}")
        scope = self.scope
        entry = scope.scratch_write(key, data, ttl=ttl)
        # a checked key is at most MAX_KEY_BYTES of UTF-8 without control characters: with a key of 512 '"' the
        # reply is about 1,100 bytes of JSON (1,096 measured), well under the smallest budget (2,048): nothing to fit
        return {"key": entry.key, "size": entry.size, "ttl": ttl_json(entry.ttl),
                "expires_at": whole_seconds(entry.expires_at)}

    @keeps_budget
    def scratch_read(self, key: str, offset: int = 0, length: int = MAX_READ_BYTES, budget: int | None = None,
                     version: str | None = None) -> dict[str, Any]:
        """``scratch_read``: a range of the value of ``key``, fitted into the budget; its ``next_call`` carries the
        value's ``version``, and a call giving one is refused with ``Changed`` once the key was written again (the
        reads of one reply are of one value too)."""
        scope, key = self.scope, check_key(key)
        budget, echo = self._budgeted(scope, budget)
        offset = check_int(offset, "offset", 0)
        length = check_int(length, "length", 1)
        def read(at: int, n: int) -> Slice:  # every read of this reply pinned to the first one's version
            nonlocal version
            piece = scope.scratch_read_range(key, at, n, version=version)
            version = piece.version
            return piece

        return self._range(read, offset, min(length, MAX_READ_BYTES), budget, echo)

    @keeps_budget
    def scratch_list(self, prefix: str = "", limit: int = MAX_LIST_ENTRIES, cursor: str | None = None,
                     budget: int | None = None, spilled: bool = False) -> dict[str, Any]:
        """``scratch_list``: a page of the live keys starting with ``prefix``, oldest first; ``spilled``: of this
        scope's spilled results instead, newest first (:meth:`_spilled_list`)."""
        scope = self.scope
        budget, echo = self._budgeted(scope, budget)
        limit = check_int(limit, "limit", 1, MAX_LIST_ENTRIES)
        if check_flag(spilled, "spilled"):
            return self._spilled_list(prefix, limit, cursor, budget, echo)
        try:
            page = scope.scratch_page(prefix, limit=limit, cursor=cursor)
        except BadCursor as exc:  # (the listing from its start named, to go on with; a prefix's refusal is no
            # BadCursor, whatever it echoes)
            raise exc.from_start(Call.of("scratch_list", prefix=prefix or None, limit=limit),
                                 ": pass next_cursor as a page gave it, or list from the start: ") from None
        now = scope.store.now()  # (at most the ttl: an entry born in the future lives that long from a read on)
        rows = [{"key": e.key, "size": e.size, "expires_in": whole_seconds(e.expires_in(now)),
                 "preview": shown_preview(e.preview, e.content_type == "binary", LIST_PREVIEW_CHARS)}
                for e in page.entries]

        def call(next_cursor: str) -> str:
            return render_call("scratch_list", prefix=prefix or None, limit=limit if limit != MAX_LIST_ENTRIES
                               else None, cursor=next_cursor, budget=echo)

        return listing_reply({"prefix": prefix}, rows, page, call, budget)

    def _spilled_list(self, prefix: str, limit: int, cursor: str | None, budget: int,
                      echo: int | None) -> dict[str, Any]:
        """``scratch_list(spilled=true)``: ``{spilled: true, entries: [{handle, tool, size, shape, expires_in}],
        next_call}``, a page of this scope's live spilled results, newest first (a model whose context was cut finds
        its handles again). Raises InvalidArgument for a ``prefix`` (it filters keys), BadCursor as scratch_list."""
        if prefix:
            raise InvalidArgument("scratch_list: prefix filters scratchpad keys; spilled results are listed whole, "
                                  "newest first: call scratch_list(spilled=true) without it")
        scope = self.scope
        try:
            page = scope.spilled_page(limit=limit, cursor=cursor)
        except BadCursor as exc:
            raise exc.from_start(Call.of("scratch_list", spilled=True, limit=limit),
                                 ": pass next_cursor as a page gave it, or list from the start: ") from None
        now = scope.store.now()
        rows = [spilled_row(e, whole_seconds(e.expires_in(now))) for e in page.entries]

        def call(next_cursor: str) -> str:
            return render_call("scratch_list", spilled=True, limit=limit if limit != MAX_LIST_ENTRIES else None,
                               cursor=next_cursor, budget=echo)

        return listing_reply({"spilled": True}, rows, page, call, budget)

    def scratch_delete(self, key: str) -> dict[str, Any]:
        """``scratch_delete``: ``{key, deleted}``, and, when nothing was deleted, a ``note`` saying why: a spilled
        result's handle given as the key (spilled results are not the model's to delete; they expire), else the
        key's :class:`~scratchfs.foundation.errors.NotFound` (never written, expired or deleted already, the key of
        this scope likely meant), within the store's reply budget."""
        scope = self.scope
        if scope.scratch_delete(key):  # checks the key: 1,049 bytes of JSON at most (as scratch_write)
            return {"key": key, "deleted": True}
        if HANDLE_RE.match(key):
            return {"key": key, "deleted": False, "note": A_HANDLE_IS_NO_KEY.format(delete="scratch_delete")}
        why = scope.store.entries.not_found(scope.run_id, scope.agent_id, "scratch", key, reading=False)
        reply = {"key": key, "deleted": False, "note": f"nothing deleted: {why}"}  # (never written, expired,
        # deleted already; or the key of this scope likely meant)
        if reply_size(reply) > scope.store.settings.reply_budget_bytes:  # (a long key said twice, or its near one)
            reply["note"] = f"nothing deleted: no live value under this key in this scope{LOST_KEY}"
        return reply


def error_text(exc: BaseException) -> str:
    """The text of a tool error: ``"<kind>: <message>"``, e.g. ``"not found: no handle 'h_...' in this scope"``, and
    for an error flagged ``unavailable`` (a backend out of reach), that the call is worth making again in a few
    seconds -- but for one that names its own retry (``retry_after`` seconds: deferred_store's) and is whole; told
    by those attributes, not by the words (a run, key or object named ``retry-7`` in an S3 failure's message had
    it left out); at most :data:`~scratchfs.foundation.limits.MIN_REPLY_BYTES` UTF-8 bytes (a longer
    message is cut, ``...``, before that advice), valid UTF-8 (a lone surrogate in the message, an ``OSError``'s file
    name of bytes no UTF-8, written as its escape). Never raises: an exception whose ``str()`` raises (a library's,
    a scope function's) is told by its type and that (the adapter's ``call_scratch_tool`` raised that ``str()``'s
    error, where it never raises)."""
    message = _message_of(exc)
    text = utf8_text(_error_line(exc.kind, message) if isinstance(exc, ScratchError) else
                     _error_line("error", f"{type(exc).__name__}: {message}"))
    away = _AWAY if _flag(exc, "unavailable") and not (_flag(exc, "retry_after") and _whole(text)) else ""
    if not _whole(text + away):
        cut = MIN_REPLY_BYTES - 3 - len(away)
        text = text.encode("utf-8")[:cut].decode("utf-8", "ignore") + "..."
    return text + away


def _flag(exc: BaseException, name: str) -> bool:
    """Whether ``exc`` has the attribute ``name`` set (``unavailable``: ``True``; ``retry_after``: a number of
    seconds); ``False`` when it cannot be read (a lookup that raises: error_text never raises)."""
    try:
        value = getattr(exc, name, None)
    except Exception:
        return False
    return value is True if name == "unavailable" else isinstance(value, (int, float)) and not isinstance(value, bool)


_AWAY = "; the store is out of reach for now (no argument changes that): retry the call in a few seconds"
"""What a tool error flagged ``unavailable`` (the index database or the object store down, not answering) tells the
model, whose message otherwise speaks to the operator only ("check that the store is up and $AWS_ENDPOINT_URL names
it"): a call worth making again, unchanged, later."""


def _message_of(exc: BaseException) -> str:
    """``str(exc)``, or words saying it failed (its ``__str__`` raised)."""
    try:
        return str(exc)
    except Exception as failed:  # (a __str__ that raises: the error is told, never raised again)
        return f"<its message cannot be written: str() raised {type(failed).__name__}>"


def _error_line(kind: str, message: object) -> str:
    """A tool error's text before :func:`error_text` cuts it: ``"<kind>: <message>"``."""
    return f"{kind}: {message}"


def _whole(text: str) -> bool:
    """Whether :func:`error_text` gives ``text`` whole: at most ``MIN_REPLY_BYTES`` UTF-8 bytes."""
    return len(text) * 4 <= MIN_REPLY_BYTES or len(text.encode("utf-8")) <= MIN_REPLY_BYTES


__all__ = [
    "A_HANDLE_IS_NO_KEY",
    "STRUCTURE_ARGUMENTS",
    "TOOL_SPECS",
    "ScratchTools",
    "check_arguments",
    "error_text",
    "lines_reply",
    "listing_reply",
    "matches_reply",
    "range_reply",
    "reply_text",
    "structure_reply",
    "to_json",
    "ttl_json",
    "whole_seconds",
    "window_hits",
    "window_json",
]
