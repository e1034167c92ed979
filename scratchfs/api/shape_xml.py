"""XML documents told from a sample, for :mod:`scratchfs.api.shape`: the root and the element paths under it, three
levels deep, each with its count -- ``XML, root <testsuites>: testsuite (30) > testcase (600) > failure (30); 40 KiB,
663 lines`` -- and the CSS selector a stub's note reads first (:attr:`~scratchfs.api.shape.Shape.next_read`): a JUnit
report's ``failure`` (and ``error``) elements, else the shallowest repeated element, else the root's children.

The first :data:`XML_SHAPE_BYTES` of the sample are parsed by libxml2 (``lxml``, imported with the first XML shape of
a process: nothing else pays for it) as the select reads parse a document -- no entity expanded, no DTD, file or URL
read, at most 256 levels deep -- with ``recover``, so a sample cut inside an element gives the elements before the
cut; a whole document that is not well-formed says where libxml2 found it so (a ``select=`` read refuses it). A walk
of the elements down to :data:`LEVELS` below the root counts the paths (0.1 s for 512 KiB of ``<a/>`` elements, 25
ms for 128 KiB).
"""

from __future__ import annotations

import re
from typing import Any

from scratchfs.api.shape_words import first_of, kib, plural, shape_limit, short_name

__all__ = ["LEVELS", "UNPARSED", "XML_SHAPE_BYTES", "css_name", "selectable", "xml_shape"]

XML_SHAPE_BYTES = 128 * 1024
"""Bytes of a document's start its shape parses for its element paths (as a JSON array's shape reads 128 KiB)."""
LEVELS = 3
"""Levels of elements under the root a shape names."""
UNPARSED = "no select= read parses it"
"""The words of an XML shape whose document libxml2 does not parse (not well-formed, cut short, too deep)."""
_CHILDREN = 8  # most child names listed under one path
_JUNIT_ROOTS = ("testsuites", "testsuite")
_IDENT = re.compile(r"-?[A-Za-z_][\w-]*")
_NOT_IDENT = re.compile(r"[^\w-]")


def css_name(local: str) -> str:
    """An element's local name as a CSS selector writes it: a CSS identifier as it is, others' characters escaped
    (``Foo.Bar`` as ``Foo\\.Bar``)."""
    if _IDENT.fullmatch(local):
        return local
    escaped = _NOT_IDENT.sub(lambda m: "\\" + m.group(0), local)
    return ("\\3" + escaped[0] + " " + escaped[1:]) if escaped[:1].isdigit() else escaped


def selectable(content_type: str | None, shape: str | None) -> bool:
    """Whether an entry of ``content_type`` and stored ``shape`` is XML a ``select=`` read parses: its shape, told
    from the whole document, found it well-formed (a shape from a sample's start cannot tell: True)."""
    return content_type == "xml" and UNPARSED not in (shape or "")


def _parse(head: bytes) -> tuple[Any, Any]:
    """``(root element or None, the parser's error log)`` of the bytes ``head`` (a document's start, maybe cut)."""
    import lxml.etree

    from scratchfs.engine.structure.xml_select import xml_parser  # (lxml: at the first XML shape)

    parser = xml_parser(recover=True)  # (the select reads' safety settings)
    try:
        root = lxml.etree.fromstring(head, parser)
    except (lxml.etree.XMLSyntaxError, ValueError):
        root = None
    return root, parser.error_log


def _name(element: Any) -> str:
    """An element's name as the document writes it (``prefix:local`` or ``local``)."""
    tag = element.tag
    local = tag.rsplit("}", 1)[-1]
    return f"{element.prefix}:{local}" if element.prefix else local


def _paths(root: Any) -> tuple[dict[tuple[str, ...], int], dict[tuple[str, ...], list[tuple[str, ...]]]]:
    """``(counts, children)``: how many elements stand at each path under ``root`` (names below it, down to
    :data:`LEVELS`), and each path's child paths in the order they first come."""
    counts: dict[tuple[str, ...], int] = {}
    children: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    stack = [(root, ())]
    while stack:
        element, path = stack.pop()
        deeper = []
        for child in element:
            if not isinstance(child.tag, str):
                continue  # a comment, a processing instruction, an entity reference
            below = (*path, _name(child))
            if below not in counts:
                counts[below] = 0
                children.setdefault(path, []).append(below)
            counts[below] += 1
            if len(below) < LEVELS and len(child):
                deeper.append((child, below))
        stack.extend(reversed(deeper))  # (reversed onto the stack: walked in document order)
    return counts, children


def _listed(path: tuple[str, ...], counts: dict, children: dict, levels: int) -> str:
    """A path's last name, its count when over 1, and what stands under it (``levels`` deep at most): one child
    after ``" > "``, several between braces."""
    name = short_name(path[-1], 40)
    text = f"{name} ({counts[path]:,})" if counts[path] > 1 else name
    under = children.get(path, []) if len(path) < levels else []
    if not under:
        return text
    listed = [_listed(child, counts, children, levels) for child in under[:_CHILDREN]]
    if len(under) > _CHILDREN:
        listed.append(f"… {len(under) - _CHILDREN} more")
    return f"{text} > {listed[0]}" if len(listed) == 1 else f"{text} > {{{', '.join(listed)}}}"


def _selector(root_local: str, sample: bytes, counts: dict, children: dict) -> str | None:
    """The CSS selector a note reads first: a JUnit report's ``failure`` and ``error`` elements (found anywhere in
    ``sample``), else the shallowest repeated element (the most of them at that level), else the root's children
    (``None``: the root holds none)."""
    if root_local in _JUNIT_ROOTS:
        failed = [name for name in ("failure", "error") if re.search(rb"<(?:[\w.-]+:)?" + name.encode() + rb"[\s/>]",
                                                                    sample)]
        if failed:
            return ", ".join(failed)
    for level in range(1, LEVELS + 1):
        repeated = [path for path, count in counts.items() if len(path) == level and count > 1]
        if repeated:
            most = max(repeated, key=lambda path: counts[path])
            return css_name(most[-1].rsplit(":", 1)[-1])
    return ":root > *" if children.get(()) else None


def _at_end(error: Any, head: bytes) -> bool:
    """Whether libxml2's ``error`` stands at the end of ``head`` (its last line, past its last character: libxml2
    counts columns in characters) -- the document's elements run past it, cut short -- not inside it: a document of
    one line whose first error is at its column 8 is not cut short for being on its last line."""
    last = head[head.rfind(b"\n") + 1 :]
    return error.line > head.count(b"\n") and error.column > len(last.decode("utf-8", "replace"))


def xml_shape(sample: bytes, complete: bool, size: int, lines: int, root_name: str | None) -> tuple[str, str | None]:
    """``(shape text, selector)`` of the XML document ``sample`` starts (all of it when ``complete``; ``size``
    bytes and ``lines`` lines in all; ``root_name``: its root as the prolog scan found it): the root, its element
    paths with their counts (:func:`_listed`; in the first :data:`XML_SHAPE_BYTES`), the size and lines; and the
    selector its note reads first (:func:`_selector`). Never raises."""
    head = sample[:XML_SHAPE_BYTES]
    whole = complete and len(sample) <= XML_SHAPE_BYTES
    if head.rfind(b"<") > head.rfind(b">") >= 0:
        head = head[: head.rfind(b"<")]  # (a tag cut short would count as an element of its first letters)
    root, errors = _parse(head)
    name = short_name(root_name or (_name(root) if root is not None else "?"))
    tail = f"; {kib(size)}, {plural(lines, 'line')}"
    broken = next((e for e in errors if e.level_name in ("ERROR", "FATAL") and (
        whole or "depth" in e.message.lower())), None)  # (a sample's end cuts its elements: no error but depth's)
    if broken is not None:
        where = f"line {broken.line:,}, column {broken.column:,}; {UNPARSED}"
        tail += (f"; nested past 256 levels ({UNPARSED})" if "depth" in broken.message.lower() else
                 f"; cut short: its elements end before its root does ({where})" if _at_end(broken, head)
                 else f"; not well-formed at {where}")
    if root is None:
        return f"XML, root <{name}>{tail}", None
    counts, children = _paths(root)
    scope = "" if whole else ", " + first_of(len(head), size).strip()[1:-1]  # (", in the first 128 KiB of 2 MiB")
    text = f"XML, root <{name}>"
    for levels in range(LEVELS, 0, -1):
        under = [_listed(path, counts, children, levels) for path in children.get((), [])[:_CHILDREN]]
        if len(children.get((), [])) > _CHILDREN:
            under.append(f"… {len(children[()]) - _CHILDREN} more")
        text = f"XML, root <{name}>{scope}" + (f": {', '.join(under)}" if under else "")
        if len(text) + len(tail) <= shape_limit():
            break
    room = max(0, shape_limit() - len(tail))
    text = text if len(text) <= room else text[: room - 1] + "…"
    selector = None if broken is not None else _selector(name.rsplit(":", 1)[-1], sample, counts, children)
    return text + tail, selector
