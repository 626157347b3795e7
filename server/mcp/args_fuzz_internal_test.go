package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCheckArgs: checkArgs never panics on valid JSON, refuses every input that
// is not UTF-8, and accepts what encoding/json decodes back to the same bytes
// (valid UTF-8, no escapes that could hide a surrogate, distinct keys).
func FuzzCheckArgs(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"b"}`, `{"a":"\udc80"}`, `{"a":"\ud83d\ude00"}`, `{"a":[1,"x",{"b":null}]}`,
		`{"a":1,"A":2}`, "{\"a\":\"\xff\"}", `{"a":"\\u0041"}`, `[true,false]`, `"x"`, `{"a":{"b":1,"b":2}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		err := checkArgs(raw)
		if !utf8.Valid(raw) && err == nil {
			t.Fatalf("accepted bytes that are not UTF-8: %q", raw)
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		if err != nil && utf8.Valid(raw) && !strings.Contains(string(raw), `\u`) && !strings.Contains(err.Error(), "twice") {
			t.Fatalf("refused %q: %v", raw, err)
		}
	})
}
