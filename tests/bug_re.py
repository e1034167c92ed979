# ruff: noqa
"""The reproduction of helper brief regex1, as given (python tests/bug_re.py): (a?^()|a)*\\2 over "a\\na" repeated
was searched with matches where re.finditer finds none; now refused (tests/test_empty_iterations.py)."""
import random, sys, tempfile, pathlib
sys.path.insert(0, ".")
from tests.reference import regex_spans, windows
from tests.test_patterns import as_tuples, run_search, stopped_by_reach
from scratchfs.engine.search import PatternMatcher
from scratchfs import PatternTooLong, PatternTimeout
pattern = r"(a?^()|a)*\2"
rng = random.Random(1)
class F:
    def mktemp(self, n): return pathlib.Path(tempfile.mkdtemp())
for trial in range(3000):
    piece = "".join(rng.choice("ab\nx") for _ in range(rng.randint(1, 12))).encode()
    times = rng.randint(80, 300)
    ic = rng.random() < 0.5
    data = (piece * times)[:8192]
    ref = regex_spans(data, pattern, 0, ic)
    m = PatternMatcher(pattern, ic, timeout=5.0, reach=64)
    try:
        got = run_search(F().mktemp("s"), data, m, 0, 4, 400, budget=1 << 20)
    except (PatternTooLong, PatternTimeout) as e:
        continue
    if stopped_by_reach(got, ref, 64): continue
    if as_tuples(got) != windows(data, ref, 4, 400, budget=1 << 20):
        print("FAIL", piece, times, ic, len(ref)); 
        g = as_tuples(got); w = windows(data, ref, 4, 400, budget=1<<20)
        print(len(g), len(w)); print(g[:3]); print(w[:3]); break
else:
    print("no failure")
