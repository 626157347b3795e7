// The note view: rendered body, frontmatter card, typed edges with their why,
// backlinks with their context lines, claims and synthesis when the server has them.
import { api, type Note, type Session } from "./api";
import { errorBox, h, noteHref, shortCommit, toast } from "./dom";

export async function renderNote(view: HTMLElement, path: string, at: string, session: Session, changedBy?: string): Promise<void> {
  let n: Note;
  try {
    n = await api.note(path, at || undefined);
  } catch (err) {
    view.replaceChildren(h("h1", {}, path), errorBox(err));
    return;
  }
  const body = h("article", { class: "note-body" });
  body.innerHTML = n.html; // rendered and sanitized by the server (goldmark, no raw HTML)
  for (const a of body.querySelectorAll<HTMLAnchorElement>("a.wikilink.broken")) {
    a.title = "Broken link: " + (a.dataset.target ?? "");
  }
  view.replaceChildren(
    h("header", { class: "note-head" },
      h("h1", {}, n.title || n.path),
      h("p", { class: "meta" },
        h("code", {}, n.path), " · revision ", h("code", { title: n.revision }, shortCommit(n.revision)),
        n.commit ? [" · commit ", h("code", { title: n.commit }, shortCommit(n.commit))] : null,
        at ? h("span", { class: "badge" }, "at " + shortCommit(at)) : null,
        n.archived ? h("span", { class: "badge archived" }, "archived") : null),
      h("p", { class: "actions" },
        h("a", { href: "#/graph/" + encodeURI(n.path) }, "Graph"), " ",
        h("a", { href: "#/history/" + encodeURI(n.path) }, "History"),
        n.archived && canWrite(session) ? restoreButton(n.path, n.revision) : null)),
    changedBy ? h("p", { class: "changed", id: "changed-by", role: "status" }, changedBy) : "",
    tagsLine(n.tags),
    frontmatterCard(n.frontmatter),
    body,
    edgesSection(n),
    backlinksSection(n),
    claimsSection(n),
  );
  view.dataset.path = n.path;
  view.dataset.revision = n.revision;
}

export function canWrite(s: Session): boolean { return s.scopes.includes("write"); }

// restoreButton brings an archived note back from revision (CSRF header via api).
export function restoreButton(path: string, revision: string | (() => Promise<string>)): HTMLElement {
  const b = h("button", { type: "button", class: "restore", "data-path": path }, "Restore");
  b.addEventListener("click", async () => {
    b.setAttribute("disabled", "");
    try {
      const rev = typeof revision === "string" ? revision : await revision();
      const r = await api.restore(path, rev);
      toast(`Restored ${r.path} (commit ${shortCommit(r.commit)})`);
      if (location.hash === noteHref(r.path)) window.dispatchEvent(new HashChangeEvent("hashchange"));
      else location.hash = noteHref(r.path);
    } catch (err) {
      b.replaceWith(errorBox(err));
    }
  });
  return b;
}

function tagsLine(tags: string[] | undefined): HTMLElement | string {
  if (!tags?.length) return "";
  return h("p", { class: "tags" }, ...tags.map((t) => h("a", { class: "tag", href: "#/search?q=" + encodeURIComponent("#" + t) }, "#" + t)));
}

function frontmatterCard(fm: Record<string, unknown> | undefined): HTMLElement | string {
  const keys = Object.keys(fm ?? {}).filter((k) => k !== "edges");
  if (!keys.length) return "";
  const dl = h("dl");
  for (const k of keys) {
    const v = fm![k];
    dl.append(h("dt", {}, k), h("dd", {}, typeof v === "string" ? v : JSON.stringify(v)));
  }
  return h("section", { class: "card frontmatter", "aria-label": "Frontmatter" }, dl);
}

function edgesSection(n: Note): HTMLElement | string {
  if (!n.edges?.length) return "";
  const ul = h("ul", { class: "edges" });
  for (const e of n.edges) {
    const target = e.resolved ? h("a", { href: noteHref(e.target), "data-path": e.target }, e.target) : h("span", { class: "broken", title: "unresolved" }, e.target);
    ul.append(h("li", {}, h("span", { class: "edge-type" }, e.type || "link"), " → ", target, e.why ? h("p", { class: "why" }, e.why) : null));
  }
  return h("section", { class: "edges-section" }, h("h2", {}, `Edges (${n.edges.length})`), ul);
}

function backlinksSection(n: Note): HTMLElement {
  const ul = h("ul", { class: "backlinks" });
  for (const b of n.backlinks ?? []) {
    ul.append(h("li", {},
      h("a", { href: noteHref(b.source), "data-path": b.source }, b.title || b.source),
      b.line ? h("span", { class: "line" }, ` line ${b.line}`) : null,
      b.context ? h("p", { class: "context" }, b.context) : null));
  }
  return h("section", { class: "backlinks-section" }, h("h2", {}, `Backlinks (${n.backlinks?.length ?? 0})`),
    n.backlinks?.length ? ul : h("p", { class: "muted" }, "No note links here."));
}

function claimsSection(n: Note): HTMLElement | string {
  const parts: HTMLElement[] = [];
  if (n.claims?.length) {
    const ul = h("ul", { class: "claims" });
    for (const c of n.claims) ul.append(h("li", {}, describe(c)));
    parts.push(h("h2", {}, `Claims (${n.claims.length})`), ul);
  }
  if (n.synthesis) {
    const s = n.synthesis;
    parts.push(h("h2", {}, "Synthesis"), h("p", { class: "synthesis", "data-status": String(s.status ?? "") }, describe(s)));
  }
  return parts.length ? h("section", { class: "ledger" }, ...parts) : "";
}

function describe(o: Record<string, unknown>): string {
  return Object.entries(o).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ");
}
