package web_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// webDir holds the page's sources; dist its committed build (make web).
const (
	webDir  = "../../web"
	distDir = "dist"
)

// sourceHash is web/build.mjs's sourceHash, in Go so that the staleness check
// needs no Node: sha256 over "<path> <sha256 of the file>\n" for build.mjs,
// package.json, package-lock.json, tsconfig.json and every file under src/,
// paths relative to web/ with '/' and sorted bytewise.
func sourceHash(dir string) (string, error) {
	files := []string{"build.mjs", "package.json", "package-lock.json", "tsconfig.json"}
	err := filepath.WalkDir(filepath.Join(dir, "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return "", fmt.Errorf("walk %s: %w", dir, err)
	}
	slices.Sort(files)
	all := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", f, err)
		}
		sum := sha256.Sum256(b)
		fmt.Fprintf(all, "%s %s\n", f, hex.EncodeToString(sum[:]))
	}
	return hex.EncodeToString(all.Sum(nil)), nil
}

// TestDist_Fresh fails when the committed build in dist/ was not made from the
// sources in web/ as they are: run `make web` and commit dist/.
func TestDist_Fresh(t *testing.T) {
	want, err := sourceHash(webDir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(distDir, "source.sha256"))
	if err != nil {
		t.Fatalf("dist has no source.sha256 (run make web): %v", err)
	}
	if strings.TrimSpace(string(got)) != want {
		t.Fatalf("server/web/dist is stale: built from sources hashing %s, web/ now hashes %s; run `make web` and commit server/web/dist",
			strings.TrimSpace(string(got)), want)
	}
	for _, f := range []string{"index.html", "assets/app.js", "assets/app.css"} { // and the graph library's chunk-*.js
		if st, err := os.Stat(filepath.Join(distDir, f)); err != nil || st.Size() == 0 {
			t.Fatalf("dist/%s missing or empty: %v", f, err)
		}
	}
	src, _ := os.ReadFile(filepath.Join(webDir, "src", "index.html"))
	built, _ := os.ReadFile(filepath.Join(distDir, "index.html"))
	if string(src) != string(built) {
		t.Fatal("dist/index.html differs from web/src/index.html: run make web")
	}
}

// TestDist_HashSeesEveryChange: the hash moves when a source file changes, is
// added or is renamed, and when the lock file changes — so a stale build cannot
// pass TestDist_Fresh.
func TestDist_HashSeesEveryChange(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"build.mjs", "package.json", "package-lock.json", "tsconfig.json", "src/main.ts", "src/sub/a.ts"} {
		write(f, f)
	}
	seen := map[string]string{}
	step := func(name string) {
		t.Helper()
		h, err := sourceHash(dir)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := seen[h]; ok {
			t.Fatalf("%s: hash %s equals the one after %s", name, h, prev)
		}
		seen[h] = name
	}
	step("start")
	write("src/main.ts", "changed")
	step("edit")
	write("src/new.css", "x")
	step("add")
	if err := os.Rename(filepath.Join(dir, "src/sub/a.ts"), filepath.Join(dir, "src/sub/b.ts")); err != nil {
		t.Fatal(err)
	}
	step("rename")
	write("package-lock.json", "{}")
	step("lock")
	if err := os.Remove(filepath.Join(dir, "tsconfig.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := sourceHash(dir); err == nil {
		t.Fatal("a missing tsconfig.json hashed without error")
	}
}
