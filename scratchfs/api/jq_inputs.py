"""Whether a jq filter calls the builtins ``input`` or ``inputs``, and the refusal of one that does: a structure read
runs jq on one JSON value at a time (the document, or each JSON-lines record alone), where they see nothing.

The filter is tokenised (names, brackets, commas and colons; strings and comments passed over), not parsed: enough to
tell the builtin from a field (``.input``), a variable (``$input``) and an object's key (``{input: 1}`` and the
shorthand ``{input, output}``, jq 1.7's manual, Object Construction).
"""

from __future__ import annotations

import re

from scratchfs.foundation.errors import InvalidArgument

__all__ = ["PLACEHOLDER", "calls_inputs", "refuse_inputs"]

PLACEHOLDER = "JQ"
"""What a stub's note writes for the jq filter of the model's own (``read_handle(..., jq="JQ", slurp=true)``)."""

_JQ_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|#[^\n]*')  # a jq string literal or comment (no input call inside)
_JQ_TOKEN = re.compile(r"[$.@]?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*|[{}()\[\],:]")  # names and what nests or parts them


def calls_inputs(filter: str) -> bool:
    """Whether jq ``filter`` calls the builtin ``input`` or ``inputs``: the name standing alone, not a field
    (``.input``), a variable (``$input``) nor an object's key (``{input: 1}``, and the shorthand ``{input, output}``
    for ``{input: .input, output: .output}``), which stands first in an object or after one of its commas; strings
    and comments are passed over. Source: jq 1.7's manual (Object Construction)."""
    braces: list[list] = []  # what encloses the token: [bracket, a key stands next (objects)]
    for token in _JQ_TOKEN.findall(_JQ_STRING.sub('""', filter)):
        if token in "{([":
            braces.append([token, token == "{"])
        elif token in ")]}":
            if braces:
                braces.pop()
        elif token in ",:":
            if braces and braces[-1][0] == "{":
                braces[-1][1] = token == ","
        elif braces and braces[-1][0] == "{" and braces[-1][1]:
            braces[-1][1] = False  # (a key: a name, $name or @format)
        elif token in ("input", "inputs"):
            return True
    return False


def refuse_inputs(filter: str, slurping: bool = False) -> None:
    """Refuse a jq ``filter`` that calls ``input`` or ``inputs``: a structure read runs jq on one JSON value at a
    time (the document, or each JSON-lines record alone), where they see nothing -- a ``reduce inputs`` over JSON
    lines gave a page of ``{}`` per record (``slurping``: a slurp read, whose ``.`` is the array of them all).
    Raises InvalidArgument naming the reads that do work. (``JQ``, the placeholder a stub's note writes for the
    model's own filter, calls neither: its refusal, which needs the entry, is
    :func:`~scratchfs.api.jq_placeholder.placeholder_refusal`'s.)"""
    if not calls_inputs(filter):
        return
    if slurping:
        raise InvalidArgument("with slurp=true, . is already the array of all the records (rows): use . where "
                              '[inputs] was meant (e.g. jq="group_by(.unit) | map({unit: .[0].unit, n: length})")')
    raise InvalidArgument(
        "jq runs on one JSON value at a time here (the document, or each JSON-lines record alone): input and "
        "inputs see nothing. To aggregate over all the records of JSON lines or the rows of a table, run the "
        'filter once over their array with slurp=true (jq="group_by(.unit) | map({unit: .[0].unit, n: length})", '
        "slurp=true; a bounded size); or count the records holding a value with count=true and match= or pattern=")
