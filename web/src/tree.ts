// The folder tree: nested <details> with the count of notes the viewer may see.
import { api, type Folder } from "./api";
import { $, errorBox, h, noteHref } from "./dom";

export async function renderTree(): Promise<void> {
  const el = $("tree");
  try {
    const { folders } = await api.tree();
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
  for (const sub of f.folders ?? []) items.append(folderItem(sub, false));
  for (const n of f.notes ?? []) {
    items.append(h("li", { class: "tree-note" }, h("a", { href: noteHref(n.path), "data-path": n.path, title: n.path }, n.title || n.path)));
  }
  const d = h("details", { open, "data-folder": f.path },
    h("summary", {}, h("span", { class: "folder-name" }, name), " ", h("span", { class: "count", "aria-label": `${f.count} notes` }, String(f.count))),
    items);
  return h("li", { class: "tree-folder" }, d);
}

// markCurrent highlights the open note in the tree and opens its folders.
export function markCurrent(): void {
  const m = /^#\/note\/(.+)$/.exec(location.hash);
  const path = m ? decodeURI(m[1]) : "";
  for (const a of $("tree").querySelectorAll<HTMLAnchorElement>("a[data-path]")) {
    const cur = a.dataset.path === path;
    a.classList.toggle("current", cur);
    if (cur) {
      a.setAttribute("aria-current", "page");
      for (let p = a.parentElement; p; p = p.parentElement) if (p instanceof HTMLDetailsElement) p.open = true;
    } else a.removeAttribute("aria-current");
  }
}
