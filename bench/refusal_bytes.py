"""The bytes a model receives (the tool error's text, ``error_text``, as UTF-8) of the refusals this session's
fourth stop changed, in this checkout or in another (``git archive COMMIT | tar -x -C DIR``, then DIR as the
argument: its code is imported instead), one line a case:

    python bench/refusal_bytes.py            # this checkout
    python bench/refusal_bytes.py /tmp/old   # another checkout, for the before

The cases: a ``scratch_list`` cursor that is malformed and one of another listing, a budget out of range (the call's
one fault), mixes of ``read_handle`` arguments (``context=`` without a search, ``length=`` beside a search,
``ignore_case=`` alone); and, from the fifth session of 2026-12-06, a structure read's forged cursor (now naming the
read from its start), the ``jq="JQ"`` placeholder run as written over a CSV, a JSON object and JSON lines with
``slurp=true`` (whole calls that fit), a text-view search that misses but for its case (the reply's JSON), and the
stub of a minified JSON document (its note naming ``jq=`` first); from seen1, the general "reads that fit" refusal
(row= over JSON and JSON lines, view="text" over CSV, jq= over bytes), its example now a whole call; from the sixth
session of 2026-12-06, a handle cut short (naming the one it starts), jq without slurp over a CSV and a Markdown table
(naming the slurp call), raw_offset on an HTML page (naming the text view's search), XML's refusals (not well-formed,
a prefixed name, jq over XML), a cut-short XML document's first select page, and the stubs of a Markdown table, a
JUnit report and a Java log."""

from __future__ import annotations

import re
import sys
import tempfile

if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])

from scratchfs import ScratchError, ScratchStore
from scratchfs.api.contract import ScratchTools, error_text, reply_text


def main() -> None:
    with ScratchStore(tempfile.mkdtemp(prefix="refusal-bytes-")) as store:
        scope = store.scope("r", "a")
        for i in range(5):
            scope.scratch_write(f"k{i}", b"v")
        tools = ScratchTools(scope)
        handle = scope.spill(b"line of text\n" * 2000, source_tool="t").handle
        records = scope.spill(b"".join(b'{"n": %d, "pad": "%s"}\n' % (i, b"x" * 40) for i in range(2000))).handle
        table = scope.spill(b"name,size\n" + b"".join(b"file%d,%d\n" % (i, i) for i in range(2000))).handle
        document = scope.spill(b'{"items": [' + b",".join(b'{"id": %d, "name": "repo-%d"}' % (i, i)
                                                          for i in range(1000)) + b'], "total": 1000}').handle
        page = scope.spill(b"<html><body>" + b"<p>What is Ownership? Some words of text.</p>" * 400
                           + b"</body></html>").handle
        binary = scope.spill(bytes(range(256)) * 64).handle
        markdown = scope.spill(b"| id | name |\n|---|---|\n" + b"".join(b"| %d | n%d |\n" % (i, i) for i in range(900)),
                               source_tool="sqlite3")
        xml = (b'<?xml version="1.0"?>\n<testsuites>\n' + b"".join(
            b'<testcase name="t%d"><failure message="boom">trace</failure></testcase>\n' % i for i in range(300))
            + b"</testsuites>\n")
        junit, cut_xml = scope.spill(xml, source_tool="pytest"), scope.spill(xml[:9000]).handle
        broken = scope.spill(xml.replace(b"</failure>", b"</fail>", 1)).handle
        java = scope.spill(b"".join(b"2026-12-06 10:00:%02d INFO app - step %d\n" % (i % 60, i) for i in range(300))
                           + b'Exception in thread "main" java.lang.IllegalStateException: boom\n'
                           + b"\tat com.x.App.run(App.java:42)\n" * 20, source_tool="java")
        other = re.search(r'cursor="([^"]+)"', tools.call("scratch_list", {"limit": 2})["next_call"])[1]
        cases = {
            "scratch_list, malformed cursor": ("scratch_list", {"prefix": "k", "cursor": "zzz", "budget": 3000}),
            "scratch_list, another listing's cursor": ("scratch_list", {"prefix": "k", "cursor": other}),
            "read_handle, budget=100": ("read_handle", {"handle": handle, "line": 5, "budget": 100}),
            "read_handle, context= without a search": ("read_handle", {"handle": handle, "context": 10}),
            "read_handle, length= beside a search": ("read_handle", {"handle": handle, "match": "text", "length": 9}),
            "read_handle, ignore_case= alone": ("read_handle", {"handle": handle, "ignore_case": True}),
            "records read, forged cursor": ("read_handle", {"handle": records, "records": 5, "jq": ".n",
                                                            "cursor": "1.2.3.4.abcdefghij"}),
            "jq placeholder, CSV": ("read_handle", {"handle": table, "jq": "JQ"}),
            "jq placeholder, JSON object": ("read_handle", {"handle": document, "jq": "JQ"}),
            "jq placeholder, JSON lines, slurp": ("read_handle", {"handle": records, "jq": "JQ", "slurp": True}),
            "text view miss, another case (reply)": ("read_handle", {"handle": page, "view": "text",
                                                                     "match": "what is ownership"}),
            "reads that fit, row= over JSON": ("read_handle", {"handle": document, "row": 1, "budget": 3000}),
            "reads that fit, view=text over CSV": ("read_handle", {"handle": table, "view": "text"}),
            "reads that fit, row= over JSON lines": ("read_handle", {"handle": records, "row": 1}),
            "reads that fit, jq= over bytes": ("read_handle", {"handle": binary, "jq": "."}),
            "a handle cut short": ("read_handle", {"handle": handle[:20]}),
            "jq without slurp over a CSV": ("read_handle", {"handle": table, "jq": "select(.size > 5) | .name"}),
            "jq without slurp over a Markdown table": ("read_handle", {"handle": markdown.handle, "jq": ".id"}),
            "raw_offset on an HTML page": ("read_handle", {"handle": page, "view": "text", "raw_offset": 100}),
            "XML not well-formed, select=": ("read_handle", {"handle": broken, "select": "failure"}),
            "XML, a prefixed name dc:x": ("read_handle", {"handle": junit.handle, "select": "dc:x"}),
            "jq over XML": ("read_handle", {"handle": junit.handle, "jq": "."}),
            "XML cut short, select= (reply)": ("read_handle", {"handle": cut_xml, "select": "testcase",
                                                               "budget": 2048}),
        }
        for name, (tool, arguments) in cases.items():
            try:
                said = reply_text(tools.call(tool, arguments))
            except ScratchError as exc:
                said = error_text(exc)
            for made in (handle, records, table, document, page, binary, markdown.handle, junit.handle, cut_xml,
                         broken):
                said = said.replace(made, "h_" + "x" * 24)
            print(f"{len(said.encode('utf-8')):5,} B  {name}: {said[:150]}")
        minified = scope.spill(b'{"items":[' + b",".join(b'{"id":%d,"name":"repo-%d"}' % (i, i) for i in range(1500))
                               + b'],"total":1500}', source_tool="list_repos")
        stub = minified.to_json().encode("utf-8")
        print(f"{len(stub):5,} B  stub of a minified JSON document: {minified.note[:150]}")
        for name, made in (("a Markdown table", markdown), ("a JUnit report", junit), ("a Java log", java)):
            print(f"{len(made.to_json().encode('utf-8')):5,} B  stub of {name}: {made.shape[:150]}")


if __name__ == "__main__":
    main()
