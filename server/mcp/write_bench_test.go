package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// BenchmarkMCPWrite measures the write tools through mcp-go's in-process client
// on a vault of 5,000 linked notes (50 folders; each note links to three others by
// file name and one by title, and has two sections): write_note creating a new
// note of a name of its own, and edit_note appending a section to an existing
// one. Each op is one durable commit with its index update.
func BenchmarkMCPWrite(b *testing.B) {
	const n = 5000
	ctx := context.Background()
	dir := b.TempDir()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i%50), fmt.Sprintf("n%05d.md", i))
		body := fmt.Sprintf("---\ntitle: Note %d\n---\n# Note %d\nSee [[n%05d]], [[n%05d]] and [[n%05d#Part two]]; also [[Note %d]].\n\n## Part one\ntext %d\n\n## Part two\nmore %d\n",
			i, i, (i+1)%n, (i+7)%n, (i+13)%n, (i+29)%n, i, i)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	owner := repo.Author{Name: "o", Email: "o@x"}
	v0, _, err := repo.Init(ctx, dir, repo.InitOptions{Options: repo.Options{Owner: owner}})
	if err != nil {
		b.Fatal(err)
	}
	v0.Close()
	v, err := vault.Open(ctx, dir, vault.Options{Repo: repo.Options{Owner: owner}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { v.Close() })
	srv := mcp.NewMCPServer(v, mcp.MCPOptions{Version: "bench", SkipOutputValidation: true})
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		b.Fatal(err)
	}
	cctx := auth.WithPrincipal(ctx, testmcp.Agent)
	if err := c.Start(cctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if _, err := c.Initialize(cctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{ClientInfo: mcpgo.Implementation{Name: "bench", Version: "0"}}}); err != nil {
		b.Fatal(err)
	}
	call := func(tool string, args map[string]any) mcp.WriteResult {
		res, err := c.CallTool(cctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: tool, Arguments: args}})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", tool, err, res)
		}
		var w mcp.WriteResult
		raw, err := json.Marshal(res.StructuredContent)
		if err == nil {
			err = json.Unmarshal(raw, &w)
		}
		if err != nil {
			b.Fatal(err)
		}
		return w
	}
	if _, err := v.Index.Graph(ctx); err != nil {
		b.Fatal(err)
	}
	i := 0 // across runs of the sub-benchmark (-count): every create is of a new path
	b.Run("write_note/create", func(b *testing.B) {
		for b.Loop() {
			call("write_note", map[string]any{"path": fmt.Sprintf("new/fresh%06d.md", i), "content": fmt.Sprintf("---\ntitle: Fresh %d\n---\n# Fresh %d\nAbout [[n00001]].\n", i, i)})
			i++
		}
	})
	// The same create on a server that reports where the write stands against a
	// remote (a bare repository on disk, synced once): remote costs a look at the
	// remote-tracking ref and an ahead count, never a transfer.
	// Its remote is set up once, before the first run; each run syncs first,
	// so that every run starts level with the remote.
	var rc *client.Client
	var sy *vault.Syncer
	remoteN := 0             // across runs of the sub-benchmark: every create is of a new path
	remoteDir := b.TempDir() // the parent's: it outlives each run
	b.Run("write_note/create/remote", func(b *testing.B) {
		if rc == nil {
			bare := filepath.Join(remoteDir, "remote.git")
			testmcp.Git(b, "", "init", "-q", "--bare", "-b", "main", bare)
			sy = testmcp.NewSyncer(b, v)
			if err := sy.Remotes().Add("origin", bare); err != nil {
				b.Fatal(err)
			}
			var err error
			if rc, err = client.NewInProcessClient(mcp.NewMCPServer(v, mcp.MCPOptions{Version: "bench", SkipOutputValidation: true, Sync: sy})); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { rc.Close() })
			if err := rc.Start(cctx); err != nil {
				b.Fatal(err)
			}
			if _, err := rc.Initialize(cctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{ClientInfo: mcpgo.Implementation{Name: "bench", Version: "0"}}}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := sy.Sync(ctx, "origin"); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			i := remoteN
			remoteN++
			res, err := rc.CallTool(cctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "write_note",
				Arguments: map[string]any{"path": fmt.Sprintf("new/remote%06d.md", i), "content": fmt.Sprintf("---\ntitle: Remote %d\n---\n# Remote %d\n", i, i)}}})
			if err != nil || res.IsError {
				b.Fatalf("write_note: %v %+v", err, res)
			}
		}
	})
	b.Run("edit_note/append", func(b *testing.B) {
		rev := map[int]string{}
		i := 0
		for b.Loop() {
			k := i % 100
			r, ok := rev[k]
			if !ok {
				r = string(v.Revision(note.Path(repoPath(k))))
			}
			w := call("edit_note", map[string]any{"path": repoPath(k), "op": "append", "content": fmt.Sprintf("## Added %d\ntext\n", i), "expected_revision": r})
			rev[k] = string(w.Revision)
			i++
		}
	})
}

func repoPath(i int) string { return fmt.Sprintf("f%02d/n%05d.md", i%50, i) }
