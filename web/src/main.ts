// Norn's web explorer: session and login, the hash router, keyboard shortcuts and
// the live feed's wiring. Routes: #/note/<path>[?at=REV], #/search?q=,
// #/graph/<path>[?depth=&types=&max=], #/hubs[?max=], #/history[/<path>].
import { api, ApiError, setCSRF, type Session } from "./api";
import { $, errorBox, h, noteHref, toast } from "./dom";
import { destroyGraph, refreshGraph, renderGraph, type GraphQuery } from "./graph";
import { leaveHistory, prependEvent, renderHistory } from "./history";
import { Feed, touches, type FeedEvent } from "./live";
import { renderNote } from "./note";
import { listKeys, renderSearch } from "./search";
import { markCurrent, renderTree } from "./tree";

let session: Session | null = null;
const feed = new Feed();
let graphQuery: GraphQuery | null = null;
let routeSeq = 0;

// timings records when each route first finished rendering (ms since navigation
// start): the performance test reads them.
const timings: Record<string, number> = {};
(window as unknown as { nornTimings: Record<string, number> }).nornTimings = timings;
timings.script = performance.now(); // the bundle has been fetched, parsed and started

interface Route { name: string; path: string; params: URLSearchParams }

function parse(hash: string): Route {
  const raw = hash.replace(/^#\/?/, "");
  const qi = raw.indexOf("?");
  const head = qi < 0 ? raw : raw.slice(0, qi);
  const params = new URLSearchParams(qi < 0 ? "" : raw.slice(qi + 1));
  const slash = head.indexOf("/");
  const name = slash < 0 ? head : head.slice(0, slash);
  let path = slash < 0 ? "" : head.slice(slash + 1);
  try { path = decodeURI(path); } catch { /* keep it raw */ }
  return { name, path, params };
}

async function route(changedBy?: string): Promise<void> {
  if (!session) return;
  const seq = ++routeSeq;
  const view = $("view");
  const r = parse(location.hash);
  if (r.name !== "graph" && r.name !== "hubs") { destroyGraph(); graphQuery = null; }
  if (r.name !== "history") leaveHistory();
  view.dataset.route = r.name || "home";
  view.removeAttribute("data-loaded");
  switch (r.name) {
    case "note":
      await renderNote(view, r.path, r.params.get("at") ?? "", session, changedBy);
      break;
    case "search":
      await renderSearch(view, r.params.get("q") ?? "");
      break;
    case "graph":
    case "hubs":
      graphQuery = {
        path: r.name === "hubs" ? "" : r.path,
        depth: Number(r.params.get("depth")) || 1,
        types: r.params.get("types") ?? "",
        max: Number(r.params.get("max")) || (r.name === "hubs" ? 60 : 150),
      };
      await renderGraph(view, graphQuery);
      break;
    case "history":
      await renderHistory(view, r.path, session);
      break;
    default:
      home(view);
  }
  if (seq !== routeSeq) return;
  view.dataset.loaded = "1";
  markCurrent();
  const key = r.name || "home";
  if (timings[key] === undefined) requestAnimationFrame(() => { timings[key] ??= performance.now(); });
}

function home(view: HTMLElement): void {
  const s = session!;
  view.replaceChildren(
    h("h1", {}, s.vault || "Vault"),
    h("p", {}, `Signed in as ${s.principal} (${s.scopes.join(", ")}).`),
    h("ul", { class: "home-links" },
      h("li", {}, h("a", { href: "#/hubs" }, "The hubs graph")),
      h("li", {}, h("a", { href: "#/history" }, "What changed lately")),
      h("li", {}, h("a", { href: "#/search?q=" }, "Search (press /)"))));
}

function onEvent(e: FeedEvent): void {
  prependEvent(e);
  const r = parse(location.hash);
  if (r.name === "note" && !r.params.get("at") && touches(e, r.path)) {
    const moved = e.changes.find((c) => c.from === r.path);
    const msg = `Changed by ${e.author.name}${e.op ? " (" + e.op + ")" : ""} just now`;
    toast(msg);
    if (moved) location.hash = noteHref(moved.path);
    else void route(msg);
  }
  if (graphQuery) void refreshGraph(graphQuery);
  if (e.changes.some((c) => c.kind !== "modified")) void renderTree();
}

async function start(s: Session): Promise<void> {
  session = s;
  setCSRF(s.csrf);
  $("login").hidden = true;
  document.body.classList.remove("logged-out");
  const out = h("button", { type: "button", class: "logout" }, "Log out");
  out.addEventListener("click", () => void logout());
  $("who").replaceChildren(h("span", {}, s.principal), " ", out);
  feed.start();
  // The view first: the tree (thousands of notes on a big vault) comes after it.
  const tree = api.tree();
  tree.catch(() => undefined);
  await route();
  await renderTree(tree);
}

async function logout(): Promise<void> {
  try { await api.logout(); } catch (err) { toast(String((err as Error).message)); }
  session = null;
  feed.stop();
  showLogin("");
}

function showLogin(msg: string): void {
  document.body.classList.add("logged-out");
  $("tree").replaceChildren();
  $("view").replaceChildren();
  $("who").replaceChildren();
  $("login").hidden = false;
  $("login-error").textContent = msg;
  ($("token") as HTMLInputElement).focus();
}

async function login(e: Event): Promise<void> {
  e.preventDefault();
  const input = $("token") as HTMLInputElement;
  try {
    const s = await api.login(input.value.trim());
    input.value = "";
    await start(s);
  } catch (err) {
    $("login-error").textContent = err instanceof ApiError && err.status === 401 ? "That token was not accepted." : String((err as Error).message);
  }
}

function keys(e: KeyboardEvent): void {
  const t = e.target as HTMLElement;
  const typing = t.matches("input, textarea, select, [contenteditable]");
  if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
    e.preventDefault();
    const q = $("q") as HTMLInputElement;
    q.focus();
    q.select();
  } else if (e.key === "Escape" && t.id === "q") {
    (t as HTMLInputElement).blur();
  } else {
    listKeys(e);
  }
}

async function boot(): Promise<void> {
  feed.on(onEvent);
  $("login-form").addEventListener("submit", (e) => void login(e));
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = "#/search?q=" + encodeURIComponent(($("q") as HTMLInputElement).value);
  });
  const toggle = $("tree-toggle");
  toggle.addEventListener("click", () => {
    const open = document.body.classList.toggle("tree-open");
    toggle.setAttribute("aria-expanded", String(open));
  });
  $("tree").addEventListener("click", (e) => {
    if ((e.target as HTMLElement).closest("a")) document.body.classList.remove("tree-open");
  });
  window.addEventListener("hashchange", () => { void route(); $("view").focus({ preventScroll: true }); });
  document.addEventListener("keydown", keys);

  const failed = new URLSearchParams(location.search).get("login") === "failed";
  if (failed) history.replaceState(null, "", "/" + location.hash);
  try {
    await start(await api.session());
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) showLogin(failed ? "That login link was not valid (or was used already)." : "");
    else $("view").replaceChildren(errorBox(err));
  }
}

void boot();
