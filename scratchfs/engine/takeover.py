"""Which orphans of a blob location a previous owner of it committed: the writes of an old host after a takeover.

**Why.** ``fsck --rebuild-index`` into a new schema takes a blob location over (:mod:`scratchfs.engine.pairing`).
A host of the old schema that keeps its store open goes on committing writes for up to ``OWNER_CHECK_SECONDS``
(S3) or ``LOCAL_CHECK_SECONDS`` (local files) after its last ownership check: acknowledged writes whose blobs no row
of the new index names. Its sweep took them for orphans and removed them once older than ``orphan_grace``: lost.

**How.** An orphan the new index's sweep finds is adopted -- its row restored from its binding frame,
as the rebuild restores one (:func:`scratchfs.api.restore.restore_blob`: not if expired, nor if a newer entry of
its key or a delete of its key or scope is there) -- when a row of a previous owner's schema names it (its run,
agent and token): that row is the write's commit, so the old host acknowledged it, and its ``created_at`` (the
database's clock, as this index's rows) dates the adopted entry. :func:`named_elsewhere` finds them: the schemas of
the same database that hold a scratchfs index (``store`` and ``entries`` tables) this role may read, other than
this index's, that the takeover chain the pairings record leads back to (:func:`chain`: the store id this index took
over, ``store.took_over``, written as the takeover claims the location; the schema paired with the same location
before it that holds that id; the id that one took over, and so on -- an index paired without a takeover has none,
and the index that took the location over from this one is none), their rows written within
:data:`MARGIN_SECONDS` of the takeover: one query when no other index is there, else two and one per 200 other
indexes, remembered for :data:`OWNERS_SECONDS` (none to ask, then, on a store never taken over), and
where there are some, one query per :data:`BATCH` orphans.

**Why rows, not times.** The binding's ``created_at`` falling in the window after the takeover says a write began
then, not that it was acknowledged: a write reported failed whose object stayed (its row's check failed, and the
deletion of its object too: :meth:`S3Pending.discard <scratchfs.engine.s3_blobs.S3Pending.discard>` leaves a failure
to the orphan sweep) and a key the old host wrote and then deleted (its fenced deletion leaves the object to the new
owner) are dated the same; neither has a row in the old schema (``tests/test_fencing_adopt.py``).

**When.** An adoption is weighed against this index's tombstones of the key, run and agent, which last
``TOMBSTONE_SECONDS`` (an hour): a write committed longer ago is not adopted (stale; a delete since may be
forgotten, and its value would come back), and past :data:`MARGIN_SECONDS` and that hour after the takeover no row
of the window can be adopted, so nothing is looked up any more. The sweeps look at an orphan for
adoption once it is :data:`ADOPT_AFTER` (300 s) old, or ``orphan_grace`` if shorter -- S3 objects, segments and
local files alike -- so that with a grace over the hour the old host's writes are adopted within it (they were
looked at only past the grace, by when a key the new index deleted after the old host wrote it came back), and so
that a write the old host deletes within its window (its acknowledged delete) is not adopted a moment before (the
local sweep looked every file no row names up at once, whatever its age). That timing is one rule,
:class:`OrphanRule` (keep, adopt, remove as an orphan, or stale), which the three sweeps and ``fsck`` go by. A
segment an old host still running holds is looked at too (its records adopted, nothing of it removed): it was
judged only once let go, maybe hours later.

Left: an old schema in another database, dropped, or one this role may not read (no ``USAGE`` on it, no ``SELECT``
on its tables) gives nothing to adopt (the orphans are removed as before); a write of the old host whose row is
committed more than ``orphan_grace`` after its blob was written is removed first (each sweep looks again until
then): a write slower than the grace period, which fails or is lost on one index as well. A sweep that does not run
in the hour after a takeover adopts nothing of it: the old host's writes are then removed as orphans (logged as
stale when a sweep still looks at one), where adopting them could bring back a key deleted since. A schema paired
with the same location before this index that never owned it -- every PostgreSQL index with local files records the
same location, :data:`~scratchfs.engine.pairing.LOCAL_LOCATION`; a crafted ``store`` row -- is no previous owner: it
is no link of the chain. A copied ``store`` row (an id two schemas hold) ends the chain there, trusting neither: the
old host's late writes of that takeover are removed as orphans, as before adoption (logged). An index paired before
schema version 5 (``took_over`` NULL: not recorded) keeps the rule of before -- every schema paired with the same
location before it is a previous owner, for the 70 minutes after its pairing -- and a previous owner of before
version 5 ends the chain (what it took over is not recorded). A second takeover within the margin of the first (both
old indexes are previous owners then) restores with its rebuild every bound blob still there, the first old host's
late writes with them -- and, as every rebuild, a value that host deleted within its window or a write reported
failed whose object stayed. An adopted value is weighed by its old row's commit against a row the new index wrote,
and by its binding against a row restored from its blob (both on the old host's clock), read before its row is
written: a write of its key by the new index in between is weighed in the row's transaction by the time chosen.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from scratchfs.engine.local_blobs import BLOB_SUFFIX
from scratchfs.engine.pairing import LOCAL_LOCATION
from scratchfs.engine.protocols import BlobFile
from scratchfs.foundation.checks import path_part
from scratchfs.foundation.errors import ScratchError
from scratchfs.foundation.limits import ORPHAN_GRACE, TOMBSTONE_SECONDS

__all__ = ["ADOPT", "ADOPT_AFTER", "BATCH", "KEEP", "MARGIN_SECONDS", "OWNERS_SECONDS", "REMOVE", "STALE", "Adopt",
           "OrphanRule", "adopt_files", "adopt_named", "chain", "named_elsewhere", "previous_owners", "since_pairing"]

log = logging.getLogger(__name__)

BATCH = 1000
"""Orphans looked up in the previous owners' rows per query."""
OWNERS_SECONDS = 60.0
"""Seconds the previous owners of a location found (:func:`previous_owners`) are trusted before looked for again."""

MARGIN_SECONDS = 600.0
"""Rows of a previous owner written more than this long before the takeover (this index's pairing, on the clock
of the host that rebuilt it; a row's ``created_at`` is on the database's clock) are not looked at: they are the
entries the rebuild restored, or chose not to (expired, superseded), never an orphan to adopt -- so that an entry
this index removed whose object's deletion failed (left to the orphan sweep) cannot come back through them. Nor
are rows written more than this long after it: an old host commits none later than ``OWNER_CHECK_SECONDS`` after
it (its ownership check fails), so such a row is no old host's write; and its ``created_at``, which an adopted row
takes, is bounded (a row of ``NaN`` or ``Infinity`` would otherwise win over every newer write of its key and
never expire)."""

ADOPT_AFTER = ORPHAN_GRACE
"""Seconds after which a sweep looks at a blob no row names for an old host's write to adopt, when ``orphan_grace``
is longer (else at ``orphan_grace``): S3 objects and segments are otherwise looked at only once older than the
grace, and an adoption later than :data:`~scratchfs.foundation.limits.TOMBSTONE_SECONDS` after the write is refused
(:data:`STALE`): with a grace over the hour, every such write would be lost."""

Adopt = Callable[[BlobFile, float], bool]
"""``(found, committed_at) -> bool``: restore the row of the orphan ``found`` that a previous owner's row names, as
created at ``committed_at`` (that row's ``created_at``, epoch seconds on the database's clock, as the rows of this
index that it is weighed against); True if it did (:func:`scratchfs.api.restore.adopt_blob`)."""

_owners: dict[tuple[int, str, str], tuple[float, tuple[float, list[str]]]] = {}  # (index, schema, location) -> ...

_SCHEMA_RE = re.compile(r"[a-z_][a-z0-9_]{0,62}")  # the schema names scratchfs takes (safe to quote as they are)

_INDEXES = """
SELECT n.nspname, EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = s.oid AND NOT a.attisdropped
                          AND a.attname = 'took_over' AND a.atttypid = 'text'::regtype) FROM pg_namespace n
JOIN pg_class s ON s.relnamespace = n.oid AND s.relname = 'store' AND s.relkind IN ('r', 'p')
JOIN pg_class e ON e.relnamespace = n.oid AND e.relname = 'entries' AND e.relkind IN ('r', 'p')
WHERE n.nspname <> %(me)s AND has_schema_privilege(n.oid, 'USAGE')
  AND has_table_privilege(s.oid, 'SELECT') AND has_table_privilege(e.oid, 'SELECT')
  AND (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = s.oid AND NOT a.attisdropped
       AND ((a.attname = 'blobs' AND a.atttypid = 'text'::regtype)
            OR (a.attname = 'paired_at' AND a.atttypid = 'float8'::regtype))) = 2
  AND (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = e.oid AND NOT a.attisdropped
       AND ((a.attname IN ('run_id', 'agent_id', 'blob') AND a.atttypid = 'text'::regtype)
            OR (a.attname = 'created_at' AND a.atttypid = 'float8'::regtype))) = 4
ORDER BY 1"""  # (every column the queries below read, of its type: a table of another kind is no index's)

_PER_QUERY = 200  # schemas whose store rows one query reads


def named_elsewhere(index: Any, location: str, objects: Iterable[Any]) -> list[tuple[Any, float]]:
    """The ``objects`` (listed blobs: ``run`` and ``agent``, their encoded directory names, and ``token``) that a
    row of a previous owner of ``location`` names (see the module docstring), in their order, each with that row's
    ``created_at`` (epoch seconds: the write's commit, on the database's clock; the latest if two owners name it).

    Args:
        index: this location's :class:`~scratchfs.engine.postgres_index.PostgresIndex` (its schema is left out).
        location: the location as pairings record it (:func:`scratchfs.engine.pairing.location_of`).

    Raises:
        StorageError, StoreBusy: the index failed (the caller removes none of the objects then).
    """
    objects = list(objects)
    if not objects:
        return []
    found = _owners.get(_key(index, location))
    cached = found is not None and time.monotonic() - found[0] < OWNERS_SECONDS  # (else looked for now: not again)
    try:
        named = _named_rows(index, location, objects)
    except ScratchError:  # (a previous owner's schema dropped since it was found, a minute ago at most)
        _owners.pop(_key(index, location), None)
        if not cached:
            raise
        named = _named_rows(index, location, objects)  # (looked for again, once)
    return [(obj, named[where]) for obj in objects if (where := (obj.run, obj.agent, obj.token)) in named]


KEEP, ADOPT, REMOVE, STALE = "keep", "adopt", "remove-as-orphan", "stale"
"""The verdicts of :meth:`OrphanRule.judge` on a blob no row of this index names."""


class OrphanRule:
    """The one rule for a blob no row of this index names -- a blob file, an S3 object, a segment's record: the
    fleet sweep, the local sweep, the segment sweep and ``fsck`` all go by it (see "When" in the module docstring).

    Args:
        grace: ``orphan_grace``, seconds; ``-inf``: any age (a segment its expired rows name, judged at once).
        since_pairing: seconds since this index's pairing (the takeover) when an index paired with the same blobs
            before it is there (a previous owner), else ``inf``; or a function returning that, called once and only
            when an age first calls for it (:func:`since_pairing` queries the index: StorageError, StoreBusy).
        now: the store clock's time (epoch seconds) against which a previous owner's row's ``created_at`` is aged.
    """

    def __init__(self, grace: float, since_pairing: float | Callable[[], float] = math.inf,
                 now: float = math.nan) -> None:
        self.grace, self.now = grace, now
        self._since = since_pairing

    def judge(self, age: float, committed: float | None = None) -> str:
        """The verdict on a blob last modified ``age`` seconds ago (its file system's or object store's clock) that
        a previous owner's row committed ``committed`` seconds ago names (``None``: no row does, or none was looked
        up): :data:`ADOPT` (restore its row) when the takeover is no more than ``MARGIN_SECONDS`` and
        ``TOMBSTONE_SECONDS`` ago, the blob at least ``min(grace, ADOPT_AFTER)`` old, and the row younger than
        ``TOMBSTONE_SECONDS`` -- else :data:`STALE` (a delete since may be forgotten: not adopted, removed as an
        orphan once past the grace); when not named (or not yet due), :data:`REMOVE` at ``grace`` or older, else
        :data:`KEEP`. NaN never adopts nor removes: a NaN ``committed`` is stale."""
        if committed is not None and age >= min(self.grace, ADOPT_AFTER) and self.adopting():
            return ADOPT if committed < TOMBSTONE_SECONDS else STALE
        return REMOVE if age >= self.grace else KEEP

    def due(self, age: float) -> bool:
        """Whether a blob ``age`` seconds old is looked up in the previous owners' rows: a row committed just now
        that names it would have it adopted (:meth:`judge`)."""
        return self.judge(age, 0.0) == ADOPT

    def due_in(self, age: float) -> float:
        """Seconds until a blob ``age`` seconds old is old enough to be judged for adoption (``min(grace,
        ADOPT_AFTER)``; 0.0: it is; NaN for a NaN age: never) -- before then a host of a previous owner may still
        be writing it, or deleting it within its window."""
        return math.nan if math.isnan(age) else max(0.0, min(self.grace, ADOPT_AFTER) - age)

    def adopting(self) -> bool:
        """Whether any blob may be adopted: a previous owner is there and the takeover was no more than
        ``MARGIN_SECONDS`` and ``TOMBSTONE_SECONDS`` ago (this host's clock against the rebuilding host's), so that
        a row of its window may not be stale yet. After that nothing is looked up: an index paired before schema
        version 5 after another index of the same location (every PostgreSQL index with local files records the
        same one), never taken over, pays nothing for it beyond the first 70 minutes (paired since, nothing)."""
        if callable(self._since):
            self._since = self._since()
        return self._since < MARGIN_SECONDS + TOMBSTONE_SECONDS  # (NaN: not)


def since_pairing(index: Any, location: str) -> float:
    """Seconds since ``index`` was paired with ``location`` when a previous owner of it is there
    (:func:`previous_owners`), else ``inf``: :class:`OrphanRule`'s ``since_pairing``. Raises StorageError,
    StoreBusy."""
    paired, owners = previous_owners(index, location)
    return time.time() - paired if owners else math.inf


def _named_rows(index: Any, location: str, objects: list[Any]) -> dict[tuple[str, str, str], float]:
    """``(run dir, agent dir, token) -> created_at`` of the previous owners' rows that name ``objects``."""
    paired, owners = previous_owners(index, location)
    if not owners or not OrphanRule(0.0, time.time() - paired).adopting():
        return {}
    query = " UNION ALL ".join(f'SELECT run_id, agent_id, blob, created_at FROM "{name}".entries WHERE blob = '
                               "ANY(%(tokens)s) AND created_at BETWEEN %(since)s AND %(until)s" for name in owners)
    window = {"since": paired - MARGIN_SECONDS, "until": paired + MARGIN_SECONDS}  # (NaN, Infinity: outside)
    named: dict[tuple[str, str, str], float] = {}
    for start in range(0, len(objects), BATCH):
        tokens = sorted({obj.token for obj in objects[start:start + BATCH]})
        rows = index.read(query, {"tokens": tokens, **window}, "looking for orphans in the blobs' previous owners' "
                          "rows")
        for run_id, agent_id, blob, created_at in rows:
            where = path_part(run_id), path_part(agent_id), blob
            named[where] = max(created_at, named.get(where, created_at))
    return named


def previous_owners(index: Any, location: str) -> tuple[float, list[str]]:
    """The schemas of ``index``'s database, other than its own, that hold a scratchfs index this role may read and
    owned ``location`` before this index took it over (the indexes that owned it before a takeover; never one paired
    since, such as the index that took it over from this one), and when this index was paired (took the location
    over: epoch seconds, on the rebuilding host's clock; ``inf`` when there are none), their rows counting within
    :data:`MARGIN_SECONDS` of it. Those are the chain of takeovers the pairings record (:func:`chain`: the store id
    this index took over, ``store.took_over``, the schema paired with ``location`` before it that holds that id, the
    id that one took over...); an index paired without a takeover has none (none asked). One query when no other
    index is there, else two and one per 200 other indexes, then remembered for :data:`OWNERS_SECONDS` (nothing to
    ask per orphan on a store that was never taken over). Raises StorageError, StoreBusy."""
    key = _key(index, location)
    cached = _owners.get(key)
    if cached is not None and time.monotonic() - cached[0] < OWNERS_SECONDS:
        return cached[1]
    schemas = [(row[0], row[1]) for row in index.read(_INDEXES, {"me": str(index.schema)}, "looking for the blobs' "
                                                      "previous owners") if _SCHEMA_RE.fullmatch(row[0])]
    mine = index.read("SELECT paired_at, took_over FROM @S.store", {}, "reading the store's pairing") if schemas else []
    rows: list[tuple[str, str, str | None]] = []
    for start in range(0, len(schemas) if mine and mine[0][1] != "" else 0, _PER_QUERY):  # ('': no takeover)
        rows += index.read(" UNION ALL ".join(  # (paired before this index: no later owner's)
            f"SELECT '{name}', id, {'took_over' if chained else 'NULL::text'} FROM \"{name}\".store WHERE blobs = "
            "%(location)s AND paired_at < %(paired)s" for name, chained in schemas[start:start + _PER_QUERY]),
            {"location": location, "paired": mine[0][0]}, "looking for the blobs' previous owners")
    owners = chain(mine[0][1], rows) if rows else []
    found = (mine[0][0] if owners else float("inf"), owners)
    if len(_owners) >= 64:
        _owners.clear()
    _owners[key] = (time.monotonic(), found)
    return found


def chain(took_over: str | None, pairings: list[tuple[str, str, str | None]]) -> list[str]:
    """The schemas, sorted, of the indexes ``took_over`` (the store id a pairing took over; ``""``: none) leads
    back through: of ``pairings`` (``(schema, store id, the id it took over or None)``, each paired with the same
    location before), the one holding that id, then the one holding the id it took over, and so on. A store id
    held by two schemas (a copied ``store`` row) ends the chain there, the copy's rows trusted no more than the
    original's (the old host's late writes are then removed as orphans, as before adoption); so does a pairing of
    before schema version 5 (``None``: what it took over is not recorded). ``None`` for ``took_over`` -- this index
    was paired before version 5 -- is every one of ``pairings`` (the rule before the chain was recorded: its window
    ends 70 minutes after that pairing)."""
    if took_over is None:
        return sorted(name for name, _id, _took in pairings)
    held: dict[str, list[tuple[str, str | None]]] = {}
    for name, store_id, took in pairings:
        held.setdefault(store_id, []).append((name, took))
    owners: list[str] = []
    at: str | None = took_over
    while at and len(held.get(at, ())) == 1 and held[at][0][0] not in owners:
        name, at = held[at][0]
        owners.append(name)
    if at and len(held.get(at, ())) > 1:
        log.warning("scratchfs: the store id %s this index's takeovers lead back to is held by %d schemas (%s): a "
                    "copied store row; none of them is taken for a previous owner, and no orphan their rows name is "
                    "adopted", at, len(held[at]), ", ".join(sorted(name for name, _took in held[at])))
    return sorted(owners)


def _key(index: Any, location: str) -> tuple[int, str, str]:
    return id(index), str(index.schema), location


def adopt_named(index: Any, location: str, orphans: list[tuple[BlobFile, float]], adopt: Adopt,
                rule: OrphanRule) -> list[BlobFile]:
    """Adopt (``adopt``: restore its row as created when that row says, True if it did) each of ``orphans`` (a
    blob and its age, seconds) that a row of a previous owner of ``location`` names (:func:`named_elsewhere`) and
    ``rule`` judges :data:`ADOPT` (that row aged against ``rule.now``); one judged :data:`STALE` is logged and left
    (its blob not read: the sweep removes it as an orphan). Return those adopted (logged when any).

    Raises:
        StorageError, StoreBusy: from the index, or from ``adopt`` (the caller removes none of the orphans then).
    """
    ages = dict(orphans)
    adopted: list[BlobFile] = []
    for found, committed_at in named_elsewhere(index, location, list(ages)):
        verdict = rule.judge(ages[found], rule.now - committed_at)
        if verdict == STALE:
            log.warning("scratchfs: an orphan a previous owner's row names was not adopted (%s): written over an hour "
                        "ago, its key may have been deleted since (tombstones last an hour); the sweeps of the hour "
                        "after the takeover adopt such writes", found.location)
        elif verdict == ADOPT and adopt(found, committed_at):
            adopted.append(found)
    if adopted:
        log.warning("scratchfs: sweep: %d entries written by a host of the index that owned these blobs before a "
                    "takeover (acknowledged: its rows name them) adopted, their rows restored", len(adopted))
    return adopted


def adopt_files(index: Any, blobs: Any, where: tuple[str, str], orphans: dict[str, float],
                given: tuple[Adopt | None, OrphanRule]) -> set[str]:
    """The tokens of ``orphans`` (blob files of the directory ``where``, encoded run and agent names, of the local
    ``blobs``: token -> last modified, epoch seconds on the file system's clock, as the sweep listed them) whose rows
    ``adopt`` restored, as a row of the index that owned the files before a takeover names them
    (:func:`adopt_named`), of those the rule says are due (``given``: ``(adopt, rule)``; :meth:`OrphanRule.due`:
    from ``min(grace, ADOPT_AFTER)`` on), as the fleet sweep looks at objects: a file looked at sooner -- any file no
    row names, of any age, was -- may be an old host's write that host deletes next, within its window, whose
    deletion the adoption would undo; and each write in flight cost a look. Raises StorageError, StoreBusy (from the
    index or ``adopt``)."""
    adopt, rule = given
    at = time.time()  # (file modification times are on the file system's clock)
    due = [(BlobFile(*where, f"{blobs.runs}/{where[0]}/{where[1]}/{t}{BLOB_SUFFIX}", t), at - modified)
           for t, modified in orphans.items() if adopt is not None and rule.due(at - modified)]
    if adopt is None or not due:
        return set()
    return {f.token for f in adopt_named(index, LOCAL_LOCATION, due, adopt, rule)}
