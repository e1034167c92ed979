"""The web inspector's page in real headless Chromium (Debian's ``chromium``, driven by Python ``playwright``) against
a real ``scratchfs serve`` process: open a run, page through a 2 MB entry, search with highlighted matches, the JSON
tree of the EC2 fixture, the CSV table, an entry holding ``<script>`` shown inert, live refresh, and a request without
the token refused. Each test also fails on any script error or CSP violation in the page.

Screenshots go to a temporary directory (its path is printed; ``SCRATCHFS_SCREENSHOTS=DIR`` keeps them in DIR).
Without Chromium or playwright the tests skip, or fail under ``SCRATCHFS_REQUIRE_SERVICES=1`` (as in CI)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from scratchfs import ScratchStore

try:
    from playwright.sync_api import expect
except ImportError:  # the fixture skips (or fails) with the reason
    expect = None
from tests.web_support import CHROMIUM, require, serve

RUN, AGENT = "run-browser", "agent-1"
EVIL = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\"> & <b>not bold</b>"


def _big_text() -> bytes:
    """About 2 MB of numbered lines; every 997th line holds the word 'needle'."""
    tail = "the quick brown fox jumps over the lazy dog, again"
    lines = [f"line {n:06d}: {'needle ' if n % 997 == 0 else ''}{tail} {n * 7919}" for n in range(1, 30_001)]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def site(tmp_path_factory, fixture_data):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    require(sync_playwright is not None, "the playwright package is not installed (pip install -e '.[test]')")
    require(os.path.exists(CHROMIUM), f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")
    root = tmp_path_factory.mktemp("browser") / "root"
    shots = Path(os.environ.get("SCRATCHFS_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    shots.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots in {shots}")
    big = _big_text()
    with ScratchStore(root) as store:
        scope = store.scope(RUN, AGENT)
        handles = {
            "big": scope.spill(big, source_tool="workspace.cat").handle,
            "json": scope.spill(fixture_data["api-ec2-service-model.json"], source_tool="aws.describe").handle,
            "csv": scope.spill(fixture_data["query-packages-by-month.csv"], source_tool="sql.query").handle,
            "html": scope.spill(fixture_data["browser-rust-book.html"], source_tool="browser.fetch").handle,
            "aligned": scope.spill((Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "ps-auxww.txt")
                                   .read_bytes(), source_tool="ps.auxww").handle,
            "evil": store.scope(RUN, "agent-2").spill(EVIL.encode() + b"\n", source_tool="browser.get").handle,
        }
        scope.scratch_write("plan", "1) find the needle 2) read around it")
    with serve(root) as (found, _), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield {"url": found.group(1), "base": found.group(1).split("/?")[0], "root": root, "shots": shots,
               "handles": handles, "big": big, "browser": browser}
        browser.close()


@pytest.fixture
def page(site):
    """A page logged in through the printed URL; fails the test on any script error or CSP violation."""
    context = site["browser"].new_context(viewport={"width": 1280, "height": 860})
    tab = context.new_page()
    problems: list[str] = []
    tab.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    tab.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    tab.on("dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    tab.goto(site["url"])
    tab.problems = problems
    yield tab
    context.close()
    assert problems == []


def shot(site, tab, name: str) -> None:
    tab.screenshot(path=str(site["shots"] / f"{name}.png"), full_page=False)


def entry_url(site, kind: str, agent: str = AGENT) -> str:
    return f"{site['base']}/runs/{RUN}/agents/{agent}/handles/{site['handles'][kind]}"


def test_open_a_run(site, page, fixture_data):
    assert page.url == site["base"] + "/"  # the token left the URL for a cookie
    cookie = next(c for c in page.context.cookies() if c["name"].startswith("scratchfs_token_"))
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
    row = page.locator("table.grid tbody tr", has_text=RUN)
    row.wait_for()
    assert "agent-1" in row.inner_text() and "agent-2" in row.inner_text()
    shot(site, page, "01-runs")
    page.click(f"text={RUN}")
    page.wait_for_url(f"{site['base']}/runs/{RUN}")
    rows = page.locator("table.grid tbody tr")
    rows.first.wait_for()
    assert rows.count() == 7  # six spilled results and the scratchpad value
    tools = page.locator("table.grid tbody tr td:nth-child(4)").all_inner_texts()
    assert sorted(tools) == ["", "aws.describe", "browser.fetch", "browser.get", "ps.auxww", "sql.query",
                             "workspace.cat"]
    widths = page.locator("div.bar > span").evaluate_all("spans => spans.map(s => s.style.width)")
    sizes = [len(site["big"]), len(fixture_data["api-ec2-service-model.json"]),
             len(fixture_data["query-packages-by-month.csv"])]
    assert [float(w.rstrip("%")) for w in widths[:3]] == [round(100 * s / sizes[0], 1) for s in sizes]
    shot(site, page, "02-run")


def _lines_shown(tab) -> tuple[list[str], list[str]]:
    tab.locator("#lines-pane table.code").wait_for()
    return (tab.locator("#lines-pane td.ln").all_inner_texts(), tab.locator("#lines-pane td.src").all_inner_texts())


def test_page_through_a_2mb_entry(site, page):
    expected = site["big"].decode().split("\n")
    assert len(site["big"]) > 2_000_000
    page.goto(entry_url(site, "big"))
    numbers, texts = _lines_shown(page)
    assert numbers[0] == "1" and texts[:200] == expected[:200]
    page.click("#next-page")
    expect(page.locator("#lines-pane td.ln").first).to_have_text("201")
    numbers, texts = _lines_shown(page)
    assert numbers[:2] == ["201", "202"] and texts == expected[200:400]
    page.fill("#goto-line", "29950")
    page.press("#goto-line", "Enter")
    expect(page.locator("#lines-pane td.ln").first).to_have_text("29950")
    numbers, texts = _lines_shown(page)
    assert numbers[-1] == "30000" and texts == expected[29949:30000]
    assert page.is_disabled("#next-page")  # the end
    assert "of 30,000" in page.inner_text("#lines-pane .where")
    shot(site, page, "03-lines-end")
    page.click("#prev-page")
    expect(page.locator("#lines-pane td.ln").first).to_have_text("201")


def test_search_shows_highlighted_matches(site, page):
    page.goto(entry_url(site, "big"))
    page.click("#tab-search")
    page.fill("#search-text", "needle")
    page.press("#search-text", "Enter")
    page.locator("#search-pane mark").first.wait_for()
    marks = page.locator("#search-pane mark").all_inner_texts()
    assert marks == ["needle"] * 30  # 30 of the 30 lines that hold it (30,000 // 997)
    heads = page.locator("#search-pane .hit-head").all_inner_texts()
    assert heads[0].startswith("line 997 ·") and heads[-1].startswith("line 29,910 ·")
    first = page.locator("#search-pane pre.window").first.inner_text()
    assert "line 000997: needle the quick" in first
    assert page.inner_text("#search-pane p.summary") == "30 matches shown"
    shot(site, page, "04-search")
    page.check("#search-regex")
    page.fill("#search-text", r"line 0*\d*7: needle")  # lines 997 * k ending in 7: k = 1, 11, 21
    page.press("#search-text", "Enter")
    expect(page.locator("#search-pane p.summary")).to_have_text("3 matches shown")
    assert page.locator("#search-pane mark").all_inner_texts() == [
        "line 000997: needle", "line 010967: needle", "line 020937: needle"]
    page.check("#search-lines")  # context="line": each window the whole line, no byte of its neighbours
    page.press("#search-text", "Enter")
    expect(page.locator("#search-pane pre.window").first).to_have_text(site["big"].decode().split("\n")[996])
    assert page.inner_text("#search-pane p.summary") == "3 matches shown"


def test_json_tree_of_the_fixture(site, page, fixture_data):
    doc = json.loads(fixture_data["api-ec2-service-model.json"])
    page.goto(entry_url(site, "json"))
    page.click("#tab-tree")
    top = page.locator("#tree-pane > ul.tree > li")
    expect(top).to_have_count(len(doc))
    assert top.locator(":scope > .key, :scope > details > summary > .key").all_inner_texts() == list(doc)
    page.locator("#tree-pane summary", has_text="operations").click()
    ops = page.locator("#tree-pane > ul.tree > li:nth-child(3) > details > ul.tree > li")
    names = list(doc["operations"])
    expect(ops).to_have_count(201)  # 200 children and a "more" button
    assert ops.nth(0).locator("summary .key").inner_text() == names[0]
    ops.nth(0).locator("summary").click()
    http = page.locator("#tree-pane summary", has_text="http").first
    http.click()
    method = page.locator("#tree-pane li.leaf", has_text="method").first
    method.wait_for()
    assert method.inner_text() == f'method: "{doc["operations"][names[0]]["http"]["method"]}"'
    shot(site, page, "05-json-tree")
    page.locator("#tree-pane button", has_text="more").click()
    expect(ops).to_have_count(len(names))


def test_csv_table(site, page, fixture_data):
    import csv
    import io

    records = list(csv.reader(io.StringIO(fixture_data["query-packages-by-month.csv"].decode(), newline="")))
    page.goto(entry_url(site, "csv"))
    page.click("#tab-table")
    page.locator("#table-pane tbody tr").first.wait_for()
    assert page.locator("#table-pane thead th").all_text_contents() == ["#", *records[0]]
    first = page.locator("#table-pane tbody tr").first.locator("td").all_text_contents()
    assert first == ["1", *records[1]]
    shot(site, page, "06-csv")


def test_a_table_aligned_by_spaces_shows_as_a_table(site, page):
    data = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "ps-auxww.txt").read_text()
    header, first = data.split("\n")[:2]
    page.goto(entry_url(site, "aligned"))
    page.click("#tab-table")
    page.locator("#table-pane tbody tr").first.wait_for()
    assert page.locator("#table-pane thead th").all_text_contents() == ["#", *header.split()]
    cells = page.locator("#table-pane tbody tr").first.locator("td").all_text_contents()
    assert cells == ["1", *first.split(None, 10)]  # (COMMAND: the rest of the line)


def test_the_text_of_an_html_entry(site, page, fixture_data):
    from scratchfs.engine.structure import BytesSource, html_text

    page.goto(entry_url(site, "html"))
    page.click("#tab-text")
    text = page.locator("#text-pane pre.window")
    text.wait_for()
    model = html_text(BytesSource(fixture_data["browser-rust-book.html"])).decode()  # what view="text" pages
    assert text.inner_text()[:2000] == model[:2000] and "Keyboard shortcuts" in model[:2000]
    assert "<" not in text.inner_text().split("\n", 3)[2]
    assert "of text" in page.inner_text("#text-pane .where")
    shot(site, page, "06b-html-text")


def test_an_entry_holding_script_is_shown_as_text(site, page):
    page.goto(entry_url(site, "evil", agent="agent-2"))
    cell = page.locator("#lines-pane td.src").first
    cell.wait_for()
    assert cell.inner_text() == EVIL
    page.wait_for_timeout(300)  # time for an injected script or image handler to have run, were there one
    assert page.evaluate("window.__pwned") is None
    assert page.locator("main img, main b, main script").count() == 0
    page.click("#tab-search")
    page.fill("#search-text", "<script>")
    page.press("#search-text", "Enter")
    page.locator("#search-pane mark").first.wait_for()
    assert page.locator("#search-pane mark").first.inner_text() == "<script>"
    assert page.evaluate("window.__pwned") is None
    shot(site, page, "07-script-inert")


def test_a_run_refreshes_live_while_an_agent_works(site, page):
    page.goto(f"{site['base']}/runs/{RUN}")
    page.locator("table.grid tbody tr").first.wait_for()
    before = page.locator("table.grid tbody tr").count()
    with ScratchStore(site["root"]) as store:  # another process-like writer: its own store object
        handle = store.scope(RUN, "agent-3").spill(b"fresh output\n" * 2000, source_tool="live.tool").handle
    # (Playwright's own 30 s, not 10: the page polls every 2 s, and a loaded machine runs Chromium slowly; a page that
    # never refreshes still fails)
    page.locator("table.grid tbody tr", has_text=handle).wait_for()
    assert page.locator("table.grid tbody tr").count() == before + 1
    assert "agent-3" in page.locator("#agent-filter").inner_text()


def test_a_request_without_the_token_is_refused(site):
    context = site["browser"].new_context()
    tab = context.new_page()
    response = tab.goto(site["base"] + "/")
    assert response.status == 401 and "unauthorized" in tab.inner_text("body")
    response = tab.goto(f"{site['base']}/api/runs")
    assert response.status == 401 and response.json()["error"]["kind"] == "unauthorized"
    response = tab.goto(site["url"].replace("token=", "token=x"))
    assert response.status == 401
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    shot(site, tab, "08-refused")
    context.close()
    assert re.match(r"http://127\.0\.0\.1:\d+$", site["base"])


def test_a_scratchpad_value(site, page):
    page.goto(f"{site['base']}/runs/{RUN}")
    page.locator("a", has_text="plan").click()
    page.locator("pre.window").wait_for()
    assert page.inner_text("pre.window") == "1) find the needle 2) read around it"
    assert page.inner_text(".where") == "bytes 0–36 of 36"
    with page.expect_download() as caught:  # the page's download link (before: only a handle's page had one)
        page.click("#download")
    assert Path(caught.value.path()).read_bytes() == b"1) find the needle 2) read around it"


def test_deleting_from_the_page_with_allow_delete(site, tmp_path):
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("run-del", "agent-1")
        scope.spill(b"keep me\n" * 2000, source_tool="keep")
        gone = scope.spill(b"delete me\n" * 2000, source_tool="gone").handle
    with serve(tmp_path / "root", "--allow-delete") as (found, _):
        context = site["browser"].new_context()
        tab = context.new_page()
        dialogs: list[str] = []
        answer = [False]  # an entry's delete asks first, as "Delete run" does: dismissed, nothing is deleted
        tab.on("dialog", lambda d: (dialogs.append(d.message), d.accept() if answer[0] else d.dismiss()))
        tab.goto(found.group(1))
        tab.goto(found.group(1).split("/?")[0] + "/runs/run-del")
        row = tab.locator("table.grid tbody tr", has_text=gone)
        row.locator("button", has_text="delete").click()
        expect(tab.locator("table.grid tbody tr")).to_have_count(2)
        assert dialogs == [f"Delete the spilled result {gone} of agent agent-1?"]
        answer[0] = True
        row.locator("button", has_text="delete").click()  # a POST with the page's CSRF header
        expect(row).to_have_count(0)
        expect(tab.locator("table.grid tbody tr")).to_have_count(1)
        shot(site, tab, "09-after-delete")
        tab.locator("button", has_text="Delete run").click()
        tab.wait_for_url(found.group(1).split("/?")[0] + "/")
        context.close()
    assert dialogs[1:] == [f"Delete the spilled result {gone} of agent agent-1?", "Delete every entry of run run-del?"]
    with ScratchStore(tmp_path / "root") as store:
        assert store.list_entries() == []


def test_download_the_whole_entry(site, page):
    """The entry page's download link gives every byte (a read gives at most 64 KiB), through the token cookie."""
    page.goto(entry_url(site, "big"))
    link = page.locator("#download")
    expect(link).to_contain_text("Download all")
    with page.expect_download() as caught:
        link.click()
    download = caught.value
    assert download.suggested_filename.startswith(site["handles"]["big"] + ".")
    assert Path(download.path()).read_bytes() == site["big"]


def test_a_scratchpad_value_written_again_between_pages_is_said_to_have_changed(site, page):
    """Before: the next page was read from the new value, silently joined to the old one's first page."""
    with ScratchStore(site["root"]) as store:
        store.scope(RUN, AGENT).scratch_write("long", b"a" * 40_000)
    page.goto(f"{site['base']}/runs/{RUN}/agents/{AGENT}/scratchpad?key=long")
    expect(page.locator(".where")).to_contain_text("of 40,000")  # a page within the reply budget
    with ScratchStore(site["root"]) as store:
        store.scope(RUN, AGENT).scratch_write("long", b"b" * 40_000)
    page.click("text=next ▶")
    expect(page.locator(".out")).to_contain_text("changed: ")
    assert "bbbb" not in page.inner_text(".out") and "read it again from offset 0" in page.inner_text(".out")
    page.problems[:] = [p for p in page.problems if "status of 409" not in p]  # the refusal the page shows


def test_a_run_whose_id_no_url_path_holds_is_shown_without_a_dead_link(site, page):
    """A run named ``a/b`` (the CLI takes it) was listed as a link that opened a bare '404 not found: no such route'
    (newuser4): the server decodes %2F before routing, as a browser resolves ``.`` and ``..``. Such a run is listed
    as text whose title says why and what to use instead; a plain run is still a link."""
    with ScratchStore(site["root"]) as store:
        store.scope("a/b", "agent-1").spill(b"slashed\n" * 2000, source_tool="t")
    try:
        page.reload()
        row = page.locator("table.grid tbody tr", has_text="a/b")
        row.wait_for()  # (Playwright's own 30 s: a loaded machine runs Chromium slowly)
        assert row.locator("a").count() == 0
        assert "cannot be opened here" in row.locator("span.id").first.get_attribute("title")
        assert page.locator("table.grid tbody tr", has_text=RUN).locator("a").count() == 1
    finally:
        with ScratchStore(site["root"]) as store:
            store.delete_run("a/b")


@pytest.mark.parametrize(("run", "link", "href"), [("run-nope", "runs", "/"), (RUN, f"run {RUN}", f"/runs/{RUN}")])
def test_the_page_of_a_missing_handle_links_where_to_go_on(site, page, run, link, href):
    """The page of a handle that names nothing showed the model's advice ("copy the handle whole from the stub that
    gave it ..., or run the tool that made it again"), which a person cannot follow (newuser14): it shows what is
    known and a link to the run's listing when the run holds live entries, else to the runs."""
    page.goto(f"{site['base']}/runs/{run}/agents/x/handles/h_{'a' * 24}")
    error = page.locator("#app p.error")
    expect(error).to_contain_text(f"not found: no handle 'h_{'a' * 24}' in this scope (run '{run}', agent 'x')")
    assert "run the tool" not in error.inner_text() and "stub" not in error.inner_text()
    go = page.locator("#app p.see a")
    assert (go.inner_text(), go.get_attribute("href")) == (link, href)
    go.click()
    page.wait_for_url(site["base"] + href)
    page.problems[:] = [p for p in page.problems if "status of 404" not in p]  # the refusal the page shows


def test_a_page_of_another_port_cannot_prefetch_or_navigate_into_the_api(site):
    """A page served on another port of 127.0.0.1 (the same site: the token cookie goes along), with the person
    logged in: its speculation rules' prefetch (Chromium sends ``Sec-Fetch-Site: none`` and ``Sec-Purpose``) and
    its navigation of itself to ``/api/fsck?deep=true`` each ran a deep check. Both are refused now: the check
    asked for afterwards with the token is made fresh (``age`` 0), not served from the attacker's."""
    import http.server
    import threading
    import urllib.request

    token = site["url"].split("token=", 1)[1]
    pages = {}

    class Attacker(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = pages.get(self.path, "").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    attacker = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    other = f"http://127.0.0.1:{attacker.server_address[1]}"
    fsck = site["base"] + "/api/fsck?deep=true&limit="
    pages["/prefetch"] = ('<script type="speculationrules">{"prefetch": [{"source": "list", "urls": ["'
                          f'{fsck}7001"]}}]}}</script>')
    pages["/navigate"] = f'<script>location.href = "{fsck}7002";</script>'
    context = site["browser"].new_context()
    try:
        tab = context.new_page()
        tab.goto(site["url"])  # logged in: the cookie is set
        statuses = {}
        tab.on("response", lambda r: statuses.setdefault(r.url, r.status) if r.url.startswith(fsck) else None)
        for name in ("prefetch", "navigate"):
            tab.goto(other + "/" + name)
            tab.wait_for_timeout(1500)
        assert statuses.get(fsck + "7002") == 403
        for limit in (7001, 7002):
            asked = urllib.request.Request(f"{fsck}{limit}", headers={"Authorization": f"Bearer {token}"})
            with urllib.request.urlopen(asked) as response:
                assert json.load(response)["age"] < 0.5, limit  # made now: no attacker's report to serve again
    finally:
        context.close()
        attacker.shutdown()
        attacker.server_close()


def test_a_runs_entries_filtered_by_kind_and_their_order_said(site, page):
    """helper leftovers8: the API took ``?kind=handle`` but the run page had no such filter, and listed the spilled
    results oldest first among the scratchpad values without a word, where ``scratch_list(spilled=true)`` lists them
    newest first. The page filters by kind (kept in its URL, ``?kind=``, so a link opens it so) and says the order."""
    page.goto(f"{site['base']}/runs/{RUN}")
    rows = page.locator("table.grid tbody tr")
    rows.first.wait_for()
    assert "oldest first" in page.locator("#order").inner_text()
    page.select_option("#kind-filter", "handle")
    page.wait_for_url(re.compile(r".*\?kind=handle$"))
    expect(rows.filter(has_text="plan")).to_have_count(0)
    kinds = rows.locator("td:first-child").all_inner_texts()
    assert kinds and set(kinds) == {"spilled"}
    keys = rows.locator("td:nth-child(2)").all_inner_texts()
    assert keys[:2] == [site["handles"]["big"], site["handles"]["json"]]  # (oldest first, as said)
    page.goto(f"{site['base']}/runs/{RUN}?kind=scratch")  # (a link to the filtered list)
    expect(rows.filter(has_text="plan")).to_have_count(1)  # (other tests of the module write scratch values too)
    assert set(rows.locator("td:first-child").all_inner_texts()) == {"scratch"}
    assert page.locator("#kind-filter").input_value() == "scratch"
