"""Python 3.10's refusal of a possessive quantifier followed by another quantifier (helper hostile28): ``a+++``,
``a++?``, ``a*++``, ``a{2}++``, ``(?x)a++ ?`` were told "a possessive quantifier: Python 3.11's syntax; this is
3.10 ... the same match", but Python 3.11 refuses each of them too ("multiple repeat" at the quantifier after the
possessive ``+``): the rewrite it advised, ``(?=(a+))\\1+``, a pattern 3.11 has no match for. Now they are refused
as 3.10's parser words them (a ``+`` to write as ``\\+``, or the text as written); a possessive quantifier followed
by a literal ``{`` (``a++{``), a ``(?#...)`` comment and a text, or in verbose mode by a space and a text, is still
3.11's syntax."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.test_python310 import REFUSALS_SCRIPT, ROOT, python_310  # noqa: F401 - (the fixture)

_REFUSED_ON_311 = ["a+++", "a++?", "a*++", "a{2}++", "a?+*", "a{1,2}+{3}", "(?x)a++ ?", "(?x)a*+ #c\n+",
                   "a++(?#c)?", "(?:b|a)++*"]
_311_SYNTAX = ["a++{", "a++{x}", "a++(?#c)b", "(?x)a++ b", "a++ ?", "a*+b", "a?+", "a{2}+b"]


def test_a_possessive_quantifier_followed_by_a_quantifier_is_not_told_311s_syntax(python_310):  # noqa: F811
    done = subprocess.run([str(python_310), "-c", REFUSALS_SCRIPT], input=json.dumps(_REFUSED_ON_311 + _311_SYNTAX),
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    said = {pattern: text for pattern, _at, text, _rewrite in map(json.loads, done.stdout.splitlines())}
    assert set(said) == set(_REFUSED_ON_311 + _311_SYNTAX)
    told = {pattern for pattern, text in said.items() if "Python 3.11's syntax; this is 3.10" in text}
    assert told == set(_311_SYNTAX), sorted(told ^ set(_311_SYNTAX))
    assert said["a+++"].endswith("or write + as \\+ to keep it a pattern"), said["a+++"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.11's parser is the reference")
def test_the_reference_python_311_refuses_or_parses_them_as_the_test_says():
    from re import _parser

    for pattern in _REFUSED_ON_311:
        with pytest.raises(re.error, match="multiple repeat"):
            _parser.parse(pattern.encode(), re.MULTILINE)
    for pattern in _311_SYNTAX:
        _parser.parse(pattern.encode(), re.MULTILINE)
