"""XML documents read by CSS selector, in the structure worker (:mod:`scratchfs.engine.structure.html_worker`, which
loads this file by path, as its other siblings: ``lxml`` and ``cssselect`` alone, nothing of ``scratchfs``), and the
``:contains()`` both the HTML and the XML selectors use.

Parsed safely: ``lxml.etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)`` --
no entity is expanded (a reference stays as written, ``&lol2;``; a billion-laughs document is refused while its
doctype is read, libxml2's amplification limit: ``("malformed", ...)``), no external
entity or DTD is read from a file or the network (an XXE naming ``/etc/passwd`` reads nothing), and libxml2's limits
hold: elements at most 256 levels deep (deeper is ``("deep", line)``, never a cut tree), no text node over 10 MB.
A document that is not well-formed is ``("malformed", message, line, column)``: libxml2's first error, never a tree
it recovered.

Selectors are CSS 3 (cssselect, case-sensitive as XML is) over the document's elements: a name without a namespace
prefix (``entry > title``) matches elements of that local name in any namespace or none -- Atom's ``<entry>`` in its
default namespace, ``<soap:Body>`` by ``Body`` --; ``prefix|name`` (``atom|entry``) names the namespace a prefix of
the root element declares. Each match is an item ``{"tag", "line", "attrs", "text"}`` (:func:`element_item`).
"""

from __future__ import annotations

import re
from typing import Any

import lxml.etree
from cssselect import ExpressionError
from lxml.cssselect import LxmlTranslator

__all__ = ["FUNCTIONS", "AnyTextContains", "XmlTranslator", "compile_xml_selector", "cut_at_end", "element_item",
           "element_text", "parse_xml",
           "qualified", "select_items", "xml_parser", "xml_selector_problem"]

FUNCTIONS = "urn:scratchfs:css"
"""The namespace of the XPath function :class:`AnyTextContains` calls (prefix ``scratchfs``)."""


def _contains(_context: Any, text: str, needle: str) -> bool:
    """XPath ``scratchfs:contains(string(.), hex)``: the element's text, lower-cased, its runs of blank space as one
    ``" "`` (as the text view shows it: ``a&nbsp;b`` and ``a\n  b`` are ``a b``), holds the text ``hex`` encodes
    (UTF-8 bytes as hex digits; lower-cased and blank space as one ``" "`` already). It returns a boolean: no string
    goes back to lxml, which refuses strings holding control characters."""
    return bytes.fromhex(needle).decode("utf-8") in " ".join(text.split()).lower()


lxml.etree.FunctionNamespace(FUNCTIONS)["contains"] = _contains


class AnyTextContains:
    """A translator's ``:contains()`` that matches any text, case-blind as lxml's: the text sought goes to the XPath
    as hex digits (XPath 1.0 cannot write a control character) and is compared by :func:`_contains` (lxml's own
    ``lower-case`` function returns the element's text to XPath, and lxml refuses a text holding a control
    character: the worker died)."""

    def xpath_contains_function(self, xpath: Any, function: Any) -> Any:
        if function.argument_types() not in (["STRING"], ["IDENT"]):
            raise ExpressionError(f"Expected a single string or ident for :contains(), got {function.arguments!r}")
        sought = function.arguments[0].value
        needle = (" ".join(sought.split()) or sought).lower().encode("utf-8", "surrogatepass").hex()
        return xpath.add_condition(f"scratchfs:contains(string(.), '{needle}')")


class XmlTranslator(AnyTextContains, LxmlTranslator):  # type: ignore[misc]
    """lxml's XML selector translator (case-sensitive) whose element names without a prefix match by local name, in
    any namespace or none (``*|name``): a model writes ``entry`` for Atom's ``<entry>``, which XPath's ``entry``
    finds only outside every namespace."""

    def xpath_element(self, selector: Any) -> Any:
        if selector.element and selector.namespace in (None, "*"):
            xpath = self.xpathexpr_cls(element="*")
            xpath.add_condition(f"local-name() = {self.xpath_literal(selector.element)}")
            return xpath
        return super().xpath_element(selector)


def xml_parser(recover: bool = False) -> lxml.etree.XMLParser:
    """A parser that expands no entity, reads no DTD, file or URL, and keeps libxml2's limits (no ``huge_tree``):
    every parse of a stored document's XML (a select read's, its shape's); ``recover``: the elements before a
    document's first error are kept (a shape's sample, maybe cut short), not refused."""
    return lxml.etree.XMLParser(recover=recover, resolve_entities=False, no_network=True, load_dtd=False,
                                huge_tree=False)


def compile_xml_selector(selector: str, namespaces: dict[str, str] | None = None) -> lxml.etree.XPath:
    """The XPath of a CSS selector over XML (:class:`XmlTranslator`); ``namespaces``: the prefixes ``prefix|name``
    may use. Raises what cssselect and lxml raise on it (SelectorError, ExpressionError, lxml.etree.XPathError,
    ValueError)."""
    path = XmlTranslator().css_to_xpath(selector)
    return lxml.etree.XPath(path, namespaces={**(namespaces or {}), "scratchfs": FUNCTIONS})


def xml_selector_problem(selector: str) -> str | None:
    """Why the CSS selector does not parse, as a one-line message naming it, or ``None`` (a ``prefix|name`` is
    checked against the document's prefixes in the worker: :func:`select_items`)."""
    try:
        XmlTranslator().css_to_xpath(selector)
    except MemoryError:
        raise
    except Exception as exc:  # cssselect's SelectorError and ExpressionError, ValueError: the caller's selector
        return " ".join(f"CSS selector {selector[:80]!r} does not parse: {type(exc).__name__}: {exc}".split())[:300]
    return None


class _Malformed(Exception):
    def __init__(self, answer: tuple) -> None:
        super().__init__(answer[1])
        self.answer = answer


def parse_xml(data: bytes) -> Any:
    """The root element of the XML document ``data`` (:func:`xml_parser`). Raises :class:`_Malformed` whose
    ``answer`` is ``("deep", line)`` (nested past libxml2's 256 levels) or ``("malformed", message, line,
    column)``."""
    try:
        return lxml.etree.fromstring(data, xml_parser())
    except lxml.etree.XMLSyntaxError as exc:
        line, column = exc.position if exc.position else (exc.lineno or 0, 0)
        if "depth" in str(exc.msg).lower():
            raise _Malformed(("deep", line)) from None
        message = re.sub(r",? line \d+, column \d+$", "", " ".join(str(exc.msg or exc).split()))[:300]
        raise _Malformed(("malformed", message, line or 0, column or 0)) from None


def qualified(name: str, nsmap: dict[str | None, str], prefix: str | None = None) -> str:
    """``name`` (lxml's ``{uri}local`` or ``local``) as a document writes it: ``prefix:local`` (``prefix``, the
    element's own, else the one ``nsmap`` binds to ``uri``; ``xml:`` for the XML namespace), else ``local``."""
    if not name.startswith("{"):
        return name
    uri, local = name[1:].split("}", 1)
    if prefix is None:
        prefix = "xml" if uri == "http://www.w3.org/XML/1998/namespace" else next(
            (p for p, u in nsmap.items() if u == uri and p), None)
    return f"{prefix}:{local}" if prefix else local


_INDENT = re.compile(r"[ \t]*\n\s*")


def element_item(element: Any, cap: int) -> dict:
    """A matched element as an item: ``tag`` (as the document writes it, ``prefix:local`` or ``local``), ``line``
    (where it starts, from 1), ``attrs`` (name to value, in the document's order; left out when none) and ``text``
    (:func:`element_text`; left out when empty). Every string is cut to ``cap`` characters (the
    page shows at most that much of one)."""
    nsmap = element.nsmap
    item: dict[str, Any] = {"tag": qualified(element.tag, nsmap, element.prefix), "line": element.sourceline or 0}
    attributes = {qualified(value.attrname, nsmap): value[:cap] for value in element.xpath("@*")}  # (not
    # attrib.items(): lxml finds each value by its name, a walk of the attributes before it -- 40,000 on one
    # element took 3.7 s, 100,000 past the read's time limit)
    if attributes:
        item["attrs"] = attributes
    text = element_text(element, cap)
    if text:
        item["text"] = text[:cap]
    return item


def element_text(element: Any, cap: int | None = None) -> str:
    """The text of ``element`` and its descendants, stripped: an element of elements alone (no text of its own
    between them but blank space: a record, ``<entry><title>t</title><id>7</id></entry>``) gives each child's text
    on a line of its own (``t\n7``, where the texts joined read ``t7``); mixed content (``<p>a <b>b</b>!</p>``)
    its text as written, each run of blank space holding a line end one line end (indentation). With ``cap`` (a
    number of characters), the text or a prefix of it at least ``cap`` characters long, the rest never gathered:
    the text of a root of 1.5 million elements took 4 s, past the read's time limit, for the 8,193 characters a
    page shows."""
    children = [child for child in element if isinstance(child.tag, str)]
    if children and not (element.text or "").strip() and not any((child.tail or "").strip() for child in element):
        texts, size = [], 0
        for child in children:
            text = element_text(child, None if cap is None else cap - size)
            if text:
                texts.append(text)
                size += len(text) + 1
                if cap is not None and size > cap:
                    break
        return "\n".join(texts)

    def shaped(text: str) -> str:
        return _INDENT.sub("\n", text).strip() if len(element) else text.strip()

    pieces: list[str] = []
    gathered, check = 0, (cap or 0) + 1
    for piece in element.itertext():
        pieces.append(piece)
        gathered += len(piece)
        if cap is not None and gathered >= check:  # (shaped again each time the text doubles: linear in all)
            text = shaped("".join(pieces))
            if len(text) > cap:  # (a prefix of the whole's: only its last run of blank space may differ, stripped)
                return text
            check = 2 * gathered
    return shaped("".join(pieces))


def select_items(data: bytes, selector: str, index: int, chars: int, budget: int, max_elements: int) -> tuple:
    """The elements of the XML document ``data`` that ``selector`` matches, from match ``index`` (0-based, ``chars``
    characters into its JSON text), as items (:func:`element_item`, each string cut one character past the page's
    ``budget`` -- past ``chars + budget`` for the first -- so a piece cut from it is the whole item's), as many as a
    page of ``budget`` bytes can show, at most ``max_elements``: ``("ok", matches, items)``, or ``("ok", matches,
    items, line)`` for a document cut short at ``line`` (:func:`cut_at_end`: its elements before the cut, parsed in
    libxml2's recover mode, each match the cut may fall in -- the last element and its ancestors -- marked ``"cut":
    true``). Else ``("malformed", message, line, column)``, ``("deep", line)`` (:func:`parse_xml`) or ``("selector",
    message)``: the selector does not run on this document (a ``prefix|name`` whose prefix the root does not
    declare)."""
    cut = None
    try:
        root = parse_xml(data)
    except _Malformed as exc:
        answer = exc.answer
        if answer[0] != "malformed" or not cut_at_end(data, answer[2], answer[3]):
            return answer
        root = lxml.etree.fromstring(data, xml_parser(recover=True))  # (the elements before the cut)
        if root is None:
            return answer
        cut = answer[2]
    prefixes = {k: v for k, v in root.nsmap.items() if k}
    try:
        found = compile_xml_selector(selector, prefixes)(root)
    except MemoryError:
        raise
    except Exception as exc:  # a library's error on the selector over this document: a typed refusal, named
        declared = f" (the root declares {', '.join(sorted(prefixes))})" if prefixes else " (the root declares none)"
        said = f"CSS selector {selector[:80]!r} cannot run: {type(exc).__name__}: {exc}"
        return "selector", " ".join(said.split()) + (declared if "prefix" in str(exc) else "")
    found = [element for element in found if isinstance(getattr(element, "tag", None), str)]  # (elements alone)
    open_at_cut = set()
    if cut is not None:  # (the last element and its ancestors: the cut may fall inside any of them)
        last = root
        for element in root.iter(lxml.etree.Element):
            last = element
        open_at_cut = {id(element) for element in (last, *last.iterancestors())}
    items, cost = [], 0
    for number in range(index, min(len(found), index + max_elements)):
        items.append(element_item(found[number], (chars if number == index else 0) + budget + 1))
        if id(found[number]) in open_at_cut:
            items[-1]["cut"] = True
        cost += sum(len(str(value)) for value in items[-1].values()) + 24  # (at least its JSON)
        if cost > budget:
            break
    return ("ok", len(found), items) if cut is None else ("ok", len(found), items, cut)


def cut_at_end(data: bytes, line: int, column: int) -> bool:
    """Whether libxml2's first error in the document ``data``, at ``line`` and ``column`` (from 1), stands at its
    very end: the document is cut short (a tool's output capped mid-document), not broken within -- what came
    before the cut parses as it was written. libxml2 counts columns in characters: a document of one line whose
    first error is at its column 8 is not cut short for being on its last line."""
    last = data[data.rfind(b"\n") + 1 :]
    return line == data.count(b"\n") + 1 and column > len(last.decode("utf-8", "replace"))
