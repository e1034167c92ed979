"""A search of terminal output's text view (``match=`` with ``view="text"``,
:class:`~scratchfs.engine.structure.terminal_match.RenderedMatcher`) against the same pattern with its first
character as a literal (the search's prefilter then runs the engine at each place that byte stands) and against a
plain substring search of the stored bytes (what a search without ``view`` costs; it finds less), the three
alternating in one process, medians printed:

    python bench/terminal_search.py [REPS]      # default 5

Content: ``grep --color=always -n 'def '`` output of the fixture (GNU grep's colours) and an nroff page (bold
``X\\bX`` headings and options, underlined ``_\\bx`` arguments), each repeated to about 4 MiB; each search runs to
the end (``max_matches`` past the matches there are) or stops at its 20th match. Last, the cost of making the
matcher of a needle (its pattern is about 1 KiB a character): cold (compiled) and kept (a next page's, from
:func:`~scratchfs.engine.patterns.compiled_pattern`).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.engine.patterns import compiled_pattern
from scratchfs.engine.search import LiteralMatcher, PatternMatcher
from scratchfs.engine.structure.terminal_match import RenderedMatcher, rendered_needle_pattern
from scratchfs.engine.structure.text_search import search_text

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "workspace-grep-stdlib-defs.txt"
SIZE = 4 * 1024 * 1024


def grep_colour() -> bytes:
    out = []
    for number, line in enumerate(FIXTURE.read_bytes().splitlines(), 1):
        if b"def " in line:
            marked = line.replace(b"def ", b"\x1b[01;31m\x1b[Kdef \x1b[m\x1b[K")
            out.append(b"\x1b[32m\x1b[K%d\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K%s\n" % (number, marked))
    return b"".join(out)


def nroff() -> bytes:
    out = []
    for i, line in enumerate(FIXTURE.read_text().splitlines()):
        words = line.split(" ")
        styled = [("".join(f"{c}\b{c}" for c in w) if k % 3 == 0 else "".join(f"_\b{c}" for c in w) if k % 3 == 1
                   else w) for k, w in enumerate(words)]
        out.append(("".join(f"{c}\b{c}" for c in "SECTION") + "\n" if i % 100 == 0 else "") + " ".join(styled))
    return ("\n".join(out) + "\n").encode()


def _time(raw: bytes, matcher: object, most: int) -> tuple[float, int]:
    started = time.perf_counter()
    found = search_text(raw, matcher, 0, 0, most, 10**9)  # type: ignore[arg-type]
    return time.perf_counter() - started, sum(len(w.matches) for w in found.windows)


def main(reps: int) -> None:
    for name, content in (("grep --color", grep_colour()), ("nroff", nroff())):
        raw = content * (SIZE // len(content) + 1)
        print(f"{name}: {len(raw) / 2**20:.1f} MiB")
        for needle, most in (("zzzq", 10**6), ("hook", 10**6), ("the", 20), ("return value", 10**6)):
            ways = {"rendered (no prefilter)": lambda n=needle: RenderedMatcher(n, False, 60),
                    "rendered, first byte prefiltered": lambda n=needle: PatternMatcher(
                        rendered_needle_pattern(n)[1:].replace("(?!\\x08))", "(?!\\x08)", 1), False,
                        timeout=60),
                    "substring of the stored bytes": lambda n=needle: LiteralMatcher(n.encode())}
            times: dict[str, list[float]] = {way: [] for way in ways}
            counts: dict[str, int] = {}
            for _ in range(reps):
                for way, make in ways.items():
                    seconds, counts[way] = _time(raw, make(), most)
                    times[way].append(seconds)
            base = statistics.median(times["rendered (no prefilter)"])
            for way in ways:
                median = statistics.median(times[way])
                print(f"  {needle!r:16} {way:34} {median * 1000:8.1f} ms  {counts[way]:7,} matches  "
                      f"{median / base:5.2f}x")
    print("making a needle's matcher (median of REPS):")
    for length in (8, 12, 30, 70):
        needle = ("return value of the call " * 3)[:length]
        cold, kept = [], []
        for _ in range(reps):
            compiled_pattern.cache_clear()
            for times_ in (cold, kept):
                started = time.perf_counter()
                RenderedMatcher(needle, False, 60)
                times_.append(time.perf_counter() - started)
        print(f"  {length:3} characters: cold {statistics.median(cold) * 1000:7.2f} ms, kept "
              f"{statistics.median(kept) * 1000:7.3f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
