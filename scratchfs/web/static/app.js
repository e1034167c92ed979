// scratchfs inspector page: builds every view from the JSON API with DOM calls that set text only
// (textContent only, never markup), so entry content can never run as HTML. No framework, no build step.
"use strict";

const body = document.body;
const app = document.getElementById("app");
const csrf = document.querySelector('meta[name="scratchfs-csrf"]').content;
const enc = new TextEncoder();
const dec = new TextDecoder();
const TABLE_SHAPES = ["table aligned by spaces", "Markdown table", "psql table", "table in +---+ borders",
  "table in box-drawing lines", "DuckDB table"];

// -- helpers ---------------------------------------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function seg(text) { return encodeURIComponent(text); }

function apiUrl(path, params) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "") query.set(k, v);
  const q = query.toString();
  return path + (q ? "?" + q : "");
}

async function getJson(path, params) {
  const response = await fetch(apiUrl(path, params), {credentials: "same-origin"});
  const data = await response.json().catch(() => ({error: {kind: "error", message: response.statusText}}));
  if (!response.ok) {
    const error = new Error((data.error && (data.error.kind + ": " + data.error.message)) || response.status);
    error.see = data.error && data.error.see;  // (a missing entry's: the page to go on from)
    throw error;
  }
  return data;
}

async function postJson(path, params) {
  const response = await fetch(apiUrl(path, params), {
    method: "POST", credentials: "same-origin", headers: {"X-Scratchfs-Csrf": csrf}});
  const data = await response.json();
  if (!response.ok) throw new Error(data.error.kind + ": " + data.error.message);
  return data;
}

function bytes(n) {
  if (n === null || n === undefined) return "";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  const shown = (v, k) => (k === 0 ? String(v) : v.toFixed(v < 10 ? 1 : 0));  // (one that rounds to 1024: the next unit)
  let i = 0;
  while (i < units.length - 1 && Number(shown(n, i)) >= 1024) { n /= 1024; i++; }
  return shown(n, i) + " " + units[i];
}

function seconds(s) {
  if (s <= 0) return "expired";
  const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60, r = Math.floor(s % 60);
  if (d) return d + "d " + h + "h";
  if (h) return h + "h " + m + "m";
  if (m) return m + "m " + r + "s";
  return r + "s";
}

function number(n) { return Number(n).toLocaleString("en-US"); }
function counted(n, noun) { return number(n) + " " + noun + (n === 1 ? "" : "s"); }

function setStatus(text, isError) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.className = isError ? "error" : "";
}

function showError(where, error) {
  const see = error && error.see;
  where.replaceChildren(el("p", {class: "error", text: String(error.message || error)}),
                        see ? el("p", {class: "see"}, "Go to ", el("a", {href: see.href, text: see.text})) : null);
}

function crumbs(...parts) {
  const nav = document.getElementById("crumbs");
  nav.replaceChildren();
  for (const [text, href] of parts) {
    nav.append(el("span", {class: "sep", text: "/"}), href ? el("a", {href, text}) : el("span", {text}));
  }
}

function runHref(run) { return "/runs/" + seg(run); }
// An id a URL path cannot carry: the server decodes %2F before routing, and a browser resolves . and .. (README)
function inPath(id) { return !id.includes("/") && id !== "." && id !== ".."; }
const NO_PATH = "this id cannot be opened here (a URL path cannot hold '/', '.' or '..'): " +
  "use scratchfs ls --run RUN, or the JSON API with curl --path-as-is";
function idLink(href, id) {
  return href === null ? el("span", {class: "id", title: NO_PATH, text: id}) : el("a", {href, class: "id", text: id});
}
function entryHref(e) {
  const base = "/runs/" + seg(e.run_id) + "/agents/" + seg(e.agent_id);
  return e.kind === "handle" ? base + "/handles/" + seg(e.key) : base + "/scratchpad?key=" + seg(e.key);
}
function apiEntry(run, agent, handle) {
  return "/api/runs/" + seg(run) + "/agents/" + seg(agent) + "/handles/" + seg(handle);
}

function table(headers, rows, cls) {
  return el("table", {class: cls || "grid"},
    el("thead", {}, el("tr", {}, ...headers.map(h => el("th", {text: h})))),
    el("tbody", {}, ...rows));
}

function poller(fn, ms) {
  let timer = null;
  const tick = async () => {
    if (!document.hidden) { try { await fn(); } catch (e) { setStatus(String(e.message || e), true); } }
    timer = setTimeout(tick, ms);
  };
  return {start() { if (!timer) timer = setTimeout(tick, ms); }, stop() { clearTimeout(timer); timer = null; }};
}

function liveToggle(poll, label) {
  const box = el("input", {type: "checkbox", id: "live", checked: true});
  box.addEventListener("change", () => (box.checked ? poll.start() : poll.stop()));
  poll.start();
  return el("label", {class: "live"}, box, " " + (label || "live refresh"));
}

// -- runs ------------------------------------------------------------------------------------------------------------

async function viewRuns() {
  crumbs(["runs", null]);
  const holder = el("div");
  const fsckOut = el("div", {class: "fsck"});
  const fsckButton = el("button", {type: "button", text: "Check files (fsck, quick)", onclick: async () => {
    fsckOut.textContent = "checking…";
    try {
      const r = await getJson("/api/fsck", {deep: "false"});
      fsckOut.textContent = r.clean ? `clean: ${number(r.entries_checked)} entries, ${number(r.files_checked)} files`
        : `${r.missing} missing, ${r.corrupt} corrupt, ${r.orphaned} orphaned (run scratchfs fsck for details)`;
    } catch (e) { showError(fsckOut, e); }
  }});
  app.replaceChildren(el("h1", {text: "Runs"}), holder, el("div", {class: "tools"}, fsckButton, fsckOut));
  const render = async () => {
    const data = await getJson("/api/runs");
    if (!data.runs.length) { holder.replaceChildren(el("p", {class: "empty", text: "No live entries."})); return; }
    const rows = data.runs.map(run => el("tr", {},
      el("td", {}, idLink(inPath(run.run_id) ? runHref(run.run_id) : null, run.run_id)),
      el("td", {class: "agents"}, ...run.agents.map(a =>
        el("span", {class: "agent"}, el("span", {class: "id", text: a.agent_id}), ` ${number(a.entries)}`))),
      el("td", {class: "num", text: number(run.entries)}),
      el("td", {class: "num", text: `${number(run.handles)} / ${number(run.scratch)}`}),
      el("td", {class: "num", text: bytes(run.bytes_in)}),
      el("td", {class: "num", text: bytes(run.bytes_on_disk)}),
      el("td", {class: "num", text: seconds(run.next_expiry_in)})));
    holder.replaceChildren(table(["run", "agents (entries)", "entries", "spilled / scratch", "bytes",
                                  "on disk", "next expiry"], rows));
    setStatus("updated " + new Date().toLocaleTimeString());
  };
  await render();
  app.append(liveToggle(poller(render, 3000)));
}

// -- one run ---------------------------------------------------------------------------------------------------------

const KINDS = {"": "all kinds", handle: "spilled results", scratch: "scratchpad values"};  // (the API's ?kind=)

async function viewRun() {
  const run = body.dataset.run;
  crumbs(["runs", "/"], ["run " + run, null]);
  const allowDelete = body.dataset.allowDelete === "true";
  const asked = new URLSearchParams(location.search).get("kind");  // (?kind=handle|scratch: a link to one kind)
  const state = {cursors: [null], page: 0, agent: "", kind: Object.hasOwn(KINDS, asked || "") ? asked : ""};
  const summary = el("p", {class: "summary"});
  const order = el("p", {id: "order", class: "summary", text: "Entries are listed oldest first (by when each was " +
    "written), spilled results and scratchpad values together unless a kind is chosen; the model's " +
    "scratch_list(spilled=true) lists its spilled results newest first."});
  const holder = el("div");
  const agentSelect = el("select", {id: "agent-filter"}, el("option", {value: "", text: "all agents"}));
  agentSelect.addEventListener("change", () => { state.agent = agentSelect.value; state.cursors = [null];
                                                  state.page = 0; render(); });
  const kindSelect = el("select", {id: "kind-filter"},
                        ...Object.entries(KINDS).map(([value, text]) => el("option", {value, text})));
  kindSelect.value = state.kind;
  kindSelect.addEventListener("change", () => {
    state.kind = kindSelect.value; state.cursors = [null]; state.page = 0;
    history.replaceState(null, "", location.pathname + (state.kind ? "?kind=" + state.kind : ""));
    render();
  });
  const prev = el("button", {type: "button", text: "◀ previous", onclick: () => { state.page--; render(); }});
  const next = el("button", {type: "button", text: "next ▶", onclick: () => { state.page++; render(); }});
  const head = el("div", {class: "tools"}, el("h1", {}, "Run ", el("span", {class: "id", text: run})));
  if (allowDelete) {
    head.append(el("button", {type: "button", class: "danger", text: "Delete run", onclick: async () => {
      if (!confirm("Delete every entry of run " + run + "?")) return;
      await postJson("/api/runs/" + seg(run) + "/delete"); location.href = "/";
    }}));
  }
  app.replaceChildren(head, summary, order, el("div", {class: "tools"}, agentSelect, kindSelect, prev, next), holder);

  async function render() {
    const page = await getJson("/api/runs/" + seg(run) + "/scratch",
                               {cursor: state.cursors[state.page], limit: 100, agent: state.agent,
                                kind: state.kind});
    state.cursors[state.page + 1] = page.next_cursor;
    prev.disabled = state.page === 0;
    next.disabled = !page.next_cursor;
    const runs = await getJson("/api/runs");
    const info = runs.runs.find(r => r.run_id === run);
    const known = new Set([...agentSelect.options].map(o => o.value));
    for (const a of (info ? info.agents : [])) {
      if (!known.has(a.agent_id)) agentSelect.append(el("option", {value: a.agent_id, text: a.agent_id}));
    }
    summary.textContent = info
      ? `${number(info.entries)} entries (${number(info.handles)} spilled, ${number(info.scratch)} scratch) · ` +
        `${bytes(info.bytes_in)} in, ${bytes(info.bytes_on_disk)} on disk · agents: ` +
        info.agents.map(a => `${a.agent_id} (${number(a.entries)})`).join(", ") +
        ` · next expiry in ${seconds(info.next_expiry_in)}`
      : "No live entries in this run.";
    const biggest = Math.max(1, ...page.entries.map(e => e.size));
    const rows = page.entries.map(e => el("tr", {},
      el("td", {text: e.kind === "handle" ? "spilled" : "scratch"}),
      el("td", {}, idLink(inPath(e.agent_id) ? entryHref(e) : null, e.key)),
      el("td", {class: "id", text: e.agent_id}),
      el("td", {text: e.source_tool || ""}),
      el("td", {class: "num", text: bytes(e.size)}),
      el("td", {class: "num", text: e.ratio === null ? "" : e.ratio.toFixed(1) + "×"}),
      el("td", {class: "num", text: seconds(e.expires_in)}),
      el("td", {class: "bar"}, el("div", {class: "bar"}, el("span", {}))),
      allowDelete ? el("td", {}, el("button", {type: "button", class: "danger small", text: "delete",
        onclick: async () => {
          const what = e.kind === "handle" ? "the spilled result " : "the scratchpad value ";
          if (!confirm("Delete " + what + e.key + " of agent " + e.agent_id + "?")) return;
          const base = "/api/runs/" + seg(e.run_id) + "/agents/" + seg(e.agent_id);
          if (e.kind === "handle") await postJson(base + "/handles/" + seg(e.key) + "/delete");
          else await postJson(base + "/scratchpad/delete", {key: e.key});
          render();
        }})) : null));
    // widths are set through the CSSOM (no inline style attribute, which the CSP forbids)
    rows.forEach((row, i) => {
      row.querySelector("div.bar > span").style.width = (100 * page.entries[i].size / biggest).toFixed(1) + "%";
    });
    const headers = ["kind", "key", "agent", "tool", "size", "ratio", "expires in", "size bar"];
    if (allowDelete) headers.push("");
    holder.replaceChildren(page.entries.length ? table(headers, rows) : el("p", {class: "empty", text: "No entries."}));
    setStatus("updated " + new Date().toLocaleTimeString());
  }
  await render();
  app.append(liveToggle(poller(render, 2000)));
}

// -- one spilled entry -----------------------------------------------------------------------------------------------

function textOf(result) {
  return result.encoding === "base64" ? "(not UTF-8; base64) " + result.data : result.data;
}

function codeTable(firstLine, text) {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return el("table", {class: "code"}, el("tbody", {}, ...lines.map((line, i) =>
    el("tr", {}, el("td", {class: "ln", text: firstLine === null ? "" : String(firstLine + i)}),
      el("td", {class: "src", text: line})))));
}

function linesPane(base, meta) {
  const pane = el("section", {class: "pane", id: "lines-pane"});
  const out = el("div", {class: "out"});
  const where = el("span", {class: "where"});
  const state = {history: [], current: {line: 1}};
  const goto = el("input", {type: "number", min: 1, id: "goto-line", placeholder: "line", size: 8});
  const prev = el("button", {type: "button", id: "prev-page", text: "◀ previous", onclick: () => {
    if (state.history.length) { state.current = state.history.pop(); load(); }
  }});
  const next = el("button", {type: "button", id: "next-page", text: "next ▶"});
  const gotoForm = el("form", {class: "inline", onsubmit: ev => {
    ev.preventDefault();
    const n = parseInt(goto.value, 10);
    if (n >= 1) { state.history.push(state.current); state.current = {line: n}; load(); }
  }}, goto, el("button", {type: "submit", text: "go"}));
  pane.append(el("div", {class: "tools"}, prev, next, gotoForm, where), out);

  async function load() {
    const cur = state.current;
    // the largest reply budget the contract allows: a page is as many of 200 lines as fit in 64 KiB of JSON
    const params = cur.offset !== undefined ? {offset: cur.offset, length: 65536, budget: 65536}
                                            : {line: cur.line, lines: 200, budget: 65536};
    try {
      const r = await getJson(base + "/read", params);
      out.replaceChildren(codeTable(r.first_line === undefined ? null : r.first_line, textOf(r)));
      const end = r.offset + r.length;
      where.textContent = (r.first_line !== undefined
        ? `lines ${number(r.first_line)}–${number(r.first_line + Math.max(r.lines, 1) - 1)} of ${number(r.total_lines)} · `
        : "continued line · ") + `bytes ${number(r.offset)}–${number(end)} of ${number(r.size)}`;
      if (r.cut) out.append(el("p", {class: "note", text: "this line goes on past the 64 KiB read cap: next reads on by bytes"}));
      prev.disabled = !state.history.length;
      next.disabled = r.next_offset === null;
      next.onclick = () => {
        state.history.push(cur);
        state.current = r.cut || r.next_line === undefined ? {offset: r.next_offset} : {line: r.next_line};
        load();
      };
    } catch (e) { showError(out, e); }
  }
  load();
  return pane;
}

// a window's matches: listed when several; one is at match_offset (else offset), match_length long (else to the end)
function hits(win) {
  if (win.matches) return win.matches;
  const start = win.match_offset ?? win.offset;
  return [{offset: start, length: win.match_length ?? win.offset + win.length - start, line: win.line}];
}

function highlighted(win) {
  if (win.encoding === "base64") return el("pre", {class: "window", text: "(not UTF-8; base64) " + win.data});
  const raw = enc.encode(win.data);
  const pre = el("pre", {class: "window"});
  let at = 0;
  for (const m of hits(win)) {
    const start = Math.max(at, m.offset - win.offset), end = Math.min(raw.length, m.offset - win.offset + m.length);
    if (start < at || end <= start) continue;
    pre.append(dec.decode(raw.subarray(at, start)), el("mark", {text: dec.decode(raw.subarray(start, end))}));
    at = end;
  }
  pre.append(dec.decode(raw.subarray(at)));
  return pre;
}

function searchPane(base) {
  const pane = el("section", {class: "pane", id: "search-pane", hidden: true});
  const input = el("input", {type: "search", id: "search-text", placeholder: "text or regular expression", size: 40});
  const regex = el("input", {type: "checkbox", id: "search-regex"});
  const fold = el("input", {type: "checkbox", id: "search-ignore-case"});
  const context = el("input", {type: "number", id: "search-context", min: 0, max: 8192, value: 120, size: 6});
  const wholeLines = el("input", {type: "checkbox", id: "search-lines"});  // context="line": each match's line
  const out = el("div", {class: "out"});
  const more = el("button", {type: "button", id: "more-matches", text: "more matches", hidden: true});
  let count = 0;
  async function run(offset) {
    const params = {context: wholeLines.checked ? "line" : context.value, max_matches: 50, offset, budget: 65536};
    params[regex.checked ? "pattern" : "match"] = input.value;
    if (fold.checked) params.ignore_case = "true";
    try {
      const r = await getJson(base + "/read", params);
      if (!offset) { out.replaceChildren(); count = 0; }
      for (const w of r.windows) {
        const found = hits(w);
        count += found.length;
        out.append(el("div", {class: "hit"},
          el("div", {class: "hit-head", text: `line ${number(w.line)} · byte ${number(found[0].offset)}` +
                                              (found.length > 1 ? ` · ${found.length} matches` : "")}),
          highlighted(w)));
      }
      out.prepend(el("p", {class: "summary", text: count ? `${number(count)} ${count === 1 ? "match" : "matches"} shown` +
                                                          (r.more ? " (more below)" : "") : "no match"}));
      const old = out.querySelectorAll("p.summary");
      for (let i = 1; i < old.length; i++) old[i].remove();
      more.hidden = !r.more;
      more.onclick = () => run(r.next_offset);
    } catch (e) { showError(out, e); more.hidden = true; }
  }
  const form = el("form", {class: "inline", id: "search-form", onsubmit: ev => {
    ev.preventDefault();
    if (input.value) run(0);
  }}, input, el("label", {}, regex, " regex"), el("label", {}, fold, " ignore case"),
     el("label", {}, "context ", context), el("label", {}, wholeLines, " whole lines"),
     el("button", {type: "submit", text: "search"}));
  pane.append(el("div", {class: "tools"}, form), out, more);
  return pane;
}

function treeNode(base, child) {
  const label = [el("span", {class: "key", text: typeof child.key === "number" ? `[${child.key}]` : child.key})];
  if (child.type === "object" || child.type === "array") {
    const open = child.type === "object" ? "{…}" : "[…]";
    const details = el("details", {},
      el("summary", {}, ...label, el("span", {class: "punct", text: ": " + open}),
         el("span", {class: "count", text: " " + counted(child.count, child.type === "object" ? "key" : "item")})));
    let loaded = false;
    details.addEventListener("toggle", () => {
      if (details.open && !loaded) { loaded = true; details.append(treeChildren(base, child.path)); }
    });
    return el("li", {}, details);
  }
  const value = child.type === "string" ? JSON.stringify(child.value) + (child.cut ? "…" : "")
    : child.text !== undefined ? child.text : String(child.value);
  return el("li", {class: "leaf"}, ...label, el("span", {class: "punct", text: ": "}),
            el("span", {class: "v-" + child.type, text: value}));
}

function treeChildren(base, path) {
  const list = el("ul", {class: "tree"}, el("li", {class: "loading", text: "loading…"}));
  fillTree(base, path, 0, list, list.firstChild);
  return list;
}

// load children from `offset` into `list`, in place of `placeholder` (a "loading…" or "more…" item)
function fillTree(base, path, offset, list, placeholder) {
  getJson(base + "/tree", {path, offset, limit: 200}).then(node => {
    placeholder.replaceWith(...node.children.map(c => treeNode(base, c)));
    if (node.next_offset !== null) {
      const moreItem = el("li", {}, el("button", {type: "button", class: "small",
        text: `${number(node.count - node.next_offset)} more…`,
        onclick: () => fillTree(base, path, node.next_offset, list, moreItem)}));
      list.append(moreItem);
    }
  }).catch(e => showError(list, e));
}

function treePane(base) {
  const pane = el("section", {class: "pane", id: "tree-pane", hidden: true});
  let loaded = false;
  pane.load = () => {
    if (loaded) return;
    loaded = true;
    getJson(base + "/tree", {path: ""}).then(root => {
      if (root.type !== "object" && root.type !== "array") {
        pane.append(el("p", {text: "The document is a single " + root.type + ": " + JSON.stringify(root.value)}));
        return;
      }
      pane.append(el("p", {class: "summary", text: `${root.type}, ` +
                                                   counted(root.count, root.type === "object" ? "key" : "item")}),
                  treeChildren(base, ""));
    }).catch(e => showError(pane, e));
  };
  return pane;
}

function tablePane(base) {
  const pane = el("section", {class: "pane", id: "table-pane", hidden: true});
  const out = el("div", {class: "out"});
  const where = el("span", {class: "where"});
  let row = 0;
  const prev = el("button", {type: "button", text: "◀ previous", onclick: () => { row = Math.max(0, row - 100); load(); }});
  const next = el("button", {type: "button", text: "next ▶", onclick: () => { row += 100; load(); }});
  pane.append(el("div", {class: "tools"}, prev, next, where), out);
  async function load() {
    try {
      const t = await getJson(base + "/table", {row, rows: 100});
      out.replaceChildren(table(["#", ...t.columns], t.rows.map((cells, i) =>
        el("tr", {}, el("td", {class: "ln", text: String(t.row + i + 1)}), ...cells.map(c => el("td", {text: c}))))));
      where.textContent = `rows ${number(t.row + 1)}–${number(t.row + t.rows.length)} of ${number(t.total_rows)}` +
                          (t.partial ? " (first 4 MiB only)" : "");
      prev.disabled = t.row === 0;
      next.disabled = t.next_row === null;
    } catch (e) { showError(out, e); }
  }
  let loaded = false;
  pane.load = () => { if (!loaded) { loaded = true; load(); } };
  return pane;
}

function textPane(base) {
  const pane = el("section", {class: "pane", id: "text-pane", hidden: true});
  const out = el("div", {class: "out"});
  const where = el("span", {class: "where"});
  const history = [];
  let offset = 0;
  const prev = el("button", {type: "button", text: "◀ previous", onclick: () => { offset = history.pop() || 0; load(); }});
  const next = el("button", {type: "button", text: "next ▶"});
  pane.append(el("div", {class: "tools"}, prev, next, where), out);
  async function load() {
    try {
      const t = await getJson(base + "/text", {offset, length: 16384});
      out.replaceChildren(el("pre", {class: "window prose", text: t.data}));
      where.textContent = `bytes ${number(t.offset)}–${number(t.offset + t.length)} of ${number(t.size)} ` +
                          "of text" + (t.partial ? " (from the start of the page only: it is larger than the text view reads)" : "");
      prev.disabled = !history.length;
      next.disabled = t.next_offset === null;
      next.onclick = () => { history.push(offset); offset = t.next_offset; load(); };
    } catch (e) { showError(out, e); }
  }
  let loaded = false;
  pane.load = () => { if (!loaded) { loaded = true; load(); } };
  return pane;
}

async function viewHandle() {
  const {run, agent, handle} = body.dataset;
  crumbs(["runs", "/"], ["run " + run, runHref(run)], ["agent " + agent, null], [handle, null]);
  const base = apiEntry(run, agent, handle);
  let meta;
  try { meta = await getJson(base); } catch (e) { showError(app, e); return; }
  const facts = [["tool", meta.source_tool || "—"], ["type", meta.content_type || "—"], ["size", bytes(meta.size)],
    ["lines", number(meta.lines)], ["on disk", bytes(meta.stored_size)],
    ["ratio", meta.ratio === null ? "—" : meta.ratio.toFixed(1) + "×"], ["expires in", seconds(meta.expires_in)]];
  const panes = {lines: linesPane(base, meta), search: searchPane(base)};
  if (meta.content_type === "json") panes.tree = treePane(base);
  // (text read as a table's rows: its shape starts so -- shape_aligned.ALIGNED_SHAPE, shape_pipes.PIPE_SHAPES)
  const tabled = meta.content_type === "text" && TABLE_SHAPES.some((start) => (meta.shape || "").startsWith(start));
  if (meta.content_type === "csv" || tabled) panes.table = tablePane(base);
  if (meta.content_type === "html") panes.text = textPane(base);
  const names = {lines: "Lines", search: "Search", tree: "JSON tree", table: "Table", text: "Text"};
  const tabs = el("nav", {class: "tabs"});
  for (const name of Object.keys(panes)) {
    tabs.append(el("button", {type: "button", id: "tab-" + name, class: name === "lines" ? "active" : "",
      text: names[name], onclick: () => {
        for (const [other, pane] of Object.entries(panes)) {
          pane.hidden = other !== name;
          document.getElementById("tab-" + other).className = other === name ? "active" : "";
        }
        if (panes[name].load) panes[name].load();
      }}));
  }
  app.replaceChildren(
    el("h1", {}, "Spilled result ", el("span", {class: "id", text: handle})),
    el("dl", {class: "facts"}, ...facts.map(([k, v]) => el("div", {}, el("dt", {text: k}), el("dd", {text: v})))),
    meta.shape ? el("p", {class: "shape", text: meta.shape}) : null,
    el("p", {}, el("a", {id: "download", href: base + "/content", download: "",
                         text: "Download all " + bytes(meta.size)})),
    tabs, ...Object.values(panes));
}

// -- one scratchpad value --------------------------------------------------------------------------------------------

async function viewScratch() {
  const {run, agent, key} = body.dataset;
  crumbs(["runs", "/"], ["run " + run, runHref(run)], ["agent " + agent, null], ["key " + key, null]);
  const base = "/api/runs/" + seg(run) + "/agents/" + seg(agent) + "/scratchpad";
  const out = el("div", {class: "out"});
  const where = el("span", {class: "where"});
  const history = [];
  let offset = 0;
  const prev = el("button", {type: "button", text: "◀ previous", onclick: () => { offset = history.pop() || 0; load(); }});
  const next = el("button", {type: "button", text: "next ▶"});
  const download = el("a", {id: "download", href: base + "/content?key=" + seg(key), download: "",
                            text: "Download all"});
  let version = null;  // the value the first page read: a later page of a value written since is refused (409)
  app.replaceChildren(el("h1", {}, "Scratchpad ", el("span", {class: "id", text: key})),
                      el("div", {class: "tools"}, prev, next, where, download), out);
  async function load() {
    try {
      const params = {key, offset, length: 16384};
      if (version) params.version = version;
      const r = await getJson(base + "/read", params);
      const pinned = /version="([^"]+)"/.exec(r.next_call || "");
      if (pinned) version = pinned[1];
      out.replaceChildren(el("pre", {class: "window", text: textOf(r)}));
      where.textContent = `bytes ${number(r.offset)}–${number(r.offset + r.length)} of ${number(r.size)}`;
      prev.disabled = !history.length;
      next.disabled = r.next_offset === null;
      next.onclick = () => { history.push(offset); offset = r.next_offset; load(); };
    } catch (e) { showError(out, e); }
  }
  load();
}

const views = {runs: viewRuns, run: viewRun, handle: viewHandle, scratch: viewScratch};
(views[body.dataset.view] || viewRuns)().catch(e => showError(app, e));
