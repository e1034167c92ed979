"""XML documents: ``select=`` reads their elements by CSS selector -- each its tag, line, attributes and text, paged
with cursors -- parsed safely in the HTML reads' worker (no entity expanded, no file or URL read, libxml2's depth
limit kept, a document that is not well-formed one typed error naming the lines there); their shape names the element
paths with counts, and the stub's note leads with a select= that fits. select= over XML was refused ("which a select=
read does not parse") and the shape named the root alone."""

from __future__ import annotations

import ast
import http.server
import threading
import time
from pathlib import Path

import lxml.etree
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools, to_json
from scratchfs.foundation.errors import BadSelector

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
JUNIT = (b'<?xml version="1.0"?>\n<testsuites>\n' + b"".join(
    b'<testsuite name="s%d">' % i + b'<testcase name="t"/>' * 19
    + b'<testcase name="f"><failure message="boom">trace</failure></testcase></testsuite>\n' for i in range(30))
    + b"</testsuites>\n")
ATOM = (b'<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
        b'xmlns:dc="http://purl.org/dc/elements/1.1/">\n  <title>News</title>\n'
        + b"".join(b'  <entry>\n    <title>Item %d</title>\n    <dc:creator>ann</dc:creator>\n'
                   b'    <link href="https://example.org/%d"/>\n  </entry>\n' % (i, i) for i in range(40))
        + b"</feed>\n")


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _call_of(text: str) -> dict:
    """The arguments of a call a reply or refusal writes (``read_handle(handle="h_...", select="x", ...)``)."""
    node = ast.parse(text, mode="eval").body
    return {k.arg: ast.literal_eval(k.value) for k in node.keywords}


def _follow(tools: ScratchTools, args: dict, budget: int) -> list[dict]:
    """Every page of a read, by its next_call; each reply within ``budget``."""
    pages, call = [], {**args, "budget": budget}
    while True:
        reply = tools.call("read_handle", call)
        assert len(to_json(reply).encode()) <= budget
        pages.append(reply)
        if reply["next_call"] is None:
            return pages
        call = {**_call_of(reply["next_call"]), "budget": budget}
        assert len(pages) < 1000


def test_a_junit_report_s_shape_names_its_paths_and_its_note_reads_its_failures(scratch_scope, tools):
    stub = scratch_scope.spill(JUNIT, source_tool="junit")
    assert stub.shape == "XML, root <testsuites>: testsuite (30) > testcase (600) > failure (30); 14 KiB, 33 lines"
    assert stub.note.split("Next: ")[1].startswith(
        f'read_handle(handle="{stub.handle}", select="testcase:has(failure)") | ')
    reply = tools.call("read_handle", {"handle": stub.handle, "select": "testcase:has(failure)"})
    assert reply["matches"] == 30  # (the failed cases, by name: a failure alone does not say which case it is)
    assert reply["elements"][0] == {"tag": "testcase", "line": 3, "attrs": {"name": "f"}, "text": "trace"}
    reply = tools.call("read_handle", {"handle": stub.handle, "select": "failure"})
    assert reply["elements"][0] == {"tag": "failure", "line": 3, "attrs": {"message": "boom"}, "text": "trace"}
    assert [e["line"] for e in reply["elements"]] == list(range(3, 3 + len(reply["elements"])))


def test_a_select_of_a_tag_pages_through_every_match_as_lxml_finds_them(scratch_scope, tools):
    stub = scratch_scope.spill(JUNIT, source_tool="junit")
    items = [e for page in _follow(tools, {"handle": stub.handle, "select": "testcase"}, 2048)
             for e in page["elements"]]
    root = lxml.etree.fromstring(JUNIT)
    assert [(e["tag"], e["attrs"]["name"], e.get("text", "")) for e in items] == [
        ("testcase", t.get("name"), "".join(t.itertext())) for t in root.iter("testcase")]


def test_unprefixed_names_match_atom_s_default_namespace_and_prefixed_ones_their_namespace(scratch_scope, tools):
    stub = scratch_scope.spill(ATOM, source_tool="curl")
    assert stub.shape.startswith("XML, root <feed>: title, entry (40) > {title (40), dc:creator (40), link (40)}")
    assert 'select="entry")' in stub.note.split("Next: ")[1].split(" | ")[0]
    titles = tools.call("read_handle", {"handle": stub.handle, "select": "entry > title"})
    assert [e["text"] for e in titles["elements"]][:3] == ["Item 0", "Item 1", "Item 2"] and titles["matches"] == 40
    creators = tools.call("read_handle", {"handle": stub.handle, "select": "dc|creator"})
    assert creators["matches"] == 40 and creators["elements"][0]["tag"] == "dc:creator"
    links = tools.call("read_handle", {"handle": stub.handle, "select": 'link[href$="/7"]'})
    assert links["elements"] == [{"tag": "link", "line": 42, "attrs": {"href": "https://example.org/7"}}]
    with pytest.raises(BadSelector) as caught:  # a prefix the root does not declare
        tools.call("read_handle", {"handle": stub.handle, "select": "atom|entry"})
    assert "the root declares dc" in str(caught.value) and 'select=":root > *"' in str(caught.value)
    with pytest.raises(BadSelector) as caught:  # prefix:name is a pseudo-class to CSS: how to write it instead
        tools.call("read_handle", {"handle": stub.handle, "select": "dc:creator"})
    assert "dc|creator" in str(caught.value)


def test_an_element_larger_than_a_page_comes_in_parts_that_join_to_it(scratch_scope, tools):
    import json

    trace = "".join(f"line {i}: frame in module_{i % 7}\n" for i in range(600))
    doc = f'<testsuite><testcase name="a"><failure message="big">{trace}</failure></testcase></testsuite>'
    stub = scratch_scope.spill(doc.encode(), source_tool="junit")
    pages = _follow(tools, {"handle": stub.handle, "select": "failure"}, 2048)
    assert len(pages) > 5 and all("part" in page for page in pages)
    whole = json.loads("".join(page["part"] for page in pages))
    assert whole == {"tag": "failure", "line": 1, "attrs": {"message": "big"}, "text": trace.strip()}


def test_billion_laughs_is_not_expanded(scratch_scope, tools):
    """libxml2 refuses the billion laughs' amplification while it reads the doctype, expanding nothing: one typed
    refusal, at once; a document with entities that amplify less shows a reference as written, never expanded."""
    lol = [b'<!ENTITY lol0 "lol">'] + [b'<!ENTITY lol%d "%s">' % (i, b"&lol%d;" % (i - 1) * 10) for i in range(1, 10)]
    doc = b'<?xml version="1.0"?>\n<!DOCTYPE r [' + b"".join(lol) + b']>\n<r><a k="v">&lol9;</a></r>\n'
    stub = scratch_scope.spill(doc, source_tool="t")
    assert stub.content_type == "xml" and "no select= read parses it" in stub.shape
    started = time.monotonic()
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "select": "a"})
    assert "amplification" in str(caught.value) and time.monotonic() - started < 5
    few = b'<?xml version="1.0"?>\n<!DOCTYPE r [' + b"".join(lol[:3]) + b']>\n<r><a k="v">&lol2;</a></r>\n'
    stub = scratch_scope.spill(few, source_tool="t")
    reply = tools.call("read_handle", {"handle": stub.handle, "select": "a"})
    assert reply["elements"] == [{"tag": "a", "line": 3, "attrs": {"k": "v"}, "text": "&lol2;"}]


def test_external_entities_read_no_file_and_fetch_no_url(scratch_scope, tools):
    requests: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            requests.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"fetched")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/x".encode()
        doc = (b'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY file SYSTEM "file:///etc/passwd">'
               b'<!ENTITY web SYSTEM "' + url + b'"><!ENTITY % dtd SYSTEM "' + url + b'/dtd"> %dtd;]>\n'
               b"<r><a>&file;</a><b>&web;</b></r>\n")
        stub = scratch_scope.spill(doc, source_tool="t")
        reply = tools.call("read_handle", {"handle": stub.handle, "select": "a, b"})
        assert [e.get("text") for e in reply["elements"]] == ["&file;", "&web;"]
        assert "root:" not in to_json(reply) and "fetched" not in to_json(reply)
    finally:
        server.shutdown()
        server.server_close()
    assert requests == []


def test_a_deep_nesting_is_one_typed_refusal(scratch_scope, tools):
    doc = b"<?xml version='1.0'?>" + b"<d>" * 200_000 + b"</d>" * 200_000
    stub = scratch_scope.spill(doc, source_tool="t")
    assert "nested past 256 levels" in stub.shape
    started = time.monotonic()
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "select": "d"})
    assert "nested more than 256 elements deep" in str(caught.value)
    assert time.monotonic() - started < 10


def test_malformed_xml_is_one_error_naming_the_line_and_the_read_of_it(scratch_scope, tools):
    doc = b'<?xml version="1.0"?>\n<r>\n  <a>1</a>\n  <a>2</b>\n  <a>3</a>\n</r>\n'
    stub = scratch_scope.spill(doc, source_tool="t")
    assert "not well-formed at line 4, column " in stub.shape and "select=" not in stub.note
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": stub.handle, "select": "a"})
    message = str(caught.value)
    assert "not well-formed XML at line 4, column 11" in message and "Traceback" not in message
    read = _call_of(message.rsplit("the lines there: ", 1)[1])
    assert (read["line"], read["lines"]) == (2, 5)
    assert "<a>2</b>" in tools.call("read_handle", read)["data"]
    with pytest.raises(InvalidArgument) as caught:  # its refusal of jq names no select= (none parses it)
        tools.call("read_handle", {"handle": stub.handle, "jq": "."})
    assert "select=" not in str(caught.value)


def test_jq_rows_and_the_text_view_over_xml_name_select(scratch_scope, tools):
    stub = scratch_scope.spill(ATOM, source_tool="curl")
    for read in ({"jq": "."}, {"row": 1}, {"view": "text"}, {"jq": ".", "slurp": True}):
        with pytest.raises(InvalidArgument) as caught:
            tools.call("read_handle", {"handle": stub.handle, **read})
        said = str(caught.value)
        assert f'read_handle(handle="{stub.handle}", select=":root > *")' in said, (read, said)
    assert tools.call("read_handle", {"handle": stub.handle, "select": ":root > *"})["matches"] == 41


def test_real_outputs_pytest_junit_an_svg_and_gdb_s_syscalls(scratch_scope, tools):
    junit = scratch_scope.spill((_TOOLS / "pytest-junit-xunit2.xml").read_bytes(), source_tool="pytest")
    assert junit.shape.startswith("XML, root <testsuites>: testsuite > testcase (7) > {failure (2), skipped}")
    first = _call_of(junit.note.split("Next: ")[1].split(" | ")[0])
    assert first["select"] == "testcase:has(failure)"
    cases = tools.call("read_handle", first)["elements"]
    assert [c["attrs"]["name"] for c in cases] == ["test_is_small[3]", "test_raises"]  # (which cases failed)
    assert "test_demo.py:18: KeyError" in cases[1]["text"]
    failures = tools.call("read_handle", {"handle": junit.handle, "select": "failure"})["elements"]
    assert [f["attrs"]["message"] for f in failures] == ["AssertionError: 3 is not small\nassert 3 < 3",
                                                         "KeyError: 'missing'"]
    svg = scratch_scope.spill((_TOOLS / "graphviz-trpl04-01.svg").read_bytes(), source_tool="dot")
    titles = tools.call("read_handle", {"handle": svg.handle, "select": "g.node > title"})["elements"]
    assert [t["text"] for t in titles] == ["table0", "table1"]
    gdb = scratch_scope.spill((_TOOLS / "gdb-syscalls-arm-linux.xml").read_bytes(), source_tool="cat")
    assert gdb.shape.startswith("XML, root <syscalls_info>: syscall (379);")
    opens = tools.call("read_handle", {"handle": gdb.handle, "select": 'syscall[name^="open"]'})["elements"]
    assert [(o["attrs"]["name"], o["attrs"]["number"]) for o in opens] == [
        ("open", "5"), ("openat", "322"), ("open_by_handle_at", "371")]


_NAMES = st.sampled_from(["a", "b", "item", "x-y", "Node"])
_TEXTS = st.text(alphabet="ab <>&\"'\n\té€", max_size=12)


@st.composite
def _trees(draw, depth=0):
    element = lxml.etree.Element(draw(_NAMES), {k: draw(_TEXTS) for k in draw(st.sets(_NAMES, max_size=2))})
    element.text = draw(_TEXTS)
    if depth < 3:
        for child in draw(st.lists(_trees(depth + 1), max_size=3)):
            child.tail = draw(_TEXTS)
            element.append(child)
    return element


def _plain_text(element) -> str:
    """The plain answer: an element of elements alone (blank text around them) is its children's texts a line each,
    else its text and its descendants' joined."""
    blank = not (element.text or "").strip() and not any((c.tail or "").strip() for c in element)
    if len(element) and blank:
        return "\n".join(text for text in map(_plain_text, element) if text.strip())
    return "".join(element.itertext())


def test_a_record_s_fields_come_a_line_each_where_the_document_runs_them_together(scratch_scope, tools):
    """A compact document (pytest writes its JUnit report on one line; APIs send XML unindented): an entry of
    elements alone reads each child's text on its own line, ``t0\n0``, not ``t00``; mixed content as written."""
    feed = (b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">'
            + b"".join(b"<entry><title>t%d</title><id>%d</id><author><name>n%d</name></author></entry>" % (i, i, i)
                       for i in range(300))
            + b"<entry><summary>a <b>bold</b> word</summary></entry></feed>")
    stub = scratch_scope.spill(feed, source_tool="curl")
    items = [e for page in _follow(tools, {"handle": stub.handle, "select": "entry"}, 8192) for e in page["elements"]]
    assert [e["text"] for e in items[:2]] == ["t0\n0\nn0", "t1\n1\nn1"]
    assert items[-1]["text"] == "a bold word" and len(items) == 301


@given(root=_trees(), tag=_NAMES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_select_of_a_tag_equals_lxml_s_iter_of_it(scratch_scope, tools, root, tag):
    doc = lxml.etree.tostring(root, xml_declaration=True, encoding="utf-8")
    stub = scratch_scope.spill(doc, source_tool="gen")
    assert stub.content_type == "xml"
    items = [e for page in _follow(tools, {"handle": stub.handle, "select": tag}, 65536) for e in page["elements"]]
    parsed = lxml.etree.fromstring(doc)
    want = []
    for element in parsed.iter(tag):
        want.append((element.tag, dict(element.attrib), _plain_text(element)))
    got = [(e["tag"], e.get("attrs", {}), e.get("text", "")) for e in items]
    assert len(got) == len(want)
    for (g_tag, g_attrs, g_text), (w_tag, w_attrs, w_text) in zip(got, want, strict=True):
        assert (g_tag, g_attrs) == (w_tag, w_attrs)
        assert g_text == w_text.strip() or " ".join(g_text.split()) == " ".join(w_text.split())


def test_a_document_cut_short_reads_its_elements_before_the_cut(scratch_scope, tools):
    """A tool's output capped mid-document (its first error at its very end) is read up to the cut -- its shape and
    note say so and name select= --, each match the cut may fall in marked; a document broken within, or on its
    one line before its end, is still refused."""
    whole = (b'<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
             + b"".join(b"<entry><title>t%d</title><id>%d</id></entry>\n" % (i, i) for i in range(400)) + b"</feed>\n")
    cut = whole[:10_000]
    stub = scratch_scope.spill(cut, source_tool="curl")
    assert "cut short" in stub.shape and "select= reads those before it" in stub.shape, stub.shape
    assert stub.note.split("Next: ")[1].startswith(f'read_handle(handle="{stub.handle}", select="entry")')
    pages = _follow(tools, {"handle": stub.handle, "select": "entry"}, 8192)
    items = [e for page in pages for e in page["elements"]]
    closed = cut.count(b"</entry>")
    assert [e["text"] for e in items[:closed]] == [f"t{i}\n{i}" for i in range(closed)]
    assert not any(e.get("cut") for e in items[:closed]) and all(e.get("cut") for e in items[closed:])
    assert all("cut short at line 219" in page["note"] for page in pages)
    for broken in (whole.replace(b"<title>t20</title>", b"<title>t20</titl>"),
                   whole.replace(b"\n", b"").replace(b"<title>t20</title>", b"<title>t20</titl>")[:5000]):
        stub = scratch_scope.spill(broken, source_tool="curl")
        with pytest.raises(InvalidArgument, match="not well-formed XML"):
            tools.call("read_handle", {"handle": stub.handle, "select": "entry"})
