// Search: hits with their snippet, line number and score, under the engine label.
import { api } from "./api";
import { errorBox, h, noteHref } from "./dom";

export async function renderSearch(view: HTMLElement, text: string): Promise<void> {
  (document.getElementById("q") as HTMLInputElement).value = text;
  if (!text.trim()) {
    view.replaceChildren(h("h1", {}, "Search"), h("p", { class: "muted" }, "Type in the search box (press / to go there)."));
    return;
  }
  try {
    const r = await api.search(text, 30);
    const ol = h("ol", { class: "hits" });
    for (const hit of r.hits ?? []) {
      ol.append(h("li", { class: "hit" },
        h("a", { class: "hit-link", href: noteHref(hit.path), "data-path": hit.path }, hit.title || hit.path),
        h("span", { class: "hit-meta" }, ` ${hit.path}`, hit.line ? `:${hit.line}` : "", ` · ${hit.score.toFixed(2)}`),
        hit.snippet ? h("p", { class: "snippet" }, ...marked(hit.snippet, hit.matched ?? [])) : null));
    }
    view.replaceChildren(
      h("h1", {}, `Search: ${text}`),
      h("p", { class: "engine" }, `${r.hits?.length ?? 0} hits · engine `, h("code", { id: "engine" }, r.engine)),
      r.hits?.length ? ol : h("p", { class: "muted" }, "No note matches."));
  } catch (err) {
    view.replaceChildren(h("h1", {}, `Search: ${text}`), errorBox(err));
  }
}

// marked splits s into text and <mark> for every matched term (case-insensitive).
export function marked(s: string, terms: string[]): (string | HTMLElement)[] {
  const words = terms.filter((t) => t.length > 0).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (!words.length) return [s];
  const re = new RegExp(`(${words.join("|")})`, "gi");
  return s.split(re).map((part, i) => (i % 2 === 1 ? h("mark", {}, part) : part));
}

// listKeys moves focus with the arrow keys among the links of the current list.
export function listKeys(e: KeyboardEvent): void {
  if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
  const t = e.target as HTMLElement;
  if (!(t instanceof HTMLAnchorElement)) return;
  const list = t.closest("ol, ul");
  if (!list) return;
  const links = Array.from(list.querySelectorAll<HTMLAnchorElement>(":scope > li > a"));
  const i = links.indexOf(t);
  if (i < 0) return;
  const next = links[i + (e.key === "ArrowDown" ? 1 : -1)];
  if (next) { next.focus(); e.preventDefault(); }
}
