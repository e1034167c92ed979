"""JSON values in words, for :mod:`scratchfs.api.shape` (:func:`fitted`: a document or record described as deep as
fits the shape's cap). Many values are described as one: an array's items (or JSON lines' records) are
never described by the first, but by a bounded sample of them merged (:func:`merged_items`) -- a key some lack
marked optional (``cur?: str``), differing kinds joined (``int|null``), array lengths as a range
(``array(0-2) of str``), nested values likewise -- and written at a depth and width (:func:`merged_text`)."""

from __future__ import annotations

from collections import Counter

from scratchfs.api.shape_words import LONG_STRING_CHARS, clip, key_name, kib, plural, shape_limit

__all__ = ["MERGE_DEPTH", "MERGE_VALUES", "SAMPLE_ITEMS", "WIDEST_OBJECT", "Merged", "MixedItems", "fitted",
           "items_template", "merged_items", "merged_text", "mixed_items", "sampled", "value_word"]

SAMPLE_ITEMS = 16
"""Most items of one array merged: its first 4, others spread evenly between, and its last."""
MERGE_VALUES = 1000
"""Most values visited when merging one array's items, nested ones included (a bound on the time: about 1 ms)."""
MERGE_DEPTH = 6
"""Levels below the items merged (a shape writes at most 5)."""
_FIRST = 4
WIDEST_OBJECT = 24
"""Most keys of an object a shape writes each with its value (a record of ``pip inspect``'s metadata holds 12 to 20;
:func:`fitted_with` names them all when they fit): past them only the first key's value is merged (the others are
named, as a map's)."""


def sampled(items: list, most: int = SAMPLE_ITEMS) -> list:
    """``items`` if at most ``most``, else their first :data:`_FIRST`, others spread evenly and the last."""
    count = len(items)
    if count <= most:
        return items
    spread = most - _FIRST - 1
    step = (count - 1 - _FIRST) / (spread + 1)
    return items[:_FIRST] + [items[_FIRST + int(step * (n + 1))] for n in range(spread)] + [items[-1]]


_SCALARS = {int: "int", float: "float", bool: "bool", type(None): "null"}


class Merged:
    """The values merged into one description: the kinds seen, in the order first seen (``object``, ``array``,
    ``str``, ``int``, ``float``, ``bool``, ``null``); for objects their keys (each a :class:`Merged`), how many of
    the merged objects hold each and their least and most key counts; for arrays their least and most lengths and
    their items merged; for strings whether any is short (under 200 characters) and the most bytes of a long one."""

    __slots__ = ("arrays", "common", "items", "key_counts", "key_lengths", "kinds", "lengths", "long_bytes", "objects",
                 "present", "short")

    def __init__(self) -> None:
        self.kinds: dict[str, None] = {}
        self.objects = self.arrays = self.long_bytes = 0
        self.present: dict | None = None  # key -> its Merged (in the order first seen)
        self.key_counts: Counter = Counter()  # key -> how many merged objects hold it
        self.common: set | None = None  # the keys every item holds, counted over all (not only the sample)
        self.lengths: tuple[int, int] | None = None  # the arrays' lengths: (least, most)
        self.key_lengths: tuple[int, int] | None = None  # the objects' key counts: (least, most)
        self.items: Merged | None = None
        self.short = False

    def add(self, value: object, depth: int, budget: list[int]) -> None:
        """Merge ``value`` in, ``depth`` levels down, each value visited taken from ``budget[0]`` (none past 0)."""
        budget[0] -= 1
        kind = type(value)
        if kind is dict:
            self.kinds.setdefault("object")
            self.objects += 1
            least, most = self.key_lengths or (len(value), len(value))
            self.key_lengths = (min(least, len(value)), max(most, len(value)))
            if depth > 0:
                self._keys(value, depth, budget)
        elif kind is list:
            self.kinds.setdefault("array")
            self.arrays += 1
            least, most = self.lengths or (len(value), len(value))
            self.lengths = (min(least, len(value)), max(most, len(value)))
            if depth > 0 and value:
                items = self.items if self.items is not None else Merged()
                self.items = items
                for item in sampled(value):
                    if budget[0] <= 0:
                        break
                    items.add(item, depth - 1, budget)
        elif kind is str:
            self.kinds.setdefault("str")
            if len(value) < LONG_STRING_CHARS:
                self.short = True
            else:
                self.long_bytes = max(self.long_bytes, len(value.encode("utf-8", "surrogatepass")))
        else:
            self.kinds.setdefault(_SCALARS.get(kind, kind.__name__))

    def _keys(self, value: dict, depth: int, budget: list[int]) -> None:
        present = self.present if self.present is not None else {}
        self.present = present
        self.key_counts.update(value.keys())  # (every key counted, at C speed: keys are no mapping)
        if len(value) > WIDEST_OBJECT:  # (a map: a shape writes its first key's value and names the next few)
            new = value.keys() - present.keys()
            for key in value if new else ():  # (in the order first seen)
                if key in new:
                    present[key] = Merged()
            key = next(iter(present))
            if key in value and budget[0] > 0:
                present[key].add(value[key], depth - 1, budget)
            return
        if budget[0] <= 0 and present.keys() >= value.keys():
            return  # (out of budget, and every key's kind known)
        for key, item in value.items():
            merged = present.get(key)
            if merged is None:
                merged = present[key] = Merged()
            if budget[0] > 0:
                merged.add(item, depth - 1, budget)
            elif not merged.kinds:  # (out of budget: a key first seen here gets its kind at least)
                merged.add(item, 0, budget)

    def lacked(self, key: object) -> bool:
        """True if some merged object (some item, counted over all of them when known) lacks ``key``."""
        if self.common is not None:
            return key not in self.common
        return self.key_counts.get(key, 0) < self.objects


def merged_items(items: list, budget: int = MERGE_VALUES) -> Merged:
    """``items`` (an array, not empty) merged from :func:`sampled` of them, :data:`MERGE_DEPTH` levels down, at most
    ``budget`` values visited. When they are objects, every item's keys are compared (set operations at C speed for
    items that hold the same keys): a key some item lacks is marked though that item is not in the sample, and the
    first items that hold a key no earlier one does are merged too (up to :data:`SAMPLE_ITEMS` of them)."""
    picked = sampled(items)
    merged = Merged()
    first = items[0]
    common = None
    if type(first) is dict:  # (the items of one kind: mixed kinds are counted by kind, their objects merged)
        keys, common, seen, extra = first.keys(), set(first), set(first), []
        for item in items:
            if item.keys() == keys:
                continue
            common.intersection_update(item.keys())
            if len(extra) < SAMPLE_ITEMS and not seen.issuperset(item.keys()):
                seen.update(item.keys())
                extra.append(item)
        if extra:  # merged after the first, so that keys stay in the order first seen
            ids = set(map(id, extra))
            picked = [first, *extra, *(item for item in picked[1:] if id(item) not in ids)]
    left = [budget]
    for item in picked:
        if left[0] <= 0:
            break
        merged.add(item, MERGE_DEPTH, left)
    merged.common = common
    return merged


def _count(lengths: tuple[int, int] | None) -> str:
    least, most = lengths or (0, 0)
    return f"{least}" if least == most else f"{least}-{most}"


def merged_text(merged: Merged, depth: int, width: int) -> str:
    """``merged`` in a shape, ``depth`` levels down, at most ``width`` keys an object (more: the first key's value
    and the next few names, as for a map): its kinds joined by ``|`` in the order first seen."""
    parts = []
    for kind in merged.kinds:
        if kind == "object":
            parts.append(_object_text(merged, depth, width))
        elif kind == "array":
            items = merged.items
            head = f"array({_count(merged.lengths)})"
            parts.append(head if depth <= 0 or items is None or not items.kinds else
                         f"{head} of {merged_text(items, depth - 1, width)}")
        elif kind == "str":
            long = merged.long_bytes
            parts.append("str" if not long else f"str({'up to ' if merged.short else ''}{kib(long)})")
        else:
            parts.append(kind)
    return "|".join(parts)


def _object_text(merged: Merged, depth: int, width: int) -> str:
    present = merged.present
    if depth <= 0 or not present:
        return f"object({_count(merged.key_lengths)} key{'' if merged.key_lengths == (1, 1) else 's'})"

    def name(key: object, limit: int = 32) -> str:
        return key_name(key, limit, merged.lacked(key))

    if len(present) <= width:
        return "{" + ", ".join(f"{name(k)}: {merged_text(v, depth - 1, width)}" for k, v in present.items()) + "}"
    key, first = next(iter(present.items()))
    names = "".join(f", {name(k, 24)}" for k in list(present)[1 : max(2, width // 2)])
    return f"object({plural(len(present), 'key')}: {name(key)}: {merged_text(first, depth - 1, width)}{names}, …)"


_KIND_NOUNS = {dict: "object", list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


class MixedItems:
    """An array's items of several kinds, as a shape says them: ``text`` (``mixed kinds (299 arrays, 1 object)``,
    most frequent first) and ``objects``, its objects merged (:func:`merged_items`), or ``None``."""

    __slots__ = ("objects", "text")

    def __init__(self, text: str, objects: Merged | None) -> None:
        self.text, self.objects = text, objects


def mixed_items(items: list) -> MixedItems | None:
    """:class:`MixedItems` when ``items`` are of more than one kind (numbers, whole or not, are one), else ``None``
    (one ``set`` of their types, at C speed, for an array of one kind)."""
    types = set(map(type, items))
    if len(types) < 2 or types == {int, float}:
        return None
    counts = Counter(_KIND_NOUNS.get(type(item), "value") for item in items)
    objects = [item for item in items if isinstance(item, dict)]
    text = "mixed kinds (" + ", ".join(plural(n, kind) for kind, n in counts.most_common()) + ")"
    return MixedItems(text, merged_items(objects) if objects else None)


def items_template(items: list) -> MixedItems | Merged:
    """What stands for ``items`` (an array, not empty) in a shape: :class:`MixedItems` when they are of more than one
    kind, else they merged (:func:`merged_items`): never the first item alone."""
    return mixed_items(items) or merged_items(items)


def value_word(value: object) -> str:
    """One JSON value in a word: ``object(3 keys)``, ``array(12)``, ``str`` (``str(12 KiB)`` for a long one), ``int``,
    ``null``..."""
    if isinstance(value, dict):
        return f"object({plural(len(value), 'key')})"
    if isinstance(value, list):
        return f"array({len(value)})"
    if isinstance(value, str):
        return "str" if len(value) < LONG_STRING_CHARS else f"str({kib(len(value.encode('utf-8', 'surrogatepass')))})"
    if value is None:
        return "null"
    return type(value).__name__


class _TooLong(Exception):
    """A description ran past the room it was given (the next, shallower one is tried)."""


def _tree(value: object, depth: int, width: int, items: dict, room: int) -> str:
    """``value`` described ``depth`` levels down, listing at most ``width`` keys per object (an object with more
    keys -- a map -- shows its first value described and the next few keys by name), an array by its items'
    :func:`items_template` (kept in ``items`` by the array's id, for the next call): a sample of them merged, never
    the first alone. Raises :class:`_TooLong` as soon as an object's description passes ``room`` characters (no
    more arrays merged for a description that cannot fit)."""
    if isinstance(value, Merged):
        return merged_text(value, depth, width)
    if isinstance(value, MixedItems):  # (an array's items of several kinds: counted, its objects' keys after)
        objects = value.objects
        return value.text + ("" if objects is None else f", objects {_tree(objects, depth, width, items, room)}")
    if isinstance(value, dict):
        if depth <= 0 or not value:
            return value_word(value)
        if len(value) <= width:
            parts, used = [], 2
            for key, item in value.items():
                parts.append(f"{key_name(key)}: {_tree(item, depth - 1, width, items, room)}")
                used += len(parts[-1]) + 2
                if used > room:
                    raise _TooLong
            return "{" + ", ".join(parts) + "}"
        key, first = next(iter(value.items()))
        names = "".join(f", {key_name(k, 24)}" for k in list(value)[1 : max(2, width // 2)])
        described = _tree(first, depth - 1, width, items, room)
        return f"object({plural(len(value), 'key')}: {key_name(key)}: {described}{names}, …)"
    if isinstance(value, list):
        if not value or depth <= 0:
            return value_word(value)
        template = items.get(id(value)) or items.setdefault(id(value), (value, items_template(value)))
        return f"array({len(value)}) of {_tree(template[1], depth - 1, width, items, room)}"
    return value_word(value)


_FITS = ((5, 8), (4, 8), (4, 6), (3, 8), (3, 6), (3, 4), (2, 8), (2, 4), (1, 12), (1, 6), (0, 0))
"""The (depth, width) of :func:`_tree` tried in turn, deepest first."""
_WIDEST_FIT = max(width for _depth, width in _FITS)


def fitted(head: str, value: object) -> str:
    """``head`` + the deepest description of ``value`` that fits :func:`shape_limit` characters (an object's outer
    braces dropped). An object's own keys are all named when any description that names them fits (a description of
    its first key's value and the next few names, as for a map, only when none does), and such a description of the
    object itself drops its ``object(N keys: ...)`` wrapper, which ``head`` says. A description is given up as soon
    as it runs past the room (but the last, shallowest one, clipped)."""
    return fitted_with(head, value)[0]


def fitted_with(head: str, value: object) -> tuple[str, tuple[int, int] | None]:
    """:func:`fitted`'s text and the ``(depth, width)`` it described ``value`` at (:data:`_FITS`: how many levels
    down, at most how many keys an object lists), ``None`` when no description fitted and the last was clipped."""
    text = ""
    keys = len(value) if isinstance(value, dict) else len(value.present or ()) if isinstance(value, Merged) and \
        list(value.kinds) == ["object"] else 0
    wrapper = f"object({plural(keys, 'key')}: "
    items: dict = {}  # (each array's template, made once)
    fits = sorted(_FITS, key=lambda fit: fit[1] < keys)  # (stable: deepest first within each)
    if _WIDEST_FIT < keys <= WIDEST_OBJECT:  # (wider than the fits: each key named with its kind, when that fits,
        fits = [(2, keys), (1, keys), *fits]  # before the first key's value alone, as a map's)
    limit = shape_limit()
    room = limit - len(head) + len(wrapper) + 2  # (the braces or the wrapper dropped)
    for number, (depth, width) in enumerate(fits):
        try:
            body = _tree(value, depth, width, items, room if number < len(fits) - 1 else 1 << 62)
        except _TooLong:
            continue
        if body.startswith("{") and body.endswith("}"):
            body = body[1:-1]
        elif keys and body.startswith(wrapper):
            body = body[len(wrapper) : -1]
        text = f"{head}{body}"
        if len(text) <= limit:
            return clip(text), (depth, width)
    return clip(text), None
