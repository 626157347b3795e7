package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/server"
)

// FuzzLocalQuery posts arbitrary bodies, with the secret, to a running local
// endpoint: every answer is 200 or 400 and JSON (a result, or a classified
// failure), and a request refused in any way leaves HEAD where it was.
func FuzzLocalQuery(f *testing.F) {
	for _, seed := range []string{
		`{"op":"ping"}`,
		`{"op":"stats","limit":5}`,
		`{"op":"search","search":{"Query":"bloom","Limit":3}}`,
		`{"op":"search"}`,
		`{"op":"links","note":"../x.md"}`,
		`{"op":"apply"}`,
		`{"op":"apply","tx":{"Author":{"name":"F","email":"f@x"},"Roles":["owner"],"Op":"write","Changes":[{"Kind":"put","Path":"../x.md","Content":"IyBYCg=="}]}}`,
		`{"op":"apply","tx":{"Roles":["owner"],"Op":"write","Changes":[{"Kind":"bogus","Path":"x.md"}]}}`,
		`{"op":"apply","tx":{"Op":"archive","Changes":[{"Kind":"archive","Path":"a.md"}]}}`,
		`{"op":"capture"}`,
		`{"op":"capture","capture":{"Text":"","Roles":["owner"]}}`,
		`{"op":"nope"}`,
		`{"op":"apply","tx":`,
		`[]`,
		`{"op":"apply","tx":{"Changes":[{"Content":"not base64!"}]}}`,
	} {
		f.Add([]byte(seed))
	}
	ctx := context.Background()
	v := testvault.OpenServed(f, map[string]string{"a.md": "# Alpha\n\nBloom filters.\n"})
	l, err := server.StartLocal(ctx, v, server.LocalOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { l.Close() })
	var ep struct{ Addr, Secret string }
	b, err := os.ReadFile(server.LocalEndpointPath(v.GitDir()))
	if err != nil || json.Unmarshal(b, &ep) != nil {
		f.Fatalf("advertisement %s: %v", b, err)
	}
	head := func(t *testing.T) string {
		out, err := exec.Command("git", "-C", v.Dir(), "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		before := head(t)
		req, _ := http.NewRequest("POST", "http://"+ep.Addr+"/query", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+ep.Secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%q: %s %s", body, resp.Status, raw)
		}
		var a struct {
			Result json.RawMessage `json:"result"`
			Code   string          `json:"code"`
		}
		if err := json.Unmarshal(raw, &a); err != nil || (a.Code == "") == (a.Result == nil) {
			t.Fatalf("%q: answer %s is neither a result nor a failure (%v)", body, raw, err)
		}
		var ans server.ApplyAnswer
		refused := a.Code != "" || json.Unmarshal(a.Result, &ans) == nil && ans.Error != nil
		if refused && head(t) != before {
			t.Fatalf("%q: refused (%s) but HEAD moved", body, raw)
		}
	})
}
