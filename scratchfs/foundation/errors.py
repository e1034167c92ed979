"""The exception hierarchy of scratchfs: one base class, one subclass per kind of failure.

Every error a caller can see from the public API is a :class:`ScratchError`. The CLI maps each kind to one exit
code (:attr:`ScratchError.exit_code`), and the MCP faces map it to a tool error whose text starts with
:attr:`ScratchError.kind`.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass

from scratchfs.foundation.calls import Advice, Call


class ScratchError(Exception):
    """Base class of every error raised by scratchfs.

    Made from a message (str) or from :class:`~scratchfs.foundation.calls.Advice` (text with the calls it advises):
    ``str(err)`` is the text either way (each call as a model writes it), and :attr:`advice` keeps the calls as data
    for a face to write its own way (the CLI's shell commands).

    Attributes:
        kind: a short stable name of the failure, e.g. ``"not found"``.
        exit_code: the CLI exit code for this kind of failure.
        advice: the message's parts, its calls as data, or ``None`` when it names no call.
    """

    kind = "error"
    exit_code = 4
    advice: Advice | None = None

    def __init__(self, *args: object) -> None:
        if args and isinstance(args[0], Advice):
            if args[0].calls:
                self.advice = args[0]
            args = (str(args[0]), *args[1:])
        super().__init__(*args)

    @property
    def calls(self) -> tuple[Call, ...]:
        """The calls the message advises, in order (none when it names none)."""
        return () if self.advice is None else self.advice.calls

    def written(self, write: Callable[[Call], str], words: Callable[[str], str] | None = None) -> str:
        """The message with each call it advises written by ``write`` (a :class:`Call` -> text; ``str``: the
        message itself), and its other text by ``words`` when given (text -> text)."""
        if self.advice is None:
            return str(self) if words is None else words(str(self))
        return self.advice.written(write, words)

    def recall(self, rewrite: Callable[[Call], Call], keep: Callable[[str], bool] | None = None) -> None:
        """Name each call this error advises as ``rewrite`` gives it (a call -> the call to name instead), its
        message written again with them: a face adds the caller's own ``budget`` to the calls of a refusal. With
        ``keep`` (the message written again -> whether to take it), the error is left as it was when it says no
        (a message that would grow past what a face shows whole)."""
        if self.advice is None:
            return
        advice = Advice.of(*(rewrite(part) if isinstance(part, Call) else part for part in self.advice.parts))
        if keep is None or keep(str(advice)):
            self.advice, self.args = advice, (str(advice), *self.args[1:])

    def said(self) -> str | Advice:
        """What makes this error again: its advice, else its text (a subclass's ``__reduce__`` passes it)."""
        return self.advice if self.advice is not None else str(self)


class NotFound(ScratchError, KeyError):
    """No live entry answers this handle or key in this scope.

    Raised alike for a handle of another scope, an expired entry, a deleted run's entry and one that never existed,
    so that nothing about other scopes leaks. ``str(err)`` is the message (not ``KeyError``'s quoted repr).
    """

    kind = "not found"
    exit_code = 1
    elsewhere = False
    """Whether the name may be another scope's: nothing of it is known here (neither live, near a live one, expired
    nor deleted), so a face that can list every scope -- the CLI's ``scratchfs ls`` -- says how to find the run and
    agent that hold it (the model's tools list this scope alone)."""
    fact: str | None = None
    """What is known of the name, in words for anyone (``no handle 'h_...' in this scope (run 'r', agent 'a')``,
    ``handle 'h_...' expired at ...``), without the advice to a model that follows it in the message (copy the handle
    from its stub, run the tool again, ``scratch_list``): a face whose reader is a person -- the web inspector --
    writes its own advice after it; ``None``: the message is all there is."""
    meant: tuple[str, str] | None = None
    """``(kind, name)`` -- ``"handle"`` or ``"scratch"`` -- of the live entry of the same scope the message names as
    likely meant (a handle a character or two off, a key one off, a handle given as a key), else ``None``."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


class Expired(NotFound):
    """The entry existed in this scope but its TTL ran out (the message says when, in UTC and epoch seconds)."""


class Deleted(NotFound):
    """The entry was deleted (by ``scratch_delete``, ``delete_run`` or ``delete_agent``) within the last hour, or its
    row removed because its stored copy was missing or corrupt (by ``fsck --repair`` or a sweep): the message says
    which, and when."""


class Changed(NotFound):
    """A scratchpad value is not of the ``version`` a call gives: it was written again since the read that gave it
    (the pages read so far and the next would not be one value, so the next is refused), or no read of it gave that
    version. The message says the live value's version and size and how to read it again from offset 0."""

    kind = "changed"


class InvalidArgument(ScratchError, ValueError):
    """A bad id, key, range, TTL, needle or option; the message names the bad value."""

    kind = "invalid argument"
    exit_code = 2


class BadCursor(InvalidArgument):
    """A cursor refused by the call it was passed to: a listing's (``scratch_list``, a run's entries, the CLI's
    ``ls`` and ``fsck``, the web inspector's: not text, not one :mod:`~scratchfs.foundation.cursors` made, or of
    another listing) or a structure read's (not text, edited, of another entry or read, or naming a position the
    read does not make). Of the same ``kind`` as :class:`InvalidArgument`, so replies do not tell them apart; a
    caller that names the call from its start catches it by type, never by its words (:meth:`from_start`)."""

    def from_start(self, call: Call, lead: str) -> BadCursor:
        """This refusal naming ``call``, the call again without the cursor: after ``": "`` when its words already
        say to start again without one (they end ``without one`` or ``without a cursor``), else after ``lead``."""
        said = str(self).endswith(("without one", "without a cursor"))
        return BadCursor(Advice.of(self, ": " if said else lead, call))


@dataclass(frozen=True, slots=True)
class SearchOn:
    """The words of a stopped search's refusal around the way on past its trouble, kept as data: the text is
    ``{head}{lead} with offset={offset}{tail}`` (``str()``), and a layer that knows the search writes the way on as
    its call instead, :meth:`advice` -- no one reads the offset back out of the words.

    Attributes:
        head: the text before the way on (what stopped the search, and where).
        lead: the way on's words, ``"search on past them"``.
        offset: the byte offset a search goes on from, past the trouble (its matches unsearched).
        tail: the text after it.
    """

    head: str
    lead: str
    offset: int
    tail: str = ""

    def __str__(self) -> str:
        return f"{self.head}{self.lead} with offset={self.offset}{self.tail}"

    def advice(self, call: Call) -> Advice:
        """The same words with ``call`` (the search from :attr:`offset`) in place of ``with offset=N``."""
        return Advice.of(self.head, f"{self.lead}: ", call, self.tail)


class _Resumable(InvalidArgument):
    """An invalid search that stopped at a byte offset: ``resume_offset`` says where it stood, ``skip_offset``
    where a search goes on past the trouble (``None``: no search does)."""

    def __init__(self, message: str | Advice | SearchOn, resume_offset: int = 0,
                 skip_offset: int | None = None) -> None:
        way = message if isinstance(message, SearchOn) else None
        super().__init__(message if way is None else str(way))
        self.search_on, self.resume_offset = way, resume_offset
        self.skip_offset = skip_offset if way is None else way.offset

    def __reduce__(self):
        return (type(self), (self.search_on or self.said(), self.resume_offset, self.skip_offset))


class PatternTimeout(_Resumable):
    """A pattern search ran past its time limit (catastrophic backtracking).

    Attributes:
        resume_offset: the byte offset where the search stood (a page of the matches before it ends there, and a
            search from it meets the time limit again).
        skip_offset: the byte offset a search goes on from past the bytes it was deciding (their matches
            unsearched); the call the message names searches from it.
        search_on: the message's words around that way on, as data (:class:`SearchOn`), or ``None`` once a layer
            wrote the way on as a call.
    """


class StructureTimeout(InvalidArgument):
    """A jq filter or a CSS selector ran past its time limit (the ``pattern_timeout`` setting, seconds, wall clock):
    the message says what to try instead (a simpler filter, fewer ``records`` per page).

    Attributes:
        stopped: the message's words before what to try: what ran past the limit and when it was stopped (the whole
            message when it was given none).
    """

    def __init__(self, message: str | Advice, stopped: str | None = None) -> None:
        super().__init__(message)
        self.stopped = str(self) if stopped is None else stopped

    def __reduce__(self):
        return (type(self), (self.said(), self.stopped))


class BadRecord(InvalidArgument):
    """A record of a JSON-lines read cannot be given: it is not JSON (or nested too deeply to parse), or the read's
    jq filter fails on it; or a row of a CSV/TSV read cannot be read (a field or line past the bound, CSV the ``csv``
    module refuses). The message says how to go on: the byte read that shows the record and the read that starts
    after it.

    Attributes:
        record: the record's (row's) number (from 1).
        offset: the byte offset where the record starts in the content.
        length: the record's length in bytes (its line end included).
        cursor: where the read on after it starts, as a cursor of the read that met it (a rows read started at
            it: its read on after it goes from there rather than counting the rows before it again), or ``None``.
        not_json: the record (document) is not JSON -- the parser's message says why --, not a filter's failure on
            it, JSON nested too deeply or a row.
    """

    def __init__(self, message: str | Advice, record: int = 1, offset: int = 0, length: int = 0,
                 cursor: str | None = None, not_json: bool = False) -> None:
        super().__init__(message)
        self.record, self.offset, self.length, self.cursor = record, offset, length, cursor
        self.not_json = not_json

    def __reduce__(self):
        return (type(self), (self.said(), self.record, self.offset, self.length, self.cursor, self.not_json))


class PastLast(InvalidArgument):
    """A ``row=`` or ``record=`` read starts past the last one: ``"row 30000 is past the last row (25,000)"``. The API
    adds the call that reads the last ones (:func:`scratchfs.api.past_last.past_last`).

    Attributes:
        unit: ``"row"`` or ``"record"``.
        asked: the number the read asked for (from 1).
        last: how many there are.
    """

    def __init__(self, unit: str, asked: int, last: int) -> None:
        super().__init__(f"{unit} {asked} is past the last {unit} ({last:,})")
        self.unit, self.asked, self.last = unit, asked, last

    def __reduce__(self):
        return (type(self), (self.unit, self.asked, self.last))


class JqFailed(InvalidArgument):
    """A jq filter's step met a value it cannot take (jq's own runtime error, ``Cannot index array with string
    ("a")``): the message is ``jq: <reason>`` and the next step to try.

    Attributes:
        reason: jq's message, on one line (at most 300 characters).
        keyed: the kind of value a key was looked up in (``"array"`` for jq's ``Cannot index array with string``;
            ``"number"``, ``"string"``, ``"boolean"``, ``"null"``), else ``None``.
    """

    def __init__(self, message: str | Advice, reason: str = "", keyed: str | None = None) -> None:
        super().__init__(message)
        self.reason, self.keyed = reason, keyed

    def __reduce__(self):
        return (type(self), (self.said(), self.reason, self.keyed))


class NotJson(InvalidArgument):
    """A jq read's content is not JSON: jq's parser stopped in it (``jq: parse error: ...``), or the reader did
    before jq (a start no JSON value has, binary data after the JSON, bytes that are no UTF-8 text, a streamed
    document's syntax); also the inspector's JSON tree of an entry that does not parse.

    Attributes:
        by_jq: jq's own parser stopped (its parse error); the fields below say where.
        line: the line jq's parse error names (from 1), else ``None``.
        column: the column it names on that line (jq's count), else ``None``.
        at_end: jq met the content's end inside a value: a document cut short.
        too_deep: the document is nested past jq's depth limit (10,000 levels).
        offset: the byte of the content where the parser stopped (from 0), when the reader knows it: our scan of a
            document's first bytes (``by_jq`` false, ``line`` ``None``), or jq's line and column mapped to bytes over
            the document jq was given (jq counts the newline that ends a bad token before it reports: column 0 of
            line ``L`` is the newline that ends line ``L - 1``, ``offset`` that byte); else ``None``.
    """

    def __init__(self, message: str | Advice, *, by_jq: bool = False, line: int | None = None, at_end: bool = False,
                 too_deep: bool = False, column: int | None = None, offset: int | None = None) -> None:
        super().__init__(message)
        self.by_jq, self.line, self.at_end, self.too_deep, self.column = by_jq, line, at_end, too_deep, column
        self.offset = offset

    def __reduce__(self):
        return (_not_json, (self.said(), self.by_jq, self.line, self.at_end, self.too_deep, self.column,
                            self.offset))


def _not_json(message: str | Advice, by_jq: bool, line: int | None, at_end: bool, too_deep: bool,
              column: int | None = None, offset: int | None = None) -> NotJson:
    return NotJson(message, by_jq=by_jq, line=line, at_end=at_end, too_deep=too_deep, column=column, offset=offset)


class BadSelector(InvalidArgument):
    """A CSS selector that does not parse, or that the selector engine cannot run (cssselect's or lxml's error,
    named on one line).

    Attributes:
        selector: the selector (at most 80 characters of it).
    """

    def __init__(self, message: str | Advice, selector: str = "") -> None:
        super().__init__(message)
        self.selector = selector

    def __reduce__(self):
        return (type(self), (self.said(), self.selector))


class WideHeader(InvalidArgument):
    """A rows read's header -- the columns it shows -- takes more of the page's budget than a page allows it.

    Attributes:
        fitting: the numbers (from 0, in the table) of the first of those columns that would fit (empty: not even
            the first), at most 16.
    """

    def __init__(self, message: str | Advice, fitting: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.fitting = tuple(fitting)

    def __reduce__(self):
        return (type(self), (self.said(), self.fitting))


class SlurpTooLarge(InvalidArgument):
    """A slurp read of a table whose rows, as one JSON array of objects, grow past that array's bound (each row
    repeats the header's names): the message says at which row; the read that pages them is the way on."""


class PatternTooLong(_Resumable):
    """A pattern match (with its lookaround) is longer than the search's reach bound, so it cannot be found exactly
    in a streaming search.

    Attributes:
        resume_offset: the byte offset of the offending match.
        skip_offset: the byte offset a search goes on from past it (the next byte), or ``None``: no search goes
            past it (a line longer than a line-bound search holds: read it by range or search it with ``match=``).
        search_on: as :class:`PatternTimeout`'s.
    """


class BadPattern(InvalidArgument):
    """A regular expression that does not parse, or holds a ``[`` inside a class (a nested set, or a POSIX class
    such as ``[:alpha:]``, which Python's ``re`` does not support).

    Attributes:
        rewrite: what its message advises writing instead, as data: ``"as written"`` (the text as written with
            ``match=``, or the special character where it does not parse escaped), ``"posix"`` (each POSIX class
            written as the ranges it stands for), or ``None`` (no rewrite: the message says what is wrong).
    """

    def __init__(self, message: str | Advice, rewrite: str | None = None) -> None:
        super().__init__(message)
        self.rewrite = rewrite

    def __reduce__(self):
        return (type(self), (self.said(), self.rewrite))


class PatternMatchesEmpty(InvalidArgument):
    """A pattern that matches empty text, and non-empty text too, whose non-empty matches cannot be found but by
    trying it at every byte (a backreference to a group captured inside a lookaround, as in ``(?=(a))\\1?``): it is
    refused before it runs, as such a search would run into its time limit over a large content. The message says
    how to write it so that it cannot match empty text."""


QUOTA_ADVICE = "delete entries or wait for them to expire"
"""How a :class:`QuotaExceeded` message ends (after ``"; "``): the operator's and the program's way on. A model told
of a refused spill is told instead what its own tools can do (:func:`scratchfs.api.stub.refusal_notice`): it has
no tool that deletes a spilled result."""


class QuotaExceeded(ScratchError):
    """Writing this entry would take its run past ``run_quota_bytes`` (stored bytes) or ``run_quota_entries``.

    Attributes:
        alone: the entry by itself takes more stored bytes than the run's quota: no deletion makes room for it.
    """

    kind = "quota exceeded"
    exit_code = 5

    def __init__(self, message: str | Advice, *, alone: bool = False) -> None:
        super().__init__(message)
        self.alone = alone

    def __reduce__(self) -> tuple:
        return _quota_exceeded, (self.said(), self.alone)


def _quota_exceeded(message: str | Advice, alone: bool) -> QuotaExceeded:
    return QuotaExceeded(message, alone=alone)


class CorruptBlob(ScratchError):
    """A blob file does not match its seek table, its checksums or its index row; the message names the handle."""

    kind = "corrupt"
    exit_code = 3


class StoreBusy(ScratchError, TimeoutError):
    """The index or a lock stayed busy past the store's busy timeout (seconds); or a jq or HTML read found no
    worker process (every one busy until the read's time limit, or none could be started: out of descriptors or
    memory), so it was not run. Retrying later may succeed."""

    kind = "busy"
    exit_code = 4


class StorageError(ScratchError, OSError):
    """The file system refused a write or a read (disk full, file-size limit, permissions, run deleted mid-write)."""

    kind = "storage"
    exit_code = 4


class UpstreamUnavailable(ScratchError):
    """The MCP proxy's upstream server could not be started, has exited, or did not answer within the timeout."""

    kind = "upstream unavailable"
    exit_code = 4


class StoreClosed(StorageError):
    """The store was closed (:meth:`~scratchfs.ScratchStore.close`): the call did nothing, and no later call will."""

    kind = "closed"
    exit_code = 4


_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EFBIG: "the file-size limit was reached",
    errno.EDQUOT: "the disk quota is exhausted",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "the file system is read-only",
    errno.ELOOP: "a symbolic link is in the way (scratchfs never follows links inside its root)",
    errno.EMFILE: "too many open files in this process",
    errno.ENFILE: "too many open files in the system",
    errno.EIO: "an input/output error",
    errno.ENOMEM: "out of memory or address space (the process's memory limit, ulimit -v, or the machine's)",
}


def storage_error(exc: OSError, doing: str) -> StorageError:
    """Wrap an ``OSError`` as a :class:`StorageError` whose message says what failed and why; its ``errno`` is the
    cause's (the caller raises it ``from exc``)."""
    err = StorageError(f"{doing}: {_REASONS.get(exc.errno or 0, exc.strerror or str(exc))}")
    err.errno = exc.errno
    return err


_EXHAUSTED = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM})


def unless_exhausted(exc: StorageError) -> StorageError:
    """``exc``, raised instead when its cause is this process or the system out of descriptors or memory
    (``EMFILE``, ``ENFILE``, ``ENOMEM``): a check that met it could not look, and nothing is known to be wrong with
    what it looked at (``fsck`` under ``ulimit -n 8`` reported every entry as a problem, exit 3, atk28)."""
    if exc.errno in _EXHAUSTED:
        raise exc
    return exc


def out_of_reach(exc: BaseException) -> bool:
    """Whether ``exc`` says a backend is out of reach for now (the ``unavailable`` flag of the index's and the object
    store's errors: down, refusing, not answering, busy starting up, too many connections) or busy for now
    (:class:`~scratchfs.foundation.errors.StoreBusy`: a lock -- SQLite's, the schema lock, PostgreSQL's
    ``lock_timeout`` -- held past the busy timeout) rather than refusing a setting."""
    return isinstance(exc, StoreBusy) or (isinstance(exc, StorageError) and bool(getattr(exc, "unavailable", False)))


__all__ = [
    "QUOTA_ADVICE",
    "BadCursor",
    "BadPattern",
    "BadRecord",
    "BadSelector",
    "Changed",
    "CorruptBlob",
    "Deleted",
    "Expired",
    "InvalidArgument",
    "JqFailed",
    "NotFound",
    "NotJson",
    "PastLast",
    "PatternTimeout",
    "PatternTooLong",
    "QuotaExceeded",
    "ScratchError",
    "SearchOn",
    "SlurpTooLarge",
    "StorageError",
    "StoreBusy",
    "StoreClosed",
    "StructureTimeout",
    "UpstreamUnavailable",
    "WideHeader",
    "out_of_reach",
    "storage_error",
    "unless_exhausted",
]
