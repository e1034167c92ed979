"""Shapes met by a model answering real questions over real outputs of this machine (helper brief modeltask13):
each test is one question a stub now answers that took the model pages of reads."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path

from scratchfs.api.shape import describe
from scratchfs.api.shape_testrun import runner_shape

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def _stat_files(data: bytes) -> Counter[str]:
    """Each file of a ``git log --stat``'s commits, counted once a commit (its stat line: the path, ``|``)."""
    return Counter(line.split(" | ")[0].strip() for line in data.decode().splitlines()
                   if line.startswith(" ") and " | " in line and not line.startswith("    "))


def test_a_git_log_stat_names_the_files_most_commits_changed():
    """``git log --stat -300``: "which file did most commits touch?" took a search of every stat line (match=" | ",
    42 calls, 139 KB of windows, each naming its commit). The shape names the files changed in most commits, with
    their counts, and how many files the log touches."""
    data = (FIXTURES / "git-log-stat-80.txt").read_bytes()
    counts = _stat_files(data)
    shape = shape_of(data)
    (top, n), (second, m) = counts.most_common(2)
    assert (top, n, second, m) == ("README.md", 19, "scratchfs/api/encodings.py", 7)
    assert f"of its {len(counts)} files, changed in most commits: {top} ({n} commits), {second} ({m})," in shape, \
        shape


def test_a_git_log_name_status_names_them_too():
    """``--name-status`` lists each commit's files too: the same count."""
    data = (FIXTURES / "git-log-name-status-8.txt").read_bytes()
    counts = Counter(line.split("\t")[-1] for line in data.decode().splitlines()
                     if line[:1] in "ACDMRTUX" and "\t" in line)
    top, n = counts.most_common(1)[0]
    assert n > 1
    assert f"changed in most commits: {top} ({n} commits)" in shape_of(data), shape_of(data)


def test_a_log_whose_files_each_changed_once_says_no_most():
    """A file changed by one commit alone is no answer to 'changed most': nothing is said."""
    data = b"".join(b"commit %040x\nAuthor: A <a@b>\nDate:   Tue Dec 8 01:41:51 2026 +0000\n\n    c%d\n\n"
                    b" f%d.py | 1 +\n 1 file changed, 1 insertion(+)\n\n" % (i, i, i) for i in range(3))
    shape = shape_of(data)
    assert shape.startswith("git log, ") and "most commits" not in shape, shape


def test_a_collection_past_the_sample_is_told_by_its_files():
    """``pytest --collect-only -q`` of this repository: 10,776 node ids, 1.1 MB, its count on its last line. Its
    first 512 KiB (the sample a shape reads) hold no count, and it was told 'text, 10,778 lines': no word of tests
    or of its files. It is a collection now, told by the files of the sample (each's first test's line)."""
    data = (FIXTURES / "pytest-collect-only-q-head.txt").read_bytes()
    files = list(dict.fromkeys(line.split("::")[0] for line in data.decode().splitlines()))
    shape = runner_shape(data, 10_778, False, " (in the first 512 KiB of 1.1 MiB)")
    assert shape is not None and shape.startswith("test run (pytest --collect-only), 10,778 lines (in the first"), \
        shape
    assert f"{files[0]} (line 1), {files[1]} (line " in shape, shape
    assert runner_shape(data, 300, True, "") is None  # (whole, with no count: no collection told)


def test_certificates_name_the_one_that_expires_first():
    """``openssl x509 -text`` of system certificates, one after another: "which certificate expires first?" took a
    search of every ``Not After`` line (141 certificates: 8 calls, 12 KB) and matching each line to the certificate
    above it. The shape names it with its line and date, by the dates (not the text: Mar 3 2023 before Dec 31
    2030)."""
    data = (FIXTURES / "openssl-x509-text-6.txt").read_bytes()
    lines = data.decode().splitlines()
    starts = [at for at, line in enumerate(lines, 1) if line == "Certificate:"]
    expiries = [(datetime.strptime(" ".join(line.split(": ", 1)[1].split()[:4]), "%b %d %H:%M:%S %Y"), at)
                for at, line in enumerate(lines, 1) if line.strip().startswith("Not After")]
    when, at = min(expiries)
    start = max(line for line in starts if line < at)
    shape = shape_of(data)
    assert f"; expires first: E-Tugra Certification Authority (line {start}, Not After {when:%b} {when.day} " \
           f"{when.year}): ACCVRAIZ1 (line 1)," in shape, shape
