package mcp

import (
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// FuzzInvalidRequest: for any valid JSON, invalidRequest never panics, refuses with
// -32600 and id null only, and lets through only objects whose id, when a request
// carries one, is a string or a number.
func FuzzInvalidRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":"a","method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[]`, `[{"id":1}]`, `1`, `"x"`, `null`, ` {"id":false} `, `{"id":-1.5e3,"method":"x"}`, `{"ID":[],"Method":"x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		e := InvalidRequest(b)
		if e != nil {
			if e.Error.Code != mcpgo.INVALID_REQUEST || e.ID.Value() != nil {
				t.Fatalf("%q: refused with %+v", b, e)
			}
			return
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%q let through but not an object: %v", b, err)
		}
		var env struct {
			ID     any `json:"id"`
			Method any `json:"method"`
		}
		json.Unmarshal(b, &env)
		switch env.ID.(type) {
		case nil, string, float64:
		default:
			t.Fatalf("%q let through with id %T", b, env.ID)
		}
	})
}
