// Builds the web explorer into ../server/web/dist (committed, embedded by Go):
// index.html, assets/app.js, assets/app.css, and source.sha256 — the hash of the
// sources it was built from, which a Go test recomputes (without Node) to catch a
// stale build. Run through `make web` (npm ci first).
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "..", "server", "web", "dist");

// sourceHash must match server/web's staleness test: sha256 over the lines
// "<path relative to web/> <sha256 of the file>\n", paths sorted bytewise.
function sourceHash() {
  const files = ["build.mjs", "package.json", "package-lock.json", "tsconfig.json"];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(relative(here, p).split("\\").join("/"));
    }
  };
  walk(join(here, "src"));
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const all = createHash("sha256");
  for (const f of files) {
    const sum = createHash("sha256").update(readFileSync(join(here, f))).digest("hex");
    all.update(`${f} ${sum}\n`);
  }
  return all.digest("hex");
}

rmSync(join(dist, "assets"), { recursive: true, force: true });
mkdirSync(join(dist, "assets"), { recursive: true });
const common = { bundle: true, minify: true, legalComments: "eof", logLevel: "warning", charset: "utf8" };
// app.js, and the graph library in a chunk of its own that only the graph views load.
await esbuild.build({
  ...common, entryPoints: { app: join(here, "src", "main.ts") }, outdir: join(dist, "assets"),
  format: "esm", splitting: true, chunkNames: "chunk-[hash]", target: "es2020",
});
await esbuild.build({ ...common, entryPoints: [join(here, "src", "app.css")], outfile: join(dist, "assets", "app.css") });
copyFileSync(join(here, "src", "index.html"), join(dist, "index.html"));
writeFileSync(join(dist, "source.sha256"), sourceHash() + "\n");
console.log("built", relative(process.cwd(), dist));
