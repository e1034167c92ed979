"""The shape of a dump of settings, one ``key = value``, ``key=value`` or ``Key: value`` a line (``sysctl -a``,
``env``, ``git config -l``, ``systemctl show``, ``pip show``, ``/proc/meminfo``, ``.ini`` and ``.properties`` files),
for :mod:`scratchfs.api.shape`: how many keys, their groups (an ``.ini``'s ``[sections]``, or the first part of
dotted keys: ``kernel.*``, ``net.*``) or the keys themselves, each with the line it starts at -- so that a model
finds a key's line with one search (``pattern="^[ \\t]*KEY\\s*[=:]", context="line"``, which the stub's note names)
or reads a group with one line read; a key listed alone also says how many indented lines go on with its values
(``Classifiers (line 13, 20 indented lines)``), and in ``key: value`` text an indented ``x = y`` is such a line, no key
(``pip show -v``'s entry points). Such text stays content type ``text``; its shape starts with :data:`SETTINGS_SHAPE`.

Tried last, on text that is none of the other kinds (a log, a table, YAML, Markdown...), and only a text that reads as
settings is one: in its first lines (:data:`_HEAD_BYTES`), at least :data:`_FEWEST` settings, half of all lines or more
(of the lines not indented, when values go on over indented lines: ``pip show -v``'s classifiers, a Debian copyright
file's licences), and nine in ten lines settings, ``[sections]``, comments (``#``, ``;``, ``!``), values' indented
continuations, ``---`` rules or blank; 4 keys or more (a log's ``INFO:`` lines repeat one), at most :data:`_MOST_CODE`
of the lines ending as code's do (``;``, ``{``, ``(``, ``,``, ``\\``), no program's line (``import x``, ``def f(``), and
at most one in three values holding ``word=`` after a space (logfmt's ``level=info msg=...``), nor, when its keys stand
again, more than half of its settings ``Key: value`` lines holding a sentence (a chat's, a play's ``Alice: hi there,
how are you?``: speakers, no keys). A key is a run of letters, digits and ``_ . - / @ :`` (``=`` forms), of
letters, digits and ``_ . - ( )`` at the line's start (``:`` form, which a space or the line's end must follow:
``path:12:`` is grep's), or of up to five such words where tabs or 2 spaces or more come before the colon or a tab or
two spaces after it (``/proc/cpuinfo``'s ``model name<tab>: x``, ``/proc/PID/sched``'s ``se.vruntime    :  1``,
``lscpu``'s ``Model name:    x``: aligned, as prose is not); a first line over a rule of dashes is a title
(``/proc/PID/sched``'s). Regular expression scans of the sample, each anchored on a newline.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator

from scratchfs.api.shape_words import PROGRAM_LINE_RE, LineNumbers, listed_within, plural, short_name, within_lines

__all__ = ["BLOCK_READ", "FIND_KEY", "FIND_KEY_READ", "SETTINGS_SHAPE", "is_settings", "settings_shape", "tab_keyed"]

SETTINGS_SHAPE = "settings"
"""How the shape of a dump of settings starts (``"settings (key = value), 1,204 lines, 1,204 keys: ..."``; keys that
stand more than once: ``"settings (key: value), 6,000 lines, 6,000 settings of 7 keys: File (line 1, 750 times),
..."``)."""
FIND_KEY = "^[ \\t]*KEY\\s*[=:]"
"""The pattern a settings stub's note names to find a key (``KEY`` its name, its dots escaped; spaces before it:
keys padded to a column of colons, ``stat``'s ``  File:`` over ``Device:``; spaces or tabs: an ``.ini``'s indented
keys, git's config written with tabs)."""
FIND_KEY_READ = f'pattern="{FIND_KEY}", context="line"'
"""The key search a settings shape names: :data:`FIND_KEY` with ``context="line"``, each window the line holding a
key and no more (``net.ipv4.tcp_rmem = 4096 131072 33554432``: a reply of 281 bytes; the default context's 200 bytes
a side, 675, of which the key's line was 40; helper shapes4 of modeltask3's sysctl -a)."""
BLOCK_READ = ", lines=M+1 with its M indented lines"
"""What a settings shape's tail adds after ``line=N reads it`` when its keys are listed with the indented lines that
go on with their values (``Classifiers (line 13, 15 indented lines)``; a key standing again, those of its first block,
at its line: ``Classifiers (line 13, 3 times, 15 indented lines)`` of ``pip show`` of three packages, where the
15 are its first block's, the block that ``line=13, lines=16`` reads -- the lines of all its blocks added up would
name no read, and the shape's room takes no more words an item): the ``lines=`` that reads the key's block."""
_TAB_KEY = (rb"([A-Za-z][\w.\-()]{0,60}(?: [\w.\-()]{1,60}){0,4})"  # a key of words, set off from its value by
            rb"(?:[ \t]{0,8}\t[ \t]{0,8}:(?=[ \t]|\r?\n)|:(?=\t|  ))")  # tabs before the colon (/proc/cpuinfo's
# "model name\t: AMD EPYC") or a run of spaces or a tab after it (lscpu's "Model name:      AMD EPYC"): words as keys
# only where the colons or the values are aligned
_SETTING_RE = re.compile(rb"\n(?:([ \t]{0,64})([A-Za-z_][\w.\-/@]{0,120})([ \t]{0,64})="
                         rb"|([A-Za-z][\w.\-()>]{0,60})(?:[ \t]{2,64})?:(?=[ \t]|\r?\n)|" + _TAB_KEY + rb")")
# (a key of one word may be padded with spaces to an aligned colon: /proc/PID/sched's "se.vruntime    :  1", its
# "mm->numa_scan_seq" a key)
# (one literal newline first: the scan skips to each line's start at C speed)
_MAYBE_RE = re.compile(rb"\n(?:[ \t]{0,64}[A-Za-z_][\w.\-/@:()]{0,120}[ \t]{0,64}[=:]|" + _TAB_KEY + rb")")
# (a key, then = or :)
_MAYBE_START_RE = re.compile(rb"\n[ \tA-Za-z_]")  # (how each line _MAYBE_RE finds starts)
_FIRST_RE = re.compile(rb"(?:[^\n]{1,200}\n-{3,200}\r?\n)?"  # (a title over a rule of dashes: /proc/PID/sched's)
                       rb"(?:[ \t]{0,64}(?:[#;!][^\n]{0,4096}|\r)?\n){0,200}[ \t]{0,64}"  # (one way to match a line:
# a comment's text holds its \r; [^\n]* then \r?\n matched a CRLF comment two ways, 2**200 tries on ## lines)
                       rb"(?:\[[^\]\n]{1,80}\]|[A-Za-z_][\w.\-/@:()]{0,120}[ \t]{0,64}[=:]|" + _TAB_KEY + rb")")
_SECTION_RE = re.compile(rb"\n[ \t]{0,64}\[([^\]\n]{1,80})\][ \t]{0,64}\r?(?=\n)")
_OTHER_RE = re.compile(rb"\n(?:[ \t]{0,64}(?:[#;!]|\r?(?=\n))|[ \t]{1,64}\S|-{3,200}\r?(?=\n))")  # a comment, a blank
# line, a value's continuation (indented: pip show -v's classifiers) or a rule (pip show's between packages)
_INDENTED_RE = re.compile(rb"\n[ \t]{1,64}\S")  # a value's continuation (or an indented key = value)
_CODE_END_RE = re.compile(rb"[;{(,\\][ \t]*\r?\n")
_LOGFMT_RE = re.compile(rb"\n[A-Za-z_][\w.\-]*=[^\n]*?[ \t][A-Za-z_][\w.\-]*=")
_SENTENCE_END_RE = re.compile(rb"[A-Za-z][.?!]+(?:[ \t\r]|$)")  # a word ending a sentence: "you?", "trip."
_PLAIN_WORD_RE = re.compile(rb"[A-Za-z']+[,.;:?!]?")  # a word of prose ("I'll", "lord,"), no token's (cx8, a_b, 1.2)
_HEAD_BYTES = 4096
_FEWEST = 8
_MOST_CODE = 0.05
_GROUP_SHARE = 0.5  # of the keys dotted, from which they are grouped by their first part


def is_settings(content_type: str | None, shape: str | None) -> bool:
    """Whether an entry stored as ``content_type`` with ``shape`` is a dump of settings."""
    return content_type == "text" and shape is not None and shape.startswith(f"{SETTINGS_SHAPE} (")


_TAB_KEYED_RE = re.compile(_TAB_KEY)


def tab_keyed(sample: bytes) -> bool:
    """Whether the first line of ``sample`` starts with a key that tabs or a run of spaces set off from its value,
    ``Key:<tab>value`` (``/proc/PID/status``), ``key<tabs>: value`` (``/proc/cpuinfo``), ``Key words:    value``
    (``lscpu``): text a table's rule reads as two columns (a header ``"Name:", cat``; ``"Architecture:", x86_64``),
    which :mod:`scratchfs.api.shape` then tries as settings."""
    return _TAB_KEYED_RE.match(sample) is not None


def _reads_as_settings(head: bytes) -> bool:
    """Whether ``head`` (a newline, then a text's first whole lines) reads as settings (the module docstring): a
    first count of the lines that may be settings (:data:`_MAYBE_RE`, one pass without backtracking) stops most
    text at once."""
    if len(_MAYBE_START_RE.findall(head)) < _FEWEST:  # (a line that may be a setting starts so: fewer such lines,
        return False  # told at a third of the cost, are fewer settings -- grep output's ./ lines, HTML's tags)
    lines = head.count(b"\n") - (head.endswith(b"\n"))
    maybe = len(_MAYBE_RE.findall(head))
    if maybe < _FEWEST:
        return False
    settings = _SETTING_RE.findall(head) if 2 * maybe >= lines else None
    if settings is not None and 2 * len(settings) >= lines:
        unindented = lines
    else:  # (values continued on indented lines are no lines of their own: pip show -v's classifiers, a .deb's
        unindented = lines - len(_INDENTED_RE.findall(head))  # description)
    if 2 * maybe < unindented:
        return False
    if settings is None:
        settings = _SETTING_RE.findall(head)
    if len(settings) < _FEWEST:
        return False
    other = len(_SECTION_RE.findall(head)) + len(_OTHER_RE.findall(head))
    keys = {eq or colon or tabbed for _indent, eq, _spaces, colon, tabbed in settings}
    return (2 * len(settings) >= unindented and 10 * (len(settings) + other) >= 9 * lines
            and len(keys) >= _FEWEST // 2
            and len(_CODE_END_RE.findall(head)) <= _MOST_CODE * lines and PROGRAM_LINE_RE.search(head) is None
            and 3 * len(_LOGFMT_RE.findall(head)) <= len(settings)
            and not (len(keys) < len(settings) and _spoken(head, len(settings))))


def _spoken(head: bytes, settings: int) -> bool:
    """Whether ``head`` (a newline, then lines that read as ``settings`` settings, keys standing again) is somebody's
    words, each line a speaker's: a chat (``Alice: hi there, how are you?``), a play (``HAMLET: To be, or not to
    be``), an interview -- more than half of its settings ``Key: value`` lines holding a sentence
    (:func:`_sentence`), where a dump's values are tokens, numbers and paths, its sentences a few keys' (``pip
    show``'s ``Summary:``, ``Author:`` and ``License:``, 3 in 10 at most; the real dumps of fixtures/tools/ 2 in 15
    at most). Run only on text that reads as settings otherwise: one more scan of its first lines, which stops as
    soon as the count is decided (half of them or so, for a dump)."""
    sentences = others = 0
    for found in _SETTING_RE.finditer(head):
        end = head.find(b"\n", found.end()) if found[2] is None else -2  # (key = value: no speaker's)
        if end != -2 and _sentence(head[found.end(): end if end >= 0 else len(head)]):
            sentences += 1
            if 2 * sentences > settings:
                return True
        else:
            others += 1
            if 2 * others >= settings:
                return False
    return False


def _sentence(value: bytes) -> bool:
    """Whether ``value`` (a line's text after its key) is a sentence: two words or more, one ending as a sentence
    does (``you?``, ``trip.``, ``down!``), or three words or more all of letters (``deploy is done``, ``To be, or not
    to be``) and no list of them (``docker, moto, responses``: a comma after most)."""
    words = value.split()
    if len(words) < 2:
        return False
    if _SENTENCE_END_RE.search(value) is not None:
        return True
    return (len(words) >= 3 and all(_PLAIN_WORD_RE.fullmatch(word) for word in words)
            and 2 * sum(word.endswith(b",") for word in words) < len(words))


def settings_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``lines``: the whole content's line count; ``complete``:
    all of it; ``scope``: what to add when not; ``size``: the whole content's bytes) when it reads as settings, else
    ``None``: ``"settings (key = value), 1,204 lines, 1,204 keys: kernel.* (line 1, 310 keys), net.* (line 311, 700
    keys), …; pattern="^[ \\t]*KEY\\s*[=:]", context="line" finds a key, line=N reads it"``, and
    :data:`BLOCK_READ` after it when some keys have indented lines under them (a key standing again: its first's).
    Never raises."""
    if _FIRST_RE.match(sample) is None:  # (its first line that is no comment: a setting or a section; most text
        return None  # stops here, at the cost of one anchored match)
    cut = sample.rfind(b"\n", 0, _HEAD_BYTES) if len(sample) > _HEAD_BYTES or not complete else len(sample)
    if cut <= 0:
        return None
    if not _reads_as_settings(b"\n" + sample[: cut + 1]):
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)
    text = b"\n" + sample
    line_of = LineNumbers(text)
    found = [(m.start(), (m[2] or m[4] or m[5]).decode("utf-8", "replace"), m[3] if m[2] else None)
             for m in _SETTING_RE.finditer(text)]
    spaced = sum(spaces is not None and spaces != b"" for _at, _key, spaces in found)
    equals = sum(spaces is not None for _at, _key, spaces in found)
    form = ("key: value" if 2 * equals < len(found) else "key = value" if 2 * spaced >= equals else "key=value")
    if form == "key: value" and equals and (b"\n " in text or b"\n\t" in text):  # an indented x = y under Key: is
        found = [f for f in found if f[2] is None or text[f[0] + 1] not in b" \t"]  # its value's line (pip's entry
        # points), no key
    aligned = _aligned_keys(text, found) if form == "key: value" and (b"\n " in text) else []
    if aligned:  # (keys padded to one column of colons: stat's "  File:" and " Birth:" over "Device:")
        found = sorted(found + aligned)
    sections = [(m.start(), m[1].decode("utf-8", "replace")) for m in _SECTION_RE.finditer(text)]
    distinct = len({key for _at, key, _spaces in found})  # (a key standing again and again, one a stanza -- apt-cache
    # show's Package:, stat's File: --: its settings counted, then its keys, never "2,303 keys" for 31)
    counted = (f"{plural(len(found), 'setting')} of {plural(distinct, 'key')}" if distinct < len(found)
               else plural(len(found), "key"))
    head = f"{SETTINGS_SHAPE} ({form}), {plural(lines, 'line')}, {counted}{scope}: "
    tail = f"; {FIND_KEY_READ} finds a key, line=N reads it"
    if len(sections) >= 2:  # (each list made as it is listed: only the items that fit the shape are written)
        items = _grouped([(at, f"[{name}]") for at, name in sections], found, line_of)
        return listed_within(head, items, tail, len(sections))
    if sum("." in key for _at, key, _s in found) >= _GROUP_SHARE * len(found):
        firsts = _first_offsets(found, lambda key: key.split(".", 1)[0])
        dotted = {key.split(".", 1)[0] for _at, key, _s in found if "." in key}  # (a key of no dots: itself)
        items = _prefixed(sorted((at, f"{name}.*" if name in dotted else name) for name, at in firsts.items()),
                          found, line_of)
        return listed_within(head, items, tail, len(firsts))
    firsts = _first_offsets(found, lambda key: key)
    indented = b"\n " in text or b"\n\t" in text  # (memmem first: most dumps have no indented line)
    starts = [m.start() for m in _INDENTED_RE.finditer(text)] if indented else []
    if aligned:  # (an aligned key's line is no value's continuation)
        keyed = {at for at, _key, _spaces in aligned}
        starts = [at for at in starts if at not in keyed]
    counts, under = _under(found, len(text), starts)
    if under:  # (some key over M indented lines: its block is its M + 1 lines, where line=N alone read 50 of
        tail += BLOCK_READ  # apt-cache policy's 7 -- leftovers1 helper; a key standing again: its first block's M)
    return listed_within(head, _keys(firsts, line_of, counts, under), tail, len(firsts))


_PADDED_KEY_RE = re.compile(rb"\n( {1,16})([A-Za-z][\w.\-()>]{0,60}):(?=[ \t]|\r?\n)")  # a key padded with spaces


def _aligned_keys(text: bytes, found: list[tuple[int, str, bytes | None]]) -> list[tuple[int, str, bytes | None]]:
    """The keys of ``text`` (a newline, then settings of the ``Key: value`` form) padded with spaces before them so
    that their colons stand in a column where the unpadded keys ``found`` (offset, key, spaces) put theirs --
    ``stat``'s ``  File:``, ``  Size:`` and `` Birth:`` over ``Device:``, ``Access:`` -- each key of them standing
    twice or more (a value's continuation that reads ``  Note: ...`` under a key of six letters stands once), as
    ``found`` has them; none when fewer than half of ``found``'s keys share one column (no keys aligned so)."""
    columns = Counter(len(key) for at, key, spaces in found if spaces is None and text[at + 1 + len(key)] == 58)
    if not columns:
        return []
    column, count = columns.most_common(1)[0]
    if 2 * count < len(found):
        return []
    padded = [(m.start(), m[2].decode("utf-8", "replace"), None) for m in _PADDED_KEY_RE.finditer(text)
              if len(m[1]) + len(m[2]) == column]
    times = Counter(key for _at, key, _spaces in padded)
    return [item for item in padded if times[item[1]] >= 2]


def _under(found: list[tuple[int, str, bytes | None]], end: int, indented: list[int]
           ) -> tuple[Counter[str], Counter[str]]:
    """How many times each key of ``found`` (its offset, name and the spaces before its ``=``, in order) stands, and
    how many indented lines continue its values (``indented``: their offsets, in order; ``end``: the text's length),
    a key of none left out; of a key standing more than once, those under its first (the block that ``line=N`` of
    its first line and ``lines=M+1`` read: :data:`BLOCK_READ`)."""
    counts = Counter(key for _at, key, _spaces in found)
    under: Counter[str] = Counter()
    seen: set[str] = set()
    for n, (at, key, _spaces) in enumerate(found if indented else ()):  # (the indented lines up to the next key)
        if key in seen:  # (a key standing again: its first block's, the one line=N of its first line reads)
            continue
        seen.add(key)
        stop = found[n + 1][0] if n + 1 < len(found) else end
        under[key] = bisect_left(indented, stop) - bisect_right(indented, at)
    return counts, +under


def _keys(firsts: dict[str, int], line_of: LineNumbers, counts: Counter[str], under: Counter[str]) -> Iterator[str]:
    """Each key (``firsts``: the offset of each key's first) with the line it first stands at, how many times it
    does when more than once (``pip show`` of several packages) and how many indented lines continue its values
    (``counts`` and ``under``: :func:`_under`'s; of a key standing again, its first block's: :data:`BLOCK_READ`),
    if any; made as they are asked for: 64 KiB of distinct keys wrote
    9,521 items, some ten of which fit a shape (26 ms a describe; hostile7)."""
    for key, at in firsts.items():
        yield (f"{short_name(key, 48)} (line {line_of(at):,}" + (f", {counts[key]:,} times" if counts[key] > 1 else "")
               + (f", {plural(under[key], 'indented line')})" if under[key] else ")"))


def _first_offsets(found: list[tuple[int, str, bytes | None]], name: Callable[[str], str]) -> dict[str, int]:
    """The offset of the first of ``found`` (offset, key, spaces) under each ``name(key)``, in order of offset."""
    firsts: dict[str, int] = {}
    for at, key, _spaces in found:
        firsts.setdefault(name(key), at)
    return firsts


def _grouped(starts: list[tuple[int, str]], found: list[tuple[int, str, bytes | None]],
             line_of: LineNumbers) -> Iterator[str]:
    """Each group (``starts``: its offset and name, in order) with its line and how many distinct keys of ``found``
    (offset, key, spaces; in order of offset) stand after it, up to the next, made as they are asked for."""
    offsets = [at for at, _key, _spaces in found]
    for n, (at, name) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(line_of.text)
        count = len({key for _at, key, _spaces in found[bisect_right(offsets, at):bisect_left(offsets, end)]})
        yield f"{short_name(name, 48)} (line {line_of(at):,}, {plural(count, 'key')})"


def _prefixed(starts: list[tuple[int, str]], found: list[tuple[int, str, bytes | None]],
              line_of: LineNumbers) -> Iterator[str]:
    """Each first part of dotted keys (``starts``: the offset of its first key and its name ``part.*``, or the key
    itself when it has no dot, in order) with the line of its first key and how many distinct keys it starts (a key
    of no dots: how many times it stands, when more than once), made as they are asked for."""
    times = Counter(key for _at, key, _spaces in found)
    keys = Counter(key.split(".", 1)[0] for key in times)  # (distinct keys: sysctl's fs.pipe-keep stands 10 times)
    for at, name in starts:
        said = (plural(keys[name[:-2]], "key") if name.endswith(".*")
                else f"{times[name]:,} times" if times[name] > 1 else "")
        yield f"{short_name(name, 48)} (line {line_of(at):,}{', ' if said else ''}{said})"
