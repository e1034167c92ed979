"""The golden record of what a spill tells the model (issue 16): for several hundred contents -- slices of every file
in ``fixtures/`` at sizes 1 KiB to 1 MiB and several offsets, and generated kinds of tool output (one-line JSON,
JSON lines, terminal output with ANSI and ``\\r``, control bytes, Latin-1, binary, CSV/TSV, HTML, XML, grep output,
logs, cut UTF-8) -- the shape (``describe``), the stub's compact JSON (``build_stub``, both preview modes, several
preview sizes and tools), the listing preview, and a few binding frame payloads.

``tests/golden_spill.json.gz`` was recorded with the code as it was before the CPU work of issue 16 (main at
7867ff0) by ``python -m tests.golden_spill --write``; ``tests/test_golden_spill.py`` checks that the code reproduces
it exactly. Everything here is deterministic (fixed seeds, fixed handle and times). Rewritten on purpose since: branch
csvjsonl (a content whose first line is JSON is no table: ``records.jsonl@0+16384``, JSON lines cut in their last
record, is ``text``, no longer a "CSV" of cells such as ``{"ts": 1700000000``); main on 2026-12-02 (terminal output,
the ``terminal.log@...`` slices, is a ``log`` whose shape starts "terminal output" and counts its escapes and
redraws; the 339 other records unchanged); main on 2026-12-02, later (the note of a JSON array names
``jq=".[0]"``, not ``jq="keys"``, whose answer is the indices: ``array.json@…`` and ``big-array.json@…``, 3 records);
branch htmltext (an HTML shape's "~N KiB of text" counts character references resolved and ``<pre>`` text
uncollapsed, as the text view renders them: ``browser-rust-book.html@0+200000`` and the four slices of 512 KiB or more,
5 records, say ~132 and ~354 KiB where they said ~130 and ~345, nearer the views' 136 and 358 KiB); branch atk26
(JSON lines cut in their last line count the whole records and say the line is cut, ``records.jsonl@0+16384`` and the
``lists/mixed.jsonl`` cuts, 7 records; ``cjk.txt`` slices cut inside a character count those bytes as not UTF-8, 4;
one-line JSON cut past the sample is "longest at least", 3; previews no longer end inside a ``\\uXXXX`` escape or a
``\\\\`` pair, ``wide.json`` and ``quotes.txt`` slices, 5); main on 2026-12-03 (grapheme clusters by the ``regex``
package's ``\\X``, UAX #29 whole: CR LF is one cluster, so a head+tail preview's tail no longer starts at the LF of a
CR LF, ``query-packages-by-month.csv@0+600000``; a head cut between CR and LF ends before the CR, which moves the
stub's preview-fitting steps of the three ``crlf.txt`` slices: their previews end 1 to 2 characters later, within
the same bound; 4 records); branch atk27 (a key's name that would read as something else -- a ``?``, the mark of a
key some items lack, or a control character, shown as ``?`` -- is in JSON quotes: ``wide.json@0+7380``'s keys
``"k0\\u0001"``, which it showed as ``k0?``, 1); branch structfix (a JSON-lines record key some records lack ends in
``?``, as a JSON array's items' keys do: ``mixed.jsonl@0+1024``, ``@0+1537``, ``@0+16384`` and ``@0+85111``, whose
``extra_0`` to ``extra_6`` are each in one record in 7, said ``extra_0: bool`` as if every record had it; their shapes
and stubs, 4 records; and an array whose items are of several kinds is counted by kind, not described by its first
item: ``array.json@0+172692``'s ``b: array(3) of int`` over ``[1, 2, {"c": null}]`` is ``b: array(3) of mixed kinds
(2 numbers, 1 object), objects {c: null}``, 1 record); branch shapes (compressed content's shape says
``compressed`` and its note names byte ranges alone, no ``match="TEXT"``, which finds nothing in compressed bytes:
``gzip.bin@0+1024``, ``@0+1537`` and ``@0+9004``, their shapes and stubs' notes, the previews unchanged, 3 records);
branch jsonshape (an array's items and JSON lines' records are a sample of them merged, never the first alone:
``array.json@0+172692`` says ``items: ...`` and ``b: array(3) of int|{c: null}``, ``d: str(up to 271 B)``, where it
said ``first item: ...``, a ``mixed kinds`` count of the first item's array and ``d: str``; the ``mixed.jsonl`` cuts
``v: array(0-2)`` where the first record's ``v: array(0)`` stood; 5 records; and a table's shape counts its bytes
that are not UTF-8, as a text's does: the 8 ``latin1.txt`` slices, CSV to the shape, end ``; 171 bytes not UTF-8
(shown as U+FFFD)`` or the like, and ``query-packages-by-month.csv@0+200000``, a slice that cuts its last character,
``; 1 byte not UTF-8 ...``; 14 records, shapes and the stubs that carry them, previews and notes unchanged); then,
branch jsonshape (a note's line reads are sized on the lines they read, at most 4 KiB of JSON text each, no longer
from the average line: ``lines=`` of the head's read and ``line=-N`` of the last lines' change in 393 stubs of 159
records -- a content's last lines counted where its end is (the harness passes the last ``LAST_LINES_BYTES``, as a
spill keeps them), a read near a short content's end asking for the lines left -- and 16 previews move by the
note's new length; the shapes unchanged); then,
branch htmlsel (the text view keeps the lines of code in a ``<pre>``, each indented two spaces a ``<div>`` around it,
and an HTML shape's "~N KiB of text" counts that indent: the ``browser-rust-book.html`` slices, 6 records and the
spill through the store, say ~141 and ~379 KiB where they said ~132 and ~354 (0+65536 its markup share); the view of
the 512 KiB slice is 395 KiB); and a count of 1 is worded singular (``tests/test_reply_wording.py``):
``one-byte@0+1``'s shape says "longest 1 byte", ``deep.json@0+254``'s "object(1 key)", 2 records); then, main
on 2026-12-04 (a stub counts the lines its line reads hold only for a preview that fits with the average line's
counts, so a try that does not fit is measured with those: 13 stubs of 12 records -- ``latin1.txt``, ``grep.txt``,
``data.csv``, ``iso.log``, ``blank.txt``, ``cjk.txt``, ``array.json`` slices and ``browser-rust-book.html@777+16384``
-- end their previews 1 to 2 characters earlier, one 2 later, their notes naming the new next line; shapes
unchanged); then,
branch members (a magic number is a format only when the header after it agrees: ``png.bin``, the PNG signature and
random bytes with no IHDR chunk, is ``binary, ...; starts with ...`` without ``PNG image``: its 4 slices, their shapes
and the stubs that carry them, 4 records); and text whose bytes not UTF-8 are a single-byte encoding's (no valid
UTF-8 character but ASCII) names the read argument that shows them: the ``latin1.txt`` slices' shapes end ``...
bytes not UTF-8 (shown as U+FFFD), encoding="latin-1" reads them as Latin-1``, their stubs' previews a little
shorter to fit, 7 records and the spill through the store); then,
branch jsonlines
(a slice cut inside its first record is JSON lines when the rest of its first 20 lines are JSON objects or arrays,
its shape saying "1 record not JSON (record 1)": ``records.jsonl@5+16384``, a "CSV" of cells such as ``:
1700000000``, and ``lists.jsonl@5+…`` and ``mixed.jsonl@5+…`` at 1024, 1537 and 16384 bytes, text; 7 records, their
content types, shapes and stubs, the listings unchanged); then, branch tables2
(a table's first line is its header by the types of its cells against the rows under it, column by column: the
``latin1.txt`` slices at 0, one line repeated, are a table whose first line is a row like the others -- its columns
of one length each -- ``CSV, 3 columns, no header, 18 rows`` at 1,024 bytes, no longer ``CSV, 3 columns (R?sum?
des op?rations: …, ...), 17 rows``; 4 records and the spill through the store; and ``grep.txt@5+…`` and
``quotes.txt@5+…`` at 1024, 1537 and 16384 bytes, whose first line is a line like the others cut at its start --
another pattern of digits in a typed column no longer votes for a header --, read ``no header``, 6 records); then,
branch nextread (a table's note names the rows read from the first row its preview does not show whole, JSON lines'
the records read from the first record: ``row=1`` became ``row=9`` for ``query-packages-by-month.csv@whole``, and so
on for every CSV and JSON-lines stub -- ``data.csv``, ``data.tsv``, ``headless.csv``, ``latin1.txt``, ``grep.txt``,
``crlf.txt``, ``quotes.txt``, ``lists.jsonl``, ``mixed.jsonl`` slices --; and a JSON object's jq read is chosen by its
shape's describer from the values, no longer by parsing the shape's text: no record changed); then, branch replies7
(the text view indents no ``<div>``, as a browser shows it, so an HTML shape's "~N KiB of text" counts no indent a
``<div>``: the nine ``browser-rust-book.html`` slices, ~356 KiB of the whole where it said ~396); then, branch
javalog1 (a log's or text's note reads its first error or exception first, ``line=N``, when the preview stops before
it: ``level.log@5+1024``, ``@5+1537`` and ``@0+16384``, whose first ERROR is on line 4, name ``line=4`` first, their
1,024-byte stubs' shapes giving way; 3 records); then, branch newuser20 (a JSON array's note reads the items after
those its preview shows whole, ``jq=".[8:][]"``, paged, where ``jq=".[0]"`` gave the first of them again and ended:
``array.json@0+172692``, ``big-array.json@0+600000`` and ``@0+783780``, 7 stubs of 3 records, their previews
2 to 4 bytes shorter for the longer read; the shapes unchanged); then, branch htmlpreview1 (an HTML page's ``head``
preview is the start of its text view, the bytes ``view="text"`` reads from offset 0, and its note says so and
names ``view="text", offset=N`` first, then the page's bytes from its start and the search, where it previewed the
page's first bytes -- its ``<head>`` markup: ``browser-rust-book.html@whole`` and its slices at offset 0 of 3,000 to
1 MiB bytes, and ``page.html@0+1024``, ``@0+1537``, ``@0+16384`` and ``@0+46842``, their two ``head`` stubs, 26
stubs of 13 records; ``head+tail`` stubs, shapes and listings unchanged; ``browser-rust-book.html@0+1024`` keeps its
bytes: its text view, of its ``<head>`` alone, is empty); then, branch shapes3 (a table with no header line's note
says its slurped rows are arrays, ``.[] | select(.[1] > 5)``, 82 bytes its preview gives up: the stubs of 29 records,
slices of ``crlf.txt``, ``grep.txt``, ``headless.csv``, ``latin1.txt`` and ``quotes.txt``; an HTML page's listing is
its default stub's text start, where it was its first bytes: the listings of 13 records, ``browser-rust-book.html``'s
and ``page.html``'s).
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

from scratchfs.api.line_fit import LAST_LINES_BYTES
from scratchfs.api.preview import list_preview
from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.api.stub import build_stub
from scratchfs.engine.binding import Binding
from scratchfs.foundation.limits import LIST_PREVIEW_BYTES, PREVIEW_BYTES
from tests.test_budgets import generated

GOLDEN = Path(__file__).resolve().parent / "golden_spill.json.gz"
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
HANDLE = "h_" + "abcdefghijklmnopqrstuvwx"


class BytesSource:
    """A whole content as a :class:`~scratchfs.engine.structure.paging.ContentSource` (``size``, ``read``)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)

    def read(self, offset: int, length: int) -> bytes:
        return self.data[offset : offset + length]


def _cycled(data: bytes, offset: int, size: int) -> bytes:
    """``size`` bytes of ``data`` from ``offset`` on, starting over at its end as often as needed."""
    out = data[offset:]
    while len(out) < size:
        out += data
    return out[:size]


def fixture_contents() -> Iterator[tuple[str, bytes]]:
    for path in sorted(p for p in FIXTURES.iterdir() if p.suffix in {".html", ".json", ".csv", ".txt"}):
        data = path.read_bytes()
        yield f"{path.name}@whole", data
        for size in (1024, 3000, 4096, 16384, 65536, 200_000, SAMPLE_BYTES, 600_000, 1024 * 1024):
            for offset in (0, 777, len(data) // 2 + 13):
                yield f"{path.name}@{offset}+{size}", _cycled(data, offset, size)


def _generated_base() -> dict[str, bytes]:
    """The kinds of tests/test_budgets.py (issue 11) and more kinds of real tool output."""
    rng = random.Random(16)
    binary = bytes(rng.getrandbits(8) for _ in range(70_000))
    csv_rows = "id,name,score,when\n" + "".join(f'{i},"name, {i}",{i * 0.5},2026-01-{i % 28 + 1:02d}\n'
                                                 for i in range(3000))
    tsv_rows = "id\tname\tvalue\n" + "".join(f"{i}\titem {i}\t{rng.random():.4f}\n" for i in range(3000))
    headless = "".join(f"{i},{i * 2},{i * 3}\n" for i in range(2000))
    html = ("<!DOCTYPE html><html><head><title>  A  page\n title </title><style>p{color:red}</style></head><body>"
            + "".join(f"<h{i % 3 + 1}>Heading <b>{i}</b></h{i % 3 + 1}><p>{'text ' * 40}</p>" for i in range(200))
            + "<script>var x = '<h1>no</h1>';</script></body></html>")
    xml = '<?xml version="1.0"?>\n<!-- c -->\n<catalog>' + "".join(
        f"<book id='{i}'><title>T{i}</title></book>\n" for i in range(1500)) + "</catalog>\n"
    grep = "".join(f"src/module_{i % 37}/file_{i % 11}.py:{i * 3 + 1}:    def function_{i}(self, arg):\n"
                   for i in range(3000))
    grep_dash = "".join(f"lib/a{i % 5}.c-{i}-  context line {i}\nlib/a{i % 5}.c:{i + 1}:  match {i}\n"
                        for i in range(2000))
    log_ts = "".join(f"2026-11-30T22:{i % 60:02d}:{i % 60:02d} INFO worker-{i % 4} processed item {i}, ok\n"
                     for i in range(3000))
    log_level = "".join(f"[{['DEBUG', 'INFO', 'WARN', 'ERROR'][i % 4]}] step {i}, status=done, x={i}\n"
                        for i in range(3000))
    syslog = "".join(f"Nov {i % 28 + 1:2d} 12:{i % 60:02d}:01 host sshd[{i}]: Accepted key for user, port {i}\n"
                     for i in range(2000))
    crlf = "".join(f"line {i}, with a comma\r\n" for i in range(3000))
    blank = "".join(f"paragraph {i}\n\n" if i % 3 else "\n" for i in range(3000))
    cjk = "".join(f"第{i}行：数据处理完成，结果正常。🙂 émoji ✓\n" for i in range(3000))
    long_line = "word " * 20000
    array_json = json.dumps([{"a": i, "b": [1, 2, {"c": None}], "d": "x" * (i % 300)} for i in range(800)],
                            indent=1)
    scalar_json = json.dumps("a string " * 50)
    bom_json = "\ufeff" + json.dumps({f"key_{i}": {"nested": list(range(i % 5))} for i in range(50)})
    wide_json = json.dumps({f"k{i}\x01": i for i in range(400)})
    jsonl_lists = "".join(json.dumps([i, "x", None]) + "\n" for i in range(2000))
    bad_json = '{"a": 1, "b": [1, 2, 3], "c": {"d": "e"}, ' + "junk" * 3000
    deep_json = json.dumps({"l1": {"l2": {"l3": {"l4": {"l5": {"l6": {"l7": list(range(50))}}}}}}, "n": 1})
    jsonl_mixed = "".join(json.dumps({"id": i, f"extra_{i % 7}": True, "v": [i] * (i % 3)}) + "\n"
                          for i in range(2000))
    big_array = json.dumps([{"id": i, "name": f"n{i}", "tags": ["a", "b"], "pad": "p" * 200} for i in range(3000)])
    big_object = json.dumps({f"section_{i}": {"items": list(range(i % 50)), "text": "t" * 300} for i in range(2000)})
    huge_value = json.dumps({"blob": "z" * 700_000, "after": 1})
    quotes = "".join(f'say "hello" \\ to {i}\t<tab> \u2028 sep\n' for i in range(2000))
    return {
        **generated(), "random.bin": binary, "png.bin": b"\x89PNG\r\n\x1a\n" + binary[:20000],
        "gzip.bin": b"\x1f\x8b\x08\x00" + binary[:9000], "nul.txt": b"text\x00" * 3000,
        "data.csv": csv_rows.encode(), "data.tsv": tsv_rows.encode(), "headless.csv": headless.encode(),
        "page.html": html.encode(), "doc.xml": xml.encode(), "grep.txt": grep.encode(),
        "grep-C.txt": grep_dash.encode(),
        "iso.log": log_ts.encode(), "level.log": log_level.encode(), "syslog.log": syslog.encode(),
        "crlf.txt": crlf.encode(), "blank.txt": blank.encode(), "cjk.txt": cjk.encode(), "long-line.txt":
        long_line.encode(), "array.json": array_json.encode(), "scalar.json": scalar_json.encode(),
        "bom.json": bom_json.encode(), "wide.json": wide_json.encode(), "lists.jsonl": jsonl_lists.encode(),
        "bad.json": bad_json.encode(), "deep.json": deep_json.encode(), "mixed.jsonl": jsonl_mixed.encode(),
        "big-array.json": big_array.encode(), "big-object.json": big_object.encode(),
        "huge-value.json": huge_value.encode(), "quotes.txt": quotes.encode(),
        "empty": b"", "one-byte": b"x", "newline": b"\n", "two-lines": b"a,b\n1,2",
        "xml-comment": b"<!-- only a comment -->\n<root/>", "lt-text": b"<not a tag at all\nsecond line\n",
    }


def generated_contents() -> Iterator[tuple[str, bytes]]:
    for name, data in _generated_base().items():
        sizes = sorted({len(data), *(s for s in (1024, 1537, 16384, 600_000) if s < len(data))})
        for size in sizes:
            for offset in ((0, 5) if size < len(data) else (0,)):
                yield f"{name}@{offset}+{size}", data[offset : offset + size]


def _variants(index: int) -> list[tuple[str, str | None, int]]:
    """(preview mode, tool, preview bytes) for the ``index``-th content: always the defaults, plus others by turn."""
    tools = (None, "bash", "mcp.server/über_tool " + "x" * 80, "t\"q\\")
    extra = [("head+tail", tools[index % 4], PREVIEW_BYTES),
             ("head", tools[(index + 1) % 4], (0, 64, 300, 4096, 65536)[index % 5])]
    if index % 3 == 0:
        extra.append(("head+tail", None, (0, 100, 2000, 8000)[index % 4]))
    return [("head", "bash", PREVIEW_BYTES), *extra]


def record(name: str, content: bytes, index: int) -> dict:
    """What the model and the index receive for one content."""
    size = len(content)
    lines = content.count(b"\n") + (bool(content) and content[-1:] != b"\n")
    head = content[: max(SAMPLE_BYTES, 65536 + 4)]
    start = head[:64].lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    source = BytesSource(content) if len(head) < size and start in (b"{", b"[") else None
    shape = describe(head, size, lines, source)
    stubs, listed = [], None
    for mode, tool, preview in _variants(index):
        kept = max(preview if mode == "head+tail" else 0, LAST_LINES_BYTES)  # (what a spill keeps of the end)
        tail = content[max(0, size - kept) :]
        stub = build_stub(HANDLE, head, tail, size, lines, shape.content_type, shape.text, tool, preview, mode,
                          next_read=shape.next_read, top=shape.top,  # (the jq read a JSON object's describer chose)
                          first_error=shape.first_error)  # (a log's or text's first error, read first)
        stubs.append(stub.to_json())
        listed = stub.listed if len(stubs) == 1 else listed  # (a spill's: its first, default stub's)
    listing = listed if listed is not None else list_preview(
        head, size, min(PREVIEW_BYTES, LIST_PREVIEW_BYTES), shape.content_type == "binary", LIST_PREVIEW_BYTES)
    found = {"name": name, "content_type": shape.content_type, "shape": shape.text, "stubs": stubs,
             "listing": listing}
    if source is not None:  # the shape of the sample alone (no source, or a source that fails)
        alone = describe(head, size, lines)
        found["sample_shape"] = [alone.content_type, alone.text]
    return found


def bindings() -> list[Binding]:
    return [
        Binding("abcdefghijklmnopqrstuvwx", "run", "agent", "handle", HANDLE, "bash", 3600.0, 1764547200.123456,
                16384, 1, "0" * 32),
        Binding("zzzzzzzzzzzzzzzzzzzzzzzz", "r/ü", "a\"b", "scratch", "key with ✓ and \\", None, 0.5, 1e-7, 0, 0,
                ""),
        Binding("222222222222222222222222", "r", "a", "handle", HANDLE, "t" * 300, 86400, 1764547200, 2**40, 10**6,
                "f" * 32),
    ]


def records() -> list[dict]:
    contents = [*fixture_contents(), *generated_contents()]
    out = [record(name, content, i) for i, (name, content) in enumerate(contents)]
    out.append({"name": "bindings", "payloads": [b.encode().decode("utf-8") for b in bindings()]})
    return out


def write(path: Path = GOLDEN) -> int:
    data = json.dumps(records(), ensure_ascii=False, indent=0).encode("utf-8")
    path.write_bytes(gzip.compress(data, 9, mtime=0))
    return len(data)


def load(path: Path = GOLDEN) -> list[dict]:
    return json.loads(gzip.decompress(path.read_bytes()))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.golden_spill --write")
    print(f"{write():,} bytes of JSON written to {GOLDEN} ({GOLDEN.stat().st_size:,} bytes)")
