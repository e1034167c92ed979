"""The shape of a YAML document or stream (``kubectl get -o yaml``, a compose file, a CI workflow, an OpenAPI spec),
for :mod:`scratchfs.api.shape`: its top-level keys, each with the line it stands on and what it holds (a list of N
items, N keys), or the items of a top-level list, and the documents of a stream -- so that a model goes to one part
with one line read (``line=N``). Such text stays content type ``text``; its shape starts with :data:`YAML_SHAPE`.

The lines are read by YAML 1.2's block layout (https://yaml.org/spec/1.2.2/, chapter 8: a mapping's keys at one
indentation, ``key:`` then a blank or the line's end; a sequence's entries ``- ``; ``---`` starting a document,
section 9.2), not parsed: a block scalar's lines and flow collections are read as other lines. A key is plain text
of word characters, ``$ @ . / -`` and spaces, or quoted.

Only a text that reads as YAML is one: most of its non-blank lines keys, list entries, comments, document markers or
a block scalar's lines (``key: |`` or ``key: >-`` then its lines indented past the key: prose, a workflow's script;
:data:`_MOST_OTHER` of them at most other lines), some keys indented under others (a nested mapping: an e-mail's or
HTTP response's headers are flat) -- or, a flat mapping, something only YAML writes (:data:`_YAML_ONLY_RE`: ``key:
[a, b]``, ``key: |``, ``key:`` over ``- a``, a ``---`` start; a flat ``Key: value`` dump without them is settings)
-- and few lines ending in ``;``, ``{`` or ``,`` (a program's object literals; a block scalar's lines and comments
aside: a script, a licence's sentences). A top-level list of one item (``- key:`` at the line's start, the other
keys under it) is one. Regular expression scans of the sample, each anchored on a literal newline.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from functools import lru_cache, partial
from typing import Any

from scratchfs.api.shape_words import PROGRAM_LINE_RE, LineNumbers, listed_within, plural, short_name, within_lines

__all__ = ["YAML_SHAPE", "yaml_shape"]

YAML_SHAPE = "YAML"
"""How the shape of a YAML document starts."""

_KEY = rb"(?:(?=(?P<plain>[\w$@./][\w$@./ -]{0,120}))(?P=plain)|\"[^\"\n]{0,120}\"|'[^'\n]{0,120}')"  # a key: plain
# (no ':'; its run taken whole, as an atomic group would: the ':' can only follow the run, and giving characters
# back to look for one cost 3 times the scan over lines of words), or quoted
_KEY_RE = re.compile(rb"\n( *)(- +)?(" + _KEY + rb"):(?= |\r?\n)")
_ENTRY_RE = re.compile(rb"\n *- ")
_COMMENT_RE = re.compile(rb"\n *#")
_DOCUMENT_RE = re.compile(rb"\n---(?=[ \t]|\r?\n)")
_TOP_ENTRY_RE = re.compile(rb"\n- ")
_CONTENT_RE = re.compile(rb"\n *[^\s#%]")  # a line of a document: no blank, comment or directive (%YAML, %TAG)
_FIRST_RE = re.compile(rb"\n( *)(- )?[^\s#]")  # a block's first line that is no blank or comment
_NL = b"\n"
_CODE_END_RE = re.compile(rb"[;{,][ \t]*\r?\n")
_TEXT_LINE_RE = re.compile(rb"\n[ \t]*\S")  # a line that is not blank
_COMMENT_END_RE = re.compile(rb"\n *#[^\n]*[;{,][ \t]*\r?(?=\n)")  # a comment line ending as code's would
_OPEN_QUOTE = rb'"(?:[^"\\\n]|\\[^\n])*\\?'  # a double-quoted scalar not closed on its line
_BLOCK_RE = re.compile(rb"\n( *)(- +)?" + _KEY + rb":[ \t]+(?:[|>][-+0-9]{0,2}[ \t]*(?:#[^\n]*)?|" + _OPEN_QUOTE
                       + rb")(?=\r?\n)")
"""A key whose value is a block scalar (``key: |``, ``- run: >-``) or a double-quoted scalar that goes on past its line
(``kubectl get configmap -o yaml``'s file that holds tabs or trailing blanks: ``key: "line 1\\nline 2`` over lines
indented past the key, YAML 1.2 section 7.3.1): the lines after it, indented past it, are text."""
_YAML_ONLY_RE = re.compile(rb"\A(?:\n[ \t]*(?:#[^\n]*)?){0,64}\n(?:---|%YAML)(?=[ \t]|\r?\n)"
                           rb"|\n" + _KEY + rb":(?:[ \t]+(?:[|>][-+0-9]{0,2}[ \t]*(?=#|\r?\n)|\[[^\n]*\]|\{[^\n]*\}"
                           rb"|[&*!][\w!.-])[ \t]*(?=#|\r?\n)|[ \t]*\r?\n(?:[ \t]*(?:#[^\n]*)?\r?\n){0,8}[ \t]*- )")
"""What only YAML writes, in a text whose keys are all top-level (a flat mapping: no key nested under another): a
document start or ``%YAML`` directive before its first key (``pip show``'s ``---`` between packages is none); a
top-level key whose value is a block scalar's indicator (``key: |``, ``key: >-``), a flow collection (``key: [a,
b]``, ``key: {}``), an anchor, alias or tag (``&x``, ``*x``, ``!!str``); or a key with no value before a list's
entries (``key:`` then ``  - a``): a ``.travis.yml``, GitHub's ``FUNDING.yml``, ``kubectl config view`` with no
cluster. A flat ``Key: value`` dump holds none of them (``pip show``, ``/proc/meminfo``, HTTP headers: settings,
:mod:`~scratchfs.api.shape_settings`)."""
_BLOCK_MARK_RE = re.compile(rb": (?:[|>][-+0-9]{0,2}[ \t]*(?:#[^\n]*)?|" + _OPEN_QUOTE + rb")\r?\n")
"""A block scalar's indicator or an open double-quoted scalar, its key aside."""
_YAML_ONLY_MARK_RE = re.compile(rb": [\[{&*!]")  # (a value :data:`_YAML_ONLY_RE` may find: one scan of ": ")
_MOST_OTHER = 0.35
_HEAD_BYTES = 8192  # the sample's head, read as YAML first
_FIRST_LINE_RE = re.compile(rb"(?:---|%YAML|- |" + _KEY + rb":(?:[ \t]|\r?\n|\r?\Z))")  # a document start, entry, key
_FIRST_LINES = 64  # most blank and comment lines before the first line read
_NAMING = (b"kind", b"name", b"type", b"id", b"title")
_NESTED_NAME_RE = re.compile(rb"\n  name: *([^\s#][^\r\n]{0,60})")
_ITEM_NAME_RE = re.compile(rb"\n {2,16}(name|id|title): *([^\s#|>&!'\"][^\r\n]{0,60})")  # a list item's own name
_ITEM_NAME_BYTES = 4096  # of a list item's start, where its name is looked for
_MOST_CODE = 0.05


def _counts(block: bytes) -> str:
    """What a top-level key holds, from its block (its line's end to the next top-level line): ``"list of 120"``
    (entries at the block's first indentation, which may be none: ``items:`` then ``- a``), ``"3 keys"``, or ``""``
    (a scalar: a block scalar too, ``key: |`` over lines that may read as keys, or a quoted one over lines)."""
    if block.lstrip(b" \t")[:1] in (b"|", b">", b'"'):
        return ""
    first = _FIRST_RE.search(block)
    if first is None or not (first[1] or first[2]):
        return ""
    indent = first[1]
    if first[2]:
        return f"list of {block.count(_NL + indent + b'- '):,}"
    keys = sum(1 for m in _KEY_RE.finditer(block) if m[1] == indent and not m[2])
    return plural(keys, "key") if keys else ""


def yaml_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it; ``size``: the whole content's bytes, ``None``: the
    sample's; told from its first :data:`~scratchfs.api.shape_words.MOST_LINES` lines) if it reads as YAML, else
    ``None``: ``"YAML, 9,000 lines: apiVersion (line 1), items (line 2, list of 120), kind (line 8,990), metadata (line
    8,991, 2 keys); line=N reads from a key"``. Never raises."""
    first = _first_line(sample)
    if first.rstrip().endswith((b",", b"{", b"[", b";")) or not _FIRST_LINE_RE.match(first) or \
            not _reads_as_yaml(_NL + sample[:_HEAD_BYTES]):  # (a first line ending as JSON's or a program's: none)
        return None  # (its first line no key, entry or document start, or its first 8 KiB no YAML: cheap)
    sample, complete, scope = within_lines(sample, size, complete, scope)
    text = _NL + sample
    if PROGRAM_LINE_RE.search(text) is not None:
        return None  # (a program's line: a type stub's "class C:" over "x: int" lines is no mapping)
    keys = list(_KEY_RE.finditer(text))
    documents = [m.start() for m in _DOCUMENT_RE.finditer(text)]
    top_entries = list(_TOP_ENTRY_RE.finditer(text))
    if len(sample) > _HEAD_BYTES and not _reads_as_yaml(text, keys, documents, top_entries):
        return None
    opened = text.startswith(b"\n---") or bool(documents and _CONTENT_RE.search(text, 0, documents[0]) is None)
    count = len(documents) + (not opened)  # (comments, blanks and directives before the first "---": no document)
    top = [m for m in keys if not m[1] and not m[2]]  # (in order: a document's are a slice of them, by bisect)
    if count > 1:  # a stream: its documents, each named by a key of its own (when listed)
        return _text(text, [(at, "doc", partial(_label, text, top, at)) for at in [0, *documents][opened:]], count,
                     lines, scope)
    marks = sorted([(m.start(), "key", m) for m in top]
                   + [(m.start(), "item", None) for m in top_entries] + [(at, "doc", None) for at in documents])
    kept, owner = [], "doc"  # a top-level entry after a top-level key is that key's: ``key:`` then ``- a``
    for mark in marks:
        if mark[1] != "item" or owner != "key":
            kept.append(mark)
            owner = mark[1] if mark[1] != "item" else owner
    return _text(text, kept, count, lines, scope)


def _first_line(sample: bytes) -> bytes:
    """The first line of ``sample`` that is neither blank nor a comment (its first 4 KiB, with its line end), among
    its first :data:`_FIRST_LINES`; ``b""`` if none (a bounded look: no scan past them, whatever the bytes)."""
    at = 0
    for _ in range(_FIRST_LINES):
        end = sample.find(b"\n", at, at + 4096)
        line = sample[at : end + 1 if end >= 0 else at + 4096]
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            return line
        if end < 0:
            return b""
        at = end + 1
    return b""


def _reads_as_yaml(text: bytes, keys: list[re.Match[bytes]] | None = None, documents: list[int] | None = None,
                   top_entries: list[re.Match[bytes]] | None = None) -> bool:
    """Whether ``text`` (a newline, then the sample or its head) reads as YAML (the module docstring); ``keys``,
    ``documents``, ``top_entries``: its scans, when made already."""
    keys = list(_KEY_RE.finditer(text)) if keys is None else keys
    if len(keys) < 3:
        return False
    documents = [m.start() for m in _DOCUMENT_RE.finditer(text)] if documents is None else documents
    top_entries = list(_TOP_ENTRY_RE.finditer(text)) if top_entries is None else top_entries
    entries = len(_ENTRY_RE.findall(text)) - sum(1 for m in keys if m[2])
    nonblank = text.count(b"\n") - text.count(b"\n\n")  # (at least: a run of blank lines counts half of them)
    known = len(keys) + entries + len(_COMMENT_RE.findall(text)) + len(documents)
    nested = sum(1 for m in keys if m[1] or m[2])
    low = (1 - _MOST_OTHER) * nonblank
    blocks = _BLOCK_MARK_RE.search(text) is not None  # (its literal ": " found at C speed: no key's pattern tried
    # at each line)
    if (known < low and not blocks) or (len(top_entries) < 2 and all(m[1] for m in keys)):
        return False
    marked = entries or blocks or text.startswith((b"\n---", b"\n%YAML", b"\n#", b"\n\n")) or \
        _YAML_ONLY_MARK_RE.search(text) is not None  # (a document start stands first, after comments or blanks only)
    if not nested and not (marked and _YAML_ONLY_RE.search(text)):
        return False  # (a flat mapping: by what only YAML writes, looked for when one of its marks is there)
    code = len(_CODE_END_RE.findall(text))
    if code > _MOST_CODE * nonblank:  # (a comment's sentence is no code: a licence's "(the "License");")
        code -= len(_COMMENT_END_RE.findall(text))
    if (known < low or code > _MOST_CODE * nonblank) and blocks and _BLOCK_RE.search(text):
        inside, code_inside = _block_lines(text)  # (a block scalar's lines are its key's value: prose, a script)
        known, code = known + inside, code - code_inside
    return known >= low and code <= _MOST_CODE * nonblank


def _block_lines(text: bytes) -> tuple[int, int]:
    """The lines of ``text`` that are no blank inside its block scalars (after a ``key: |`` or ``key: >-``: those
    indented past the key's line, blank ones among them, YAML 1.2 section 8.1), and how many of them end as code's
    (:data:`_CODE_END_RE`: a workflow's shell script). Each block is matched once, from its indicator's line: linear
    in the text, a block's own ``key: |`` lines passed over."""
    inside = code = covered = 0
    for block in _BLOCK_RE.finditer(text):
        if block.start() < covered:
            continue  # (a "key: |" line inside a block is its text, counted with it: no body scanned twice)
        indent = len(block[1]) + len(block[2] or b"")  # (a "- key: |" entry's value is indented past its "- ")
        body = _block_body(indent).match(text, block.end())
        covered = body.end()
        if body.end() > body.start():
            lines = text[body.start() : body.end() + 1]  # (each line from its newline, the last one's end too)
            inside += len(_TEXT_LINE_RE.findall(lines))
            code += len(_CODE_END_RE.findall(lines))
    return inside, code


@lru_cache(maxsize=64)
def _block_body(indent: int) -> re.Pattern[bytes]:
    """The lines of a block scalar whose key stands ``indent`` spaces in: more indented ones and blank ones, each
    from its newline (the last 64 indents' patterns kept: a sample's indents are any number up to its size)."""
    return re.compile(rb"(?:\r?\n(?: {%d,}[^\n]*|[ \t]*\r?(?=\n)))*" % (indent + 1))


def _start(match: re.Match[bytes]) -> int:
    return match.start()


def _label(text: bytes, top: list[re.Match[bytes]], start: int) -> str:
    """What names the document starting at ``start``: its top-level key (of ``top``, all of them in order) named
    first in :data:`_NAMING` (the first such when repeated), with its value when that is a scalar (``kind:
    Service``, and ``, name: web`` from an indented ``name:`` of the document when the key is no ``name``); else --
    no such key, or its value none -- its first top-level key; else ``""``."""
    end = text.find(b"\n---", start + 1)
    own = top[bisect_left(top, start, key=_start) : bisect_left(top, end if end >= 0 else len(text), key=_start)]
    if not own:
        return ""
    match = min(own, key=lambda m: _NAMING.index(m[3]) if m[3] in _NAMING else len(_NAMING))  # (the first least)
    value = text[match.end() : text.find(b"\n", match.end())].strip()
    if match[3] not in _NAMING or not value or value[:1] in b"|>&!#":
        return short_name(own[0][3].decode("utf-8", "replace"), 60)
    named = _NESTED_NAME_RE.search(text, start, end if end >= 0 else len(text))  # (Kubernetes' metadata.name)
    label = f"{match[3].decode('utf-8', 'replace')}: {value.decode('utf-8', 'replace')}" + (
        f", name: {named[1].decode('utf-8', 'replace')}" if named and match[3] != b"name" else "")
    return short_name(label, 80)


def _text(text: bytes, marks: list[tuple[int, str, Any]], documents: int, lines: int,
          scope: str) -> str:
    """The shape's text: the counts, then the documents, top-level keys and a top-level list's items that fit, each
    with its line and what it holds."""
    line = LineNumbers(text)  # (asked in increasing order)
    ends = [at for at, _, _ in marks[1:]] + [len(text)]
    docs = f", {documents:,} documents" if documents > 1 else ""
    head = f"{YAML_SHAPE}, {plural(lines, 'line')}{docs}{scope}: "
    tail = "; line=N reads from a key"
    shown = [(at, kind, match, end) for (at, kind, match), end in zip(marks, ends, strict=True)
             if kind != "doc" or documents > 1]

    def items() -> Iterator[str]:  # (made as they are listed: their lines are counted in order, up to the last)
        for at, kind, match, end in shown:
            if kind == "doc":
                label = match() if match is not None else ""
                yield f"--- {label} (line {line(at):,})" if label else f"--- (line {line(at):,})"
            elif match is not None:
                held = _counts(text[match.end() : end])
                name = short_name(match[3].decode("utf-8", "replace"), 60)
                yield f"{name} (line {line(at):,}{', ' if held else ''}{held})"
            else:
                first = text[at + 3 : text.find(b"\n", at + 1)].decode("utf-8", "replace").strip()
                yield f"- {_item_label(text, at, end, first)} (line {line(at):,})"

    return listed_within(head, items(), tail, len(shown))


def _item_label(text: bytes, at: int, end: int, first: str) -> str:
    """What names the top-level list item at ``at`` (to ``end``) whose first line after its ``- `` is ``first``:
    that line, and when it is a key holding a mapping (``metadata:``, which every item of ``pip inspect``'s list
    starts with) the item's first indented ``name:``, ``id:`` or ``title:`` in its first :data:`_ITEM_NAME_BYTES`
    with its value -- ``metadata: name: execnet`` --, else the line alone."""
    if first.endswith(":") and (named := _ITEM_NAME_RE.search(text, at + 1, min(end, at + _ITEM_NAME_BYTES))):
        own = f"{named[1].decode('utf-8', 'replace')}: {named[2].decode('utf-8', 'replace').strip()}"
        return short_name(f"{first} {own}", 80)
    return short_name(first, 60)
