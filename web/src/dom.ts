// Small DOM helpers. Text always goes in as text (textContent); the only HTML
// the page inserts is the note body, which the server renders and sanitizes.

type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;
type Child = Node | string | null | undefined | false | Child[];

// h makes an element: h("a", {href: "#/"}, "text", child…). on* attributes are listeners.
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el: HTMLElement, children: Child[]): void {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c);
    else if (c !== null && c !== undefined && c !== false) el.append(c);
  }
}

export function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error("missing #" + id);
  return el;
}

// noteHref is the route of a note.
export function noteHref(path: string): string { return "#/note/" + encodeURI(path); }

export function shortCommit(c: string): string { return c ? c.slice(0, 10) : ""; }

export function when(iso: string): string {
  const d = new Date(iso);
  return isNaN(d.getTime()) ? iso : d.toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

let toastTimer = 0;

// toast shows a short status message (for people; tests read it from the DOM).
export function toast(msg: string): void {
  const t = $("toast");
  t.textContent = msg;
  t.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => { t.hidden = true; }, 6000);
}

// errorBox renders an API failure inside a view.
export function errorBox(err: unknown): HTMLElement {
  const msg = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string }).code;
  return h("p", { class: "error", role: "alert" }, code ? `${code}: ${msg}` : msg);
}
