// The folder tree: nested <details> with the count of notes the viewer may see.
// A folder's items are built when it is first opened, so a vault of thousands of
// notes costs a few elements until someone looks inside.
import { api, type Folder } from "./api";
import { $, errorBox, h, noteHref } from "./dom";

const fillers = new WeakMap<HTMLDetailsElement, () => void>();

export async function renderTree(pending?: Promise<{ folders: Folder[] }>): Promise<void> {
  const el = $("tree");
  try {
    const { folders } = await (pending ?? api.tree());
    const list = h("ul", { class: "tree-root" });
    for (const f of folders) list.append(folderItem(f, true));
    el.replaceChildren(list);
    markCurrent();
  } catch (err) {
    el.replaceChildren(errorBox(err));
  }
}

function folderItem(f: Folder, open: boolean): HTMLElement {
  const name = f.path === "" ? "Vault" : f.name;
  const items = h("ul");
  const d = h("details", { "data-folder": f.path },
    h("summary", {}, h("span", { class: "folder-name" }, name), " ", h("span", { class: "count", "aria-label": `${f.count} notes` }, String(f.count))),
    items);
  let filled = false;
  const fill = () => {
    if (filled) return;
    filled = true;
    for (const sub of f.folders ?? []) items.append(folderItem(sub, false));
    for (const n of f.notes ?? []) {
      items.append(h("li", { class: "tree-note" }, h("a", { href: noteHref(n.path), "data-path": n.path, title: n.path }, n.title || n.path)));
    }
  };
  fillers.set(d, fill);
  d.addEventListener("toggle", () => { if (d.open) fill(); });
  if (open) { fill(); d.open = true; }
  return h("li", { class: "tree-folder" }, d);
}

// markCurrent highlights the open note in the tree, opening its folders.
export function markCurrent(): void {
  const m = /^#\/note\/([^?]+)/.exec(location.hash);
  let path = "";
  try { path = m ? decodeURI(m[1]) : ""; } catch { /* not a path */ }
  const tree = $("tree");
  const parts = path.split("/").slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    const d = tree.querySelector<HTMLDetailsElement>(`details[data-folder="${CSS.escape(parts.slice(0, i).join("/"))}"]`);
    if (!d) break;
    fillers.get(d)?.();
    d.open = true;
  }
  for (const a of tree.querySelectorAll<HTMLAnchorElement>("a.current")) {
    a.classList.remove("current");
    a.removeAttribute("aria-current");
  }
  const cur = path ? tree.querySelector<HTMLAnchorElement>(`a[data-path="${CSS.escape(path)}"]`) : null;
  if (cur) {
    cur.classList.add("current");
    cur.setAttribute("aria-current", "page");
  }
}
