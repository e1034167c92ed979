"""The shape of a disassembly as GNU ``objdump -d`` writes it (``-D``, ``-S`` and ``--no-show-raw-insn`` too), for
:mod:`scratchfs.api.shape`: its sections and the symbols it disassembles, each with the line it starts at, and the
pattern that finds a symbol, so that a model goes to ``main`` or ``.text`` with one read instead of searching 4,000
lines of instructions blind (``objdump -d /bin/true``, 224 KB, was ``text, 4,161 lines``). Such text stays content
type ``text``; its shape starts with :data:`DISASM_SHAPE`.

The layout (binutils' ``objdump.c``): a blank line, ``<file>:     file format <bfd name>`` (``prog:     file format
elf64-x86-64``), a blank line; then for each section ``Disassembly of section .text:`` and for each symbol in it a
blank line, then ``<address> <symbol>:`` (``0000000000001267 <main>:``; ``-C``'s demangled names hold ``<>``, ``()``,
``[]``: ``<std::vector<int> >::push_back(int const&)>:``), its instructions indented under it. Told only
on that first line (a match at the start, after at most one blank line) and a section line after it; the symbols
whose names hold ``@plt`` (the linker's stubs, ``free@plt-0x10`` its header) are listed after the others, and those
named for a section (a stripped binary's ``<.text>``) before them."""

from __future__ import annotations

import re
from itertools import chain

from scratchfs.api.shape_parts import Parts, numbered
from scratchfs.api.shape_words import called_name, listed_within, plural, short_name, within_lines

__all__ = ["DISASM_SHAPE", "disasm_shape"]

DISASM_SHAPE = "disassembly (objdump)"
"""How the shape of ``objdump -d`` output starts."""

_FIRST_RE = re.compile(rb"\r?\n?([^\n]{1,200}?):[ \t]+file format ([\w.+-]{1,40})\r?\n")
_SECTION_RE = re.compile(rb"\nDisassembly of section ([^\s:]{1,60}):\r?(?=\n|\Z)")
_SYMBOL_RE = re.compile(rb"\n[0-9a-f]{4,16} <([^\n]{1,200})>:\r?(?=\n|\Z)")  # (-C: <std::vector<int> >::f()>)
_SECTIONS_ROOM = 240  # (characters of the sections listed: objdump -D of /bin/true writes 29, whose names and
# lines filled the shape, its symbols and the search that finds one cut off; -d writes 5 to 12)
_FIND = '; match="<NAME>:" finds a symbol, line=N reads from one'  # (no pattern=: a C++ name holds ( ) [ ] * +


def disasm_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it) if it is ``objdump -d``'s output, else ``None``:
    ``"disassembly (objdump) of prog (elf64-x86-64), 261 lines, 5 sections: .init (line 5), .plt (line 16), …; 20
    symbols (7 @plt): _init (line 7), _start (line 61), …, main (line 206), …; match="<NAME>:" finds a symbol,
    line=N reads from one"`` (a call names its symbol ``<main>`` with no colon; the sections listed within 240
    characters, ``… N more`` the others). ``size``: the whole content's bytes (``None``: the sample's); told from
    the sample's first :data:`~scratchfs.api.shape_words.MOST_LINES` lines, which its scope says when that is not
    all of it. Never raises."""
    first = _FIRST_RE.match(sample, 0, 256) if b"file format" in sample[:256] and (
        sample[:1] in (b"\n", b"\r", b"/", b".") or sample[:1].isalnum()) else None  # (a find before the regex)
    if first is None:
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)  # (whole lines, MOST_LINES at most: a
    text = b"\n" + sample  # symbol's line three matches in Python, 45 ms over 52,000 of 512 KiB; each part's line:
    # the newlines before it)
    sections = Parts(_SECTION_RE, text)
    if not sections:
        return None
    stubs = Parts(_SYMBOL_RE, text, keep=lambda name: b"@plt" in name)
    own = Parts(_SYMBOL_RE, text, keep=lambda name: b"@plt" not in name and not name.startswith(b"."))
    dotted = Parts(_SYMBOL_RE, text, keep=lambda name: name.startswith(b"."))  # (a stripped binary's <.text>)
    name = short_name(first[1].decode("utf-8", "replace"), 60)
    listed = _sections_listed(text, sections)
    head = (f"{DISASM_SHAPE} of {name} ({first[2].decode('ascii', 'replace')}), {plural(lines, 'line')}, "
            f"{plural(len(sections), 'section')}{scope}: {listed}")
    total = len(own) + len(stubs) + len(dotted)
    if not total:
        return listed_within(head, [], _FIND)
    counts = plural(total, "symbol") + (f" ({len(stubs):,} @plt)" if stubs else "")
    items = chain(*((f"{called_name(raw.decode('utf-8', 'replace'), 48, parted=False)} (line {line:,})"
                     for line, raw in numbered(text, parts)) for parts in (own, dotted, stubs)))
    return listed_within(f"{head}; {counts}: ", items, _FIND, total)


def _sections_listed(text: bytes, sections: Parts) -> str:
    """The sections of ``text`` each at its line, as many as :data:`_SECTIONS_ROOM` holds (the first always), then
    ``… N more``: the symbols' room left (``objdump -D``'s 29 sections took all of it)."""
    listed: list[str] = []
    room = _SECTIONS_ROOM
    for line, raw in numbered(text, sections):
        item = f"{short_name(raw.decode('utf-8', 'replace'), 40)} (line {line:,})"
        room -= len(item) + 2
        if room < 0 and listed:
            break
        listed.append(item)
    more = len(sections) - len(listed)
    return ", ".join(listed) + (f", … {more:,} more" if more else "")
