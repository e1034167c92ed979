"""Our own notes and reasons are read by their type, never by their words (typed2): a search miss's hint that seeks
the needle as the search wrote it (:class:`~scratchfs.api.miss_hints.MissNote`), the reason an entry is gone
(:class:`~scratchfs.engine.protocols.Gone`), a file ``load`` left out for its size
(:class:`~scratchfs.loader.Skipped`), the notes of a JSON-lines read, a pattern refusal's advice. Each was a
``startswith`` or ``in`` over a message another function wrote: rewording that message silently changed what the
code did. Each test below gives the fact in words that do not say it (or words that say it of a fact that is not
there) and checks the code goes by the fact."""

from __future__ import annotations

import pickle
import sqlite3
from dataclasses import replace

import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs import BadPattern, Deleted, InvalidArgument, JqFailed, ScratchStore, loader
from scratchfs.api.miss_hints import MissNote, unhinted
from scratchfs.api.results import Matches
from scratchfs.api.search_calls import written_as
from scratchfs.api.search_encoded import as_given
from scratchfs.api.shape_binary import UTF16_FORMATS, WIDE_CODECS
from scratchfs.cli.app import main
from scratchfs.engine import postgres_index, sqlite_index
from scratchfs.engine.entry_sql import ENTRY_COLUMNS, UPSERT_SET
from scratchfs.engine.pattern_advice import AS_WRITTEN_REWRITE, POSIX_REWRITE
from scratchfs.engine.pattern_syntax import parse
from scratchfs.engine.protocols import COPY_LOST_REASONS, REPAIRED_KINDS, SWEPT_MISSING, Gone, repaired
from scratchfs.engine.sqlite_schema import create_tables
from scratchfs.engine.structure import BytesSource, jsonl, jsonl_records, slurp
from scratchfs.engine.structure.jsondoc import jq_error, parse_path
from scratchfs.engine.structure.jsonstream import jq_failed, stream_path
from scratchfs.foundation.calls import Advice, Call, render_call, without_defaults
from scratchfs.loader import Skipped, load_dir


def _miss(note: object) -> Matches:
    """An empty result of a search in latin-1 (its needle rewritten as that encoding's bytes), its note ``note``."""
    return replace(Matches("h_x", b"caf\xe9", [], 10, None, note=note), encoding="latin-1")


def test_a_miss_note_loses_its_hint_by_its_type_not_its_words():
    call = Call.of("read_handle", handle="h_x", match="caf\xe9", ignore_case=True)
    hinted = MissNote.made("looked everywhere", "looked everywhere; but: ", call)  # (no "no match in " in it)
    assert as_given(_miss(hinted), "café", None).note == "looked everywhere"
    dropped = MissNote.made(None, "bytes differ; try: ", call)  # (a not-UTF-8 miss reworded: still dropped)
    assert as_given(_miss(dropped), "café", None).note is None
    assert unhinted(hinted) == "looked everywhere" and unhinted("no match in x; y") == "no match in x; y"


def test_a_note_that_only_reads_like_a_miss_is_kept_whole():
    """Words shaped as a miss's hint (``no match in ...; ``, ``no match: the stored bytes are not UTF-8``) that no
    miss made: kept, calls and all -- the words decide nothing."""
    said = Advice.of("no match in the whole content (10 bytes); try: ", Call.of("read_handle", handle="h_x"))
    assert as_given(_miss(said), "café", None).note == said
    worded = "no match: the stored bytes are not UTF-8, and a search writes text as UTF-8 bytes; as such"
    assert as_given(_miss(worded), "café", None).note == worded


def test_a_gone_entry_is_told_lost_by_the_reasons_that_say_so_not_by_a_prefix():
    """A tombstone's reason is the index's text; whether its stored copy was lost (the read then says to make it
    again) is whether the reason is one of those written for that, every one of them, and no other."""
    assert all(Gone(reason, 0.0).copy_lost for reason in COPY_LOST_REASONS)
    assert {repaired(kind) for kind in REPAIRED_KINDS} | {SWEPT_MISSING} == COPY_LOST_REASONS
    assert not Gone("removed with its run", 0.0).copy_lost and not Gone("deleted", 0.0).copy_lost


def test_a_read_of_an_entry_whose_copy_was_lost_says_to_make_it_again(store):
    """The reason as fsck --repair writes it, read back through the index: the advice follows the type."""
    scope = store.scope("r", "a")
    scope.scratch_write("k", b"v")
    rows = [(row_id, blob) for row_id, _run, _agent, blob in store.index.blob_rows()]
    assert store.index.delete_rows(rows, reason=repaired("corrupt"), now=store.now()) == 1
    with pytest.raises(Deleted) as told:
        scope.scratch_read("k")
    assert str(told.value).startswith("key 'k' was removed by fsck --repair (its stored copy was corrupt) at ")
    assert str(told.value).endswith("; write it again if it is still needed")


def test_load_says_a_file_was_too_large_by_the_flag_not_the_reason_words(tmp_path, monkeypatch):
    """``load`` names --max-file-bytes when a file was left out for its size: :attr:`Skipped.too_large`, set where
    the size is compared, so a reworded reason still says it."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_bytes(b"0123456789")
    monkeypatch.setattr(loader, "TOO_LARGE", "over the size of")
    skipped: list[Skipped] = []
    with ScratchStore(tmp_path / "root") as store:
        assert load_dir(store.scope("r", "a"), folder, skipped=skipped, max_file_bytes=9) == {}
    assert skipped == [Skipped("a.txt", "over the size of 9 bytes (10 bytes)", False, too_large=True)]
    result = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "r",
                                       "--agent", "a", "--max-file-bytes", "9"])
    assert result.exit_code == 0 and result.stderr == (
        "scratchfs: skipped 1 that are not tool outputs or are larger than --max-file-bytes: a.txt (over the size of "
        "9 bytes (10 bytes))\n")


@pytest.mark.parametrize(("document", "keyed"), [(b"[1, 2]", "array"), (b'"text"', "string"), (b"5", "number"),
                                                 (b"true", "boolean")])
def test_the_streamed_walk_gives_the_kind_keyed_as_it_knows_it(document, keyed):
    """A path filter over a document too large for jq is walked here, which writes jq's message itself: the kind of
    value its key step met is given as data, not read back from those words."""
    with pytest.raises(JqFailed) as caught:
        list(stream_path(BytesSource(document), parse_path(".name")))
    assert caught.value.keyed == keyed and caught.value.reason.startswith(f"Cannot index {keyed} with string")
    with pytest.raises(JqFailed) as other:  # (a step that is no key: no kind keyed)
        list(stream_path(BytesSource(document), parse_path(".[0]" if keyed != "array" else ".[0][]")))
    assert other.value.keyed is None


def test_jq_failed_carries_what_it_is_given_and_reads_no_words():
    """Words that say a key met an array, given with no kind: none is made up from them (only jq's own message is
    read, once, where jq is called: :func:`~scratchfs.engine.structure.jsondoc.jq_error`)."""
    assert jq_failed('Cannot index array with string ("a")').keyed is None
    assert jq_failed("anything at all", "array").keyed == "array"
    assert jq_error('Cannot index array with string ("a")').keyed == "array"  # (jq's words, where jq is met)


@pytest.mark.parametrize("jq", [None, ".a"])
def test_a_records_page_notes_each_kind_once_by_its_kind_not_its_words(monkeypatch, jq):
    """The note on the first lone surrogate escape is given once a page: known by its kind, so reworded it is still
    given once (it was found again by the words ``lone surrogate escape``, and reworded, given on every record)."""
    for module in (jsonl, jsonl_records):  # (the note of a jq read's records, and of a plain read's)
        monkeypatch.setattr(module, "surrogate_note", lambda escape, where, jq: f"{where} holds an unpaired {escape}")
    data = b"".join(b'{"a": "x\\ud800"}\n' for _ in range(3))
    page = jsonl.records_page(BytesSource(data), jq=jq)
    assert page.extra["note"] == "record 1 holds an unpaired \\ud800", page.extra


SAID = ("the header repeats a name: its rows key column 2 ('name') as 'name_2' (column numbers from 0, as "
        "columns= takes them)")


def test_a_slurp_page_whose_own_note_holds_the_table_notes_words_still_gets_it(monkeypatch):
    """The table's note is put on the page jq's read made, once, where it is made: not left out because the page's
    own note (a filter's output, jq's) happens to hold its words."""
    made = slurp.jq_page

    def noted(*args, **kwargs):
        page = made(*args, **kwargs)
        page.extra["note"] = SAID
        return page

    monkeypatch.setattr(slurp, "jq_page", noted)
    page = slurp.slurp_page(BytesSource(b"id,name,name\n1,a,b\n"), ".[0]", form="rows")
    assert page.extra["note"] == f"{SAID}; {SAID}"


_VALUES = st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, 20, 50, 200, 4096, 65536, 1000]), st.just(""),
                    st.just("x"))


@settings(max_examples=300, deadline=None)
@given(verb=st.sampled_from(["read_handle", "scratch_read", "scratch_list", "scratch_write"]),
       arguments=st.dictionaries(st.sampled_from(["handle", "key", "offset", "length", "end", "line", "lines", "match",
                                                  "pattern", "context", "max_matches", "ignore_case", "count",
                                                  "slurp", "prefix", "limit", "budget"]), _VALUES, max_size=6))
@example(verb="read_handle", arguments={"handle": "x", "length": 4096, "ignore_case": False})
@example(verb="scratch_read", arguments={"key": "x", "length": 65536, "count": False, "offset": 0})
def test_a_call_drops_its_defaults_once_and_writes_what_render_call_writes(verb, arguments):
    """:func:`without_defaults` is run once a :class:`Call` (when it is made), not again for its text: so it must
    be idempotent, and the call's text is render_call's (``length=4096`` beside ``ignore_case=false`` was dropped
    from the text by the second run and kept in the call's data)."""
    given = {name: value for name, value in arguments.items() if value is not None}
    once = without_defaults(verb, given)
    assert without_defaults(verb, once) == once
    call = Call.of(verb, **arguments)
    assert str(call) == render_call(verb, **given) and call.to_json()["arguments"] == once


def test_both_indexes_write_an_entry_from_one_list_of_its_columns():
    """SQLite's and PostgreSQL's writes of an entry were two hand-written copies of its columns and of the clause
    that replaces a key's row: now both are made from :class:`Entry`'s fields. They are the table's columns (but
    ``id``), and the clause sets every one of them but the key's."""
    conn = sqlite3.connect(":memory:")
    create_tables(conn)
    table = [row[1] for row in conn.execute("PRAGMA table_info(entries)")]
    assert table == ["id", *ENTRY_COLUMNS.split(", "), "frame_newlines"]
    set_ = [part.split(" = ")[0] for part in UPSERT_SET.split(" DO UPDATE SET ")[1].split(", ")]
    assert set_ == [name for name in table if name not in ("id", "run_id", "agent_id", "kind", "key")]
    assert sqlite_index._UPSERT.endswith(UPSERT_SET) and postgres_index._UPSERT.endswith(UPSERT_SET)


def test_a_pattern_refusal_names_its_rewrite_by_its_field_not_its_words():
    """The refusal of a pattern that does not parse names ``match=`` and the escaped pattern, the one of a POSIX
    class the ranges: chosen by :attr:`BadPattern.rewrite`, given where the refusal is made. Words that only say
    so advise nothing; reworded ones still do."""
    def again(**sought: str) -> Call:
        return Call.of("read_handle", handle="h_x", **sought)

    worded = InvalidArgument("pattern does not compile; match= finds the text as it is written; a POSIX class such "
                             "as [:alpha:]")
    assert written_as(worded, "wait_for(", False, again) is worded
    assert written_as(worded, "[[:alpha:]]+", False, again) is worded
    said = written_as(BadPattern("no", POSIX_REWRITE), "[[:alpha:]]+", False, again)
    assert str(said) == 'no: read_handle(handle="h_x", pattern="[a-zA-Z]+")'
    said = written_as(BadPattern("no", AS_WRITTEN_REWRITE), "wait_for(", False, again)
    assert str(said) == 'no: read_handle(handle="h_x", match="wait_for(") or read_handle(handle="h_x", ' \
        'pattern="wait_for\\\\(")'
    with pytest.raises(BadPattern) as caught:
        parse("[[:alpha:]]", False)
    assert caught.value.rewrite == POSIX_REWRITE and pickle.loads(pickle.dumps(caught.value)).rewrite == POSIX_REWRITE
    with pytest.raises(BadPattern) as caught:
        parse("wait_for(", False)
    assert caught.value.rewrite == AS_WRITTEN_REWRITE
    with pytest.raises(BadPattern) as caught:
        parse("a{2,1}", False)
    assert caught.value.rewrite is None


def test_each_utf16_format_names_its_codec_by_the_format_not_its_prefix():
    assert set(WIDE_CODECS) == UTF16_FORMATS | {"UTF-32LE text", "UTF-32BE text"}
    assert all(codec == f"{kind[:6]}-{kind[6:8]}".lower() for kind, codec in WIDE_CODECS.items())
