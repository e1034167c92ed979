"""HTML reads run in a worker process that is killed at a deadline: a CSS selector runs in ``lxml``'s XPath engine and
the matched elements are rendered by ``inscriptis`` (pure Python), and neither can be stopped in a thread --
``div:nth-child(2n) span`` is quadratic in lxml's XPath (``tests/test_html_runaway.py``: seconds over 2.3 MB). The
calling thread waits in ``poll`` (GIL released) and, at the deadline, kills the worker and raises TimeoutError (the
caller's :class:`~scratchfs.foundation.errors.StructureTimeout`). The text view of a whole page
(``inscriptis.get_text``, 0.13-0.54 s of CPU a MiB: ``python bench/structure_workers.py``) runs there too, and so
do the CSS selects of XML documents (:mod:`scratchfs.engine.structure.xml_select`, parsed safely: no entity
expanded, nothing read from a file or the network).

A worker is a fresh interpreter running this file by path (it imports ``lxml``, ``cssselect`` and ``inscriptis``,
not ``scratchfs``; the process plumbing: :mod:`scratchfs.engine.worker_pipe`; and its siblings
:mod:`scratchfs.engine.structure.html_codec` and :mod:`scratchfs.engine.structure.html_render`, the text rendering,
loaded by path). It gets the page's bytes (decoded there:
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

import importlib.util
import os
import pickle
import re
import sys
import time
from collections.abc import Callable
from typing import Any

import lxml.etree
import lxml.html
from cssselect import SelectorError
from inscriptis import Inscriptis
from lxml.cssselect import LxmlHTMLTranslator

from scratchfs.engine.worker_loop import limit_memory, reply, requests
from scratchfs.engine.worker_pipe import WORKER_NAME, Pool

if __name__ == WORKER_NAME:  # (run by path, without the package: its siblings are loaded by path, as worker_pipe is)
    for _NAME in ("html_codec", "html_fields", "html_misses", "html_render", "html_sections",
                  "xml_select"):  # (dependencies first)
        _SPEC = importlib.util.spec_from_file_location(f"scratchfs.engine.structure.{_NAME}",
                                                       os.path.join(os.path.dirname(__file__), f"{_NAME}.py"))
        sys.modules[_SPEC.name] = importlib.util.module_from_spec(_SPEC)
        _SPEC.loader.exec_module(sys.modules[_SPEC.name])
from scratchfs.engine.structure.html_codec import declared_encoding, decode_as, page_codec, page_text
from scratchfs.engine.structure.html_misses import miss_hint
from scratchfs.engine.structure.html_render import element_text, parser_config
from scratchfs.engine.structure.html_sections import section_hint
from scratchfs.engine.structure.html_tags import MOST_ATTRIBUTES, TooManyAttributes, check_attributes
from scratchfs.engine.structure.xml_select import FUNCTIONS, AnyTextContains, select_items

__all__ = ["KEEP_AFTER_BYTES", "MAX_WORKERS", "MOST_ATTRIBUTES", "RECURSION_LIMIT", "WORKER_MEMORY_BYTES",
           "ParserError", "SelectorTranslator", "TooDeep", "TooManyAttributes", "check_attributes", "compile_selector",
           "cut_page", "declared_encoding", "decode_as", "one_line", "page_codec", "page_text", "parse_page",
           "render_tree", "run_html", "select_texts", "selector_problem", "strip_xml_declaration", "view_text",
           "workers"]

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


class SelectorTranslator(AnyTextContains, LxmlHTMLTranslator):  # type: ignore[misc]
    """lxml's HTML selector translator with a ``:contains()`` that matches any text, case-blind as lxml's
    (:class:`~scratchfs.engine.structure.xml_select.AnyTextContains`)."""


def compile_selector(selector: str) -> lxml.etree.XPath:
    """The XPath of a CSS selector (:class:`SelectorTranslator`). Raises what cssselect and lxml raise on it
    (SelectorError, ExpressionError, lxml.etree.XPathError, ValueError: a text no XPath literal can hold)."""
    path = SelectorTranslator().css_to_xpath(selector)
    return lxml.etree.XPath(path, namespaces={"scratchfs": FUNCTIONS})


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
    depth limit, TooManyAttributes (a ValueError) for a tag of more than
    :data:`~scratchfs.engine.structure.html_tags.MOST_ATTRIBUTES` attributes, before
    the parse, lxml.etree.ParserError or ValueError when it does not parse. A leading XML declaration (an XHTML
    page's ``<?xml ... encoding="UTF-8"?>``, which lxml refuses in a str) is left out, as inscriptis does."""
    declared = _LEADING_DECLARATION.match(text)  # (no copy of the page unless it has one)
    if declared is not None:
        text = text[declared.end() :]
    check_attributes(text)
    parser = lxml.html.HTMLParser(huge_tree=True)
    tree = lxml.html.document_fromstring(text, parser=parser)
    if any("depth" in entry.message.lower() for entry in parser.error_log):
        raise TooDeep
    _pre_blocks_apart(tree)
    return tree


_PRE_BLOCKS = ("code", "button")


def _pre_blocks_apart(tree: Any) -> None:
    """End a line after each ``<code>`` or ``<button>`` child of a ``<pre>`` holding more than one of them that
    another such child follows with no line end between: a browser shows one of a code block's flavours (Node.js's
    docs: ``<pre><code class="mjs">...</code><code class="cjs">...</code><button>copy</button></pre>``, a toggle
    hiding the other), the text view showed both on one line -- ``import process from 'node:process';const process =
    require('node:process');copy``. Each is its own lines now (the view's and a select's texts alike)."""
    for pre in tree.iter("pre"):
        blocks = [child for child in pre if child.tag in _PRE_BLOCKS]
        if len(blocks) < 2:
            continue
        for at in range(1, len(blocks)):
            block, following = blocks[at - 1], blocks[at]
            if _previous_element(following) is block and not (block.tail or "").startswith("\n") \
                    and not "".join(block.itertext()).endswith("\n"):
                block.tail = "\n" + (block.tail or "")


def _previous_element(element: Any) -> Any:
    """The element before ``element`` among its siblings, past comments and processing instructions with no text
    after them (``<code>a</code><!--x--><code>b</code>``: a comment between a code block's flavours ran them
    together, ``ab``); ``None`` at the first."""
    previous = element.getprevious()
    while previous is not None and not isinstance(previous.tag, str) and not (previous.tail or "").strip():
        previous = previous.getprevious()
    return previous


def select_texts(page: bytes, selector: str, index: int, chars: int, budget: int, max_elements: int,
                 ahead: tuple[int, float] = (0, 0.0)) -> tuple:
    """The texts of the elements matching ``selector`` in the page ``page`` (decoded as a browser decodes it:
    :func:`page_text`; a blank page matches nothing), from match ``index`` (0-based), as much as a page of
    ``budget`` bytes can show (:func:`cut_page`): ``("ok", matches, texts, whole, hint)``; ``hint``: when nothing
    matched, what the page lacks of the selector's ids, classes and names and what it holds like them
    (:func:`~scratchfs.engine.structure.html_misses.miss_hint`), else ``None``; ``whole``: the whole texts of
    the elements from ``index`` on that were rendered -- the page's and, ``ahead = (characters, seconds)``, those
    after it rendered within that many characters (all of them together) and seconds, for the caller's next pages
    (empty when the first alone is longer). ``("invalid", message)``: the page does not parse; ``("selector",
    message)``: the selector does not run on it."""
    started = time.monotonic()
    text = page_text(page)
    if not text.strip():
        return "ok", 0, [], (), None
    try:
        tree = parse_page(text)
    except TooManyAttributes as exc:
        return "invalid", str(exc)
    except (lxml.etree.ParserError, ValueError) as exc:
        return "invalid", one_line(f"the HTML does not parse: {exc}")
    try:
        found = compile_selector(selector)(tree)
    except MemoryError:
        raise
    except Exception as exc:  # a library's error on the selector or the page: a typed refusal, named
        return "selector", _refusal(selector, exc)
    if not found:
        return "ok", 0, [], (), miss_hint(tree, selector)
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
    return "ok", len(found), texts, tuple(rendered), section_hint(found, texts) if index == 0 and not chars else None


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
    """The text view of the page ``page`` (:func:`page_text`): ``inscriptis.get_text`` with
    :func:`~scratchfs.engine.structure.html_render.parser_config` (tables unpadded, one row a line; ``<div>``s not
    indented, lists and ``<pre>``s as written), as UTF-8 bytes (empty for a blank page), of a tree parsed with
    ``huge_tree`` (:func:`parse_page`; TooDeep past its limit)."""
    text = page_text(page).strip()
    if not text:
        return b""
    if text.startswith("<?xml "):  # (before the <pre> a page of no element is wrapped in)
        text = strip_xml_declaration(text)
    try:
        tree = parse_page(text)
    except ParserError:  # as inscriptis: a page with no element at all is read as preformatted text
        tree = parse_page("<pre>" + text + "</pre>")
    return render_tree(tree).encode("utf-8")


ParserError = lxml.etree.ParserError
"""What :func:`parse_page` raises for a page of no element."""


def strip_xml_declaration(text: str) -> str:
    """``text`` without the XML declaration it starts with (``<?xml ...?>``), as inscriptis strips it."""
    return _XML_DECLARATION.sub("", text, count=1)


def render_tree(tree: Any) -> str:
    """The text of a parsed page (:func:`parse_page`) as the text view renders it: ``inscriptis.get_text`` with
    :func:`~scratchfs.engine.structure.html_render.parser_config`. Raises RecursionError for a page nested deeper
    than Python's recursion limit lets it render."""
    return Inscriptis(tree, parser_config()).get_text()


_OPERATIONS = {"select": select_texts, "view": view_text, "xml": select_items}


def _answer(operation: str, args: tuple) -> Any:
    """The answer of one request; ``("deep", None)`` for a page nested deeper than libxml2 parses or Python's
    recursion limit renders; ``("invalid", message)`` for an error a library raised on odd input (lxml, cssselect,
    inscriptis: a ValueError, a parser error), never a traceback and a dead worker."""
    try:
        return _OPERATIONS[operation](*args)
    except (RecursionError, TooDeep):
        return "deep", None
    except TooManyAttributes as exc:
        return "invalid", str(exc)
    except MemoryError:
        raise  # the worker dies: its caller says it ran out of memory
    except Exception as exc:
        what = "the CSS selector" if operation in ("select", "xml") else "the HTML text view"
        return "invalid", one_line(f"{what} failed on this page: {type(exc).__name__}: {exc}")


def run_html(operation: str, args: tuple, deadline: float) -> Any:
    """Run :func:`select_texts` (``operation`` ``"select"``), :func:`view_text` (``"view"``) or
    :func:`~scratchfs.engine.structure.xml_select.select_items` (``"xml"``) over ``args`` in a worker, until
    ``deadline`` (a ``time.monotonic()`` value).

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
