"""hostile40: a diff's path quoted with a backslash before an 8 or a 9 (``"a/caf\\9.txt"``: no octal escape, which
git never writes, but a tool's output or a crafted text may) made the spill itself raise ValueError (``int(b'9',
8)``) while its shape read the path: a traceback for the caller, nothing stored. The digit is taken as itself now."""

from __future__ import annotations

from pathlib import Path

DIFF = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "git-diff-quoted-paths.txt"


def test_a_backslash_before_a_digit_past_7_in_a_quoted_path_is_that_digit(scratch_scope):
    text = DIFF.read_bytes()
    assert text.count(b"caf\\303\\251.txt") == 4
    stub = scratch_scope.spill(text.replace(b"caf\\303\\251.txt", b"caf\\9.txt"), source_tool="git")
    assert stub.shape.startswith("unified diff,") and "caf9.txt (line 1," in stub.shape, stub.shape
