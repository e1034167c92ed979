"""HTML reads run in a worker process that is killed at a deadline: a CSS selector runs in ``lxml``'s XPath engine and
the matched elements are rendered by ``inscriptis`` (pure Python), and neither can be stopped in a thread --
``div:nth-child(2n) span`` is quadratic in lxml's XPath (``tests/test_html_runaway.py``: seconds over 2.3 MB). The
calling thread waits in ``poll`` (GIL released) and, at the deadline, kills the worker and raises TimeoutError (the
caller's :class:`~scratchfs.foundation.errors.StructureTimeout`). The text view of a whole page
(``inscriptis.get_text``, 0.13-0.54 s of CPU a MiB: ``python bench/structure_workers.py``) runs there too.

A worker is a fresh interpreter running this file by path (it imports ``lxml``, ``cssselect`` and ``inscriptis``,
not ``scratchfs``; the process plumbing: :mod:`scratchfs.engine.worker_pipe`; and its sibling
:mod:`scratchfs.engine.structure.html_codec`, loaded by path). It gets the page's bytes (decoded there:
:func:`~scratchfs.engine.structure.html_codec.page_text`) and returns at most a page's worth of element texts:
each text cut one character past what a page of ``budget`` bytes can hold, and no elements past the first whose
texts alone overflow the page. At most
:data:`MAX_WORKERS` run; a call that finds every one busy waits for one until its deadline (then PoolBusy, which the
caller reports as busy, not as a runaway). A worker given more than :data:`KEEP_AFTER_BYTES` of input is stopped after
its call (lxml's tree of a page takes several times its text), and a worker's address space is capped
at :data:`WORKER_MEMORY_BYTES`.

Pages are parsed with libxml2's ``huge_tree`` option (its depth limit 2048 instead of 256; the memory cap guards
it): without it, a page nested more than 256 deep was silently cut there, the rest of its text and elements missing.
A page that libxml2 still cuts (its error log names the excessive depth), or that is nested deeper than Python's
recursion limit for rendering, gives the answer ``("deep", None)``, never a cut page.

Selectors are translated by :class:`SelectorTranslator` (lxml's HTML translator, but for ``:contains()``: the text
sought goes to the XPath as hex and is compared in Python, so text holding characters that XPath literals and lxml's
strings refuse -- control characters, NUL -- is matched, not a worker's crash). Any other error a library raises on
the caller's selector or an odd page (cssselect's SelectorError and ExpressionError, lxml's XPath errors, ValueError)
comes back as the answer ``("invalid", one-line message)``: a typed refusal, never a traceback or a dead worker.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import pickle
import re
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from typing import Any

import inscriptis.model.canvas
import lxml.etree
import lxml.html
from cssselect import ExpressionError, SelectorError
from inscriptis import Inscriptis
from inscriptis.css_profiles import CSS_PROFILES
from inscriptis.html_properties import Display
from inscriptis.model.canvas import Canvas
from inscriptis.model.canvas.block import Block
from inscriptis.model.config import ParserConfig
from inscriptis.model.html_element import HtmlElement
from inscriptis.model.table import Table
from inscriptis.model.tag import CustomHtmlTagHandlerMapping
from inscriptis.model.tag.table_tag import table_end_handler
from lxml.cssselect import LxmlHTMLTranslator

from scratchfs.engine.worker_loop import limit_memory, reply, requests
from scratchfs.engine.worker_pipe import WORKER_NAME, Pool

if __name__ == WORKER_NAME:  # (run by path, without the package: its sibling is loaded by path, as worker_pipe is)
    _SPEC = importlib.util.spec_from_file_location("scratchfs.engine.structure.html_codec",
                                                   os.path.join(os.path.dirname(__file__), "html_codec.py"))
    sys.modules[_SPEC.name] = importlib.util.module_from_spec(_SPEC)
    _SPEC.loader.exec_module(sys.modules[_SPEC.name])
from scratchfs.engine.structure.html_codec import VIEW_SPACES, declared_encoding, decode_as, page_codec, page_text

__all__ = ["CELL_SEPARATOR", "KEEP_AFTER_BYTES", "MAX_WORKERS", "RECURSION_LIMIT", "WORKER_MEMORY_BYTES",
           "SelectorTranslator", "TooDeep", "compile_selector", "cut_page", "declared_encoding", "decode_as",
           "element_text", "one_line", "page_codec", "page_text", "parse_page", "parser_config", "run_html",
           "select_texts", "selector_problem", "view_text", "workers"]

MAX_WORKERS = 2
"""Most HTML worker processes alive at once."""
KEEP_AFTER_BYTES = 4 * 1024 * 1024
"""A worker given more input than this (bytes of the pickled request) is stopped after its call."""
WORKER_MEMORY_BYTES = 4 * 1024**3
"""Address space of a worker (``RLIMIT_AS``): a 32 MiB page parses and renders in well under it."""
RECURSION_LIMIT = 12_000
"""Python's recursion limit in a worker: inscriptis recurses per level of a page, and libxml2 parses 2048 levels."""
_XML_DECLARATION = re.compile(r"^<\?xml [^>]+?\?>")  # as inscriptis strips it
_LEADING_DECLARATION = re.compile(r"\s*<\?xml [^>]+?\?>")  # the same, after blank space (parse_page: match())


class TooDeep(Exception):
    """The page is nested deeper than libxml2 parses (2048 levels with ``huge_tree``): its tree would be cut."""


_FUNCTIONS = "urn:scratchfs:css"
"""The namespace of the XPath function :class:`SelectorTranslator` calls (prefix ``scratchfs``)."""


def _contains(_context: Any, text: str, needle: str) -> bool:
    """XPath ``scratchfs:contains(string(.), hex)``: the element's text, lower-cased, its runs of blank space as one
    ``" "`` (as the text view shows it: ``a&nbsp;b`` and ``a\n  b`` are ``a b``), holds the text ``hex`` encodes
    (UTF-8 bytes as hex digits; lower-cased and blank space as one ``" "`` already). It returns a boolean: no string
    goes back to lxml, which refuses strings holding control characters."""
    return bytes.fromhex(needle).decode("utf-8") in " ".join(text.split()).lower()


lxml.etree.FunctionNamespace(_FUNCTIONS)["contains"] = _contains


class SelectorTranslator(LxmlHTMLTranslator):  # type: ignore[misc]
    """lxml's HTML selector translator with a ``:contains()`` that matches any text, case-blind as lxml's: the text
    sought goes to the XPath as hex digits (XPath 1.0 cannot write a control character) and is compared by
    :func:`_contains` (lxml's own ``lower-case`` function returns the element's text to XPath, and lxml refuses a
    text holding a control character: the worker died)."""

    def xpath_contains_function(self, xpath: Any, function: Any) -> Any:
        if function.argument_types() not in (["STRING"], ["IDENT"]):
            raise ExpressionError(f"Expected a single string or ident for :contains(), got {function.arguments!r}")
        sought = function.arguments[0].value
        needle = (" ".join(sought.split()) or sought).lower().encode("utf-8", "surrogatepass").hex()
        return xpath.add_condition(f"scratchfs:contains(string(.), '{needle}')")


def compile_selector(selector: str) -> lxml.etree.XPath:
    """The XPath of a CSS selector (:class:`SelectorTranslator`). Raises what cssselect and lxml raise on it
    (SelectorError, ExpressionError, lxml.etree.XPathError, ValueError: a text no XPath literal can hold)."""
    path = SelectorTranslator().css_to_xpath(selector)
    return lxml.etree.XPath(path, namespaces={"scratchfs": _FUNCTIONS})


def one_line(text: str, chars: int = 300) -> str:
    """``text`` on one line, for an error message: runs of blank space as one space, other characters that do not
    print escaped (``\\x01``), at most ``chars`` characters (then ``...``)."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in " ".join(text.split()))
    return text if len(text) <= chars else text[: chars - 3] + "..."


def selector_problem(selector: str) -> str | None:
    """Why the CSS selector cannot run, as a one-line message naming it, or ``None`` when it compiles."""
    try:
        compile_selector(selector)
    except MemoryError:
        raise
    except Exception as exc:  # cssselect and lxml errors, ValueError, RecursionError: the caller's selector
        return _refusal(selector, exc)
    return None


def _refusal(selector: str, exc: BaseException) -> str:
    verb = "does not parse" if isinstance(exc, SelectorError) else "cannot run"
    return one_line(f"CSS selector {selector[:80]!r} {verb}: {type(exc).__name__}: {exc}")


def parse_page(text: str) -> Any:
    """The lxml document tree of the page ``text`` (``huge_tree``). Raises TooDeep when libxml2 cut the tree at its
    depth limit, lxml.etree.ParserError or ValueError when it does not parse. A leading XML declaration (an XHTML
    page's ``<?xml ... encoding="UTF-8"?>``, which lxml refuses in a str) is left out, as inscriptis does."""
    declared = _LEADING_DECLARATION.match(text)  # (no copy of the page unless it has one)
    if declared is not None:
        text = text[declared.end() :]
    parser = lxml.html.HTMLParser(huge_tree=True)
    tree = lxml.html.document_fromstring(text, parser=parser)
    if any("depth" in entry.message.lower() for entry in parser.error_log):
        raise TooDeep
    return tree


class _PartsBlock(Block):
    """inscriptis's text block, its text kept as a list of pieces joined when it is read: inscriptis appends each
    piece to the block's string (``self._content += text``, an attribute: a copy each time), quadratic in a block's
    length -- a rustdoc source page of 7.6 MiB, a few blocks of millions of characters, ran past its time limit.
    Text is written as lxml decoded it, not unescaped again (inscriptis did: ``&amp;lt;`` showed as ``<``, where a
    browser shows ``&lt;``), and a ``<pre>``'s Unicode spaces as ``" "`` (:data:`VIEW_SPACES`)."""

    __slots__ = ("_parts",)

    def __init__(self, idx: int, prefix: Any) -> None:
        super().__init__(idx, prefix)
        self._parts: list[str] = []

    def merge_normal_text(self, text: str) -> None:
        normalized = []
        for ch in text:  # (inscriptis's own collapse of blank space, piece by piece)
            if not ch.isspace() or ch in _KEPT_SPACES:  # (a no-break or other Unicode space is no white space CSS
                normalized.append(" " if ch in _KEPT_SPACES else ch)  # collapses: a browser shows each, so an indent
                self.collapsable_whitespace = False  # written &nbsp;&nbsp;&nbsp;&nbsp;x is kept, each one " ")
            elif not self.collapsable_whitespace:
                normalized.append(" ")
                self.collapsable_whitespace = True
        if normalized:
            first = self.prefix.first if not (self._content or self._parts) else ""
            self._append("".join((first, *normalized)))

    def merge_pre_text(self, text: str) -> None:
        text = text.translate(VIEW_SPACES)
        self._append("".join((self.prefix.first, text.replace("\n", "\n" + self.prefix.rest))))
        self.collapsable_whitespace = False

    def _append(self, text: str) -> None:
        self._parts.append(text)
        self.idx += len(text)

    @property
    def content(self) -> str:
        if self._parts:
            self._content += "".join(self._parts)
            self._parts.clear()
        return Block.content.fget(self)

    def new_block(self) -> Block:
        self.prefix.consumed = False
        return _PartsBlock(idx=self.idx + 1, prefix=self.prefix)


if "_content" in getattr(Block, "__slots__", ()) and hasattr(Block, "merge_normal_text"):  # (inscriptis 2.x)
    inscriptis.model.canvas.Block = _PartsBlock  # the canvas opens its first block with it


_KEPT_SPACES = frozenset(chr(space) for space in VIEW_SPACES)  # (CSS Text 3, 4.1: spaces, tabs, line ends collapse)

CELL_SEPARATOR = " | "
"""What stands between two cells of a table row in the text view (:class:`_FlatTable`)."""


class _FlatTable(Table):  # type: ignore[misc]
    """A table as the text view renders it: each row on one line, its cells' texts (stripped) joined by
    :data:`CELL_SEPARATOR`, the blank cells at the end of a row and rows of blank cells left out. inscriptis pads every
    cell to its column's widest and its row's tallest: a page's layout tables rendered at up to 20 times their text
    (``pydoc -w typing``: 152,413 bytes of HTML, 1,162,496 of text, 96% spaces). A model pays for every byte and needs
    no alignment. A row with a cell of several lines (a list, a ``<br>``) or holding a table is :func:`_tall_row`,
    between empty lines, so that a nested table's rows are not read as the outer row's cells. ``depth``: the tables
    around it. Annotations are not kept (the text view asks for none)."""

    __slots__ = ("depth",)

    def get_text(self) -> str:
        rows: list[str] = []
        tall = False  # (the last row written was of several lines)
        for row in self.rows:
            cells, nested = [], False
            for cell in row.columns:
                cell.normalize_blocks()  # (the cell's text as one line a block)
                cells.append("\n".join(line.rstrip() for line in cell.blocks).strip())
                nested = nested or (bool(cells[-1]) and getattr(cell, "holds_table", False))
            while cells and not cells[-1]:
                cells.pop()
            if not cells:
                continue
            was_tall, tall = tall, nested or any("\n" in cell for cell in cells)
            rows += [""] if rows and (tall or was_tall) else []  # (a row of several lines between empty lines)
            rows.append(_tall_row(cells, self.depth < _INDENTED_DEPTH) if tall else CELL_SEPARATOR.join(cells))
        return "\n".join(rows) + "\n"

    def get_annotations(self, idx: int, left_margin_len: int) -> list:
        return []


_INDENTED_DEPTH = 3
"""Tables nested deeper than this indent their rows' later lines no further (a line's indent stays at most 6 spaces:
a page of tables nested 2,000 deep is not rendered in quadratic space)."""


def _tall_row(cells: list[str], indent: bool) -> str:
    """A row with a cell of several lines, its blank cells at the start (a layout's margin) left out: its one cell as
    it is (a layout table's block of text), or each cell on lines of its own, every cell but the first opened by
    ``"| "`` (a blank one is ``"|"``), the lines of a cell after its first indented two spaces (``indent``), so the
    row's cells and the rows of a table nested in one are told apart: ``x`` | (``in 1`` | ``in 2`` / ``in 3``) |
    ``y`` is ``x``, ``| in 1 | in 2``, ``  in 3``, ``| y``."""
    while not cells[0]:
        del cells[0]
    if len(cells) == 1:
        return cells[0]
    lines = [("| " if number else "") + (cell.replace("\n", "\n  ") if indent else cell) if cell else "|"
             for number, cell in enumerate(cells)]
    return "\n".join(line.rstrip() for part in lines for line in part.split("\n"))


def _table_start(state: Any, _attributes: dict) -> None:
    """inscriptis's ``<table>`` handler, opening a :class:`_FlatTable` (``depth``: the tables it is in); the cell of
    the table it is in is marked ``holds_table``: its row is of several lines even when this table is one line."""
    if state.current_table and state.current_table[-1].rows and state.current_table[-1].rows[-1].columns:
        state.current_table[-1].rows[-1].columns[-1].holds_table = True
    state.tags[-1].set_canvas(Canvas())
    table = _FlatTable(left_margin_len=state.tags[-1].canvas.left_margin, cell_separator=CELL_SEPARATOR)
    table.depth = len(state.current_table)
    state.current_table.append(table)


def _table_end(state: Any) -> None:
    """inscriptis's ``</table>`` handler with inscriptis 2.7.6's fix (2.7.6 requires Python 3.11; 3.10 gets 2.7.5):
    the block its ``write_verbatim_text`` opened kept the table's padding, so each table in a block indented the
    tables and the text after it two more spaces."""
    table_end_handler(state)
    if state.tags[-2].display == Display.block:
        state.tags[-2].canvas.current_block.prefix.remove_last_prefix()


@functools.lru_cache(maxsize=1)
def _tables_drift() -> bool:
    """Whether the installed inscriptis indents a block's second table more than its first (before 2.7.6)."""
    page = "<div><table><tr><td>a</td></tr></table><table><tr><td>b</td></tr></table></div>"
    lines = Inscriptis(lxml.html.document_fromstring(page), ParserConfig()).get_text().splitlines()
    first, second = (next(line for line in lines if line.strip() == cell) for cell in ("a", "b"))
    return len(second) > len(first)


# inscriptis's default ("relaxed") profile, but a definition list's terms and descriptions on lines of their own, as
# a browser shows them (the profile has no rule for them: pydoc's "<dt>f(x)</dt><dd>Does y.</dd>" ran on as one line,
# "f(x)Does y."), and the marks a browser shows by the text's place or a line through it, in the plain-text ways of
# writing them: 10<sup>6</sup> is "10^6" (it was "106"), H<sub>2</sub>O "H_2O", a price struck through "~~$50~~"
# (it was "$50", beside the price that holds)
# -- and a <span> inline with nothing added around it, as a browser shows it (the profile put a space on each side:
# Sphinx's inline code <code><span>os</span><span>.</span><span>sep</span></code> read "os . sep", a link split over
# spans "www.example. com", and a search for what the page shows found nothing)
# -- and white space inherited, as in CSS (inscriptis gave each element but <pre>s "normal" white space: the <code>
# in a <pre> collapsed its lines, the Rust book's every code block was one line); a tag of no rule inherits too
# -- and a <div> not indented, as in a browser (2 spaces each: 35,649 of 197,249 bytes of rustc's lint listing's view)
_STRUCK = HtmlElement(prefix="~~", suffix="~~")
_PRE_TAGS = ("pre", "xmp", "listing", "plaintext")


def _inheriting(rule: HtmlElement) -> HtmlElement:  # (get_refined_html_element: None is the parent's white space)
    rule = rule.__copy__()
    rule.whitespace = None
    return rule


class _Rules(dict):  # type: ignore[type-arg]
    """The CSS profile, whose rule for a tag of none is an inline element inheriting its parent's white space."""

    def get(self, tag: str, default: Any = None) -> Any:
        return super().get(tag) or _INLINE


_INLINE = _inheriting(HtmlElement())
_PRE_BODY = HtmlElement(whitespace=CSS_PROFILES["relaxed"]["pre"].whitespace)  # (the root, inside a <pre>)
_CSS = _Rules({tag: rule if tag in ("body", *_PRE_TAGS) else _inheriting(rule) for tag, rule in {
    **CSS_PROFILES["relaxed"], "span": HtmlElement(display=Display.inline), "div": HtmlElement(display=Display.block),
    "dt": HtmlElement(display=Display.block), "dd": HtmlElement(display=Display.block),
    "sup": HtmlElement(prefix="^"), "sub": HtmlElement(prefix="_"), "s": _STRUCK, "strike": _STRUCK, "del": _STRUCK,
}.items()})


@functools.lru_cache(maxsize=2)
def parser_config(pre: bool = False) -> ParserConfig:
    """inscriptis's configuration for a rendering: its default, but for tables, rendered unpadded
    (:class:`_FlatTable`), and with :func:`_table_end` when the installed version lets sibling tables drift right
    (:func:`_tables_drift`), so that a page's text is the same on every Python; ``<dt>`` and ``<dd>`` are blocks;
    white space inherited (:data:`_CSS`). ``pre``: the rendering starts inside a ``<pre>`` (an element in one)."""
    ends = {"table": _table_end} if _tables_drift() else {}
    css = _Rules({**_CSS, "body": _PRE_BODY}) if pre else _CSS
    return ParserConfig(css=css, table_cell_separator=CELL_SEPARATOR,
                        custom_html_tag_handler_mapping=CustomHtmlTagHandlerMapping({"table": _table_start}, ends))


def element_text(element: Any, config: ParserConfig | None = None) -> str:
    """An element's text as the text view renders it where it stands (:func:`_in_context`), a browser's ``innerText``
    but for cells between :data:`CELL_SEPARATOR` (a tab there; lxml's ``text_content()`` runs cells, items, blocks
    together): rows, blocks, list items and ``<br>`` on lines of their own, inline elements joined as written, an
    item without its bullet, code in a ``<pre>`` with its lines; blank lines around it and the indent common to its
    lines left out. When inscriptis renders nothing (it drops ``<title>``, ``<script>``, ``<style>``), the element's
    text content (comments left out), stripped. The element's tail (the text after its end tag, which lxml keeps on
    it) is no part of it (inscriptis renders a node's tail after the node: ``<b>bold</b> after`` was "bold after")."""
    tail, element.tail = element.tail, None
    try:
        with _in_context(element) as (root, pre):
            text = Inscriptis(root, parser_config(pre=True) if pre else config or parser_config()).get_text()
    finally:
        element.tail = tail
    text = textwrap.dedent(text).strip("\n").rstrip()
    return text or element.text_content().strip()

_ROWS, _CELLS = ("thead", "tbody", "tfoot", "tr"), ("td", "th")


@contextlib.contextmanager
def _in_context(element: Any) -> Iterator[tuple[Any, bool]]:
    """``(what to render, inside a <pre>)`` for ``element`` as the page lays it out: a row (or a table's head, body,
    foot) in a ``<table>`` and a cell in a row of one (alone, inscriptis ran its cells together), a list item as a
    block (alone, inscriptis gave an ``<ol>``'s item a ``*``); moved into the table and put back, its tag restored."""
    tag, parent, pre = element.tag, element.getparent(), next(element.iterancestors(*_PRE_TAGS), None) is not None
    if parent is None or tag not in (*_ROWS, *_CELLS, "li"):
        yield element, pre
        return
    before, root = element.getprevious(), lxml.html.Element("table")  # (index() is linear: quadratic over rows)
    try:
        if tag == "li":
            element.tag = "div"
            yield element, pre
        else:
            (root if tag in _ROWS else lxml.etree.SubElement(root, "tr")).append(element)
            yield root, pre
    finally:
        element.tag = tag
        if element.getparent() is not parent:
            parent.insert(0, element) if before is None else before.addnext(element)


def select_texts(page: bytes, selector: str, index: int, chars: int, budget: int, max_elements: int,
                 ahead: tuple[int, float] = (0, 0.0)) -> tuple:
    """The texts of the elements matching ``selector`` in the page ``page`` (decoded as a browser decodes it:
    :func:`page_text`; a blank page matches nothing), from match ``index`` (0-based), as much as a page of
    ``budget`` bytes can show (:func:`cut_page`): ``("ok", matches, texts, whole)``; ``whole``: the whole texts of
    the elements from ``index`` on that were rendered -- the page's and, ``ahead = (characters, seconds)``, those
    after it rendered within that many characters (all of them together) and seconds, for the caller's next pages
    (empty when the first alone is longer). ``("invalid", message)``: the page does not parse; ``("selector",
    message)``: the selector does not run on it."""
    started = time.monotonic()
    text = page_text(page)
    if not text.strip():
        return "ok", 0, [], ()
    try:
        tree = parse_page(text)
    except (lxml.etree.ParserError, ValueError) as exc:
        return "invalid", one_line(f"the HTML does not parse: {exc}")
    try:
        found = compile_selector(selector)(tree)
    except MemoryError:
        raise
    except Exception as exc:  # a library's error on the selector or the page: a typed refusal, named
        return "selector", _refusal(selector, exc)
    config = parser_config()
    rendered: list[str] = []

    def text_of(number: int) -> str:
        while len(rendered) <= number - index:
            rendered.append(element_text(found[index + len(rendered)], config))
        return rendered[number - index]

    texts = cut_page(text_of, index, chars, budget, max_elements, len(found))
    most, seconds = ahead
    stop = time.monotonic() + min(seconds, max(_AHEAD_SECONDS, time.monotonic() - started))  # (the page's time, or so)
    total = sum(map(len, rendered))
    while total <= most and index + len(rendered) < len(found) and time.monotonic() < stop:
        total += len(text_of(index + len(rendered)))
    while rendered and total > most:  # (the last one passed the bound: not sent)
        total -= len(rendered.pop())
    return "ok", len(found), texts, tuple(rendered)


_AHEAD_SECONDS = 0.2
"""Seconds a select read may render elements past its page when parsing and selecting took less."""


def cut_page(text_of: Callable[[int], str | None], index: int, chars: int, budget: int, max_elements: int,
             matches: int) -> list[str] | None:
    """The texts a select page from match ``index`` (``chars`` characters into it) of ``budget`` bytes shows, from
    ``text_of(number)``, the whole text of match ``number`` (``None``: not at hand): each cut one character past
    ``budget`` characters (past ``chars + budget`` for the first), ending at ``max_elements``, at the last of the
    ``matches`` or at the first whose texts alone pass ``budget``. ``None`` when a text it needs is not at hand."""
    texts: list[str] = []
    cost = 0
    for number in range(index, min(matches, index + max_elements)):
        element = text_of(number)
        if element is None:
            return None
        skip = chars if number == index else 0
        texts.append(element[: skip + budget + 1])
        cost += len(texts[-1]) - skip + 3  # at least its JSON (quotes) and a comma
        if cost > budget:
            break
    return texts


def view_text(page: bytes) -> bytes:
    """The text view of the page ``page`` (:func:`page_text`): ``inscriptis.get_text`` with :func:`parser_config`
    (tables unpadded, one row a line; ``<div>``s not indented, lists and ``<pre>``s as written), as UTF-8 bytes
    (empty for a blank page), of a tree parsed with ``huge_tree`` (:func:`parse_page`; TooDeep past its limit)."""
    text = page_text(page).strip()
    if not text:
        return b""
    if text.startswith("<?xml "):  # (before the <pre> a page of no element is wrapped in)
        text = _XML_DECLARATION.sub("", text, count=1)
    try:
        tree = parse_page(text)
    except lxml.etree.ParserError:  # as inscriptis: a page with no element at all is read as preformatted text
        tree = parse_page("<pre>" + text + "</pre>")
    return Inscriptis(tree, parser_config()).get_text().encode("utf-8")


_OPERATIONS = {"select": select_texts, "view": view_text}


def _answer(operation: str, args: tuple) -> Any:
    """The answer of one request; ``("deep", None)`` for a page nested deeper than libxml2 parses or Python's
    recursion limit renders; ``("invalid", message)`` for an error a library raised on odd input (lxml, cssselect,
    inscriptis: a ValueError, a parser error), never a traceback and a dead worker."""
    try:
        return _OPERATIONS[operation](*args)
    except (RecursionError, TooDeep):
        return "deep", None
    except MemoryError:
        raise  # the worker dies: its caller says it ran out of memory
    except Exception as exc:
        what = "the CSS selector" if operation == "select" else "the HTML text view"
        return "invalid", one_line(f"{what} failed on this page: {type(exc).__name__}: {exc}")


def run_html(operation: str, args: tuple, deadline: float) -> Any:
    """Run :func:`select_texts` (``operation`` ``"select"``) or :func:`view_text` (``"view"``) over ``args`` in a
    worker, until ``deadline`` (a ``time.monotonic()`` value).

    Returns:
        the function's answer; ``("died", last words)``: the worker died (past its :data:`WORKER_MEMORY_BYTES`),
        with the last line it wrote to its stderr (``""``: none);
        ``("deep", None)``: the page is nested too deeply to parse or render whole.

    Raises:
        TimeoutError: the deadline passed (the worker was killed). PoolBusy (a TimeoutError): no worker came free
            before it.
        NoWorker: no worker process could be started (descriptors, memory); the read is never run unbounded in the
            calling thread instead.
    """
    request = pickle.dumps((operation, args), protocol=pickle.HIGHEST_PROTOCOL)
    outcome, answer = _POOL.run(request, deadline, keep=len(request) <= KEEP_AFTER_BYTES)
    return ("died", answer or "") if outcome == "died" else answer


_POOL = Pool(__file__, MAX_WORKERS, "HTML")


def workers() -> tuple[int, int]:
    """``(alive, idle)``: HTML worker processes running, and those of them waiting for a call."""
    return _POOL.counts()


def serve() -> None:
    """The worker's loop over stdin and stdout: ``(operation, args)`` in, the answer out; returns when stdin closes
    (the parent is gone or stopped it). Python's recursion limit is raised to :data:`RECURSION_LIMIT`, so that
    inscriptis renders a page as deep as libxml2 parses (a crash past the C stack is a dead worker, a typed error)."""
    limit_memory(WORKER_MEMORY_BYTES)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    for operation, args in requests():
        answer = _answer(operation, args)
        del args
        try:
            reply(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
        except RecursionError:
            reply(pickle.dumps(("deep", None)))


if __name__ == WORKER_NAME:
    serve()
