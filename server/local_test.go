package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/norn-vault/norn/graph"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
	"github.com/norn-vault/norn/vault"
)

// TestLocal_AnswersForTheIndexHolder: a second handle finds the index locked and
// gets, from the server holding it, exactly the answers that server computes, with
// failures classified as they would be here.
func TestLocal_AnswersForTheIndexHolder(t *testing.T) {
	ctx := context.Background()
	v := testvault.OpenServed(t, map[string]string{
		"a.md": "---\ntitle: Alpha\ntags: [x]\n---\n# Alpha\n\nBloom filters hash [[b]] twice.\n",
		"b.md": "# Beta\n\nA count-min sketch is a cousin of the bloom filter. [[a]]\n",
		"c.md": "# Gamma\n\nNothing links here.\n",
	})
	if err := v.Index.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := server.StartLocal(ctx, v, server.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := server.LocalEndpointPath(v.GitDir())
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("advertisement: %v %v", fi, err)
	}
	other := testvault.WithoutIndex(t, v)
	if !other.Index.Locked() || v.Index.Locked() {
		t.Fatalf("Locked: second handle %v, holder %v", other.Index.Locked(), v.Index.Locked())
	}

	req := vault.SearchRequest{Query: "bloom filter", Limit: 10}
	var got vault.SearchResponse
	if err := server.AskLocal(ctx, v.GitDir(), server.Query{Op: "search", Search: &req}, &got); err != nil {
		t.Fatal(err)
	}
	want, err := v.Index.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Engine != vault.EngineBM25 || got.IndexStale || got.Via == "" || got.Total != 2 ||
		!reflect.DeepEqual(got.Hits, want.Hits) {
		t.Fatalf("asked search: %+v\nwant hits %+v", got, want.Hits)
	}

	var st vault.Stats
	if err := server.AskLocal(ctx, v.GitDir(), server.Query{Op: "stats", Limit: 5}, &st); err != nil {
		t.Fatal(err)
	}
	wantSt, err := vault.VaultStats(ctx, v, 5, 0)
	if err != nil || !reflect.DeepEqual(&st, wantSt) {
		t.Fatalf("asked stats %+v, direct %+v (%v)", st, wantSt, err)
	}
	var hubs graph.NodeList
	wantHubs, err := v.Hubs(ctx, 1, 0)
	if err != nil || server.AskLocal(ctx, v.GitDir(), server.Query{Op: "hubs", Limit: 1}, &hubs) != nil ||
		!reflect.DeepEqual(&hubs, wantHubs) || hubs.Total != 2 {
		t.Fatalf("asked hubs %+v, direct %+v (%v)", hubs, wantHubs, err)
	}

	var nb graph.Neighborhood
	nopts := graph.NeighborhoodOptions{Depth: 2, MaxNodes: 10}
	wantNb, err := v.Neighborhood(ctx, "a.md", nopts)
	if err != nil {
		t.Fatal(err)
	}
	if err := server.AskLocal(ctx, v.GitDir(), server.Query{Op: "neighborhood", Note: "a.md", Neighborhood: &nopts}, &nb); err != nil ||
		!reflect.DeepEqual(&nb, wantNb) || len(nb.Nodes) != 2 {
		t.Fatalf("asked neighborhood %+v, direct %+v (%v)", nb, wantNb, err)
	}

	for _, c := range []struct {
		q    server.Query
		want error
	}{
		{server.Query{Op: "links", Note: "nope.md", Limit: 5}, repo.ErrNotFound},
		{server.Query{Op: "search", Search: &vault.SearchRequest{Query: `"unclosed`, Limit: 5}}, graph.ErrQuery},
		{server.Query{Op: "drop-everything"}, repo.ErrInvalid},
		{server.Query{Op: "search"}, repo.ErrInvalid},
	} {
		var out graph.NodeList
		err := server.AskLocal(ctx, v.GitDir(), c.q, &out)
		var le *server.LocalError
		if !errors.Is(err, c.want) || !errors.As(err, &le) || errors.Is(err, server.ErrNoLocalServer) {
			t.Errorf("%+v: got %v, want %v", c.q, err, c.want)
		}
	}

	// A second server does not take the endpoint over while the first answers.
	if _, err := server.StartLocal(ctx, other, server.LocalOptions{}); !errors.Is(err, server.ErrLocalTaken) {
		t.Fatalf("second StartLocal: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("advertisement left after Close: %v", err)
	}
	if err := server.AskLocal(ctx, v.GitDir(), server.Query{Op: "stats", Limit: 5}, &st); !errors.Is(err, server.ErrNoLocalServer) {
		t.Fatalf("after Close: %v", err)
	}
}

// TestLocal_RefusesStrangers: without the secret, or with anything but a query,
// the endpoint answers nothing; a stale advertisement is replaced.
func TestLocal_RefusesStrangers(t *testing.T) {
	ctx := context.Background()
	v := testvault.OpenServed(t, map[string]string{"a.md": "# Alpha\n\nsecret words\n"})
	path := server.LocalEndpointPath(v.GitDir())

	// A server that died left its advertisement: nobody answers there.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	if err := os.WriteFile(path, []byte(`{"pid":1,"addr":"`+dead+`","secret":"s"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := server.AskLocal(ctx, v.GitDir(), server.Query{Op: "ping"}, nil); !errors.Is(err, server.ErrNoLocalServer) {
		t.Fatalf("stale advertisement: %v", err)
	}
	// An advertisement pointing off this machine's loopback is not followed (the
	// secret would go there), nor is one whose port another program now holds.
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>not norn</html>", http.StatusMethodNotAllowed)
	}))
	defer foreign.Close()
	addrs := []string{"example.com:80", foreign.Listener.Addr().String()}
	if ip := nonLoopbackIP(t); ip != "" {
		// A listener on this machine's own network address: it must never see the secret.
		off, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			t.Fatal(err)
		}
		offSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t.Errorf("the secret went to a non-loopback address: %q", r.Header.Get("Authorization"))
		}))
		offSrv.Listener.Close()
		offSrv.Listener = off
		offSrv.Start()
		defer offSrv.Close()
		addrs = append(addrs, off.Addr().String())
	}
	for _, addr := range addrs {
		if err := os.WriteFile(path, []byte(`{"pid":1,"addr":"`+addr+`","secret":"s"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := server.AskLocal(ctx, v.GitDir(), server.Query{Op: "ping"}, nil); !errors.Is(err, server.ErrNoLocalServer) {
			t.Errorf("advertisement of %s: %v", addr, err)
		}
	}
	l, err := server.StartLocal(ctx, v, server.LocalOptions{})
	if err != nil {
		t.Fatalf("StartLocal over a stale advertisement: %v", err)
	}
	defer l.Close()
	b, err := os.ReadFile(path)
	if err != nil || strings.Contains(string(b), dead) {
		t.Fatalf("advertisement not replaced: %s %v", b, err)
	}
	addr := b[strings.Index(string(b), `"addr":"`)+8:]
	url := "http://" + string(addr[:strings.IndexByte(string(addr), '"')]) + "/query"

	for _, c := range []struct {
		name, method, auth, body string
		want                     int
	}{
		{"no token", "POST", "", `{"op":"search","search":{"Query":"secret","Limit":5}}`, http.StatusUnauthorized},
		{"wrong token", "POST", "Bearer nope", `{"op":"search","search":{"Query":"secret","Limit":5}}`, http.StatusUnauthorized},
		{"GET", "GET", "", "", http.StatusMethodNotAllowed},
	} {
		req, _ := http.NewRequest(c.method, url, strings.NewReader(c.body))
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %s, want %d", c.name, resp.Status, c.want)
		}
	}
}

// nonLoopbackIP is an address of this machine's other than loopback, or "" (the
// test then cannot show that such an address is refused).
func nonLoopbackIP(t *testing.T) string {
	as, err := net.InterfaceAddrs()
	if err != nil {
		t.Logf("no interface addresses: %v", err)
		return ""
	}
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Log("no non-loopback IPv4 address: the off-machine advertisement case is not exercised")
	return ""
}

// TestLocal_SeesOtherProcessesCommits: a command asks the server right after a
// commit the server did not make (here the git CLI's); the answer includes it and
// says which commit it reflects.
func TestLocal_SeesOtherProcessesCommits(t *testing.T) {
	ctx := context.Background()
	v := testvault.OpenServed(t, map[string]string{"a.md": "# Alpha\n\nBloom filters.\n"})
	if err := v.Index.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := server.StartLocal(ctx, v, server.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	commit := func(i int, word string) string {
		blob := filepath.Join(t.TempDir(), "y.md")
		if err := os.WriteFile(blob, []byte("# Yak\n\n"+word+" [[a]]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// Plumbing that leaves git's index alone (the served vault may be writing
		// it): a tree of HEAD's entries and the new one, a commit, the branch moved.
		id := strings.TrimSpace(testvault.GitIn(t, v.Dir(), "hash-object", "-w", blob))
		entries := testvault.GitIn(t, v.Dir(), "ls-tree", "HEAD") + "100644 blob " + id + "\ty" + strconv.Itoa(i) + ".md\n"
		mk := exec.Command("git", "-C", v.Dir(), "mktree")
		mk.Stdin = strings.NewReader(entries)
		tree, err := mk.Output()
		if err != nil {
			t.Fatalf("git mktree: %v", err)
		}
		parent := strings.TrimSpace(testvault.GitIn(t, v.Dir(), "rev-parse", "HEAD"))
		c := strings.TrimSpace(testvault.GitIn(t, v.Dir(), "-c", "user.name=P", "-c", "user.email=p@x", "commit-tree", strings.TrimSpace(string(tree)), "-p", parent, "-m", word))
		testvault.GitIn(t, v.Dir(), "update-ref", "HEAD", c, parent)
		return c
	}
	for i, word := range []string{"yakety", "zebroid"} {
		head := commit(i, word)

		// Links first (it does not wait for pending writes as search does).
		var links vault.Links
		if err := server.AskLocal(ctx, v.GitDir(), server.Query{Op: "links", Note: note.Path("y" + strconv.Itoa(i) + ".md"), Limit: 5}, &links); err != nil {
			t.Fatalf("links of the new note: %v", err)
		}
		var got vault.SearchResponse
		req := vault.SearchRequest{Query: word, Limit: 5}
		if err := server.AskLocal(ctx, v.GitDir(), server.Query{Op: "search", Search: &req}, &got); err != nil {
			t.Fatal(err)
		}
		// The new note, and a.md through the line that links to it (the inbound field).
		if got.Total != 2 || got.HeadCommit != head || got.IndexCommit != head || got.IndexStale {
			t.Fatalf("search after a git commit: total %d, head %s index %s stale %v; git HEAD %s",
				got.Total, got.HeadCommit, got.IndexCommit, got.IndexStale, head)
		}
	}
	// An MCP search that waits for pending writes sees them too.
	head := commit(2, "quokkas")
	got, err := v.Index.Search(ctx, vault.SearchRequest{Query: "quokkas", Limit: 5, WaitForPendingWrites: true})
	if err != nil || got.Total != 2 || got.HeadCommit != head || got.IndexStale { // y2.md and a.md (see above)
		t.Fatalf("waiting search after a git commit: %+v (%v); git HEAD %s", got, err, head)
	}
}
