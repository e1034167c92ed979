"""The size, in the bytes a model receives, of the refusals and notes added on 2026-12-05 (not-found replies that say
how to go on, near-miss suggestions for handles, argument and tool names, read-mix refusals, a bounded search's
miss): each error's text as `error_text` gives it (what the MCP face sends as the tool's text) and as a JSON string,
a reply as its compact JSON as a model reads it (without ``calls``, the calls its note names as data: they go in
the MCP structured content alone, and the row says how many bytes they are).

    python bench/error_sizes.py
    python bench/error_sizes.py --cost     # a not-found read's time with 10,000 live handles in the scope
    python bench/error_sizes.py --key-cost # a not-found key's time with 10,000 live keys in the scope

What it printed at 05:04 UTC on 2026-12-05 (main at 6bc62b9): unknown handle 264 B, a handle one character off
190 B, missing key 113 B, a handle given as a key 217 B, a misspelt argument 307 B (every argument the tool takes
named), 20 unknown arguments 315 B (5 echoed), jq beside row 197 B, end beside jq 286 B, a handle in quotes 203 B,
a misspelt tool name 159 B; a bounded search from the end that missed, 341 B of reply JSON. Each is under the 2,048
bytes an error is cut at and the 8,192-byte default reply budget. ``--cost``: 13.7 ms for a handle that names
nothing among 10,000 live handles (05:06 UTC, load about 1).

At 07:48 UTC (main at bc912a7, the third session's replies): a line past the end 205 B, an offset past it 193 B, a
search past it with end= 255 B, a count 167 B, the pattern-as-written hint 195 B, the argument meant (regex) 307 B,
a key one edit off 141 B, scratch_delete of nothing 161 B of reply JSON, a finished pattern search 464 B and match
search 420 B (three windows each), scratch_write 56 B, a stored copy lost 159 B. ``--key-cost``: 38 / 120 ms (short
keys, a near one / none near) and 55 / 169 ms (500 characters) among 10,000 live keys, two helpers running.
At 08:22 UTC (helper kinds4, load about 3), a lower bound before the table (api.missing.Letters): 35-41 / 34 ms
and 39-44 / 42-50 ms, against 35 / 97-110 ms and 38-44 / 106-107 ms without it on the same machine.

At 10:40 UTC (main at a5f671e, the fourth session's refusals, two helpers running): a slurp over its bound (lowered
to 1,000 bytes here) advising the per-record read of `.[] | .name` 296 B, a jq error's next step 221 B, row= on a
JSON document naming jq="keys" as a call 267 B, jq= on an HTML page 476 B, before= past the end 204 B, end= with
view="text" naming both searches 335 B: each under the 2,048 bytes an error is cut at.

At 13:45 UTC (main after the fifth session's merges, idle): a rows read of a 10,000-column header naming the
columns that fit 250 B, a search for the stub's placeholder REGEX that finds it (reply, three windows and the note)
296 B, jq="JQ" 187 B, a jq error on the first output 218 B; through the MCP faces, an upstream that never started
226 B of error text, a request answered by a stop 129 B of JSON-RPC. The notes' calls of successful replies:
``python bench/note_calls.py``.

At 15:39 UTC (helper replies4, load about 9), empty arguments, each naming the call that works: match="" 176 B,
pattern="" with context 186 B, jq="" 172 B, select=" " 208 B, cursor="" 193 B, columns=[] 183 B, handle="" 217 B,
scratch_read key="" 151 B, scratch_write key="" 136 B (before: jsonschema's "'' should be non-empty", no call);
row=1 of ``strace -f ls /usr`` (fixtures/tools/strace-f-ls-usr.txt) 262 B of error text naming the line read of
the same lines, where main gave 5,483 B of JSON (json.dumps' separators) of its lines split at commas.

At 16:30 UTC (main after the sixth session's merges, idle): pattern="openat(" on that strace output, naming
match="openat(" and pattern="openat\\(" as calls, 335 B (348 B as a JSON string); pattern="[[:alpha:]]+", naming
the pattern with ASCII ranges, 269 B (helper newuser6's refusals).
At 17:40 UTC (helper replies5, load about 8), searches of ``dpkg -l`` (fixtures/tools/dpkg-l.txt) that find
nothing, as reply JSON: "zebra" 169 B (its note, "no match in the whole content (9,488 bytes)", 45 B as a JSON
string), from offset 1000 179 B, pattern="gnu bourne again shell" naming the same search with ignore_case=True
496 B (note 214 B; the rest is the note's call as data, "calls"), match="add_and_remove" naming
pattern="add[-_ .]?and[-_ .]?remove" 473 B (note 197 B), a count of "DEBIAN BASE SYSTEM" 459 B (before: the same
replies without a note, 116-149 B, main at f1275d4).
At 19:12 UTC (main after the seventh session's merges, idle): a text view's miss 187 B; newuser7's refusals that name
the next call -- a row past the last 139 B, a record past the last 151 B, a misspelt column 91 B, a CSS selector
that does not parse 279 B, jq over text that is no JSON 383 B, a slurp filter written for one record 498 B -- and
the page of jq="keys[]" a JSON note now names, 135 B for two keys.

At 17:25 UTC (helper mcp6), the proxy's upstream errors say how it ended: an upstream that never started (exited with
code 1 during start-up) 213 B of error text, one killed mid-session ("the server was killed by SIGKILL") 200 B.
At 19:09 UTC (helper fr-api at 69f507d, load about 2.6): slurp=true over a table with a filter of one row
(jq=".name") naming ".[] | .name" 243 B, jq over a JSON document cut short naming its last lines 234 B.
At 20:20 UTC (helper typed, load about 7): that document cut short, one line of 1.3 MB, names the range read of its
last bytes (``offset=<size-4096>``) instead of ``line=-20, lines=20``, 230 B; every other row unchanged.

At 20:22 UTC (helper mcp7, load about 8): the replies whose note names a call carried it twice in the text a model
reads, in the note and as data: a miss naming the same search with ignore_case=True 496 B, of which 139 B of
``calls``; one naming a spelling that matches 473 B (143 B); a count's miss 459 B (133 B). The text block (and the
adapter's ToolReply.text) now leaves them to the structured content: 357 B, 330 B, 326 B.

At 20:37 UTC (helper replies6, load about 6): row= one past the last row, refused naming the last rows, 128 B
(before: an empty page, no note); a search of dpkg -l from offset 1000 that finds nothing, naming the search of the
whole content (note and "calls"), 368 B (before 179 B); a count of "adduser" from offset 1000, 0 matches naming the
count of the whole, 422 B (before: 0 matches, no note); a CRLF miss of "=7[^ ]00$" naming $ written exactly (an
item before it takes a \r) 557 B; the stub of a pip run's progress bar (101 redraws) then 300 lines, 1,524 B of JSON
whose preview shows 89 lines as a terminal shows them (main at e7fe5dd: 1,525 B, its preview the bar's first 37
states, 1 line).
At 20:48 UTC (main after both merges): replies6's misses without their calls in the text block (mcp7): a search
from offset 1000 267 B, the count from an offset 306 B, the CRLF miss 420 B (101, 116, 137 B of calls as data).
At 22:23 UTC (the re-read): a search from the end that finds nothing, saying where it looked (newuser8), 186 B;
a jq filter that does not compile, in jq's words alone, 129 B of error text.
At 21:55 UTC (helper advice2, load about 1): a line read mixed with a search or a range names the two calls that
split it, a count beside a window's argument the count alone: line= with match= 247 B, lines= with pattern=,
offset= and context= 287 B, line= with length= 249 B, line= with a 4 KiB match= 222 B (its search said in words,
"this call without line= and lines=": written out, it would pass the 2,048 bytes an error is cut at), count with
before= 251 B, count with context= and ignore_case= 273 B of error text (main at 5c5bb74: 109 B each, 161 and
162 B, no call).

At 23:40 UTC (helper replies7, load about 6; main at af72f06 in brackets, measured by this file run over main's
package): jq over a minified document broken mid-line names the byte and the 200 bytes around it 259 B (223 B,
naming line=1, lines=5); a JSON-lines page that meets a parse error names the records read from that record,
2,013 B of text + 122 B of calls (2,014 B, advising "put a ? after the failing step"); a search with
encoding="latin-1" past the end, its calls as written 348 B (310 B, match="caf\ufffd" without encoding=); context=
without a needle 248 B (86 B), ignore_case without a search 234 B (68 B), length= with a search 235 B (87 B), line=
with offset= 239 B (76 B), each naming two calls that run (before: none); a match cut at a 2,048-byte budget, the
budget now counting the text a model reads, 2,048 B of text + 128 B of calls (1,920 B + 128 B: its window 1,282
bytes, not 1,154).

At 00:21 UTC on 2026-12-06 (helper slurp2, load about 2; main at 5ef44c0 in brackets, this file run over main's
package): 60 JSON texts one after another ({..}{..}), the 21st cut short: slurp=true with jq="length" 419 B, answering
59 and naming document 21's 9 bytes (420 B, answering 20: the rest, 39 documents, taken for one "last one (cut
short)"); a jq read that stops there 759 B (565 B), naming the slurp read ``jq=".[] | (F)", slurp=true`` that reads
past it.

At 01:18 UTC (the re-read, main at c25ba85, idle): JSON lines whose first record is `{"n": oops}` refused naming
``record=1, jq=".n"`` (hostile10); whose first record is ``{oops``, 73 B naming no call (our own scan of the first
bytes refuses it before jq runs, as a document: not mended, in the note); a pattern that runs the regex engine out of
memory 411 B; ignore_case beside line= 242 B (slurp2).

At 02:10 UTC on 2026-12-06 (helper replies8, load about 2; main at 57a7ae4 in brackets, this file run over main's
package): JSON lines whose first record is ``{oops``, naming ``record=1, jq=".n"`` 310 B (73 B, no call); ``{oops``
as the 2nd record, naming record 2 (main: the 3rd, jq's line after it, the bad one passed over unnamed) 582 B of
reply JSON + 106 B of calls (582 + 106 B); 3 records then ``{oops``, the last, saying no record follows it and ending
the read 371 B of reply JSON, no call (583 + 106 B naming ``record=5``, past the last); a document whose 3rd line
(2.2 MB) is broken, naming the 200 bytes around the byte jq stopped at 259 B (231 B, naming ``line=3, lines=5``).
Every other row unchanged.

At 02:49 UTC on 2026-12-06 (helper jsonl9, load about 6; main at 5797206 in brackets, this file run over main's
package): JSON lines whose 21st record is cut inside a string (newuser9's ``pip list``-like records): a jq read that
meets it names record 21, where it starts, 738 B of reply JSON + 126 B of calls (710 + 126 B, naming record 22, the
line jq reports after the open string took the newline in); slurp=true with jq="length" over 30 such records answers
29, naming record 21 and its bytes, 417 B of reply JSON + 110 B of calls (a refusal, 298 B of error text, whose
read on dropped the filter). Every other row unchanged.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools, error_text, reply_text
from scratchfs.api.views import reply_size, to_json
from scratchfs.foundation.errors import ScratchError


def cost(handles: int = 10_000) -> None:
    """Milliseconds a read of a handle that names nothing takes (best of 5) in a scope of ``handles`` live spills:
    it compares the handle with the scope's first 2,000 (entries.not_found)."""
    import time

    with tempfile.TemporaryDirectory(prefix="error-cost-") as root, ScratchStore(root) as store:
        scope = store.scope("run-42", "agent-1")
        for i in range(handles):
            scope.spill(b"%d\n" % i * 3000, source_tool="t")
        store.flush()
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            try:
                scope.read_range("h_" + "a" * 24)
            except ScratchError:
                pass
            best = min(best, time.perf_counter() - start)
        print(f"not found among {handles:,} live handles: {best * 1e3:.1f} ms")


def key_cost(keys: int = 10_000) -> None:
    """Milliseconds a read of a scratchpad key that names nothing takes (best of 5) among ``keys`` live keys, for
    keys that a near one is found among and keys none is near (api.missing: at most the scope's first 10,000 keys,
    an edit distance that stops early), short keys and keys of 500 characters."""
    import time

    for label, make, asked in (
            ("short, a near one", lambda i: f"step-{i:05d}", "step-0x123"),
            ("short, none near", lambda i: f"{i * 7919:x}-key", "zzzz-qqqq"),
            ("500 chars, a near one", lambda i: "k" * 490 + f"{i:010d}", "k" * 490 + "000000x123"),
            ("500 chars, none near", lambda i: f"{i:010d}" + "k" * 490, "q" * 500)):
        with tempfile.TemporaryDirectory(prefix="key-cost-") as root, ScratchStore(root) as store:
            scope = store.scope("run-42", "agent-1")
            for i in range(keys):
                scope.scratch_write(make(i), b"v")
            best = float("inf")
            for _ in range(5):
                start = time.perf_counter()
                try:
                    scope.scratch_read(asked)
                except ScratchError:
                    pass
                best = min(best, time.perf_counter() - start)
            print(f"key not found among {keys:,} live keys ({label}): {best * 1e3:.1f} ms")


def main() -> None:
    if sys.argv[1:] == ["--cost"]:
        cost()
        return
    if sys.argv[1:] == ["--key-cost"]:
        key_cost()
        return
    from scratchfs.api import structured

    structured.MAX_SLURP_BYTES = 1000  # (the slurp bound, small, as tests/test_slurp_advice.py makes it: its refusal)
    with tempfile.TemporaryDirectory(prefix="error-sizes-") as root, ScratchStore(root) as store:
        scope = store.scope("run-42", "agent-1")
        tools = ScratchTools(scope)
        handle = scope.spill(("x" * 50 + "\n") * 400, source_tool="t").handle
        near = handle[:-1] + ("a" if handle[-1] != "a" else "b")
        cases = {
            "unknown handle": ("read_handle", {"handle": "h_" + "a" * 24}),
            "handle one char off": ("read_handle", {"handle": near}),
            "missing key": ("scratch_read", {"key": "plan"}),
            "handle as key": ("scratch_read", {"key": handle}),
            "misspelt argument": ("read_handle", {"handle": handle, "lenght": 10}),
            "20 unknown arguments": ("read_handle", {"handle": handle, **{f"x{i}": 1 for i in range(20)}}),
            "jq beside row": ("read_handle", {"handle": handle, "jq": ".", "row": 1}),
            "end beside jq": ("read_handle", {"handle": handle, "jq": ".", "end": 10}),
            "handle in quotes": ("read_handle", {"handle": f'handle="{handle}"'}),
            "misspelt tool": ("read_handl", {"handle": handle}),
            "bounded last miss": ("read_handle", {"handle": handle, "match": "zz", "offset": 100, "end": 5000,
                                                  "before": 5000}),
            # the third session of 2026-12-05: advice that names the next call, replies without defaults
            "line past the end": ("read_handle", {"handle": handle, "line": 9999}),
            "offset past the end": ("read_handle", {"handle": handle, "offset": 999_999}),
            "search past, end=": ("read_handle", {"handle": handle, "match": "x", "offset": 999_999, "end": 5000}),
            "count past the end": ("read_handle", {"handle": handle, "match": "x", "count": True,
                                                   "offset": 999_999}),
            "pattern as written": ("read_handle", {"handle": handle, "pattern": "wait_for("}),
            "argument meant": ("read_handle", {"handle": handle, "regex": "x+"}),
            "key one edit off": ("scratch_read", {"key": "bgi"}),
            "delete of nothing": ("scratch_delete", {"key": "never"}),
            "finished pattern": ("read_handle", {"handle": handle, "pattern": "x{50}", "offset": 20_340}),
            "finished match": ("read_handle", {"handle": handle, "match": "xxxxx", "offset": 20_390}),
            "scratch_write": ("scratch_write", {"key": "note", "value": "v", "ttl": 60}),
        }
        # the fourth session of 2026-12-05: refusals that carry their calls, advice that follows a filter
        rows = scope.spill(b"id,name\n" + b"".join(b"%d,n%d\n" % (i, i) for i in range(3000)), source_tool="sql")
        doc = scope.spill(json.dumps({"items": [{"n": i} for i in range(2000)]}).encode(), source_tool="fetch")
        page = scope.spill(b"<html><head><title>t</title></head><body>" + b"<p>para</p>" * 2000 + b"</body></html>",
                           source_tool="browser")
        lines = scope.spill(b"".join(b'{"n": %d, "tags": ["a"]}\n' % i for i in range(2000)), source_tool="log")
        cases.update({
            "slurp over its bound": ("read_handle", {"handle": rows.handle, "jq": ".[] | .name", "slurp": True}),
            "jq error's next step": ("read_handle", {"handle": lines.handle, "jq": '.tags | test("a")'}),
            "row= on JSON": ("read_handle", {"handle": doc.handle, "row": 1}),
            "jq= on a page": ("read_handle", {"handle": page.handle, "jq": "."}),
            "before= past the end": ("read_handle", {"handle": handle, "match": "x", "before": 999_999}),
            "end= with view text": ("read_handle", {"handle": page.handle, "match": "para", "view": "text",
                                                    "end": 100}),
        })
        # the fifth session of 2026-12-05: a header too wide for a page, the stub's placeholders run as written
        wide = scope.spill((",".join(f"c{i}" for i in range(10_000)) + "\n" + "1,2\n" * 3).encode(), source_tool="sql")
        cases.update({
            "header too wide": ("read_handle", {"handle": wide.handle, "row": 1, "rows": 20}),
            "placeholder pattern": ("read_handle", {"handle": handle, "pattern": "REGEX"}),
            "placeholder jq": ("read_handle", {"handle": lines.handle, "jq": "JQ", "slurp": True}),
            "jq error, first output": ("read_handle", {"handle": doc.handle, "jq": '.items[] | .n | test("a")'}),
        })
        # the sixth session of 2026-12-05 (helper replies4): empty arguments, rows of text that is no table
        strace = scope.spill((Path(__file__).resolve().parent.parent / "fixtures" / "tools" /
                              "strace-f-ls-usr.txt").read_bytes(), source_tool="strace")
        cases.update({
            "empty match": ("read_handle", {"handle": handle, "match": ""}),
            "empty pattern, context": ("read_handle", {"handle": handle, "pattern": "", "context": "line"}),
            "empty jq": ("read_handle", {"handle": doc.handle, "jq": ""}),
            "blank select": ("read_handle", {"handle": page.handle, "select": " "}),
            "empty cursor": ("read_handle", {"handle": rows.handle, "row": 5, "cursor": ""}),
            "empty columns": ("read_handle", {"handle": rows.handle, "row": 1, "columns": []}),
            "empty handle": ("read_handle", {"handle": ""}),
            "empty key (read)": ("scratch_read", {"key": ""}),
            "empty key (write)": ("scratch_write", {"key": "", "value": "v"}),
            "row=1 of strace": ("read_handle", {"handle": strace.handle, "row": 1}),
            # (helper newuser6): a pattern that does not parse at a special character, a POSIX class
            "pattern openat(": ("read_handle", {"handle": strace.handle, "pattern": "openat("}),
            "pattern [[:alpha:]]+": ("read_handle", {"handle": strace.handle, "pattern": "[[:alpha:]]+"}),
            # (review revS): a repeat whose empty iteration captures a group a backreference names
            "empty repeat captured": ("read_handle", {"handle": handle, "pattern": "(a?^()|a)*\\2"}),
        })
        # the seventh session of 2026-12-05 (helper replies5): a search that finds nothing says where it looked
        # and, over at most 1 MiB, the spelling that matches, its call named (api.miss_hints)
        dpkg = scope.spill((Path(__file__).resolve().parent.parent / "fixtures" / "tools" /
                            "dpkg-l.txt").read_bytes(), source_tool="dpkg").handle
        cases.update({
            "miss, nothing near": ("read_handle", {"handle": dpkg, "match": "zebra"}),
            "miss from an offset": ("read_handle", {"handle": dpkg, "match": "zebra", "offset": 1000}),
            "miss, case": ("read_handle", {"handle": dpkg, "pattern": "gnu bourne again shell"}),
            "miss, spelling": ("read_handle", {"handle": dpkg, "match": "add_and_remove"}),
            "count miss, case": ("read_handle", {"handle": dpkg, "match": "DEBIAN BASE SYSTEM", "count": True}),
            "miss in the text view": ("read_handle", {"handle": page.handle, "match": "zebra", "view": "text"}),
            # (helper newuser7): refusals that name the next call; the keys a JSON note names, one a result
            "row past the last": ("read_handle", {"handle": rows.handle, "row": 5000}),
            "record past the last": ("read_handle", {"handle": lines.handle, "record": 5000}),
            "column misspelt": ("read_handle", {"handle": rows.handle, "row": 1, "columns": ["nme"]}),
            "selector not parsed": ("read_handle", {"handle": page.handle, "select": "h1["}),
            "jq over text": ("read_handle", {"handle": dpkg, "jq": "."}),
            "slurp for one record": ("read_handle", {"handle": lines.handle, "jq": ".tags", "slurp": True}),
            "keys[] of 2 keys": ("read_handle", {"handle": doc.handle, "jq": "keys[]"}),
        })
        # (review fr-api): a table's slurp filter of one row, a JSON document cut short; the past-the-last
        # reads again with rows= / records= given (a dict: these rows replace the two above)
        small = scope.spill(b"id,name\n1,a\n2,b\n3,c\n", source_tool="sql").handle
        cut = scope.spill(json.dumps({"items": [{"n": i} for i in range(100_000)]}).encode()[:-40],
                          source_tool="fetch")  # (over the shape sample: stored as JSON)
        cases.update({
            "row past the last": ("read_handle", {"handle": rows.handle, "row": 5000, "rows": 20}),
            "record past the last": ("read_handle", {"handle": lines.handle, "record": 5000, "records": 20}),
            "slurp filter of a row": ("read_handle", {"handle": small, "jq": ".name", "slurp": True}),
            "JSON cut short": ("read_handle", {"handle": cut.handle, "jq": ".items[0]"}),
        })
        # the eighth session of 2026-12-05 (helper replies6): one past the last row, a count from an offset that
        # finds nothing (the whole content's count named), a CRLF miss whose $ an item taking a \r stands before,
        # the stub of pip's progress bars (its preview as a terminal shows it)
        crlf = scope.spill(b"".join(b"key%d: value=%d\r\n" % (i, i * 1000) for i in range(500)), source_tool="t")
        pip = scope.spill("Collecting foo\n" + "".join(f"\rDownloading foo {i:3d}%" for i in range(101)) + "\n"
                          + "".join(f"line {i}\n" for i in range(300)), source_tool="pip")
        cases.update({
            "row one past the last": ("read_handle", {"handle": small, "row": 4, "rows": 2}),
            "count miss from offset": ("read_handle", {"handle": dpkg, "match": "adduser", "offset": 1000,
                                                       "count": True}),
            "CRLF miss, [^ ]$": ("read_handle", {"handle": crlf.handle, "pattern": "=7[^ ]00$"}),
        })
        # the ninth session of 2026-12-05 (helper advice2): a line read mixed with a search or a range, and a count
        # beside a window's argument, name the calls that split the request (the count alone)
        cases.update({
            "line= with match=": ("read_handle", {"handle": handle, "line": 1, "match": "x"}),
            "lines= pattern= offset=": ("read_handle", {"handle": handle, "lines": 5, "pattern": "x+", "offset": 100,
                                                        "context": 10}),
            "line= with length=": ("read_handle", {"handle": handle, "line": -5, "length": 100}),
            "line=, a 4 KiB match": ("read_handle", {"handle": handle, "line": 1, "match": "y" * 4096}),
            "count with before=": ("read_handle", {"handle": handle, "match": "x", "count": True, "before": 500}),
            "count with context=": ("read_handle", {"handle": handle, "pattern": "x+", "count": True,
                                                    "context": 3, "ignore_case": True}),
        })
        # the re-read of the ninth session (newuser8's replies measured): a search from the end that finds nothing,
        # and a jq filter that does not compile, in jq's words alone
        cases.update({
            "miss from the end": ("read_handle", {"handle": dpkg, "match": "no-such-package", "before": 5000}),
            "jq does not compile": ("read_handle", {"handle": doc.handle, "jq": ".items | .n +"}),
        })
        # the tenth session of 2026-12-05 (helper replies7): a minified document broken mid-line, a parse error in
        # JSON lines, a search past the end under encoding=, search arguments without a search, a cut match
        minified = json.dumps({"items": [{"n": i, "name": "x" * 20} for i in range(60_000)]})
        broken = scope.spill(minified.replace('{"n": 50000,', '{"n": 50000,,', 1).encode(), source_tool="fetch")
        bad_lines = scope.spill("".join(json.dumps({"n": i}) + "\n" if i != 500 else '{"n": 500,}\n'
                                        for i in range(2000)).encode(), source_tool="log").handle
        latin = scope.spill(("caf\xe9 ligne\n" * 2000).encode("latin-1"), source_tool="t").handle
        long_match = scope.spill(("start\n" + "a" * 20000 + "\nend\n").encode(), source_tool="t").handle
        cases.update({
            "JSON broken mid-line": ("read_handle", {"handle": broken.handle, "jq": ".items | length"}),
            "JSONL parse error": ("read_handle", {"handle": bad_lines, "jq": ".n", "budget": 2048}),
            "latin-1 past the end": ("read_handle", {"handle": latin, "match": "café", "encoding": "latin-1",
                                                     "offset": 999_999}),
            "context, no needle": ("read_handle", {"handle": handle, "context": 10}),
            "ignore_case, no search": ("read_handle", {"handle": handle, "ignore_case": True}),
            "length with a search": ("read_handle", {"handle": handle, "match": "x", "length": 10}),
            "line= with offset=": ("read_handle", {"handle": handle, "line": 5, "offset": 100}),
            "cut match, 2 KiB": ("read_handle", {"handle": long_match, "pattern": r"start[\s\S]*?end", "context": 0,
                                                 "budget": 2048}),
        })
        # the eleventh session of 2026-12-05 (helper slurp2): JSON texts one after another ({..}{..}), the 21st of
        # 60 cut short (under the slurp bound set above): slurp=true passes over it and reads on, a jq read stops
        # there and names that slurp read
        texts = [json.dumps({"n": i}, indent=1) for i in range(60)]
        texts[20] = texts[20][:-3]
        stream = scope.spill("".join(texts).encode(), source_tool="jq").handle
        cases.update({
            "slurp, a text broken": ("read_handle", {"handle": stream, "jq": "length", "slurp": True}),
            "jq, a text broken": ("read_handle", {"handle": stream, "jq": "select(.n >= 18) | .n"}),
        })
        # the first session of 2026-12-06 (hostile10, slurp2): JSON lines whose first record is not JSON, a pattern
        # that runs the regex engine out of memory (3 MB of "a": 1-2 s and some 480 MB), ignore_case beside line=
        first_bad = scope.spill(("{oops\n" + "".join(json.dumps({"n": i}) + "\n" for i in range(2000))).encode(),
                                source_tool="log").handle
        a_run = scope.spill(b"a" * 3_000_000, source_tool="t").handle
        cases.update({
            "JSONL, 1st record bad": ("read_handle", {"handle": first_bad, "jq": ".n"}),
            "regex out of memory": ("read_handle", {"handle": a_run, "pattern": "(?:(a?)?)*z"}),
            "ignore_case, line=": ("read_handle", {"handle": handle, "line": 3, "ignore_case": True}),
        })
        # the second session of 2026-12-06 (helper replies8): a record our scan refuses at the start, one ended by
        # its newline in the middle and at the end (jq names the line after it), a long line's parse error
        mid_bad = scope.spill(('{"n": 0}\n{oops\n' + "".join(json.dumps({"n": i}) + "\n" for i in range(1, 2000))
                               ).encode(), source_tool="log").handle
        last_bad = scope.spill(("".join(json.dumps({"n": i}) + "\n" for i in range(3)) + "{oops\n").encode(),
                               source_tool="log").handle
        long_doc = scope.spill(("{\n\"head\": 1,\n\"data\": " + minified + "\n}\n").replace(
            '{"n": 50000,', '{"n": 50000,,', 1).encode(), source_tool="fetch").handle
        cases.update({
            "JSONL, 2nd {oops": ("read_handle", {"handle": mid_bad, "jq": ".n"}),
            "JSONL, last {oops": ("read_handle", {"handle": last_bad, "jq": ".n"}),
            "JSON, long line 3 bad": ("read_handle", {"handle": long_doc, "jq": ".head"}),
        })
        # the third session of 2026-12-06 (helper jsonl9, from newuser9): JSON lines with a record cut inside a
        # string (jq names the line after it), read by jq and by slurp=true (under the slurp bound set above)
        cut = ["".join(json.dumps({"n": i, "name": f"p{i}"}) + "\n" for i in range(n)) for n in (2000, 30)]
        cut_jq, cut_slurp = (scope.spill(text.replace('"p20"}', '"p2', 1).encode(), source_tool="pip").handle
                             for text in cut)
        cases.update({
            "JSONL, record cut, jq": ("read_handle", {"handle": cut_jq, "jq": "select(.n >= 15) | .n"}),
            "JSONL, cut, slurp": ("read_handle", {"handle": cut_slurp, "jq": "length", "slurp": True}),
        })
        print(f"{'stub of pip bars':22s} {len(pip.to_json().encode()):5d} B stub JSON ({pip.preview.count(chr(10))} "
              "lines of preview)")
        scope.scratch_write("big", b"value")
        lost = scope.spill(b"y" * 200_000, source_tool="t").handle  # a file of its own, removed from outside
        store.blobs.unlink("run-42", "agent-1", store.index.lookup("run-42", "agent-1", "handle", lost,
                                                                   store.now()).blob)
        cases["stored copy lost"] = ("read_handle", {"handle": lost})
        for name, (tool, args) in cases.items():
            try:
                reply = tools.call(tool, args)
                text, data = reply_text(reply), len(to_json(reply).encode()) - reply_size(reply)
                kind = "reply JSON" + (f" (+{data} B of calls as data, structured content alone)" if data else "")
            except ScratchError as exc:
                text, kind = error_text(exc), "error text"
            as_json = len(json.dumps(text, ensure_ascii=False).encode())
            print(f"{name:22s} {len(text.encode()):5d} B {kind} ({as_json} B as a JSON string)")
    _proxy_replies()


def _proxy_replies() -> None:
    """The MCP faces' own replies of this session: an upstream that never started and one killed mid-session (the
    error text a call gets) and a request answered by a stop (the JSON-RPC line)."""
    from scratchfs.foundation.errors import UpstreamUnavailable
    from scratchfs.mcp.stdio import error_reply
    from scratchfs.mcp.stop_signals import STOPPED, stop_message
    from scratchfs.mcp.upstream import NOT_AGAIN, exit_words

    never = UpstreamUnavailable(f"npx: {exit_words(1)} during start-up{NOT_AGAIN}")
    killed = UpstreamUnavailable(f"npx: {exit_words(128 + 9)}{NOT_AGAIN}")
    stopped = error_reply(17, STOPPED, stop_message("scratchfs mcp-proxy", 15))
    for name, text, kind in (("upstream never started", error_text(never), "error text"),
                             ("upstream killed", error_text(killed), "error text"),
                             ("request stopped", stopped, "JSON-RPC line")):
        print(f"{name:22s} {len(text.encode()):5d} B {kind}")


if __name__ == "__main__":
    main()
