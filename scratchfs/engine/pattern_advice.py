"""What a refusal of a pattern that does not parse advises: the text as written (``match=``), or the pattern with
the special character where the parse failed escaped -- for :func:`scratchfs.engine.pattern_syntax.parse`'s refusal
and for a layer that names those two calls (:func:`as_written`)."""

from __future__ import annotations

import re
import sys

from scratchfs.foundation.errors import BadPattern

try:
    from re import _parser as _sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]

__all__ = ["AS_WRITTEN", "AS_WRITTEN_REWRITE", "POSIX_CLASS", "POSIX_REWRITE", "as_written", "as_written_advice",
           "posix_written", "unparsed"]

AS_WRITTEN = "; match= finds the text as it is written"
"""How the advice of :func:`as_written_advice` starts."""
POSIX_CLASS = "a POSIX class such as [:alpha:]"
"""Words of the refusal of a ``[`` inside a class."""
AS_WRITTEN_REWRITE = "as written"
"""The :attr:`~scratchfs.foundation.errors.BadPattern.rewrite` of a refusal that holds :func:`as_written_advice`'s
advice: one :func:`as_written` answers."""
POSIX_REWRITE = "posix"
"""The :attr:`~scratchfs.foundation.errors.BadPattern.rewrite` of the refusal of a ``[`` inside a class: one
:func:`posix_written` answers."""
_POSIX = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z", "space": "\\s",
          "xdigit": "0-9A-Fa-f", "word": "\\w", "blank": " \\t", "punct": "!-/:-@\\[-`{-~", "cntrl": "\\x00-\\x1f\\x7f",
          "print": " -~", "graph": "!-~"}
_POSIX_RE = re.compile(r"\[:(" + "|".join(_POSIX) + r"):\]")

_SPECIAL = "()[]{}*+?|"  # the characters a pattern written as plain text most often leaves unescaped


def as_written_advice(source: bytes, position: int | None, flags: int) -> str:
    """What a pattern (its UTF-8 ``source``, parsed with ``flags``) that does not parse at a special character (byte
    ``position``) may have meant, for the refusal's end: the text as it is written, which ``match=`` finds
    (``pattern="wait_for("`` is a call's name and its parenthesis, not a group left open), or the character escaped
    (``\\(``, :func:`as_written`); ``""`` for another fault, and for one that escaping the character leaves where it
    is (``[*-$]``, a range reversed in a class; ``(?-{``, a flag missing): advice followed to the same refusal is
    none."""
    if _escaped(source, position, flags) is None:
        return ""
    at = chr(source[position])  # type: ignore[index]
    return f"{AS_WRITTEN} (no regular expression), or write {at} as \\{at} to keep it " \
        "a pattern"


def unparsed(exc: re.error, source: bytes, flags: int) -> BadPattern:
    """The refusal of a pattern (its UTF-8 ``source``, parsed with ``flags``) that does not parse (``re``'s
    ``exc``): ``re``'s words and :func:`as_written_advice`'s, its ``rewrite`` :data:`AS_WRITTEN_REWRITE` when that
    advises (else ``None``). On Python 3.10, an atomic group or a possessive quantifier (3.11's syntax) is told so,
    with the same match written without it (and for an atomic group nothing else: its ``?`` escaped, the advice
    before, made ``(\\?>X)`` a group of the text ``?>X``, no atomic group)."""
    advice = as_written_advice(source, exc.pos, flags)
    rewrite = AS_WRITTEN_REWRITE if advice else None
    newer = _newer_syntax(exc, source) if sys.version_info < (3, 11) else None
    if newer == "atomic":
        advice, rewrite = _ATOMIC_310, None
    elif newer == "possessive":  # (a + as itself, as in g++, is as likely: the advice of the text as written stays)
        advice = _POSSESSIVE_310 + advice
    return BadPattern(f"pattern does not compile: {exc}{advice}", rewrite)


_ATOMIC_310 = (" (an atomic group: Python 3.11's syntax; this is 3.10): write (?>X) as (?=(X))\\N, the same match, N "
               "the new group's number (later groups one more)")
_POSSESSIVE_310 = (" (a possessive quantifier: Python 3.11's syntax; this is 3.10): write X*+ as (?=(X*))\\N, the same "
                   "match, N the new group's number (later groups one more)")


def _newer_syntax(exc: re.error, source: bytes) -> str | None:
    """What a refusal by Python 3.10's parser (``exc``, of ``source``) is of that 3.11's parses: ``"atomic"``, an
    atomic group ``(?>...)``; ``"possessive"``, a quantifier followed by ``+`` (``a*+``, ``a?+``, ``a{2}+``; not
    after a lazy one, ``a*?+``, nor before another quantifier, ``a+++``, which 3.11 refuses too); else ``None``."""
    position = exc.pos
    if position is None or exc.msg not in ("multiple repeat", "unknown extension ?>"):
        return None
    if exc.msg != "multiple repeat":
        return "atomic" if source[position:position + 2] == b"?>" else None
    if source[position:position + 1] != b"+":
        return None
    tokens = _tokens(source[:position])  # (an escape such as \? is one token)
    if not tokens or tokens[-1] not in ("*", "+", "?", "}"):  # (a space or a comment between, in verbose mode)
        return None
    lazy = tokens[-1] == "?" and len(tokens) > 1 and (tokens[-2] in ("*", "+", "?") or _counted(tokens[:-1]))
    return None if lazy or _requantified(source, position) else "possessive"


_IGNORED_RE = re.compile(rb"(?:\s|#[^\n]*(?:\n|\Z)|\(\?#[^)]*\))*")  # (what 3.11 passes over before the next item)


def _requantified(source: bytes, position: int) -> bool:
    """Whether the possessive ``+`` at byte ``position`` of ``source`` is followed by another quantifier (``a+++``,
    ``a++?``, ``a*+{2}``; in verbose mode after blanks or comments), which 3.11 refuses too ("multiple repeat"):
    ``?`` right after it, or 3.10's "multiple repeat" where the ``+`` taken away leaves the quantifier before it
    followed, past what the parser passes over (a comment), by another."""
    if source[position + 1:position + 2] == b"?":  # (3.10 reads "+?" without it as lazy: 3.11 refuses)
        return True
    without = source[:position] + source[position + 1:]
    try:
        _sre_parse.parse(without)
    except re.error as exc:
        return (exc.msg == "multiple repeat" and exc.pos is not None
                and _IGNORED_RE.fullmatch(without, position, exc.pos) is not None)
    except Exception:  # (a parser's limit: told as before)
        return False
    return False


def _tokens(source: bytes) -> list[str]:
    """``source`` as the parser's tokens (a character, or an escape and what it escapes)."""
    tokenizer, tokens = _sre_parse.Tokenizer(source), []
    while tokenizer.next is not None:
        tokens.append(tokenizer.get())
    return tokens


def _counted(tokens: list[str]) -> bool:
    """Whether ``tokens`` end with a counted repeat's ``{m,n}`` (digits and at most one comma between the braces)."""
    if tokens[-1] != "}" or "{" not in tokens:
        return False
    inside = "".join(tokens[len(tokens) - tokens[::-1].index("{"):-1])
    return re.fullmatch(r"\d*,?\d*", inside) is not None and inside != ""


def _escaped(source: bytes, position: int | None, flags: int) -> bytes | None:
    """``source`` with its special character at ``position`` escaped, when that takes the parse's fault away from
    there (:func:`as_written_advice`), else ``None``."""
    if position is None or not 0 <= position < len(source) or chr(source[position]) not in _SPECIAL:
        return None
    escaped = source[:position] + b"\\" + source[position:]
    try:
        _sre_parse.parse(escaped, flags)
    except re.error as again:
        return None if again.pos in (position, position + 1) else escaped  # (the same place: no advice)
    except Exception:  # (a parser's limit, which the refusal of the pattern as given names: no advice)
        return None
    return escaped


def as_written(pattern: str, ignore_case: bool) -> str | None:
    """The pattern :func:`~scratchfs.engine.pattern_syntax.parse`'s refusal of ``pattern`` (parsed as it parses it:
    ``re.MULTILINE``, ``re.IGNORECASE`` with ``ignore_case``) advises (``"wait_for("`` -> ``"wait_for\\("``: the
    character where it does not parse escaped; ``match=pattern`` then finds the text as written), else ``None`` (it
    parses, or fails otherwise). Never raises."""
    flags, source = re.MULTILINE | (re.IGNORECASE if ignore_case else 0), pattern.encode("utf-8", "replace")
    try:
        _sre_parse.parse(source, flags)
    except re.error as exc:
        return None if (escaped := _escaped(source, exc.pos, flags)) is None else escaped.decode("utf-8", "replace")
    except Exception:  # (a parser's limit: no such advice)
        return None
    return None


def posix_written(pattern: str) -> str | None:
    """``pattern`` with each POSIX class in a class written as the ASCII ranges it stands for (``[[:alpha:]_]+`` ->
    ``[a-zA-Z_]+``, ``[[:space:]]`` -> ``[\\s]``), which the refusal of ``[`` inside a class advises; ``None`` when
    it holds none, or still does not parse. Never raises."""
    written = _POSIX_RE.sub(lambda found: _POSIX[found[1]], pattern)
    if written == pattern or "[:" in written or "[[" in written:
        return None
    try:
        _sre_parse.parse(written.encode("utf-8", "replace"), re.MULTILINE)
    except Exception:  # (re.error, a parser's limit: no such advice)
        return None
    return written
