// The history timeline (of one note, or of the whole vault), a diff between any
// two of its commits, and restore of an archived note.
import { api, type Commit, type Diff, type DiffLine, type Session } from "./api";
import { errorBox, h, noteHref, shortCommit, when } from "./dom";
import type { FeedEvent } from "./live";
import { canWrite, restoreButton } from "./note";

const page = 50;

interface State { path: string; session: Session; skip: number; list: HTMLOListElement; diff: HTMLElement; more: HTMLElement }
let state: State | null = null;

export async function renderHistory(view: HTMLElement, path: string, session: Session): Promise<void> {
  const list = h("ol", { class: "timeline", id: "timeline" });
  const diff = h("section", { class: "diff-section", id: "diff" });
  const more = h("p", {});
  const compare = h("button", { type: "button", class: "compare" }, "Compare selected");
  state = { path, session, skip: 0, list, diff, more };
  compare.addEventListener("click", () => void showDiff());
  view.replaceChildren(
    h("h1", {}, path ? "History: " + path : "History of the vault"),
    path ? h("p", { class: "actions" }, h("a", { href: noteHref(path) }, "Open note")) : "",
    h("p", { class: "muted" }, "Pick a from (left) and a to (right) commit, then compare.", " ", compare),
    list, more, diff);
  await loadMore();
}

export function leaveHistory(): void { state = null; }

async function loadMore(): Promise<void> {
  const s = state;
  if (!s) return;
  try {
    const r = await api.history(s.path, s.skip, page);
    for (const c of r.commits) s.list.append(entry(c, s));
    s.skip += r.commits.length;
    if (s.list.children.length === 0) s.list.replaceWith(h("p", { class: "muted", id: "timeline" }, "No commits."));
    const btn = h("button", { type: "button" }, "Older commits");
    btn.addEventListener("click", () => void loadMore());
    s.more.replaceChildren(r.more ? btn : "");
    preselect(s.list);
  } catch (err) {
    s.more.replaceChildren(errorBox(err));
  }
}

// prepend adds a commit the feed just told of to the top of an open timeline.
export function prependEvent(e: FeedEvent): void {
  const s = state;
  if (!s || !s.list.isConnected) return;
  const changes = s.path ? e.changes.filter((c) => c.path === s.path || c.from === s.path) : e.changes;
  if (s.path && !changes.length) return;
  if (s.list.querySelector(`li[data-commit="${e.commit}"]`)) return;
  const c: Commit = { commit: e.commit, author: e.author.name, time: e.time, op: e.op ?? "", reason: e.reason, changes };
  const li = entry(c, s);
  li.classList.add("new");
  s.list.prepend(li);
  s.skip++;
}

function entry(c: Commit, s: State): HTMLLIElement {
  const changes = h("ul", { class: "changes" });
  // A note's timeline shows that note's change; the other paths as a count.
  const all = c.changes ?? [];
  const shown = s.path ? all.filter((ch) => ch.path === s.path || ch.from === s.path) : all;
  const others = (c.changes_total ?? all.length) - shown.length;
  for (const ch of shown) {
    const archived = ch.kind === "archived" || ch.kind === "archive"; // the feed's word, the history's
    const link = archived ? h("code", {}, ch.path) : h("a", { href: noteHref(ch.path), "data-path": ch.path }, ch.path);
    const rev = () => archivedRevision(ch.path, ch.old_revision);
    changes.append(h("li", { "data-kind": ch.kind, "data-path": ch.path },
      h("span", { class: "kind " + ch.kind }, ch.kind), " ", link, ch.from ? ` (from ${ch.from})` : "",
      " ", s.path ? null : h("a", { class: "muted", href: "#/history/" + encodeURI(ch.path) }, "history"),
      archived && canWrite(s.session) ? restoreButton(ch.path, rev) : null));
  }
  if (others > 0) changes.append(h("li", { class: "muted" }, `and ${others} other note${others === 1 ? "" : "s"}`));
  return h("li", { class: "commit", "data-commit": c.commit },
    h("div", { class: "pick" },
      h("input", { type: "radio", name: "from", value: c.commit, "aria-label": "Diff from " + shortCommit(c.commit) }),
      h("input", { type: "radio", name: "to", value: c.commit, "aria-label": "Diff to " + shortCommit(c.commit) })),
    h("div", {},
      h("p", { class: "commit-line" },
        h("span", { class: "op" }, c.op || "commit"), " by ", h("strong", { class: "author" }, c.author),
        " · ", h("time", { datetime: c.time }, when(c.time)), " · ", h("code", { title: c.commit }, shortCommit(c.commit))),
      c.subject ? h("p", { class: "subject" }, c.subject) : null,
      c.reason ? h("p", { class: "reason" }, "Reason: " + c.reason) : null,
      changes));
}

// archivedRevision is the note's blob just before it was archived: the server
// reads an archived path as it was then (archived: true).
async function archivedRevision(path: string, known?: string): Promise<string> {
  if (known) return known;
  return (await api.note(path)).revision;
}

function preselect(list: HTMLElement): void {
  const from = list.querySelectorAll<HTMLInputElement>('input[name="from"]');
  const to = list.querySelectorAll<HTMLInputElement>('input[name="to"]');
  if (!list.querySelector('input[name="to"]:checked') && to.length) to[0].checked = true;
  if (!list.querySelector('input[name="from"]:checked') && from.length > 1) from[1].checked = true;
}

async function showDiff(): Promise<void> {
  const s = state;
  if (!s) return;
  const from = s.list.querySelector<HTMLInputElement>('input[name="from"]:checked')?.value;
  const to = s.list.querySelector<HTMLInputElement>('input[name="to"]:checked')?.value;
  if (!from || !to) { s.diff.replaceChildren(h("p", { class: "error" }, "Pick two commits.")); return; }
  // The vault's timeline compares the first note the newer commit changed.
  const path = s.path || s.list.querySelector(`li[data-commit="${to}"] .changes li[data-path]`)?.getAttribute("data-path") || "";
  if (!path) { s.diff.replaceChildren(h("p", { class: "error" }, "That commit changed no note you can see.")); return; }
  try {
    s.diff.replaceChildren(renderDiff(path, await api.diff(path, from, to)));
  } catch (err) {
    s.diff.replaceChildren(errorBox(err));
  }
}

// contextLines is how many unchanged lines a diff keeps around each change.
const contextLines = 3;

// folded keeps the changed lines and contextLines around each; a run of
// unchanged lines left out becomes one "⋯" row (null).
function folded(lines: DiffLine[]): (DiffLine | null)[] {
  const keep = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.kind === "context") return;
    for (let j = Math.max(0, i - contextLines); j <= Math.min(lines.length - 1, i + contextLines); j++) keep[j] = true;
  });
  const out: (DiffLine | null)[] = [];
  lines.forEach((l, i) => {
    if (keep[i]) out.push(l);
    else if (out.length === 0 || out[out.length - 1] !== null) out.push(null);
  });
  return out;
}

export function renderDiff(path: string, d: Diff): HTMLElement {
  const rows = folded(d.lines).map((l) => l === null ? h("tr", { class: "d-skip" }, h("td", { colspan: 4, class: "muted" }, "⋯")) : h("tr", { class: "d-" + l.kind },
    h("td", { class: "ln" }, l.old !== undefined && l.old !== null ? String(l.old) : ""),
    h("td", { class: "ln" }, l.new !== undefined && l.new !== null ? String(l.new) : ""),
    h("td", { class: "sign" }, l.kind === "add" ? "+" : l.kind === "del" ? "−" : " "),
    h("td", { class: "text" }, h("code", {}, l.text))));
  return h("div", {},
    h("h2", {}, `Diff of ${path}: ${shortCommit(d.from)} → ${shortCommit(d.to)}`),
    rows.length ? h("table", { class: "diff", id: "diff-table" }, h("tbody", {}, ...rows)) : h("p", { class: "muted" }, "No difference."),
    d.truncated ? h("p", { class: "muted" }, "Cut short: the diff is longer.") : null);
}
