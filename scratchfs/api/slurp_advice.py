"""What a slurp read over its size bound advises instead: a paged read that means what the slurp's filter meant.

A slurp read runs its jq filter once over the ARRAY of all the records (rows, documents); a paged read runs a filter
on each record alone (a rows read takes none). The slurp's filter reused per record fails or means something else
(``length`` is then each record's key count, ``group_by(.unit)`` fails on an object), so the advice is made from
the filter given (:func:`paged_instead`):

* ``.[]`` -- every record: the paged read without a filter;
* ``.[] | X`` and ``[.[] | X]`` -- ``X`` on each record, said so; ``map(X)`` -- ``X`` on each record, its outputs
  one by one where the slurp gave one array;
* ``length`` -- a count read (``count=true`` with a pattern matching each non-blank line once: its ``lines``);
* anything else (``group_by``, ``sort_by``, ``add``, ...) -- no per-record equivalent, said so, and the paged read
  without a filter named.

A rows read (CSV/TSV, a table aligned by spaces) takes no jq: ``X`` per row is named only when it picks one column
(``.[] | .name``: ``columns=["name"]``); else the words say to apply ``X`` to each row read.
"""

from __future__ import annotations

import re

from scratchfs.foundation.calls import Advice, Call

__all__ = ["paged_instead", "per_record"]

EACH_LINE = r"\S.*"
"""A pattern matching each line that holds a non-space character once (``.`` stops at a line end): a count read's
``lines`` with it is the non-blank lines, the records of JSON lines as ``record=`` numbers them."""
_PAGE = 10000
"""Records or rows a page of the advised reads asks for (fewer come when the budget fills first)."""
_NAME = re.compile(r'\.(?:([A-Za-z_][A-Za-z0-9_]*)|"((?:[^"\\]|\\.)*)")')
"""A jq path of one key: ``.name`` or ``."a name"``."""


def _top(filter: str) -> list[tuple[int, str]] | None:
    """``(position, character)`` of each character of ``filter`` outside strings, comments and brackets (jq's string
    interpolation ``\\(...)`` followed); ``None`` when its brackets or strings do not close (a filter jq refuses)."""
    out: list[tuple[int, str]] = []
    stack: list[str] = []  # ('q' in a string, '(' / '[' / '{' in brackets, 'i' in an interpolation)
    i = 0
    while i < len(filter):
        c = filter[i]
        if stack and stack[-1] == "q":
            if c == "\\" and filter[i + 1:i + 2] == "(":
                stack[-1:] = ["q", "i"]
                i += 1
            elif c == "\\":
                i += 1
            elif c == '"':
                stack.pop()
        elif c == '"':
            stack.append("q")
        elif c == "#":  # a comment, to the line's end
            end = filter.find("\n", i)
            i = len(filter) if end < 0 else end
            continue
        elif c in "([{":
            stack.append(c)
        elif c in ")]}":
            opened = {")": "(i", "]": "[", "}": "{"}[c]
            if not stack or stack[-1] not in opened:
                return None
            stack.pop()
        elif not stack:
            out.append((i, c))
        i += 1
    return None if stack else out


def _called(filter: str, name: str) -> str | None:
    """The argument of ``filter`` when it is the one call ``name(ARG)``, else ``None``."""
    if not filter.startswith(f"{name}(") or not filter.endswith(")"):
        return None
    inner = filter[len(name) + 1:-1]
    return inner.strip() if _top(inner) is not None else None


def per_record(filter: str, unit: str = "record") -> tuple[str | None, str]:
    """``(the filter to run on each record -- "." for every record whole --, or None when the slurp's filter has no
    per-record equivalent; what the slurp filter's parts mean per record, a clause). ``unit``: what the array holds
    ("record", "row", "document")."""
    text = filter.strip()
    if text in (".[]", "[.[]]"):
        return ".", f"every {unit}"
    if text == "length":
        return None, f"the count of the {unit}s"
    if text.startswith("[") and text.endswith("]") and _top(text[1:-1]) is not None:
        inner = text[1:-1].strip()
        if inner.startswith(".[]"):
            text = inner  # ([.[] | X]: X on each record, its outputs gathered)
    mapped = _called(text, "map")
    if mapped is not None:
        return mapped, (f"map({_short(mapped)}) runs {_short(mapped)} on each {unit} (a read of each gives its "
                        "outputs one by one, not as one array)")
    if text.startswith(".[]"):
        pipes = [at for at, c in _top(text) or () if c == "|"]
        if pipes and text[3:pipes[0]].strip() == "" and text[pipes[0] + 1:pipes[0] + 2] != "=":  # (not |=)
            each = text[pipes[0] + 1:].strip()
            return each, f".[] | {_short(each)} runs {_short(each)} on each {unit}"
    return None, f"{_short(text)} runs over the array of all the {unit}s"


def _short(text: str, most: int = 60) -> str:
    """``text`` cut to ``most`` characters, ``…`` at the cut."""
    return text if len(text) <= most else f"{text[:most - 1]}…"


def paged_instead(handle: str, filter: str, form: str) -> Advice:
    """The advice of a slurp read of ``handle`` refused for its size: the paged read that does what ``filter`` did
    per record (``form``: ``"records"`` JSON lines, ``"documents"`` JSON texts one after another, ``"rows"`` or
    ``"arrays"`` a table), or a count read for ``length``, or, for a filter with no per-record equivalent, words
    saying so and the paged read of every record or row."""
    if filter.strip() == "length":
        return _count(handle, form)
    unit = {"records": "record", "documents": "document"}.get(form, "row")
    each, said = per_record(filter, unit)
    if each is None:
        return Advice.of(f"{said}, which no read of one {unit} at a time does (group_by, sort_by, add and the like "
                         f"need every {unit} at once): page the {unit}s and combine them yourself: ",
                         _every(handle, form), ", or count those holding a value with count=true and match= or "
                         "pattern=")
    if each == ".":
        return Advice.of(f"read {said} in pages: ", _every(handle, form))
    if form == "records":
        return Advice.of(f"{said}: ", Call.of("read_handle", handle=handle, record=1, records=_PAGE, jq=each))
    if form == "documents":
        return Advice.of(f"{said}: ", Call.of("read_handle", handle=handle, jq=each))
    name = _NAME.fullmatch(each)
    if name is not None and form == "rows":
        column = name.group(1) if name.group(1) is not None else re.sub(r"\\(.)", r"\1", name.group(2))
        return Advice.of(f"{said}, the column {column!r}: ",
                         Call.of("read_handle", handle=handle, row=1, rows=_PAGE, columns=[column]))
    return Advice.of(f"{said}, and a rows read takes no jq filter: read the rows and apply {_short(each)} to each "
                     "yourself: ", _every(handle, form))


def _every(handle: str, form: str) -> Call:
    """The paged read of every record (row, document) of ``handle`` whole."""
    if form == "records":
        return Call.of("read_handle", handle=handle, record=1, records=_PAGE)
    if form == "documents":
        return Call.of("read_handle", handle=handle, jq=".")
    return Call.of("read_handle", handle=handle, row=1, rows=_PAGE)


def _count(handle: str, form: str) -> Advice:
    """The advice for ``length``: a count read of the non-blank lines (records of JSON lines; lines of a table)."""
    call = Call.of("read_handle", handle=handle, pattern=EACH_LINE, count=True)
    if form == "records":
        return Advice.of("length is the count of the records; its 'lines' counts them (the non-blank lines): ", call)
    if form == "documents":
        return Advice.of("length is the count of the documents, which no count read gives (a document spans "
                         "lines); the stub's shape names how many, or page them: ", _every(handle, form))
    less = ", less 1 for the header line" if form == "rows" else ""
    return Advice.of(f"length is the count of the rows; its 'lines' counts the non-blank lines{less} (a quoted "
                     "cell holding a line end adds lines): ", call)
