package auth

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseTokens: the tokens file parses without panic; a file that parses
// names valid principals with 64-hex-digit digests and known scopes, each once,
// and writing its records out as update does parses back to the same records.
func FuzzParseTokens(f *testing.F) {
	digest := strings.Repeat("ab", 32)
	f.Add([]byte(tokensHeader + `{"name":"agent-1","sha256":"` + digest + `","scopes":["read","write"],"created":"2026-12-03T10:00:00Z"}` + "\n"))
	f.Add([]byte("# comment\n\n" + `{"name":"x","sha256":"` + strings.ToUpper(digest) + `","scopes":["admin"]}`))
	f.Add([]byte(`{"name":"x","sha256":"00","scopes":[]} {"name":"y"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := parseTokens(b)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		var out bytes.Buffer
		for _, r := range recs {
			if ValidPrincipalName(r.Name) != nil || seen[r.Name] || len(r.SHA256) != 64 || r.SHA256 != strings.ToLower(r.SHA256) {
				t.Fatalf("accepted record %+v", r)
			}
			if _, err := checkScopes(r.Scopes); err != nil {
				t.Fatalf("accepted scopes %v: %v", r.Scopes, err)
			}
			seen[r.Name] = true
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			out.Write(line)
			out.WriteByte('\n')
		}
		again, err := parseTokens(out.Bytes())
		if err != nil || len(again) != len(recs) {
			t.Fatalf("written records: %d of %d, %v", len(again), len(recs), err)
		}
		for i := range recs {
			if again[i].Name != recs[i].Name || again[i].SHA256 != recs[i].SHA256 || !reflect.DeepEqual(again[i].Scopes, recs[i].Scopes) || !again[i].Created.Equal(recs[i].Created) {
				t.Fatalf("record %d: %+v, want %+v", i, again[i], recs[i])
			}
		}
	})
}
