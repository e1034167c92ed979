"""hostile51: a select's form fields and a miss's note under hostile input.

- A form field's attribute whose value is its name (``<input name="name" value="value">``, a contact form's usual
  field) was shown bare (``<input name value>``): its name and value lost, and a bare ``value`` reads as ``value=""``.
  Only HTML's boolean attributes (``selected="selected"``) are shown bare now.
- A miss's note read the selector's names by regular expression: a CSS escape (``#a\\:b``, the id ``a:b``;
  ``.a\\.b``, the class ``a.b``; ``#ma\\ in``) was said as another name (``no id 'a'``, ``no <in> element``, or
  "holds each" for a class the page lacks); the names are now cssselect's parse of it.
- A miss's note looked for ids like each name the selector names by a pass over the page's ids computing each one's
  key anew, then :func:`difflib.get_close_matches` over all of them: a select of 12 ids on a 3.9 MiB page of 200,000
  ids ran past the read's time limit (StructureTimeout, where ``matches: 0`` was at hand). The keys are made once;
  alike ones looked for the first few names; difflib over a bounded number of names.
Pages are made here (the shape of each fault is in its attributes or its size, not in a real page's text)."""

from __future__ import annotations

import difflib

import lxml.html

from scratchfs.engine.structure import BytesSource, html_misses
from scratchfs.engine.structure.html import select_page


def _select(page: bytes, selector: str):
    return select_page(BytesSource(page), selector)


def test_an_attribute_whose_value_is_its_name_keeps_its_value_unless_boolean():
    page = (b'<form><input type="text" id="name" name="name" value="value" placeholder="Placeholder">'
            b'<option value="Value" selected>Value</option><input type="checkbox" checked disabled="DISABLED" '
            b'required="required"></form>')
    assert _select(page, "input, option").items == [
        '<input type="text" id="name" name="name" value="value" placeholder="Placeholder">',
        '<option value="Value" selected>Value', '<input type="checkbox" checked disabled required>']


def test_a_miss_reads_escaped_names_as_css_does():
    page = b'<html><body><div id="main" class="a b"><p>x</p><h5>h</h5></div></body></html>'
    assert _select(page, "#a\\:b").extra["note"] == "nothing matches: the page has no id 'a:b'"
    assert _select(page, ".a\\.b").extra["note"] == ("nothing matches: the page has no class 'a.b' (classes like it: "
                                                     ".a, .b)")
    assert _select(page, "#ma\\ in").extra["note"] == "nothing matches: the page has no id 'ma in' (ids like it: #main)"
    assert _select(page, ".x\\31 23").extra["note"] == "nothing matches: the page has no class 'x123'"
    # names a match may lack (:not, :is) are not said; a :has()'s one is
    assert _select(page, "p:not(#q):is(.k, #j) > i").extra["note"] == ("nothing matches: the page has no <i> element "
                                                                        "(it holds 1 h5, 1 p)")
    assert _select(page, "div:has(> #z)").extra["note"] == "nothing matches: the page has no id 'z'"


def test_the_cost_of_a_miss_note_does_not_grow_with_the_names_the_selector_holds(monkeypatch):
    tree = lxml.html.document_fromstring("<html><body>" + "".join(f'<p id="s{n}">t</p>' for n in range(20_000))
                                         + "</body></html>")
    work = [0]
    key, close = html_misses._key, difflib.get_close_matches

    def counted_key(name):
        work[0] += 1
        return key(name)

    def counted_close(word, possibilities, *args):
        possibilities = list(possibilities)
        work[0] += len(possibilities)
        return close(word, possibilities, *args)

    monkeypatch.setattr(html_misses, "_key", counted_key)
    monkeypatch.setattr(difflib, "get_close_matches", counted_close)
    one = html_misses.miss_hint(tree, "#zq")
    alone, work[0] = work[0], 0
    names = [f"{a}{b}" for a in "qwxyz" for b in "kmnovu"][:40]
    many = html_misses.miss_hint(tree, ", ".join(f"#{name}" for name in names))
    assert one == "nothing matches: the page has no id 'zq'"
    assert many.startswith("nothing matches: the page has no id 'qk'; no id 'qm'; ") and len(many) <= 600
    assert 20_000 <= alone <= 3 * 20_000  # (a pass over the page's ids)
    assert work[0] <= 3 * alone  # (40 names: was 40 times one's)


def test_names_holding_or_held_in_a_missing_one_are_said_nearest_in_length_first():
    page = ('<html><body><div class="' + " ".join(f"c{n}" for n in range(100_000)) + '">x</div></body></html>')
    note = html_misses.miss_hint(lxml.html.document_fromstring(page), ".c77777x")
    assert note == "nothing matches: the page has no class 'c77777x' (classes like it: .c77777, .c7777, .c777, .c77)"
