"""``$`` at CRLF line ends: a pattern rewritten so that each ``$`` anchor also matches before the ``\\r\\n`` that
ends a line (Python's ``re`` matches ``$`` before a ``\\n`` only), for the search that found nothing in content
with CRLF line ends (:mod:`scratchfs.api.search_misses` names the rewrite in its note). The rewrite is checked against
the one parse of the pattern (:mod:`scratchfs.engine.pattern_syntax`): it is given only when it is exactly that.
Likewise ``^`` past a UTF-8 byte order mark, which stands before the first line of content that starts with one."""

from __future__ import annotations

from scratchfs.engine.pattern_syntax import (
    MAX_PATTERN_BYTES,
    SubPattern,
    class_end,
    class_members,
    op_name,
    parse,
    write_core,
)
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["BOM_START", "CRLF_END", "CRLF_END_EXACT", "bom_line_starts", "crlf_line_ends"]

BOM_START = "^(?:\\xef\\xbb\\xbf)?"
"""How :func:`bom_line_starts` writes ``^``: a line's start, past a UTF-8 byte order mark where one starts it."""

CRLF_END = "\\r?$"
"""How :func:`crlf_line_ends` writes ``$`` when nothing else in the pattern matches a ``\\r``."""
CRLF_END_EXACT = "(?!(?<=\\r)\\n)(?:\\r(?=\\n))?$"
"""... and when something may (``.``, ``[^a]``, ``\\s``: ``\\r?$`` let it take a CRLF's ``\\r``, and ``[^a]$`` found
the line ``a``), or the content ends in a lone ``\\r`` (``\\r?$`` took it: ``a$`` found ``a\\r``, where no line ends
after the ``a``): never between a ``\\r`` and its ``\\n``, a CRLF's ``\\r`` alone taken."""


def crlf_line_ends(pattern: str, ignore_case: bool, lone_cr_end: bool = False) -> str | None:
    """``pattern`` with each ``$`` anchor written to match at the end of a line ending in ``\\r\\n`` (``$`` matches
    before a ``\\n`` only): Python's ``re`` on the text with LF line ends finds the same (:data:`CRLF_END`, else
    :data:`CRLF_END_EXACT`: an item may match a ``\\r``, or ``lone_cr_end``, the content ends in one); ``None`` when
    it holds no ``$`` anchor, or when the rewrite is not exactly that (a ``$`` the scan cannot tell from the parse's:
    in a verbose-mode comment; a rewrite that does not compile: in a lookbehind, which must keep its width). Never
    raises."""
    try:
        tree = parse(pattern, ignore_case)
        written = CRLF_END_EXACT if lone_cr_end or _takes_cr(tree) else CRLF_END
        return _rewritten(pattern, ignore_case, "$", written, _anchors(tree, "AT_END"))
    except (InvalidArgument, RecursionError):
        return None


def bom_line_starts(pattern: str, ignore_case: bool) -> str | None:
    """``pattern`` with each ``^`` anchor written :data:`BOM_START`, for content that starts with a UTF-8 byte order
    mark (``EF BB BF``: Excel's "CSV UTF-8", PowerShell's ``Out-File -Encoding utf8``), where ``^`` never matches
    at the first line's first character, which follows the mark: Python's ``re`` on the text without its mark
    finds the same; ``None`` when it holds no ``^`` anchor (``[^a]`` and ``\\^`` are none), or when the rewrite is
    not exactly that (in a lookbehind, which must keep its width). Never raises."""
    try:
        return _rewritten(pattern, ignore_case, "^", BOM_START, _anchors(parse(pattern, ignore_case),
                                                                         "AT_BEGINNING"))
    except (InvalidArgument, RecursionError):
        return None


def _rewritten(pattern: str, ignore_case: bool, anchor: str, written: str, anchors: int) -> str | None:
    """``pattern`` with each ``anchor`` character outside escapes and classes written ``written``, when the scan
    finds as many as the parse's ``anchors`` (not so for one in a verbose-mode comment) and the result compiles
    within the pattern bounds; else ``None``. Raises InvalidArgument for a pattern that does not parse."""
    out, i, seen = [], 0, 0
    while anchors and i < len(pattern):
        if pattern[i] == "\\":
            end = i + 2
        elif pattern[i] == "[":
            end = class_end(pattern, i)
        else:
            end = i + 1
        out.append(written if pattern[i] == anchor else pattern[i:end])
        seen += pattern[i] == anchor
        i = end
    fixed = "".join(out)
    if not anchors or seen != anchors:  # (none, or not the scan's: an anchor in a verbose-mode comment)
        return None
    write_core(parse(fixed, ignore_case), MAX_PATTERN_BYTES)
    return fixed


def _takes_cr(tree) -> bool:
    """Whether an item of a parsed pattern (its groups, branches and lookarounds included) may match a ``\\r``."""
    for op, av in tree:
        name = op_name(op)
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            try:
                if 13 in class_members(name, av, 0):  # (flags: no case or DOTALL changes what matches a \r)
                    return True
            except InvalidArgument:  # (an item it cannot read: taken as one that may)
                return True
            continue
        stack = [av]
        while stack:
            item = stack.pop()
            if isinstance(item, SubPattern) and _takes_cr(item):
                return True
            if isinstance(item, (list, tuple)):
                stack.extend(item)
    return False


def _anchors(tree, kind: str) -> int:
    """How many anchors of ``kind`` (``AT_END``: ``$``, ``AT_BEGINNING``: ``^``) a parsed pattern holds, its groups,
    branches and lookarounds included."""
    count = 0
    for op, av in tree:
        if op_name(op) == "AT":
            count += op_name(av) == kind
            continue
        stack = [av]
        while stack:
            item = stack.pop()
            if isinstance(item, SubPattern):
                count += _anchors(item, kind)
            elif isinstance(item, (list, tuple)):
                stack.extend(item)
    return count
