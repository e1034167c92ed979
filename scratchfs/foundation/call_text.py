"""A call as text -- a reply's ``next_call``, a stub's note -- read back as the tool's name and its arguments
(:func:`parse_call`), by Python's own parser, never evaluated: every face that writes calls can read them (the
adapter hands them to a program, the CLI prints the command a reply's ``next_call`` stands for).
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
from typing import Any

from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.text import one_line, shorten

_MAX_CALL_CHARS = 1 << 20
"""The longest call text :func:`parse_call` reads (a ``next_call`` fits a reply: 64 KiB at most)."""
_NAMES = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
"""The bare names :func:`parse_call` reads as values: Python's and JSON's (a model may write either)."""
_MAX_OPERATORS = 1000
"""The most operators (``+``, ``.``, ``not``, a call's or subscript's bracket: what nests one node of Python's syntax
tree in another) :func:`parse_call` hands to Python's parser; a call of values has none but its own ``(`` and signs.
Python 3.10 builds the tree of ``f(a=1+1+...)`` 200,000 deep and crashes (a segmentation fault: no recursion check
there), where 3.11 raises RecursionError some 3,000 deep."""
_MAYBE_OPERATOR = re.compile(r"[-+*/%@&|^~<>!.]|\b(?:not|and|or|if|else|lambda|await|in|is|for|yield)\b"
                             r"|[\w)\]}]\s*[(\[]")
"""What may be an operator of :data:`_MAX_OPERATORS`, in text not yet tokenized (a string's characters too)."""
_FLAT = frozenset({",", "=", ":", ")", "]", "}"})
"""The operator tokens that nest nothing."""


def parse_call(text: object) -> tuple[str, dict[str, Any]]:
    """A call as a reply's ``next_call`` (or a stub's note) writes it, as the tool's name and its arguments:
    ``parse_call('read_handle(handle="h_...", offset=4096, length=4096)')`` is ``("read_handle", {"handle": "h_...",
    "offset": 4096, "length": 4096})``, ready for :meth:`Offloader.call_scratch_tool` or an MCP ``call_tool``.

    Read by Python's own parser (:mod:`ast`), never evaluated: keyword arguments only, each a string (either quote,
    every escape: the JSON string literals ``next_call`` writes are Python's too), an integer, a float, ``True`` /
    ``False`` / ``None`` (or JSON's ``true`` / ``false`` / ``null``), a list (JSON's, as ``columns=`` is written) or
    an object of those. Every call scratchfs writes comes back as the arguments that made it.

    Raises:
        InvalidArgument: ``text`` is not text, is longer than 1 MiB, or is not one call of a plain name with keyword
            arguments of those values (a positional argument, ``**``, an expression, an argument given twice), or
            holds more than 1,000 operators (:data:`_MAX_OPERATORS`: deeper than Python 3.10 can parse safely).
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"a call must be text, not {type(text).__name__}: {shorten(text)}")
    if len(text) > _MAX_CALL_CHARS:
        raise InvalidArgument(f"a call of {len(text):,} characters is longer than the limit of {_MAX_CALL_CHARS:,}")
    if _operators(text) > _MAX_OPERATORS:
        raise InvalidArgument(f"not a call parse_call reads: {shorten(text)}: more than {_MAX_OPERATORS:,} operators "
                              f"(a call of values has none)")
    try:
        call = ast.parse(text.strip(), mode="eval").body
        if (not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.args
                or any(k.arg is None for k in call.keywords)):
            raise InvalidArgument("expected NAME(argument=value, ...), keyword arguments only")
        arguments: dict[str, Any] = {}
        for keyword in call.keywords:
            if keyword.arg in arguments:
                raise InvalidArgument(f"the argument {keyword.arg} is given twice")
            arguments[str(keyword.arg)] = _value(keyword.value)
    except InvalidArgument as exc:
        raise InvalidArgument(f"not a call parse_call reads: {shorten(text)}: {exc}") from None
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:  # (a lone surrogate: UnicodeEncodeError)
        raise InvalidArgument(f"not a call parse_call reads: {shorten(text)}: {type(exc).__name__}: "
                              f"{one_line(str(exc))[:200]}") from None
    return call.func.id, arguments


_CALL_START = re.compile(r"(?<![\w.])(?:read_handle|scratch_read|scratch_write|scratch_list|scratch_delete)\(")
"""Where a call of one of the tools starts in text (a stub's note: ``Next: read_handle(...) | ...``)."""


def calls_in(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Each call of a scratchfs tool ``text`` writes (a stub's note: ``Next: read_handle(handle="h_...",
    offset=451) | read_handle(handle="h_...", line=-50)``), in order, as :func:`parse_call` reads it: the tool's
    name and its arguments. A call's strings are JSON string literals (a tool's name, a bracket or ``|`` inside one
    is no call's start or end); text that starts as a call and does not parse as one is skipped (no error): ``[]``
    for text that names no call."""
    found: list[tuple[str, dict[str, Any]]] = []
    done = 0
    for start in _CALL_START.finditer(text):
        if start.start() < done:  # (inside a call read already: a pattern="read_handle(" value)
            continue
        end = _call_end(text, start.end())
        if end is None:
            continue
        try:
            found.append(parse_call(text[start.start():end]))
        except InvalidArgument:
            continue
        done = end
    return found


def _call_end(text: str, at: int) -> int | None:
    """The index just past the ``)`` that closes the call whose arguments start at ``at`` in ``text`` (brackets
    counted outside double-quoted strings, a backslash escaping the next character in one), ``None`` when none
    does."""
    depth, index, quoted = 1, at, False
    while index < len(text):
        char = text[index]
        if quoted:
            if char == "\\":
                index += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return None


def _operators(text: str) -> int:
    """How many of ``text``'s tokens may nest one node of its syntax tree in another (see :data:`_MAX_OPERATORS`),
    counted up to one past the limit: an operator but a sign of a number, a keyword but a value's name, a bracket after
    an operand (a call's, a subscript's), an f-string's operators (its expressions). Text that does not tokenize
    counts what came before its error (Python's parser says what is wrong with it). Tokenized only when more than
    the limit of characters that may be operators are found (Python's tokenizer is slow: 1 s for 100,000 tokens)."""
    if sum(1 for _ in _MAYBE_OPERATOR.finditer(text)) <= _MAX_OPERATORS:
        return 0
    count, before = 0, None
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            count += _nests(token, before)
            if count > _MAX_OPERATORS:
                break
            before = token
    except (tokenize.TokenError, SyntaxError):
        pass
    return count


def _nests(token: tokenize.TokenInfo, before: tokenize.TokenInfo | None) -> int:
    """How many operators of :func:`_operators` ``token`` (after ``before``) is."""
    after_operand = before is not None and (before.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING)
                                            or before.string in (")", "]", "}"))
    if token.type == tokenize.OP and token.string not in _FLAT:
        if token.string in "([{" or token.string in "+-":  # (a sign, not an operator, after "(", "=", "," ...)
            return int(after_operand or (token.string in "+-" and before is not None and before.type == tokenize.OP
                                         and before.string not in "([{,=:"))
        return 1
    if token.type == tokenize.NAME and keyword.iskeyword(token.string) and token.string not in _NAMES:
        return 1
    if token.type == tokenize.STRING and "f" in token.string[:3].lower():
        return sum(1 for _ in _MAYBE_OPERATOR.finditer(token.string))
    return 0


def _value(node: ast.expr) -> Any:
    """The value a node of :func:`parse_call`'s call writes. Raises InvalidArgument for any other expression."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (str, int, float))):
        return node.value  # (a bool is an int; bytes, complex numbers and ... are not values)
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        return {k.value: _value(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[union-attr]
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and isinstance(node.operand,
            ast.Constant) and type(node.operand.value) in (int, float)):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    raise InvalidArgument(f"{shorten(ast.unparse(node))} is not a value (a string, number, True/False/None or a list)")


__all__ = ["calls_in", "parse_call"]
