package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server"
)

// TestLocal_Apply: "apply" commits a command's transaction with its author, and
// a bad one — no transaction, unknown fields, a path the gates refuse, a body
// over the bound, no secret — is refused with a classified answer and nothing
// written (HEAD and the working tree as they were).
func TestLocal_Apply(t *testing.T) {
	ctx := context.Background()
	v := testvault.OpenServed(t, map[string]string{"a.md": "# Alpha\n\nBloom filters.\n"})
	l, err := server.StartLocal(ctx, v, server.LocalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	gitOut := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", v.Dir()}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}

	tx := repo.Tx{Author: repo.Author{Name: "Ada", Email: "ada@example.org"}, Roles: []string{"owner"}, Op: repo.OpWrite,
		Changes: []repo.Change{{Kind: repo.Put, Path: "b.md", Content: []byte("# Beta\n")}}}
	var a server.ApplyAnswer
	if err := server.AskLocal(ctx, v.GitDir(), server.Query{Op: "apply", Tx: &tx}, &a); err != nil || a.Err() != nil || a.Result == nil {
		t.Fatalf("apply: %+v %v", a, err)
	}
	if got := gitOut("log", "-1", "--format=%H %an <%ae>"); got != string(a.Result.Commit)+" Ada <ada@example.org>\n" {
		t.Fatalf("HEAD after apply: %q, answer %+v", got, a.Result)
	}

	head := gitOut("rev-parse", "HEAD")
	// Answered with a failure the command renders as its own.
	refused := []struct {
		name string
		q    server.Query
		code errcode.Code
	}{
		{"no transaction", server.Query{Op: "apply"}, errcode.InvalidInput},
		{"gate", server.Query{Op: "apply", Tx: &repo.Tx{Author: tx.Author, Roles: tx.Roles, Op: repo.OpWrite,
			Changes: []repo.Change{{Kind: repo.Put, Path: note.Path("../out.md"), Content: []byte("# Out\n")}}}}, errcode.GateRejected},
		{"conflict", server.Query{Op: "apply", Tx: &repo.Tx{Author: tx.Author, Roles: tx.Roles, Op: repo.OpWrite,
			Changes: []repo.Change{{Kind: repo.Put, Path: "b.md", Content: []byte("# Beta 2\n")}}}}, errcode.Conflict},
	}
	for _, c := range refused {
		var a server.ApplyAnswer
		err := server.AskLocal(ctx, v.GitDir(), c.q, &a)
		if err == nil {
			err = a.Err()
		}
		if got := errcode.Classify(err); got != c.code {
			t.Errorf("%s: %v classified %s, want %s", c.name, err, got, c.code)
		}
		if c.code == errcode.Conflict {
			if ce := (*repo.ConflictError)(nil); !errors.As(err, &ce) || ce.Path != "b.md" || ce.Current == "" {
				t.Errorf("%s: the conflict's fields did not come across: %#v", c.name, err)
			}
		}
	}

	// Raw requests: the bounds and the secret.
	var ep struct{ Addr, Secret string }
	b, err := os.ReadFile(server.LocalEndpointPath(v.GitDir()))
	if err != nil || json.Unmarshal(b, &ep) != nil {
		t.Fatalf("advertisement %s: %v", b, err)
	}
	put := `{"op":"apply","tx":{"Author":{"name":"Eve","email":"e@x"},"Roles":["owner"],"Op":"write","Changes":[{"Kind":"put","Path":"eve.md","Content":"` +
		"IyBFdmUK" + `"}]}}`
	for _, c := range []struct {
		name, auth, body string
		status           int
	}{
		{"no secret", "", put, http.StatusUnauthorized},
		{"wrong secret", "Bearer " + strings.Repeat("0", len(ep.Secret)), put, http.StatusUnauthorized},
		{"unknown field", "Bearer " + ep.Secret, `{"op":"apply","sneaky":1,"tx":{}}`, http.StatusBadRequest},
		{"not JSON", "Bearer " + ep.Secret, `{"op":"apply","tx":`, http.StatusBadRequest},
		{"over the bound", "Bearer " + ep.Secret, `{"op":"apply","tx":{"Changes":[{"Kind":"put","Path":"big.md","Content":"` +
			strings.Repeat("QUFB", 9<<20/4) + `"}]}}`, http.StatusBadRequest},
	} {
		req, _ := http.NewRequest("POST", "http://"+ep.Addr+"/query", strings.NewReader(c.body))
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: %s %s, want %d", c.name, resp.Status, body, c.status)
		}
		if c.status == http.StatusBadRequest && !strings.Contains(string(body), `"code":"`+string(errcode.InvalidInput)+`"`) {
			t.Errorf("%s: answer %s is not classified invalid", c.name, body)
		}
	}
	if got := gitOut("rev-parse", "HEAD"); got != head {
		t.Errorf("refused applies moved HEAD from %s to %s", head, got)
	}
	if st := gitOut("status", "--porcelain"); st != "" {
		t.Errorf("refused applies left the working tree %q", st)
	}
}
