"""The agent-loop adapter: plain sync and async tool functions whose large results are spilled, per-tool classes."""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import uuid

import pytest

from scratchfs import InvalidArgument, Observation
from scratchfs.adapter import Offloader, offloaded, parse_call, tool_definitions
from scratchfs.api.contract import ScratchTools, window_hits


def test_a_large_page_from_a_sync_tool_becomes_a_stub(scratch_scope, fixture_data):
    page = fixture_data["browser-rust-book.html"].decode()
    offloader = Offloader(scratch_scope)

    @offloader.tool(result_class="browser")
    def fetch_page(url: str) -> str:
        """Fetch a page."""
        return page if url == "big" else "<p>small</p>"

    assert fetch_page.__name__ == "fetch_page" and fetch_page.__doc__ == "Fetch a page."
    stub = json.loads(fetch_page("big"))
    assert set(stub) == {"handle", "preview", "size", "lines", "content_type", "shape", "note"}
    assert stub["size"] == len(page.encode()) and stub["content_type"] == "html"
    assert fetch_page("small") == "<p>small</p>"
    obs = fetch_page.observe("big")
    assert isinstance(obs, Observation) and obs.stub is not None and obs.result_class == "browser"
    assert obs.content == obs.stub.to_json()
    (entry, _) = [e for e in scratch_scope.list_entries() if e.kind == "handle"]
    assert entry.source_tool == "fetch_page"
    assert scratch_scope.read_handle(stub["handle"], 1000, 500).data == page.encode()[1000:1500]


def test_result_classes_per_tool_decide(scratch_scope):
    big = "row\n" * 5000
    offloader = Offloader(scratch_scope, classes={"sql": "query", "send_mail": "effect"})
    sql = offloader.wrap(lambda: big, name="sql")
    send_mail = offloader.wrap(lambda: big, name="send_mail")
    unknown = offloader.wrap(lambda: big, name="mystery")  # no class: never spilled
    assert json.loads(sql())["size"] == len(big)
    assert send_mail() == big and unknown() == big
    assert Offloader(scratch_scope, default_class="workspace").wrap(lambda: big, name="grep")().startswith('{"handle"')
    assert offloaded(scratch_scope, "query", name="q")(lambda: big)().startswith('{"handle"')
    as_json = offloaded(scratch_scope, "query")(lambda: {"rows": big})()  # a dict: judged as its JSON text
    assert json.loads(as_json)["size"] == len(json.dumps({"rows": big}).encode())


def test_async_tools_are_wrapped_too(scratch_scope):
    offloader = Offloader(scratch_scope)

    @offloader.tool(result_class="query")
    async def query(n: int) -> str:
        await asyncio.sleep(0)
        return "x" * n

    assert asyncio.run(query(10)) == "x" * 10
    stub = json.loads(asyncio.run(query(50_000)))
    assert scratch_scope.read_handle(stub["handle"], 49_990, 100).data == b"x" * 10
    obs = asyncio.run(query.observe(20_000))
    assert obs.stub is not None and obs.stub.size == 20_000


def test_the_scope_may_be_picked_per_call(scratch_store):
    current = contextvars.ContextVar("scope")
    offloader = Offloader(current.get, classes={"tool": "query"})
    tool = offloader.wrap(lambda: "y" * 9000, name="tool")
    for agent in ("a", "b"):
        current.set(scratch_store.scope("run", agent))
        tool()
    assert sorted(e.agent_id for e in scratch_store.list_entries_for_run("run")) == ["a", "b"]


def test_a_failed_spill_passes_the_result_through(scratch_store, caplog):
    scope = scratch_store.scope("r", "a")
    tool = Offloader(scope).wrap(lambda: "z" * 9000, name="tool", result_class="query")
    scratch_store.close()
    with caplog.at_level(logging.ERROR):
        assert tool() == "z" * 9000
    assert any(r.levelno == logging.ERROR and "'tool'" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("result_class", ["effect", "query"])
@pytest.mark.parametrize("content", ["done", "z" * 9000, {"rows": ["z" * 9000]}])
def test_a_scope_that_cannot_be_picked_passes_the_result_through(scratch_store, caplog, result_class, content):
    # the tool ran (an effect may have happened): a scope function that fails -- a context variable not set, a run
    # id the store refuses -- is a failed spill, never a failed tool call
    current = contextvars.ContextVar("run")
    for picker, typed in ((lambda: scratch_store.scope(current.get(), "a"), False),
                          (lambda: scratch_store.scope("", "a"), True)):
        caplog.clear()
        tool = Offloader(picker).wrap(lambda: content, name="tool", result_class=result_class)
        with caplog.at_level(logging.ERROR):
            assert tool() == content
            assert asyncio.run(Offloader(picker).wrap(_async_returning(content), name="t",
                                                       result_class=result_class)()) == content
        assert any(r.levelno == logging.ERROR and "'tool'" in r.getMessage() for r in caplog.records)
        # a run id the store refuses is an expected, typed error: one line naming it; a LookupError keeps its trace
        assert all((r.exc_info is None) == typed for r in caplog.records), caplog.records
        assert typed == all("(invalid argument: " in r.getMessage() for r in caplog.records)
    assert scratch_store.list_entries_for_run("run") == []


def _async_returning(content):
    async def tool():
        return content
    return tool


def test_scratch_tools_for_the_model(scratch_scope):
    offloader = Offloader(scratch_scope)
    handle = scratch_scope.spill("alpha beta gamma beta").handle
    reply = offloader.call_scratch_tool("read_handle", {"handle": handle, "match": "beta", "context": 2})
    assert not reply.is_error
    assert [window_hits(w)[0]["offset"] for w in json.loads(reply.text)["windows"]] == [6, 17]
    assert reply.result == json.loads(reply.text)
    missing = offloader.call_scratch_tool("scratch_read", {"key": "nope"})
    assert missing.is_error and missing.text.startswith("not found: ") and missing.result is None
    bad = offloader.call_scratch_tool("read_handle", {"handle": handle, "offset": -5})
    assert bad.is_error and bad.text.startswith("invalid argument: ")
    names = [t["name"] for t in tool_definitions()]
    assert names == ["read_handle", "scratch_write", "scratch_read", "scratch_list", "scratch_delete"]
    assert all(t["input_schema"]["type"] == "object" and t["description"] for t in tool_definitions())


@pytest.mark.parametrize("content", [b"\x00" * 9000, bytearray(b"\xff" * 9000)])
def test_bytes_results_are_spilled_as_bytes(scratch_scope, content):
    obs = Offloader(scratch_scope).offload("tool", content, "query")
    assert obs.stub is not None
    assert scratch_scope.read_handle(obs.stub.handle, 0, 10).data == bytes(content[:10])


def test_dict_and_list_results_are_judged_and_spilled_as_json(scratch_scope):
    offloader = Offloader(scratch_scope, classes={"api": "query"})
    big = {"items": [{"id": i, "name": f"item-{i}", "tags": ["a", "b"]} for i in range(2000)]}

    @offloader.tool()
    def api(n: int):
        return big if n else {"ok": True}

    assert api(0) == {"ok": True}  # small: the object itself, untouched
    out = api.observe(1)
    assert out.stub is not None and out.content == out.stub.to_json()
    assert out.stub.content_type == "json"
    text = json.dumps(big, ensure_ascii=False).encode()
    assert scratch_scope.read_range(out.stub.handle, 0, 65536).data == text[:65536]
    rows = [{"n": i, "when": object()} for i in range(10)]
    assert offloader.offload("api", rows).content is rows  # not JSON: passed through as it was


@pytest.mark.parametrize("content", ["\x01" * 8192, '"' * 4097, "\\" * 4097, b"\x00" * 2000,
                                     ["ab"] * 1100])
def test_results_are_judged_by_their_size_as_json_text(scratch_scope, content):
    # each is at most 8 KiB as UTF-8 (the list: its JSON text, 6,600 bytes) but over 8 KiB as the string the loop
    # hands on (the list's: 8,800, each quote written \")
    offloader = Offloader(scratch_scope, default_class="query")
    assert offloader.offload("tool", content).stub is not None
    assert offloader.offload("tool", "\x01" * 1365).stub is None  # 8,190 bytes of JSON


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(("name", "arguments", "says"), [
    ([], {}, "a tool name must be text, not list: []"),
    ({}, {}, "a tool name must be text, not dict: {}"),
    (b"read_handle", {}, "a tool name must be text, not bytes"),
    (None, None, "a tool name must be text, not NoneType"),
    ("x" * 100_000, {}, "unknown tool 'xxx"),
    ("scratch_read", [], "the arguments of scratch_read must be a JSON object, not list"),
    ("scratch_read", {1: "k"}, "an argument name must be text, not int: 1"),
    ("scratch_read", {"key": _nested(100_000)}, "scratch_read: key: nested more than 8 levels deep"),
    ("scratch_list", {"limit": 10**5000}, "scratch_list: limit: an integer of 16610 bits, out of range"),
    ("scratch_write", {"key": "k", "value": "v", "ttl": 10**5000}, "ttl: an integer of 16610 bits"),
])
def test_a_scratch_tool_call_of_any_type_is_an_error_reply_never_a_raise(scratch_scope, name, arguments, says):
    """A tool name or arguments of the wrong type raised TypeError (unhashable type: 'list'), RecursionError or
    ValueError (int too large to print) out of call_scratch_tool, whose docstring says it never raises (atka,
    fault 3): each is an invalid-argument reply, short, and ScratchTools.call raises InvalidArgument for it."""
    reply = Offloader(scratch_scope).call_scratch_tool(name, arguments)
    assert reply.is_error and reply.result is None
    assert reply.text.startswith("invalid argument: ") and says in reply.text, reply.text
    assert len(reply.text.encode()) <= 512
    with pytest.raises(InvalidArgument) as raised:
        ScratchTools(scratch_scope).call(name, arguments)
    assert reply.text == f"invalid argument: {raised.value}"


def test_a_tool_name_that_is_not_text_is_passed_through_not_a_raise(scratch_scope):
    offloader = Offloader(scratch_scope, classes={"t": "query"}, default_class="query")
    for tool in ([], {}, ("t",)):
        obs = offloader.offload(tool, "y" * 100_000)  # the class of a name that is not text: the default
        assert obs.stub is None and obs.content == "y" * 100_000 and obs.result_class == "query"
    assert scratch_scope.list_entries() == []
    with pytest.raises(InvalidArgument, match="a tool name must be text, not list"):
        offloader.wrap(lambda: "x", name=["t"])


class _ItemsFail(dict):
    """A dict whose items cannot be read (a lazy mapping whose source went away)."""

    def items(self):
        raise KeyError("gone")

    def keys(self):
        raise KeyError("gone")

    def __iter__(self):
        raise KeyError("gone")


class _IterFails(list):
    """A list whose iteration fails (a lazily loaded collection whose connection dropped)."""

    def __iter__(self):
        raise RuntimeError("connection lost")


@pytest.mark.parametrize("make", [lambda: _ItemsFail(a="z" * 9000), lambda: {"rows": _IterFails(["z" * 9000])},
                                  lambda: _IterFails(["z" * 9000])])
def test_a_result_whose_json_text_cannot_be_written_passes_through_never_a_raise(scratch_scope, caplog, make):
    """Writing a dict or list result's JSON text is part of the spill: whatever it raises (not only TypeError,
    ValueError and RecursionError) the tool call still returns its result whole, logged; the wrapped tool raised the
    KeyError / RuntimeError of the result's own iteration before."""
    offloader = Offloader(scratch_scope, default_class="query")
    result = make()

    @offloader.tool()
    def lookup():
        return result

    with caplog.at_level(logging.WARNING, logger="scratchfs"):
        assert lookup() is result
        assert offloader.offload("lookup", result).content is result
    assert "not JSON-serialisable" in caplog.text


class _HostileName:
    """A tool 'name' that is no text, whose repr and str hold a line of their own (a forged log record)."""

    def __repr__(self) -> str:
        return "name\nCRITICAL forged record " + "x" * 5000

    __str__ = __repr__


@pytest.mark.parametrize("tool", ["evil\nCRITICAL forged\x1b[31m\u2028" + "x" * 5000, _HostileName()])
def test_every_log_record_of_a_failed_offload_is_one_short_line_whatever_the_tool_name(scratch_store, caplog, tool):
    """A failed spill, a scope that cannot be picked, a result that is not JSON: each is logged naming the tool; the
    message is one line (a name's newline, escape or line separator escaped) of at most a few hundred characters
    whatever the name -- before, the name was written by its repr, whole: an object's repr went into the log as it
    was (a newline in it forging a record) and a 5,000-character name made a 5,000-character line. A typed
    error keeps to its one line; an unexpected one keeps its traceback (after that line)."""
    class Unserialisable(list):
        def __iter__(self):
            raise ValueError("bad\nCRITICAL forged")

    scope = scratch_store.scope("r", "a")
    cases = [(Offloader(scope, default_class="query"), "z" * 9000, False),  # the store closed below: typed
             (Offloader(lambda: scratch_store.scope("", "a"), default_class="query"), "z" * 9000, False),
             (Offloader(lambda: 1 / 0, default_class="query"), "z" * 9000, True),
             (Offloader(scope, default_class="query"), Unserialisable(["z" * 9000]), False)]
    for offloader, content, traceback in cases[0 if isinstance(tool, str) else 1:]:  # (a name that is no text is
        caplog.clear()                                                           # never spilled: no spill to fail)
        with caplog.at_level(logging.WARNING):
            if content == "z" * 9000 and offloader._scope is scope:
                scratch_store.close()
            assert offloader.offload(tool, content).content is content
        (record,) = [r for r in caplog.records if r.name.startswith("scratchfs")]  # (no other library's)
        message = record.getMessage()
        assert "\n" not in message and "\x1b" not in message and "\u2028" not in message, message
        assert len(message) < 500, len(message)
        assert "forged" in message and (record.exc_info is not None) == traceback


@pytest.mark.parametrize(("configure", "meant"), [
    (lambda off: Offloader(off.scope, classes={"fetch_page": "brower"}), "browser"),
    (lambda off: off.tool(result_class="Browser")(lambda url: url), "browser"),
    (lambda off: off.wrap(lambda url: url, name="fetch_page", result_class="BROWSER"), "browser"),
    (lambda off: Offloader(off.scope, default_class="qurey"), "query"),
    (lambda off: Offloader(lambda: off.scope, default_class="qurey"), "query"),  # a scope picked per call too
    (lambda off: Offloader(lambda: off.scope, classes={"grep": "Workspace"}), "workspace"),
    (lambda off: offloaded(off.scope, "efect")(lambda url: url), "effect"),  # (checked as it is applied)
    (lambda off: off.offload("fetch_page", "x" * 20_000, result_class="browsers"), "browser"),
])
def test_a_misspelled_or_differently_cased_class_is_refused_where_it_is_configured(scratch_scope, configure, meant):
    """Offloader(scope, classes={"fetch_page": "brower"}), @tool(result_class="Browser") and default_class="qurey"
    were accepted and meant "unknown class: never spilled": a 1.8 MB result went into the transcript, no log line.
    Each is one InvalidArgument naming the known classes and the class meant."""
    with pytest.raises(InvalidArgument) as raised:
        configure(Offloader(scratch_scope))
    message = str(raised.value)
    assert "the known classes are browser, effect, query, workspace" in message, message
    assert message.endswith(f"did you mean {meant!r}?"), message
    assert "\n" not in message and scratch_scope.list_entries() == []


def test_a_class_is_text_and_a_store_may_add_its_own(scratch_store_factory, caplog):
    store = scratch_store_factory("logs", spill_classes={"query", "logs"})
    scope = store.scope("r", "a")
    with pytest.raises(InvalidArgument, match=r"the default_class must be text, not int: 3; the known classes"):
        Offloader(scope, default_class=3)
    with pytest.raises(InvalidArgument, match=r"the result class of 'x' is 'logs', not a known class"):
        Offloader(scratch_store_factory("plain").scope("r", "a"), classes={"x": "logs"})
    offloader = Offloader(scope, classes={"tail": "logs", "quiet": None})
    assert offloader.classes == {"tail": "logs", "quiet": None}
    with pytest.raises(TypeError):
        offloader.classes["tail"] = "brower"  # read-only: a class is set (and checked) by wrap/tool
    assert offloader.offload("tail", "l\n" * 9000).stub is not None
    # a scope picked per call: the store is not known yet, so a class unlike every known one waits for it
    odd = f"tails{uuid.uuid4().hex}"  # (a class never seen before in this process: each is logged once; not id(),
    # which a later object reuses: the parametrized run on another store then found it already logged)
    picked = Offloader(lambda: scope, classes={"tail": "logs", "other": odd})
    assert picked.offload("tail", "l\n" * 9000).stub is not None
    with caplog.at_level(logging.WARNING, logger="scratchfs.api.scope"):
        assert picked.offload("other", "l\n" * 9000).stub is None
        assert picked.offload("other", "l\n" * 9000).stub is None
    (record,) = [r for r in caplog.records if r.name == "scratchfs.api.scope"]  # once per class, naming the
    # known classes and the tool
    assert f"the result class is {odd!r}, not a known class" in record.getMessage()
    assert "logs" in record.getMessage() and "'other'" in record.getMessage()


def test_an_observation_of_no_class_is_allowed_and_one_of_an_unknown_class_is_logged_once(scratch_scope, caplog):
    big = "x" * 20_000
    assert scratch_scope.offload(Observation("t", big, None)) == Observation("t", big, None)
    unknown = f"qurey{uuid.uuid4().hex}"  # (a class never seen before in this process: each is logged once)
    with caplog.at_level(logging.WARNING, logger="scratchfs.api.scope"):
        for _ in range(3):
            assert scratch_scope.offload(Observation("sql", big, unknown)).content == big
    (record,) = [r for r in caplog.records if r.name.startswith("scratchfs")]  # (no other library's)
    assert f"the result class is {unknown!r}, not a known class" in record.getMessage()
    assert record.getMessage().endswith("the results of 'sql' with it are never spilled")
    assert scratch_scope.list_entries() == []


def test_a_tool_with_no_class_is_logged_once_at_info_level(scratch_scope, caplog):
    """A tool wrapped with no class at all never spills: said once per tool (INFO), never for a tool given one."""
    offloader = Offloader(scratch_scope, classes={"send": "effect"})
    fetch = offloader.wrap(lambda: "x" * 20_000, name="fetch")
    send = offloader.wrap(lambda: "x" * 20_000, name="send")
    with caplog.at_level(logging.INFO, logger="scratchfs.adapter"):
        for _ in range(3):
            assert fetch() == send() == "x" * 20_000
        assert offloader.offload("other", "small") == Observation("other", "small", None)
    assert [r.levelno for r in caplog.records] == [logging.INFO, logging.INFO]
    assert caplog.records[0].getMessage().startswith("scratchfs: tool 'fetch' has no result class: its results are "
                                                     "never spilled")
    assert "'other'" in caplog.records[1].getMessage()


def test_an_error_reply_says_its_kind_for_the_loop_to_branch_on(scratch_store_factory, monkeypatch, caplog):
    """ToolReply had text, is_error and result only: a loop had to parse "not found: ..." to branch."""
    store = scratch_store_factory("kinds", run_quota_entries=1)
    offloader = Offloader(store.scope("r", "a"))
    ok = offloader.call_scratch_tool("scratch_write", {"key": "k", "value": "v" * 5000})
    assert not ok.is_error and ok.kind is None
    page = offloader.call_scratch_tool("scratch_read", {"key": "k", "length": 100}).result
    offloader.call_scratch_tool("scratch_write", {"key": "k", "value": "w"})  # written again: the next page refuses
    replies = {
        "not found": offloader.call_scratch_tool("scratch_read", {"key": "nope"}),
        "changed": offloader.call_scratch_tool(*parse_call(page["next_call"])),
        "invalid argument": offloader.call_scratch_tool("read_handle", {"handle": "h_x"}),
        "quota exceeded": offloader.call_scratch_tool("scratch_write", {"key": "k2", "value": "v"}),
    }
    with monkeypatch.context() as patched:  # a bug: no ScratchError
        patched.setattr(ScratchTools, "call", lambda *a: 1 / 0)
        with caplog.at_level(logging.ERROR):
            replies["error"] = offloader.call_scratch_tool("scratch_list", {})
    store.close()
    replies["closed"] = offloader.call_scratch_tool("scratch_list", {})
    for kind, reply in replies.items():
        assert reply.is_error and reply.result is None and reply.kind == kind, (kind, reply)
        assert reply.text.startswith(f"{kind}: "), reply.text
    assert replies["error"].text == "error: ZeroDivisionError: division by zero"


def test_arguments_may_be_a_json_text_of_an_object_as_openai_style_calls_carry_them(scratch_scope):
    """call_scratch_tool("read_handle", '{"handle": ...}') was refused: "must be a JSON object, not str"."""
    offloader = Offloader(scratch_scope)
    handle = scratch_scope.spill("alpha beta gamma beta").handle
    as_object = offloader.call_scratch_tool("read_handle", {"handle": handle, "match": "beta", "context": 2})
    as_text = offloader.call_scratch_tool("read_handle", f' {{"handle": "{handle}", "match": "beta", "context": 2}}\n')
    assert not as_text.is_error and as_text == as_object
    assert [window_hits(w)[0]["offset"] for w in as_text.result["windows"]] == [6, 17]
    assert offloader.call_scratch_tool("scratch_list", "{}").result["entries"] == []
    for blank in ("", " \n"):  # (a call of no arguments some models and SDKs send so: none, as None and "{}" are)
        assert offloader.call_scratch_tool("scratch_list", blank).result["entries"] == []
        missing = offloader.call_scratch_tool("scratch_read", blank)
        assert missing.kind == "invalid argument" and "'key' is a required property" in missing.text, missing.text
    bad = offloader.call_scratch_tool("scratch_read", '{"key": 5}')  # an object: checked against the schema
    assert bad.kind == "invalid argument" and "scratch_read: key: 5 is not of type 'string'" in bad.text
    for text, why in [("key=k", "text that does not parse as JSON (Expecting value: line 1 column 1 (char 0))"),
                      ('["k"]', "JSON of a list, not of an object"), ('"k"', "JSON of a string, not of an object"),
                      ("null", "JSON of a null, not of an object"),
                      ('{"key": ', "text that does not parse as JSON (Expecting value: line 1 column 9 (char 8))"),
                      ("[" * 100_000, "text that does not parse as JSON ("),
                      ('{"limit": ' + "9" * 5000 + "}", "text that does not parse as JSON (")]:
        reply = offloader.call_scratch_tool("scratch_read", text)
        assert reply.is_error and reply.kind == "invalid argument", text
        assert reply.text.startswith(f"invalid argument: the arguments of scratch_read are {why}"), reply.text
        assert reply.text.endswith(': give them as one JSON object of names and values, e.g. {"key": "notes"}')
        assert len(reply.text.encode()) <= 512


def test_arguments_text_that_is_no_json_object_says_why_and_the_form_they_take(scratch_scope):
    """A new user's trial: call_scratch_tool("read_handle", '{bad json') -- an OpenAI-style call whose arguments the
    model wrote wrong -- said 'the arguments of read_handle must be a JSON object, not str', though a text is taken
    when it holds one: it now says what is wrong with the text and the form the arguments take."""
    reply = Offloader(scratch_scope).call_scratch_tool("read_handle", '{handle: "h_x"}')
    assert reply.kind == "invalid argument" and "not str" not in reply.text
    assert reply.text == ("invalid argument: the arguments of read_handle are text that does not parse as JSON "
                          "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1)): give them "
                          'as one JSON object of names and values, e.g. {"handle": "h_..."}')
    assert Offloader(scratch_scope).call_scratch_tool("nosuch", "{").text.startswith("invalid argument: unknown tool")


def test_the_tool_definitions_tell_the_model_the_budget_and_ttl_the_replies_have(scratch_store_factory):
    """The README's `tools = tool_definitions()` told the model 8192 bytes and 3600 s whatever the store's settings
    (reply_budget_bytes=16384, default_ttl=600): the definitions and the replies disagreed."""
    from .test_readme_snippets import ROOT

    store = scratch_store_factory("wide", reply_budget_bytes=16384, default_ttl=600)
    offloader = Offloader(store.scope("r", "a"))
    defined = {t["name"]: t for t in offloader.tool_definitions()}
    assert offloader.tool_definitions() == tool_definitions(store) == Offloader(
        lambda: store.scope("r", "b")).tool_definitions()
    assert defined["read_handle"]["input_schema"]["properties"]["budget"]["default"] == 16384
    assert "(default: 600 seconds)" in defined["scratch_write"]["input_schema"]["properties"]["ttl"]["description"]
    default = {t["name"]: t for t in tool_definitions()}
    assert default["read_handle"]["input_schema"]["properties"]["budget"]["default"] == 8192
    written = offloader.call_scratch_tool("scratch_write", {"key": "k", "value": "v"}).result
    assert written["ttl"] == 600  # what the definition said
    big = store.scope("r", "a").spill("x" * 100_000).handle
    read = offloader.call_scratch_tool("read_handle", {"handle": big, "length": 65536})
    assert 8192 < len(read.text.encode()) <= 16384  # the budget the definition said, not the default
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("\n## Agent-loop adapter\n"):readme.index("\n## pytest plugin\n")]
    assert "tools = tool_definitions(store)" in section and "tools = tool_definitions()" not in section


def test_the_readme_names_every_error_kind_the_faces_emit():
    """The README's error kinds lacked `closed` (ToolReply(text='closed: the store is closed')) and said StoreClosed
    is a StorageError, which no face calls it: each list names every kind of scratchfs.foundation.errors."""
    import re

    from scratchfs.foundation import errors
    from scratchfs.web.endpoint import STATUS_OF_KIND

    from .test_readme_snippets import ROOT

    kinds = {cls.kind for cls in vars(errors).values()
             if isinstance(cls, type) and issubclass(cls, errors.ScratchError) and cls is not errors.ScratchError}
    assert {"closed", "changed", "upstream unavailable"} <= kinds
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())

    def bullet(section: str, start: str) -> str:
        after = readme[readme.index(f"## {section} "):]
        found = after[after.index(start):]
        return found[: found.find(" - **", 1)]

    for section, start, expected in [("MCP", "- **Errors** are tool results", kinds | {"error"}),
                                     ("Python API", "- **Errors** are typed", kinds),
                                     ("Agent-loop adapter", "Every error reply's `kind`", kinds - {
                                         "upstream unavailable"} | {"error"})]:
        text = bullet(section, start)
        assert {k for k in kinds | {"error"} if f"`{k}`" in text} == expected, (section, text)
    assert "(a `StorageError`)" not in readme
    web = bullet("Web inspector", "Errors are `{\"error\":")
    for kind, status in STATUS_OF_KIND.items():
        assert re.search(rf"{status} [a-z ,]*\b{kind}\b", web), (kind, status, web)


@pytest.mark.parametrize("make", [lambda: {"a": "x" * 20_000}, lambda: [{"id": i, "ü": "x" * 20} for i in range(900)],
                                  lambda: ("x" * 20_000, 1)])
def test_scope_offload_judges_a_dict_or_list_by_its_json_text_as_the_adapter_does(scratch_store_factory, caplog,
                                                                                   make):
    """scope.offload(Observation(content={"a": "x" * 20000}, result_class="query")) came back unchanged, with no log
    line: only the adapter turned a dict into JSON, and a runtime calling offload itself let 20 KB into the context.
    Handled, not refused: a tool's structured result is what loops send the model as JSON; a refusal would break the
    loop after the tool ran (offload never raises for a result), and the adapter already judged them so."""
    store = scratch_store_factory("json", run_quota_entries=2)
    scope = store.scope("r", "a")
    content = make()
    text = json.dumps(content, ensure_ascii=False)
    out = scope.offload(Observation("api", content, "query"))
    assert out.stub is not None and out.content == out.stub.to_json() and out.stub.content_type == "json"
    assert b"".join(scope.iter_content("handle", out.stub.handle)) == text.encode()
    assert Offloader(scope, default_class="query").offload("api", content).stub.size == len(text.encode())  # alike
    refused = scope.offload(Observation("api", content, "query"))  # the run at its quota: a notice of the JSON
    assert refused.refused is not None and json.loads(refused.content)["preview"].startswith(text[:40])
    small = {"ok": True}
    for obs in (Observation("api", small, "query"), Observation("api", content, None),
                Observation("api", content, "effect"), Observation("read_handle", content, "query"),
                Observation("api", content, "query", metadata={})):
        assert scope.offload(obs) is obs  # small, or never spilled: as it was
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert scope.offload(Observation("api", _ItemsFail(a="z" * 9000), None)).stub is None  # not even written
        assert not [r for r in caplog.records if r.name.startswith("scratchfs")]
        odd = Observation("api", {"rows": _IterFails(["z" * 9000])}, "query")
        assert scope.offload(odd) is odd
    (record,) = [r for r in caplog.records if r.name.startswith("scratchfs")]  # (no other library's)
    assert "the result of 'api' is not JSON-serialisable (RuntimeError: RuntimeError('connection lost'))" in (
        record.getMessage())


def test_the_decorator_refusing_a_misspelled_class_names_the_tool_as_the_readme_quotes_it(scratch_scope):
    """``@off.tool(result_class="brower")`` said "the result_class is 'brower'": which tool's? The README quotes
    "the result class of 'fetch_page' is 'brower', not a known class: ...; did you mean 'browser'?"."""
    off = Offloader(scratch_scope)
    with pytest.raises(InvalidArgument) as raised:
        @off.tool(result_class="brower")
        def fetch_page(url: str) -> str:
            return url
    message = str(raised.value)
    assert message.startswith("the result class of 'fetch_page' is 'brower', not a known class: "), message
    assert message.endswith("did you mean 'browser'?"), message
    with pytest.raises(InvalidArgument, match=r"^the result class of 'named' is 'brower'"):
        off.tool("named", result_class="brower")  # a name given: at once
    assert off.classes == {}


def test_the_decorator_without_parentheses_wraps_the_function(scratch_scope):
    """``@offloader.tool`` (no parentheses, as ``@functools.cache`` or an MCP SDK's ``@server.tool`` are written) took
    the function for the tool's name and gave back the inner decorator: the "tool" then failed at its first call,
    inside the agent loop, with ``TypeError: ... decorate() missing 1 required positional argument: 'func'``. It
    wraps the function, as ``@offloader.tool()`` does."""
    off = Offloader(scratch_scope, default_class="query")

    @off.tool
    def list_files() -> str:
        return "x" * 20_000

    assert list_files.tool_name == "list_files"
    stub = json.loads(list_files())
    assert stub["size"] == 20_000 and scratch_scope.read_handle(stub["handle"], offset=0, length=3).data == b"xxx"
    assert list_files.observe().stub.shape.startswith("text, 1 line")

    @off.tool
    async def fetch() -> str:
        return "y" * 20_000

    assert json.loads(asyncio.run(fetch()))["size"] == 20_000


def test_a_tool_wrapped_with_no_class_near_a_name_of_classes_is_warned_at_once(scratch_scope, caplog):
    """``Offloader(scope, classes={"get_jsn": "query"})`` then ``@off.tool()`` on ``get_json``: the misspelt key gave
    the tool no class, so its 50 KB results went to the model whole, and the one line saying so was at INFO level,
    which a loop's default logging does not show. A tool wrapped with no class while ``classes`` names one close to
    its name is warned at once, naming both; a tool with no near name, or one given a class, is not."""
    off = Offloader(scratch_scope, classes={"get_jsn": "query", "fetch_page": "browser"})
    with caplog.at_level(logging.WARNING, logger="scratchfs"):
        @off.tool()
        def get_json() -> dict:
            return {"a": "x" * 50_000}

        @off.tool()
        def fetch_page() -> str:
            return "p"

        @off.tool()
        def send_mail() -> str:
            return "sent"

        off.wrap(lambda: "q", name="get_jsn2", result_class="query")
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("scratchfs")]
    assert messages == ["scratchfs: tool 'get_json' has no result class, so its results are never spilled, however "
                        "large; classes= names 'get_jsn': did you mean 'get_json'?"]
    assert isinstance(get_json(), dict)  # (still never spilled: a warning, not a guess)


def test_a_tool_that_yields_its_output_is_passed_through_and_logged_once(scratch_scope, caplog):
    """A new agent developer's shell tool yielded its 50,000 lines: the adapter passed the generator through with no
    word, and the loop showed the model ``<generator object ...>`` in place of the output. It still passes through
    (offload spills text, bytes and structures), and a WARNING says so, once per tool, naming what to do."""
    name = f"stream-{uuid.uuid4().hex[:8]}"  # (logged once per tool in a process: a name of this test's own)
    offloader = Offloader(scratch_scope, default_class="query")

    def lines():
        yield from (f"line {i}\n" for i in range(50_000))

    tool = offloader.wrap(lines, name=name)
    with caplog.at_level(logging.WARNING, logger="scratchfs"):
        first, second = tool(), tool()
    assert first.__class__.__name__ == "generator" and next(first) == "line 0\n"
    said = [r.getMessage() for r in caplog.records if name in r.getMessage()]
    assert said == [f"scratchfs: the result of '{name}' is a generator, not text: passed through untouched, never "
                    "spilled, however large (join its pieces into a str or bytes first)"], said
    assert next(second) == "line 0\n" and scratch_scope.store.list_entries_for_run(scratch_scope.run_id) == []
    assert offloader.wrap(lambda: None, name=f"{name}-none")() is None  # (None, a number: no word, as before)
    assert not [r for r in caplog.records if f"{name}-none" in r.getMessage()]

