"""The README's first screen says what scratchfs is and why one would use it, right after its two set-up commands
(the house rule: the README starts with them), in the words the Quick start then uses; and it quotes no figure
that goes stale with the next commit as if it were current."""

from __future__ import annotations

import re

from .conftest import FIXTURES

README = (FIXTURES.parent / "README.md").read_text(encoding="utf-8")


def test_the_readme_says_what_scratchfs_is_on_its_first_screen():
    """A newcomer read install commands and test timings for 20 lines before learning what the tool does: the
    two set-up commands come first, then a paragraph saying what it is, before the contents line."""
    opening = README[README.index("```", README.index("```") + 3) + 3 : README.index("**Contents**")]
    said = next(paragraph for paragraph in opening.split("\n\n") if paragraph.startswith("**What it is.**"))
    for term in ("LLM agents", "tool result", "handle", "stub", "read_handle", "scratchpad", "MCP"):
        assert term in said, term
    # the Quick start's terms are met there, not first in its code's comments
    assert README.index("stub") < README.index("**Contents**")
    assert README.split("\n")[2] == "On a fresh machine, from a clone of this repository (Python 3.10+):"


def test_every_test_count_the_readme_quotes_is_approximate_or_dated():
    """'9,213 tests' read as now while `--collect-only` counted 9,681, and 'test_cli.py: 150 tests' collected 151."""
    own = README[: README.index("**Contents**")] + README[README.index("\n## Development\n") :]  # this suite's
    counts = list(re.finditer(r"(\S+) ([\d,]+) tests\b", own))
    assert len(counts) >= 2
    for m in counts:
        dated = re.search(r"at `[0-9a-f]{7,}`", own[m.end() : m.end() + 160])
        assert m.group(1) == "about" or dated, m.group(0)
