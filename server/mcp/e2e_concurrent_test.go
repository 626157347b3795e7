package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
	"github.com/norn-vault/norn/vault"
)

// e2eShared is a shared note of the concurrency test with its last writer's marker:
// write_note writes it whole, edit_note's replace_section of "Last" gives the same
// bytes.
func e2eShared(p, marker string) string {
	stem := strings.TrimSuffix(filepath.Base(p), ".md")
	return "---\ntitle: Shared " + stem + "\ntags: [shared, concurrency]\n---\n# Shared " + stem + "\n\n## Last\n" + marker + "\n"
}

// e2eAttempts is how many writes each concurrent writer attempts.
const e2eAttempts = 200

// e2eAck is one acknowledged write.
type e2eAck struct {
	author, path, marker     string
	commit, parent, revision string
}

// e2eCall calls a tool from any goroutine (no t.Fatal): a tool error comes back
// as *ToolError, anything else wrong as an error.
func e2eCall(ctx context.Context, c *client.Client, name string, args map[string]any, out any) (*mcp.ToolError, error) {
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		var te mcp.ToolError
		var text *mcpgo.TextContent
		if len(res.Content) == 1 {
			text, _ = mcpgo.AsTextContent(res.Content[0])
		}
		if res.StructuredContent != nil || text == nil || json.Unmarshal([]byte(text.Text), &te) != nil || te.Code == "" || te.Class == "" {
			return nil, fmt.Errorf("%s: error result not {class, code} as text alone: %+v", name, res)
		}
		return &te, nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return nil, fmt.Errorf("%s: decode %s: %w", name, b, err)
		}
	}
	return nil, nil
}

// e2eWriter is one client of the concurrency test: it reads the notes once, then
// makes attempts writes, alternating write_note and edit_note, each with the
// revision it last learnt of the note: from its own write, or from the conflict
// that refused it (then it tries the same note again).
func e2eWriter(ctx context.Context, c *client.Client, name string, first int, notes []string, attempts int) (acks []e2eAck, conflicts int, err error) {
	known := map[string]string{}
	for _, p := range notes {
		var r mcp.ReadNoteResult
		te, err := e2eCall(ctx, c, "read_note", map[string]any{"path": p}, &r)
		if err != nil || te != nil {
			return nil, 0, fmt.Errorf("%s: read_note %s: %v %v", name, p, err, te)
		}
		known[p] = string(r.Revision)
	}
	next := first
	for k := range attempts {
		p := notes[next%len(notes)]
		marker := fmt.Sprintf("marker %s #%03d", name, k)
		tool, args := "write_note", map[string]any{"path": p, "content": e2eShared(p, marker), "expected_revision": known[p]}
		if k%2 == 1 {
			tool, args = "edit_note", map[string]any{"path": p, "op": "replace_section", "heading": "Last", "content": marker + "\n", "expected_revision": known[p]}
		}
		var w mcp.WriteResult
		te, err := e2eCall(ctx, c, tool, args, &w)
		switch {
		case err != nil:
			return acks, conflicts, fmt.Errorf("%s attempt %d: %w", name, k, err)
		case te == nil:
			if string(w.Path) != p || w.Revision == "" || w.Commit == "" || w.Parent == "" || w.DryRun {
				return acks, conflicts, fmt.Errorf("%s attempt %d: %s answered %+v", name, k, tool, w)
			}
			acks = append(acks, e2eAck{author: name, path: p, marker: marker, commit: string(w.Commit), parent: string(w.Parent), revision: string(w.Revision)})
			known[p] = string(w.Revision)
			next++
		case te.Code == mcp.CodeConflict:
			if te.Class != mcp.ClassRetryable || string(te.Path) != p || te.CurrentRevision == "" {
				return acks, conflicts, fmt.Errorf("%s attempt %d: %s: a conflict that does not say what to retry with: %+v", name, k, tool, te)
			}
			if string(te.CurrentRevision) == known[p] {
				return acks, conflicts, fmt.Errorf("%s attempt %d: %s: a conflict although %s is still at the expected revision %s: %s", name, k, tool, p, known[p], te.Message)
			}
			known[p] = string(te.CurrentRevision)
			conflicts++
		default:
			return acks, conflicts, fmt.Errorf("%s attempt %d: %s on %s: neither landed nor conflict: %s/%s: %s", name, k, tool, p, te.Class, te.Code, te.Message)
		}
	}
	return acks, conflicts, nil
}

// e2eCatFile reads objects ("COMMIT:path") with one git cat-file --batch: their ids
// and contents.
func e2eCatFile(t *testing.T, dir string, names []string) (ids, contents []string) {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v\n%s", err, stderr.String())
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for _, n := range names {
		hdr, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("cat-file %s: %v", n, err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 || f[1] != "blob" {
			t.Fatalf("cat-file %s: %q", n, hdr)
		}
		size, _ := strconv.Atoi(f[2])
		b := make([]byte, size+1) // the content and a newline
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatalf("cat-file %s: %v", n, err)
		}
		ids, contents = append(ids, f[0]), append(contents, string(b[:size]))
	}
	return ids, contents
}

// e2eOthers lists the commits after base that no writer made, with the marker each
// changed a shared note from and to.
func e2eOthers(t *testing.T, dir, base string) string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(testmcp.Git(t, dir, "log", "--format=%h %an %s", base+"..HEAD"), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || strings.HasPrefix(f[1], "writer-") {
			continue
		}
		for _, p := range strings.Fields(testmcp.Git(t, dir, "show", "--name-only", "--format=", f[0])) {
			marker := func(rev string) string {
				b, _ := exec.Command("git", "-C", dir, "show", rev+":"+p).Output()
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				return lines[len(lines)-1]
			}
			l += fmt.Sprintf("\n\t%s: %q -> %q", p, marker(f[0]+"^"), marker(f[0]))
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestMCPE2E_ConcurrentWriters: 8 HTTP clients, each with its own token, make
// e2eAttempts writes each to 4 shared notes, with expected_revision. Every write
// lands or is a conflict carrying the current revision; afterwards git holds exactly
// the acknowledged commits, each by its token's name with its content, and each note
// ends as its last acknowledged write.
func TestMCPE2E_ConcurrentWriters(t *testing.T) { e2eConcurrentWriters(t, 0) }

// TestMCPE2E_ConcurrentWritersUnderMaintainer is the same with the background
// maintainer `norn serve` runs (vault.Maintainer: commit external edits, pack),
// here every 10 ms so that its rounds meet the writes often. The writers make no
// external edits, so it must commit nothing.
func TestMCPE2E_ConcurrentWritersUnderMaintainer(t *testing.T) {
	e2eConcurrentWriters(t, 10*time.Millisecond)
}

// e2eConcurrentWriters runs the concurrent writers, with a maintainer every
// maintain when it is not 0.
func e2eConcurrentWriters(t *testing.T, maintain time.Duration) {
	const writers = 8
	attempts := e2eAttempts
	notes := []string{"shared/n0.md", "shared/n1.md", "shared/n2.md", "shared/n3.md"}
	files := map[string]string{"README.md": "# Readme\n"}
	for _, p := range notes {
		files[p] = e2eShared(p, "initial")
	}
	v, e := testmcp.NewEnv(t, files)
	scopes := map[string][]auth.Scope{}
	for i := range writers {
		scopes[fmt.Sprintf("writer-%d", i)] = []auth.Scope{auth.ScopeRead, auth.ScopeWrite}
	}
	tok, secret := testmcp.Tokens(t, v, scopes)
	url := testmcp.ServeHTTP(t, e.S, tok)
	s := &e2eSession{v: v}
	base := s.git(t, "rev-parse", "HEAD")
	baseCount, _ := strconv.Atoi(commitCount(t, v))

	mctx, stopMaint := context.WithCancel(context.Background())
	var maint sync.WaitGroup
	if maintain > 0 {
		maint.Go(func() {
			(&vault.Maintainer{Vault: v, Logger: testmcp.Quiet, Every: maintain}).Run(mctx)
		})
	}
	stop := func() { stopMaint(); maint.Wait() }
	defer stop()

	clients := make([]*client.Client, writers)
	for i := range writers {
		c, err := testmcp.Dial(t, url, testmcp.Bearer(secret[fmt.Sprintf("writer-%d", i)]), i%2 == 1) // half of them with sessions
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang fails, it is not a timing
	defer cancel()
	start := time.Now()
	acks := make([][]e2eAck, writers)
	conflicts := make([]int, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			acks[i], conflicts[i], errs[i] = e2eWriter(ctx, clients[i], fmt.Sprintf("writer-%d", i), i, notes, attempts)
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	stop()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("%v\ncommits after the base not made by a writer:\n%s", err, e2eOthers(t, v.Dir(), base))
	}
	var all []e2eAck
	nconf := 0
	for i := range writers {
		all = append(all, acks[i]...)
		nconf += conflicts[i]
	}
	t.Logf("%d writers × %d attempts: %d landed, %d conflicts, in %v (%.1f attempts/s)",
		writers, attempts, len(all), nconf, elapsed.Round(time.Millisecond), float64(writers*attempts)/elapsed.Seconds())
	if len(all)+nconf != writers*attempts || len(all) == 0 {
		t.Fatalf("%d landed + %d conflicts, want %d attempts", len(all), nconf, writers*attempts)
	}

	// git has exactly the acknowledged commits after the base, each by its token's
	// name on top of the parent it was acknowledged with, changing only its note.
	dir := v.Dir()
	if got, _ := strconv.Atoi(commitCount(t, v)); got != baseCount+len(all) {
		t.Fatalf("%d commits, want %d before + %d acknowledged; not by a writer:\n%s", got, baseCount, len(all), e2eOthers(t, dir, base))
	}
	type logged struct {
		parent, author string
		paths          []string
	}
	byCommit := map[string]*logged{}
	var order []string // newest first
	for _, line := range strings.Split(testmcp.Git(t, dir, "log", "--format=@%H %P %an", "--name-only", base+"..HEAD"), "\n") {
		switch {
		case strings.HasPrefix(line, "@"):
			f := strings.Fields(line[1:])
			if len(f) != 3 {
				t.Fatalf("git log line %q: not one parent and a one-word author", line)
			}
			byCommit[f[0]] = &logged{parent: f[1], author: f[2]}
			order = append(order, f[0])
		case line != "":
			byCommit[order[len(order)-1]].paths = append(byCommit[order[len(order)-1]].paths, line)
		}
	}
	ackOf := map[string]e2eAck{}
	for _, a := range all {
		l, ok := byCommit[a.commit]
		switch {
		case !ok:
			t.Fatalf("acknowledged commit %s (%s, %s) is not in git log", a.commit, a.author, a.marker)
		case l.author != a.author:
			t.Fatalf("commit %s: git author %s, acknowledged to %s", a.commit, l.author, a.author)
		case l.parent != a.parent:
			t.Fatalf("commit %s: git parent %s, acknowledged with %s", a.commit, l.parent, a.parent)
		case !slices.Equal(l.paths, []string{a.path}):
			t.Fatalf("commit %s changed %v, acknowledged for %s", a.commit, l.paths, a.path)
		}
		if _, dup := ackOf[a.commit]; dup {
			t.Fatalf("commit %s acknowledged twice", a.commit)
		}
		ackOf[a.commit] = a
	}
	if len(byCommit) != len(all) {
		t.Fatalf("git log has %d commits after the base, %d acknowledged", len(byCommit), len(all))
	}

	// Every acknowledged content is in its commit, as the revision it was acknowledged with.
	names := make([]string, len(all))
	for i, a := range all {
		names[i] = a.commit + ":" + a.path
	}
	ids, contents := e2eCatFile(t, dir, names)
	for i, a := range all {
		if ids[i] != a.revision || contents[i] != e2eShared(a.path, a.marker) {
			t.Fatalf("%s: %s %q, acknowledged %s with %q", names[i], ids[i], contents[i], a.revision, a.marker)
		}
	}

	// Each note ends as its last acknowledged write: on disk, at HEAD, and to a reader.
	last := map[string]e2eAck{}
	for _, c := range order {
		if a := ackOf[c]; last[a.path].commit == "" {
			last[a.path] = a
		}
	}
	for _, p := range notes {
		a, ok := last[p]
		if !ok {
			t.Fatalf("no write to %s landed", p)
		}
		if got := testmcp.Git(t, dir, "rev-parse", "HEAD:"+p); got != a.revision {
			t.Fatalf("%s at HEAD is %s, its last acknowledged write %s (%s)", p, got, a.revision, a.marker)
		}
		if got := onDisk(t, v, p); got != e2eShared(p, a.marker) {
			t.Fatalf("%s on disk:\n%s\nwant the last acknowledged write %q", p, got, a.marker)
		}
		var r mcp.ReadNoteResult
		testmcp.MustCall(t, clients[0], context.Background(), "read_note", map[string]any{"path": p}, &r)
		if string(r.Revision) != a.revision || r.Content != e2eShared(p, a.marker) {
			t.Fatalf("read_note %s: %s, want %s", p, r.Revision, a.revision)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling").CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
	if st := testmcp.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after the writers:\n%s", st)
	}
}
