"""Dumps of settings -- ``sysctl -a``, ``/proc/meminfo``, ``pip show``, an ``.ini`` file (real outputs of this
machine: fixtures/tools/, fixtures/README.md) -- are told as settings, their keys counted and grouped (``[sections]``,
the first part of dotted keys) with the line each group starts at, and the stub's note names the search that finds a
key; no other fixture (prose, code, logs, YAML, tables, diffs...) is told so."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_settings import BLOCK_READ, FIND_KEY, SETTINGS_SHAPE

_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_TOOLS = _FIXTURES / "tools"

# fixture -> (its form, the plain answer's key pattern over its lines)
_REAL = {
    "sysctl-a.txt": ("key = value", r"^([\w./-]+) = "),
    "proc-meminfo.txt": ("key: value", r"^([\w()]+):"),
    "pip-show.txt": ("key: value", r"^([\w-]+):"),
    "pip-show-v-pip.txt": ("key: value", r"^([\w-]+):"),  # (its entry points' "pip = ..." lines are no keys)
    "pip-show-v-several.txt": ("key: value", r"^([\w-]+):"),
    "openssl-req.conf": ("key = value", r"^\s*(\w+)\s*="),
    "proc-self-status.txt": ("key: value", r"^(\w+):\t"),  # (Key:<tab>value: was a TSV, "Name:", cat)
    "proc-cpuinfo.txt": ("key: value", r"^([A-Za-z][\w ]*?\t+|\w+):"),  # (key<tabs>: value, keys of words where
    # tabs set them off: a TSV before; "power management:", words and no tab, is no key, as a prose line is none)
    "lscpu.txt": ("key: value", r"^([A-Za-z][\w() -]*?):(?:\t|  )"),  # (Key words:<spaces>value, a table aligned by
    # spaces before; lscpu pads each key to one column but its longest, "Vulnerability Indirect target selection:",
    # which one space follows: words with a colon and a space are no key, as a prose line's are none)
    "apt-cache-show.txt": ("key: value", r"^([\w-]+):"),  # (stanzas of a package each; a description's indented
    # lines are its value's)
    "stat-usr-bin.txt": ("key: value", r"^ *(\w+):"),  # (keys padded to one column of colons: "  File:" and
    # " Birth:" over "Device:" are keys, no value's indented lines -- newuser19: "Change (line 7, 12 times, 34
    # indented lines)" before)
}
# fixtures that are settings too, by what they hold (matplotlib's rc file: key: value lines; Debian's copyright
# file: Files:, Copyright:, License: fields whose values go on over indented lines, as pip show -v's do)
_ALSO = {"mpl-dark_background.mplstyle", "libpq5-copyright.txt"}


def _shape(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n")).text


def _keys(text: str, pattern: str) -> list[tuple[int, str]]:
    """The plain answer: (line from 1, key) of each line the pattern matches."""
    return [(n, found[1]) for n, line in enumerate(text.split("\n"), 1) if (found := re.match(pattern, line))]


@pytest.mark.parametrize("name", sorted(_REAL))
def test_real_settings_are_told_with_their_keys(name):
    data = (_TOOLS / name).read_bytes()
    form, pattern = _REAL[name]
    keys = _keys(data.decode(), pattern)
    shape = _shape(data)
    distinct = len({key for _line, key in keys})
    counted = f"{len(keys):,} settings of {distinct:,} keys" if distinct < len(keys) else f"{len(keys):,} keys"
    assert shape.startswith(f"{SETTINGS_SHAPE} ({form}), ") and f", {counted}: " in shape, shape
    block = BLOCK_READ if " indented line" in shape else ""  # (a key over indented lines, its first block)
    assert shape.endswith(f'; pattern="{FIND_KEY}", context="line" finds a key, line=N reads it{block}')


def test_dotted_keys_are_grouped_by_their_first_part_with_the_line_of_the_first():
    data = (_TOOLS / "sysctl-a.txt").read_bytes()
    keys = _keys(data.decode(), _REAL["sysctl-a.txt"][1])
    groups: dict[str, list[tuple[int, str]]] = {}
    for line, key in keys:
        groups.setdefault(key.split(".")[0], []).append((line, key))
    shape = _shape(data)
    told = re.findall(r"(\w+)\.\* \(line ([\d,]+), ([\d,]+) keys?\)", shape)
    assert told and [(name, int(line.replace(",", "")), int(count.replace(",", ""))) for name, line, count in told] \
        == [(name, found[0][0], len({key for _line, key in found})) for name, found in groups.items()][: len(told)]
    assert ("fs", "5", "60") in told  # (fs.pipe-keep stands 10 times: one key of fs.*'s 60, not 10 of 69)


@pytest.mark.parametrize("name", ["pip-show-v-pip.txt", "pip-show-v-several.txt"])
def test_a_keys_indented_lines_are_its_values_counted_under_it(name):
    """``pip show -v``: its classifiers, entry points and project URLs are indented lines under their key (more
    lines than the keys: before, it was plain text, "text, 37 lines"). Each key is told with the line it first
    stands at and the indented lines under it, counted as the plain answer counts them."""
    lines = (_TOOLS / name).read_bytes().decode().split("\n")
    under: dict[str, int] = {}
    first: dict[str, int] = {}
    key = ""
    for n, line in enumerate(lines, 1):
        if found := re.match(r"([\w-]+):", line):
            key = found[1]
            first.setdefault(key, n)
            under.setdefault(key, 0)
        elif line[:1] in (" ", "\t") and line.strip() and first[key] == max(
                at for at in range(1, n) if lines[at - 1].startswith(f"{key}:")):
            under[key] += 1  # (under its first line only: the block line=N reads, N its first line)
    times = {key: sum(line.startswith(f"{key}:") for line in lines) for key in first}
    told = dict(re.findall(r"([\w-]+) \((line [^)]*)\)", _shape((_TOOLS / name).read_bytes())))
    assert "Classifiers" in told and ("Entry-points" in told or name == "pip-show-v-several.txt")  # (the shape's
    # room: its tail names lines=M+1 there too since its counts are its first blocks', leftovers2)
    for key, said in told.items():
        want = f"line {first[key]:,}" + (f", {times[key]} times" if times[key] > 1 else "") + (
            f", {under[key]:,} indented line{'s' if under[key] != 1 else ''}" if under[key] else "")
        assert said == want, key


def test_keys_padded_to_a_column_of_colons_are_keys_and_the_stubs_search_finds_them(scratch_scope):
    """``stat`` of many files pads its keys to one column of colons (``  File:``, ``  Size:``, `` Birth:`` over
    ``Device:``): they were told as indented lines under ``Change``, its values, and missing from the keys; and the
    note's search, ``^KEY``, found none of them. Each key is told with its first line and how many times it stands, as
    the plain answer counts them, and the search the note names (KEY filled in) finds each ``File:`` line."""
    data = (_TOOLS / "stat-usr-bin.txt").read_bytes()
    lines = data.decode().split("\n")
    keys = [(n, found[1]) for n, line in enumerate(lines, 1) if (found := re.match(r" *(\w+):", line))]
    first = {key: next(n for n, k in keys if k == key) for _n, key in keys}
    told = _shape(data)
    assert "indented line" not in told
    assert ", ".join(f"{key} (line {line}, {sum(k == key for _n, k in keys)} times)" for key, line in first.items()) \
        in told
    stub = scratch_scope.spill(data, source_tool="bash")
    reply = ScratchTools(scratch_scope).call("read_handle", {
        "handle": stub.handle, "pattern": FIND_KEY.replace("KEY", "File"), "context": "line", "max_matches": 50})
    assert [window["line"] for window in reply["windows"]] == [n for n, key in keys if key == "File"]


def test_sections_are_listed_with_their_keys():
    data = (_TOOLS / "openssl-req.conf").read_bytes()
    assert "[ req ] (line 7, 5 keys), [ req_distinguished_name ] (line 14, 13 keys), [ req_attr ] (line 37, 3 keys)" \
        in _shape(data)


def test_the_stub_names_the_search_for_a_key_and_it_finds_the_line(scratch_scope):
    data = (_TOOLS / "sysctl-a.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert stub.content_type == "text" and stub.shape.startswith(SETTINGS_SHAPE)
    assert f'pattern="{FIND_KEY.replace(chr(92), chr(92) * 2)}"' in stub.note
    reply = ScratchTools(scratch_scope).call("read_handle", {
        "handle": stub.handle, "pattern": r"^kernel\.pid_max\s*[=:]", "context": "line"})
    want = next(n for n, line in enumerate(data.decode().split("\n"), 1) if line.startswith("kernel.pid_max "))
    assert [(window["line"], window["data"]) for window in reply["windows"]] == [(want, "kernel.pid_max = 32768")]


@pytest.mark.parametrize("path", sorted(p for p in [*_FIXTURES.iterdir(), *_TOOLS.iterdir()]
                                        if p.is_file() and p.name not in _REAL and p.name not in _ALSO),
                         ids=lambda p: p.name)
def test_no_other_fixture_is_told_as_settings(path):
    data = path.read_bytes()[: 512 * 1024]
    assert not _shape(data).startswith(SETTINGS_SHAPE)


_KEY = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
_VALUE = st.from_regex(r"[A-Za-z0-9/._-]{1,12}( [A-Za-z0-9]{1,6}){0,2}", fullmatch=True)


# (25 examples by default, 60 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(_KEY, _KEY, _VALUE), min_size=8, max_size=200, unique_by=lambda t: (t[0], t[1])),
       st.sampled_from([" = ", "=", ": "]), st.booleans())
def test_generated_settings_are_counted_and_grouped_as_python_reads_them(pairs, sign, dotted):
    sep = "." if dotted else "_"
    lines = [f"{group}{sep}{name}{sign}{value}".rstrip(" ") if sign != ": " else f"{group}{sep}{name}: {value}"
             for group, name, value in pairs]
    data = ("\n".join(lines) + "\n").encode()
    shape = _shape(data)
    form = {" = ": "key = value", "=": "key=value", ": ": "key: value"}[sign]
    assert shape.startswith(f"{SETTINGS_SHAPE} ({form}), {len(lines):,} line")
    assert f", {len(lines):,} key" in shape
    if dotted:
        first = f"{pairs[0][0]}.* (line 1, {sum(group == pairs[0][0] for group, _n, _v in pairs):,} key"
        assert first in shape


# (25 examples by default, 60 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["fs", "kernel", "net", "vm"]), _KEY, _VALUE), min_size=12, max_size=120,
                unique_by=lambda t: (t[0], t[1])).filter(lambda pairs: len({group for group, _n, _v in pairs}) >= 2),
       st.integers(1, 4), st.booleans())
def test_keys_that_stand_again_are_counted_once_in_their_group(pairs, again, sections):
    """A key that stands more than once (sysctl's fs.pipe-keep, ten times) is one key of its group, under a dotted
    part or a [section]: the groups' counts are distinct keys, as the head's "N settings of K keys" counts them."""
    pairs = pairs + pairs[:again]  # (some keys stand twice or more)
    if sections:
        by_group: dict[str, list[str]] = {}
        for group, name, value in pairs:
            by_group.setdefault(group, []).append(f"{name} = {value}")
        data = "".join(f"[{group}]\n" + "\n".join(lines) + "\n" for group, lines in by_group.items()).encode()
        want = {f"[{group}]": len({line.split(" = ")[0] for line in lines}) for group, lines in by_group.items()}
    else:
        data = "".join(f"{group}.{name} = {value}\n" for group, name, value in pairs).encode()
        want = {f"{group}.*": len({name for g, name, _v in pairs if g == group}) for group, _n, _v in pairs}
    shape = _shape(data)
    assert shape.startswith(SETTINGS_SHAPE), shape
    told = dict(re.findall(r"(\[\w+\]|\w+\.\*) \(line [\d,]+, ([\d,]+) keys?\)", shape))
    assert told and {group: int(count.replace(",", "")) for group, count in told.items()} == \
        {group: want[group] for group in told}


_NOT_SETTINGS = {
    "logfmt": b"".join(b"time=2026-12-05T10:%02d:00Z level=info msg=\"request done\" path=/api/v1/items/%d status=200\n"
                       % (n % 60, n) for n in range(300)),
    "levels": b"".join(b"INFO: worker %d started\nWARNING: slow disk on /dev/vd%c\n" % (n, 97 + n % 26)
                       for n in range(200)),
    "python": b"import os\n\n" + b"".join(b"NAME_%d = os.environ.get('X_%d', '')\n" % (n, n) for n in range(300)),
    "c": b"".join(b"static int value_%d = %d;\n" % (n, n) for n in range(400)),
    "prose": b"Note: the quick brown fox jumps over the lazy dog, again and again, all day long.\n" * 200,
    "yaml": b"".join(b"service_%d:\n  image: nginx:%d\n  ports:\n    - 80%02d:80\n" % (n, n, n % 100)
                     for n in range(150)),
}


@pytest.mark.parametrize("name", sorted(_NOT_SETTINGS))
def test_logs_code_prose_and_yaml_are_not_settings(name):
    assert not _shape(_NOT_SETTINGS[name]).startswith(SETTINGS_SHAPE)


@pytest.mark.parametrize("line", [b"## a\r\n\r\n", b"# x\r\n", b"; c\r\n\r\n", b"!\r\n"])
def test_comment_lines_ending_in_crlf_are_no_backtracking_bomb(line):
    """Comment lines ending in CRLF before a line that is no setting (markdown headings, ``# a``): the first-line
    check matched each such line two ways (the comment's text taking the ``\\r`` or leaving it to ``\\r?\\n``), so
    its failure tried 2 ** 200 ways: a spill of 512 KiB of CRLF headings ran past pytest's 300 s limit (the suite at
    3fdd4a7). Now one way: each size answers at once (a child process, so that the old pattern fails this test in
    seconds instead of hanging it)."""
    code = ("import sys, time; from scratchfs.api.shape_settings import settings_shape\n"
            f"data = {line!r} * 5000 + b'plain text\\n'\n"
            "start = time.process_time(); found = settings_shape(data, data.count(b'\\n'), True, '')\n"
            "print(found, time.process_time() - start)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    found, seconds = done.stdout.split()
    assert found == "None" and float(seconds) < 1.0, done.stdout


@pytest.mark.parametrize(("line", "listed_as"), [
    (b"k%d=\n", "k0 (line 1)"), (b"key%d: value\n", "key0 (line 1)"), (b"p%d.q.k = v\n", "p0.* (line 1, 1 key)")])
def test_a_shape_of_thousands_of_keys_writes_only_the_items_it_lists(line, listed_as, monkeypatch):
    """64 KiB of 9,521 distinct keys: the shape wrote an item for each key, prefix or section (26 ms a describe
    at load 6, hostile7), of which some ten fit. Now only those are written; the shape is the same: the first
    items, then '… N more' for the others."""
    from scratchfs.api import shape_settings

    made = []
    real = shape_settings.short_name
    monkeypatch.setattr(shape_settings, "short_name", lambda name, most: made.append(name) or real(name, most))
    sample = b"".join(line.replace(b"%d", b"%d" % i) for i in range(20_000))
    sample = sample[: sample.rfind(b"\n", 0, 65536) + 1]
    shape = shape_settings.settings_shape(sample, sample.count(b"\n"), True, "")
    groups = sample.count(b"\n")
    assert shape is not None and listed_as in shape, shape
    shown = shape.split(": ", 1)[1].count(" (line ")
    assert f", … {groups - shown:,} more;" in shape, shape
    assert len(made) <= shown + 1, len(made)


@pytest.mark.parametrize(("name", "key"), [("proc-self-status.txt", "State"), ("proc-cpuinfo.txt", "model name"),
                                           ("lscpu.txt", "Model name")])
def test_keys_a_tab_sets_off_are_settings_not_a_two_column_table(name, key, scratch_scope):
    """``cat /proc/*/status`` (``Name:<tab>cat``) and ``/proc/cpuinfo`` (``model name<tab>: AMD EPYC``), found by
    newuser6 spilling a real ``cat /proc/*/status``: the table rule read them as a TSV of two columns headed
    ``"Name:", process_api`` (``processor, ": 0"``) with ragged rows, and the stub's note advised ``row=42, rows=20``
    and ``jq="JQ", slurp=True`` over lines that are no rows. Now settings, each key with its line (the plain answer:
    the first line a key starts), and the note names the key search, no rows read. ``lscpu`` (``Model name:``, then
    spaces to its values' column) was "table aligned by spaces, 2 columns: "Architecture:", x86_64" likewise."""
    data = (_TOOLS / name).read_bytes()
    lines = data.decode().split("\n")
    want = next(n for n, line in enumerate(lines, 1) if re.match(rf"{key}\t*:", line))
    times = 8 * sum(bool(re.match(rf"{key}\t*:", line)) for line in lines)
    stub = scratch_scope.spill(data * 8, source_tool="bash")  # (over the spill threshold: several processes')
    assert stub.content_type == "text" and stub.shape.startswith(f"{SETTINGS_SHAPE} (key: value), ")
    assert f"{key} (line {want}, {times} times)" in stub.shape
    assert "row=" not in stub.note and "slurp" not in stub.note and "KEY" in stub.note
    reply = ScratchTools(scratch_scope).call("read_handle", {
        "handle": stub.handle, "pattern": rf"^{key}\s*[=:]", "context": "line", "max_matches": 1})
    assert reply["windows"][0]["line"] == want and reply["windows"][0]["data"] == lines[want - 1]


# ``cat /proc/self/sched`` on this machine (kernel 6.18, helper shapes7, 2026-12-05): a title line, a rule of dashes,
# then each key padded with spaces to an aligned colon (``mm->numa_scan_seq`` among them), two NUMA lines at the end
_PROC_SCHED = "".join(line + "\n" for line in [
    'cat (26986, #threads: 1)',
    '-------------------------------------------------------------------',
    'se.exec_start                                :       1706178.772250',
    'se.vruntime                                  :        215581.264197',
    'se.sum_exec_runtime                          :             0.167700',
    'se.nr_migrations                             :                    0',
    'nr_switches                                  :                    2',
    'nr_voluntary_switches                        :                    1',
    'nr_involuntary_switches                      :                    1',
    'se.load.weight                               :              1048576',
    'se.avg.load_sum                              :                47493',
    'se.avg.runnable_sum                          :              8689426',
    'se.avg.util_sum                              :              7785234',
    'se.avg.load_avg                              :                 1024',
    'se.avg.runnable_avg                          :                  177',
    'se.avg.util_avg                              :                  161',
    'se.avg.last_update_time                      :        1706178771968',
    'se.avg.util_est                              :                  161',
    'policy                                       :                    0',
    'prio                                         :                  120',
    'se.slice                                     :              1400000',
    'clock-delta                                  :                   70',
    'mm->numa_scan_seq                            :                    0',
    'numa_pages_migrated                          :                    0',
    'numa_preferred_nid                           :                   -1',
    'total_numa_faults                            :                    0',
    'current_node=0, numa_group_id=0',
    'numa_faults node=0 task_private=0 task_shared=0 group_private=0 group_shared=0',
])


def test_proc_pid_sched_is_settings_after_its_title_and_rule(scratch_scope):
    """``/proc/PID/sched``: its keys padded with spaces to an aligned colon, under a title and a rule of dashes, are
    settings as ``/proc/PID/status``' are (before: "text, 28 lines"), dotted ``se.*`` grouped and the others named
    alone, each at its line; the key search the note names finds one."""
    data = _PROC_SCHED.encode()
    lines = _PROC_SCHED.split("\n")
    shape = describe(data, len(data), data.count(b"\n")).text
    assert shape.startswith(f"{SETTINGS_SHAPE} (key: value), 28 lines, 25 keys: se.* (line 3, 14 keys), "), shape
    assert "nr_switches (line 7)" in shape and "mm->numa_scan_seq (line 23)" in shape
    stub = scratch_scope.spill(data * 40, source_tool="bash")  # (over the spill threshold: several processes')
    assert stub.content_type == "text" and stub.shape.startswith(f"{SETTINGS_SHAPE} (key: value), ")
    assert "KEY" in stub.note and "row=" not in stub.note
    reply = ScratchTools(scratch_scope).call("read_handle", {
        "handle": stub.handle, "pattern": r"^se\.vruntime\s*[=:]", "context": "line", "max_matches": 1})
    assert reply["windows"][0]["line"] == 4 and reply["windows"][0]["data"] == lines[3]


def _said(*turns: tuple[str, str], times: int = 1) -> bytes:
    return ("".join(f"{who}: {words}\n" for who, words in turns) * times).encode()


# lines of ``Word: free prose``, each a speaker's (hostile28's chat was "settings (key: value), 30 settings of 5 keys")
_DIALOGUES = {
    "chat": _said(("Alice", "hi there, how are you?"), ("Bob", "fine thanks, and you?"),
                  ("Carol", "I just got back from the trip."), ("Dave", "Nice! Where did you go?"),
                  ("Eve", "We went to the mountains for a week."), times=6),
    "play": _said(("HAMLET", "To be, or not to be"), ("HORATIO", "My lord"), ("OPHELIA", "Good my lord"),
                  ("POLONIUS", "What do you read, my lord?"), ("HAMLET", "Words, words, words."), times=6),
    "interview": _said(("Interviewer", "Tell me about your early career."),
                       ("Smith", "I started at a small firm in Leeds, doing accounts."),
                       ("Jones", "He did, and he hated it."), ("Interviewer", "What made you leave?"),
                       ("Brown", "Honestly, the pay was poor and the hours were long."), times=5),
    "irc": _said(("alice", "anyone seen the build break?"), ("bob", "yes, it's the new linker flag"),
                 ("carol", "I'll revert it now"), ("dave", "thanks carol, ping me when done"), ("alice", "ok cool"),
                 times=5),
    "slack": _said(("U012AB", "deploy is done"), ("U034CD", "great, thanks!"),
                   ("U056EF", "checking the dashboards now"), ("U078GH", "all green here"),
                   ("U012AB", "merging the next one"), times=6),
    "subtitles": _said(("JOHN", "Get down!"), ("MARY", "What is it?"), ("JOHN", "Someone's outside."),
                       ("PETE", "I don't see anything."), ("ANNA", "Quiet, all of you."), times=6),
}


@pytest.mark.parametrize("name", sorted(_DIALOGUES))
def test_somebodys_words_are_no_settings(name):
    """A chat, a play, an interview, subtitles: ``Word: free prose`` lines whose "keys" are speakers that speak again
    read as settings (hostile28: "settings (key: value), 30 lines, 30 settings of 5 keys: Alice (line 1, 6 times)")
    -- a shape that claims what the text is not. More than half of their lines hold a sentence, as no dump's do: they
    are text."""
    data = _DIALOGUES[name]
    lines = data.count(b"\n")
    assert _shape(data).startswith(f"text, {lines} lines, "), _shape(data)


_WORD = st.sampled_from(["the", "a", "you", "I", "it", "to", "and", "of", "we", "was", "is", "not", "my", "lord",
                         "build", "deploy", "trip", "home", "night", "done", "where", "what", "why", "went", "saw",
                         "told", "know", "think", "said", "here", "there", "now", "then", "again"])
_SENTENCE = st.builds(lambda first, words, end: " ".join(
    [first.capitalize(), *(word + ("," if comma and n % 3 == 1 and n + 1 < len(words) else "")
                         for n, (word, comma) in enumerate(words))])
    + end, _WORD, st.lists(st.tuples(_WORD, st.booleans()), min_size=2, max_size=12),
    st.sampled_from([".", "?", "!", ""]))
_SPEAKER = st.from_regex(r"[A-Z][a-z]{2,8}|[A-Z]{3,9}|[a-z]{3,8}", fullmatch=True)


# (30 examples by default, 80 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=30, deadline=None)
@given(st.lists(_SPEAKER, min_size=4, max_size=7, unique=True), st.data())
def test_generated_dialogues_are_no_settings(speakers, data):
    """Dialogues of 4 to 7 speakers, each line a sentence of 3 to 13 words (a comma now and then, ending in ``.``,
    ``?``, ``!`` or nothing) or, one line in three at most, a word or two (``ok``, ``yes``): never settings."""
    turns = data.draw(st.lists(st.tuples(st.sampled_from(speakers), _SENTENCE), min_size=8, max_size=120))
    short = data.draw(st.lists(st.sampled_from(["ok", "yes", "lol", "thanks!", "ok cool", "brb"]),
                               max_size=len(turns) // 3))
    turns += [(speakers[n % len(speakers)], word) for n, word in enumerate(short)]
    text = _said(*data.draw(st.permutations(turns)))
    assert not _shape(text).startswith(SETTINGS_SHAPE), _shape(text)


_STANZA_KEYS = ["Name", "Version", "Summary", "Home-page", "Author", "Author-email", "License", "Location",
                "Requires", "Required-by"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_SENTENCE, _SENTENCE, _SENTENCE, st.from_regex(r"[a-z]{2,9}", fullmatch=True)),
                min_size=2, max_size=12))
def test_dumps_whose_keys_hold_a_few_sentences_stay_settings(stanzas):
    """The other way: ``pip show`` of several packages, its keys standing once a stanza, 3 of its 10 keys sentences
    (``Summary:``, ``Author:``, ``License:``) and the others tokens, is settings, each key counted."""
    lines = []
    for summary, author, licence, name in stanzas:
        values = [name, "1.2.3", summary, f"https://example.org/{name}", author, f"{name}@example.org", licence,
                  "/usr/lib/python3/dist-packages", "requests, idna", ""]
        lines += [f"{key}: {value}".rstrip() for key, value in zip(_STANZA_KEYS, values, strict=True)] + ["---"]
    text = "\n".join(lines[:-1]) + "\n"
    shape = _shape(text.encode())
    assert shape.startswith(f"{SETTINGS_SHAPE} (key: value), ") and \
        f", {10 * len(stanzas):,} settings of 10 keys" in shape, shape


def test_keys_that_stand_once_each_with_a_sentence_stay_settings():
    """A catalogue of messages, each key once with its sentence (``not_found: The file was not found.``), is keys
    and values, no one speaking: settings still, each key listed."""
    said = ["The file was not found.", "You may not write here.", "The disk is full, free some space.",
            "Try again later.", "Who are you?", "The name is too long.", "That name is taken, pick another.",
            "Done!"]
    data = "".join(f"error_{n}: {words}\n" for n, words in enumerate(said)).encode()
    assert _shape(data).startswith(f"{SETTINGS_SHAPE} (key: value), 8 lines, 8 keys: error_0 (line 1), ")


def test_a_few_notes_among_key_value_settings_stay_settings():
    """Sentences are counted against all the settings, ``key = value`` ones too: an ``.ini``-like dump with a
    ``Note:`` of a sentence now and then (its only ``Key: value`` lines) is settings still."""
    lines = [f"option_{n} = {n * 7}" + ("\nNote: This one is slow, keep it small." if n % 4 == 0 else "")
             for n in range(16)]
    data = ("\n".join(lines) + "\n").encode()
    assert _shape(data).startswith(f"{SETTINGS_SHAPE} (key = value), 20 lines, 20 settings of 17 keys: "), _shape(data)


def test_a_keys_block_is_read_with_the_lines_the_shape_names(scratch_scope):
    """A key whose values go on over indented lines (``pip show -v``'s Classifiers; apt-cache policy's package, 7
    lines) was told ``line=N reads it``, 50 lines of which its block was a few (leftovers1 helper): the shape names
    ``lines=M+1`` with its M indented lines, and that read is the key's line and its indented lines, the next key's
    line after it."""
    data = (_TOOLS / "pip-show-v-pip.txt").read_bytes()
    shape = _shape(data)
    assert shape.endswith(', line=N reads it, lines=M+1 with its M indented lines'), shape
    lines = data.decode().split("\n")
    handle, tools = scratch_scope.spill(data, source_tool="bash").handle, ScratchTools(scratch_scope)
    blocks = re.findall(r"([\w-]+) \(line (\d+), (\d+) indented lines?\)", shape)
    assert [key for key, _n, _m in blocks] == ["Classifiers", "Entry-points", "Project-URLs"]
    for key, n, m in blocks:
        read = tools.call("read_handle", {"handle": handle, "line": int(n), "lines": int(m) + 1})["data"]
        block = read.rstrip("\n").split("\n")
        assert block[0].startswith(f"{key}:") and len(block) == int(m) + 1, (key, read)
        assert all(line[:1] in (" ", "\t") for line in block[1:]), (key, read)
        after = lines[int(n) + int(m)] if int(n) + int(m) < len(lines) else ""
        assert after[:1] not in (" ", "\t"), (key, after)
    plain = _shape((_TOOLS / "pip-show.txt").read_bytes())  # (no indented lines: no block to name)
    assert plain.endswith('finds a key, line=N reads it'), plain


@pytest.mark.parametrize("name", ["pip-show-v-pip.txt", "pip-show-v-several.txt", "apt-cache-show.txt",
                                  "libpq5-copyright.txt"])
def test_the_block_read_a_shape_names_reads_the_key_s_line_and_its_indented_lines_whole(scratch_scope, name):
    """Each key told with M indented lines: ``line=N, lines=M+1`` (:data:`BLOCK_READ`, which the shape names) reads
    its line and the M indented lines under it, and no line more. A key standing more than once (``pip show`` of
    several packages, apt's stanzas, a copyright file's ``Files:``) had its blocks' lines added up and no
    ``lines=`` named: its count is now its first block's, at the line told."""
    data = (_TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    told = re.findall(r"([\w-]+) \(line ([\d,]+)[^)]*?, ([\d,]+) indented lines?\)", stub.shape)
    assert told and stub.shape.endswith(BLOCK_READ), stub.shape
    for key, line, count in told:
        n, m = int(line.replace(",", "")), int(count.replace(",", ""))
        got = scratch_scope.read_handle(stub.handle, line=n, lines=m + 1).data.decode().split("\n")
        assert got[0].startswith(f"{key}:") and all(each[:1] in (" ", "\t") for each in got[1 : m + 1]), (key, got)
        after = data.decode().split("\n")[n + m : n + m + 1]  # (the line after the block: no indented line)
        assert not after or after[0][:1] not in (" ", "\t") or not after[0].strip(), (key, after)
