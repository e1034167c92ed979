"""What a handle or scratchpad key that names nothing is told (:func:`not_found`): expired or deleted when the index
knows it (within the last hour), the handle of a spilled result given as a key, and otherwise the live name of the
same scope it was likely meant for -- a handle a character or two off (a model copying 24 random letters), a key one
character off for a short key, two for a longer one (``bgi`` for ``big``) -- else how to go on.

A name of another scope is never named: the names compared are those of the caller's scope alone (the index's
``list_page`` of its run and agent). The cost is bounded: at most :data:`KEYS_COMPARED` keys (one page of the index),
each passed over when a lower bound of its edit distance (:class:`Letters`: the bag distance of their characters,
one C-speed count a distinct character) already exceeds the bound, else compared by a banded edit distance that
stops as soon as it exceeds the bound (:func:`within`), after their common prefix and suffix are set aside at C
speed. ``python bench/error_sizes.py --key-cost`` (08:22 UTC on 2026-12-05, load about 3): among 10,000 live keys,
34-44 ms to find the one an edit off (short keys, 500 characters sharing a prefix) and 34-50 ms to find that none
is near, where without the bound it took 97 and 107 ms (the table of every key), most of what is left the index's
page of keys."""

from __future__ import annotations

import datetime as _dt
import difflib
import re
from typing import Protocol

from scratchfs.engine.protocols import IndexBackend
from scratchfs.foundation import checks
from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import Deleted, Expired, NotFound, ScratchError
from scratchfs.foundation.limits import MIN_REPLY_BYTES

LOST_HANDLE = ("; copy the handle whole from the stub that gave it (another run's or agent's is not read here), or "
               "run the tool that made it again if its result expired over an hour ago")
_LIST = Call.of("scratch_list").shown("scratch_list")  # (a model reads the tool's name; the CLI writes the command,
# scratchfs scratch-list ..., where a tool's name told a shell user nothing)
LOST_KEY = Advice.of("; ", _LIST, " lists the keys of this scope")
ANOTHER_AGENTS = "; another agent's keys are not read here"
"""Said of a key that names nothing in its scope, before :data:`LOST_KEY`: agent B told by agent A to read A's
note was told only that B's scope has none, as if A had not written it (modeltask10); a handle's says it too."""
HANDLES_COMPARED = 2_000
"""The live handles of a scope a handle that names nothing is compared with (one page)."""
CLOSE_HANDLE = 0.9
"""difflib ratio: 2 of 26 characters changed is 0.92 at worst; random pairs 0.23 (0.46 at most)."""
KEYS_COMPARED = 10_000
"""The live keys of a scope a key that names nothing is compared with (one page, oldest first)."""


class _Entries(Protocol):  # what not_found needs of scratchfs.api.entries.Entries
    index: IndexBackend

    def now(self) -> float: ...

    @property
    def blobs(self) -> object: ...


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix of ``a`` and ``b`` (a binary search of slice comparisons: C speed)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi and a[lo] == b[lo]:  # (most pairs differ at once: no slice made)
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str) -> int:
    """Length of the common suffix of ``a`` and ``b`` (as :func:`_common_prefix`, from their ends)."""
    lo, hi, la, lb = 0, min(len(a), len(b)), len(a), len(b)
    while lo < hi and a[la - lo - 1] == b[lb - lo - 1]:
        mid = (lo + hi + 1) // 2
        if a[la - mid :] == b[lb - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def within(a: str, b: str, most: int) -> int | None:
    """The edit distance of ``a`` and ``b`` (insertions, deletions, substitutions and swaps of two neighbours, each
    one) when it is at most ``most``, else ``None``; a band of at most ``2 * most + 1`` cells a row, stopped at the
    first row whose every cell exceeds ``most``: time about ``most`` times the length of the part of them that
    differs, not their product. The distance is the optimal string alignment distance (Levenshtein's, with
    Damerau's transposition of two neighbours: F. J. Damerau, "A technique for computer detection and correction of
    spelling errors", CACM 7(3), 1964), computed in a diagonal band as in E. Ukkonen, "Algorithms for approximate
    string matching", Information and Control 64, 1985."""
    if abs(len(a) - len(b)) > most:
        return None
    head = _common_prefix(a, b)
    a, b = a[head:], b[head:]
    tail = _common_suffix(a, b)
    a, b = a[: len(a) - tail], b[: len(b) - tail]
    big = most + 1
    before: dict[int, int] = {}
    row = {j: j for j in range(min(len(b), most) + 1)}  # (a band of cells; a cell not kept exceeds most)
    for i in range(1, len(a) + 1):
        lo, hi = max(1, i - most), min(len(b), i + most)
        new = {0: i} if i <= most else {}
        for j in range(lo, hi + 1):
            best = min(row.get(j, big) + 1, new.get(j - 1, big) + 1, row.get(j - 1, big) + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, before.get(j - 2, big) + 1)
            if best <= most:
                new[j] = best
        if not new:
            return None
        before, row = row, new
    return row.get(len(b))


def key_meant(index: IndexBackend, run_id: str, agent_id: str, key: str, now: float) -> str | None:
    """The live key of this scope that ``key`` (which names nothing) was likely meant for: the nearest by edit
    distance, one edit for a key of up to 7 characters, two for a longer one, and a key differing only in case
    first (ties: the oldest); among its first :data:`KEYS_COMPARED`; else ``None`` -- also when the index cannot
    say. A key whose :class:`Letters` bound exceeds the distance still allowed is passed over without
    :func:`within`'s table (the same answer: the bound is never above the distance)."""
    try:
        keys = [e.key for e in index.list_page(run_id, agent_id, "scratch", "", now, None, KEYS_COMPARED)]
    except ScratchError:
        return None
    folded = key.casefold()
    same = [k for k in keys if k.casefold() == folded and k != key]
    if same:
        return same[0]
    most, found, letters = (1 if len(key) < 8 else 2), None, Letters(key)
    for known in keys:
        if letters.bound(known, most) > most:  # (surely farther than allowed: no table)
            continue
        distance = within(key, known, most)
        if distance is not None and known != key:
            found, most = known, distance - 1
            if most < 1:
                break
    return found


class Letters:
    """The characters of one string ``a``, counted once, for a lower bound of its edit distance to many others
    (:meth:`bound`): the bag distance, max(|a - b|, |b - a|) of their multisets of characters, which no edit of
    :func:`within` (an insertion, a deletion, a substitution, a swap of two neighbours) changes by more than one.
    It costs one C-speed ``str.count`` of ``b`` a distinct character of ``a``, where the table costs Python steps a
    character."""

    def __init__(self, a: str) -> None:
        self.size = len(a)
        self.counts = [(c, a.count(c)) for c in dict.fromkeys(a)]

    def bound(self, b: str, most: int) -> int:
        """A lower bound of the edit distance of ``a`` and ``b``: their bag distance when it is at most ``most``,
        else some value over ``most`` (the count stops there). Characters are counted, not bytes."""
        grown = len(b) - self.size
        if abs(grown) > most:
            return abs(grown)
        lacking = 0  # (a's characters b lacks, with their repeats; b's a lacks are lacking + grown, as the
        for c, n in self.counts:  # multisets' sizes differ by grown)
            short = n - b.count(c)
            if short > 0:
                lacking += short
                if lacking > most:
                    return lacking
        return max(lacking, lacking + grown)


def handle_meant(index: IndexBackend, run_id: str, agent_id: str, handle: str, now: float) -> str | None:
    """The live handle of this scope that ``handle`` (which names nothing) was likely copied from, a character or two
    changed, as a model may copy 24 random letters (:data:`CLOSE_HANDLE`; among its first
    :data:`HANDLES_COMPARED`), else ``None`` -- also when the index cannot say."""
    try:
        handles = [e.key for e in index.list_page(run_id, agent_id, "handle", "", now, None, HANDLES_COMPARED)]
    except ScratchError:
        return None
    found = difflib.get_close_matches(handle, [h for h in handles if h != handle], n=1, cutoff=CLOSE_HANDLE)
    return found[0] if found else None


CUT_HANDLE = re.compile(r"h_[a-z2-7]{8,23}")
"""A handle cut short: ``h_`` and 8 to 23 of its 24 letters (fewer are too few to say which one was meant)."""


def handle_started(index: IndexBackend, run_id: str, agent_id: str, value: str, now: float) -> str | None:
    """The live handle of this scope that ``value`` -- a handle cut short, :data:`CUT_HANDLE` (a model copying 26
    characters) -- is the start of, when exactly one is (the index's query by prefix, two rows at most); else
    ``None``, also when the index cannot say. Handles of other scopes are never looked at."""
    if not CUT_HANDLE.fullmatch(value):
        return None
    try:
        found = index.list_page(run_id, agent_id, "handle", value, now, None, 2)
    except ScratchError:
        return None
    return found[0].key if len(found) == 1 else None


def not_found(entries: _Entries, run_id: str, agent_id: str, kind: str, key: str, reading: bool = True,
              lost: bool = False) -> NotFound:
    """The :class:`NotFound` for a key of this scope: :class:`Expired` or :class:`Deleted` when the index knows
    what happened within the last hour. A scratchpad key that is the handle of a live spilled result is said to
    be one, with the ``read_handle`` call that reads it, when ``reading`` (a read, not a delete), and a handle that
    is a live scratchpad key of this scope (one the model wrote) with the ``scratch_read`` call; one shaped as a
    handle that names none is said to be neither, naming the handle of this scope it is likely copied from; any
    other key names the key of this scope it was likely meant for (:func:`key_meant`); else it says how to go on
    (copy the handle whole, or run the tool again; list the keys), its
    :attr:`~scratchfs.foundation.errors.NotFound.elsewhere` set: it may be another scope's. ``lost``: its row is live
    but its blob is gone
    (removed from outside the store), which is said, with what to do."""
    what = f"{'handle' if kind == 'handle' else 'key'} {key!r}"
    again = "run the tool that made it again" if kind == "handle" else "write it again"
    if lost:  # its row is live, its blob gone: no near key, no hour-old expiry (the next sweep drops the row)
        fact = f"{what} has lost its stored copy (removed from outside the store)"
        return _told(NotFound(f"{fact}; {again} if it is still needed"), fact)
    index, now = entries.index, entries.now()
    try:  # reported Expired: gone for good (an index without expire_now leaves it to the sweep)
        expire_now = getattr(index, "expire_now", None)
        expired = None if expire_now is None else expire_now(run_id, agent_id, kind, key, now)
    except ScratchError:  # a read-only store, a busy index: the report is still right
        expired = None
    if expired is not None:
        entries.blobs.unlink(run_id, agent_id, expired)  # type: ignore[attr-defined]
    gone = index.gone(run_id, agent_id, kind, key, now)
    if gone is None:
        hint, elsewhere, meant = _hint(index, run_id, agent_id, kind, key, reading, now)
        if kind == "scratch" and not _fits(what, hint):  # (a long key, escaped, beside long ids: the tool error's
            # cut named a near key that is not the live one, and lost the way on; the near key is left to the data,
            # NotFound.meant, and the ids, which the caller gave, to the fact)
            named = f" in this scope (run {run_id!r}, agent {agent_id!r})" + LOST_KEY
            hint = named if _fits(what, named) else " in this scope" + LOST_KEY
        fact = f"no {what} in this scope (run {run_id!r}, agent {agent_id!r})" + (
            ": it is the handle of a spilled result" if meant == ("handle", key)
            else ": it is a scratchpad key" if meant == ("scratch", key) else "")
        missing = _told(NotFound(Advice.of(f"no {what}", hint)), fact, meant)
        missing.elsewhere = elsewhere
        return missing
    when = f"{_utc(gone.at)} (epoch {gone.at:.3f})"
    fact = f"{what} {'expired' if gone.reason == 'expired' else 'was ' + gone.reason} at {when}"
    if gone.reason == "expired":
        return _told(Expired(f"{fact}; {again} if it is still needed"), fact)
    if gone.copy_lost:  # by fsck --repair or a sweep: its stored copy was broken or gone
        return _told(Deleted(f"{fact}; {again} if it is still needed"), fact)
    return _told(Deleted(fact), fact)


def _fits(what: str, hint: str | Advice) -> bool:
    """Whether the tool error ``no <what><hint>`` is whole within its cap (:data:`MIN_REPLY_BYTES`, UTF-8 bytes)."""
    return len(f"not found: no {what}{hint}".encode()) <= MIN_REPLY_BYTES


def _told(missing: NotFound, fact: str, meant: tuple[str, str] | None = None) -> NotFound:
    """``missing`` with its :attr:`~scratchfs.foundation.errors.NotFound.fact` and ``meant`` set."""
    missing.fact, missing.meant = fact, meant
    return missing


def _hint(index: IndexBackend, run_id: str, agent_id: str, kind: str, key: str, reading: bool, now: float
          ) -> tuple[str | Advice, bool, tuple[str, str] | None]:
    """The rest of a NotFound's message for a name the index knows nothing of: the scope, and what to do; whether
    nothing of it is known here (no live handle it is, no near name: it may be another scope's); and the live entry
    of the scope it names as meant (``(kind, name)``), if any."""
    shaped = checks.HANDLE_RE.match(key) is not None
    handle = reading and kind != "handle" and shaped
    try:  # (an index that cannot say: told as before, a handle)
        live = handle and index.lookup(run_id, agent_id, "handle", key, now) is not None
    except ScratchError:
        live = handle
    scope = f"{' (nor handle)' if handle and not live else ''} in this scope (run {run_id!r}, agent {agent_id!r})"
    if live:
        return Advice.of(f"{scope}; this is the handle of a spilled result, not a scratchpad key: read it with ",
                         Call.of("read_handle", handle=key)), False, ("handle", key)
    if reading and kind == "handle" and _is_key(index, run_id, agent_id, key, now):  # (a key the model wrote, shaped
        return Advice.of(f"{scope}; this is a scratchpad key, not the handle of a spilled result: read it with ",
                         Call.of("scratch_read", key=key)), False, ("scratch", key)  # as a handle)
    if kind == "handle" or handle:  # (shaped as a handle that names none: one near it)
        meant = handle_meant(index, run_id, agent_id, key, now)
        if meant:
            return (f"{scope}; did you mean {meant!r}, a handle of this scope one or two characters away?", False,
                    ("handle", meant))
        return scope + (LOST_HANDLE if kind == "handle" else ""), True, None
    if shaped:  # (a handle given to a delete: its caller says that spilled results are not deleted so)
        return scope, False, None
    meant = key_meant(index, run_id, agent_id, key, now)
    if meant:
        return (Advice.of(f"{scope}; did you mean {meant!r}, a key of this scope? (", _LIST, " lists them all)"),
                False, ("scratch", meant))
    return scope + ANOTHER_AGENTS + LOST_KEY, True, None


def _is_key(index: IndexBackend, run_id: str, agent_id: str, key: str, now: float) -> bool:
    """Whether ``key`` is a live scratchpad key of this scope (``False`` when the index cannot say)."""
    try:
        return index.lookup(run_id, agent_id, "scratch", key, now) is not None
    except ScratchError:
        return False


def _utc(epoch: float) -> str:
    try:
        return _dt.datetime.fromtimestamp(epoch, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (ValueError, OverflowError, OSError):  # a time no date is made of (a row another clock wrote): no date
        return "a time no date is made of"


__all__ = ["ANOTHER_AGENTS", "CLOSE_HANDLE", "CUT_HANDLE", "HANDLES_COMPARED", "KEYS_COMPARED", "LOST_HANDLE",
           "LOST_KEY", "Letters", "handle_meant", "handle_started", "key_meant", "not_found", "within"]
