package web

import (
	"testing"

	"github.com/norn-vault/norn/note"
)

// FuzzRenderNote: whatever a note holds, its HTML has no script-capable tag, no
// event handler attribute and no URL with a scheme but http, https or mailto.
func FuzzRenderNote(f *testing.F) {
	for _, s := range []string{
		"# T\n[[Bloom filters]] ![[cms]] [[x|y]] [[#h]]\n",
		"<script>alert(1)</script>",
		"[a](javascript:alert(1)) <javascript:x> ![i](data:text/html,x)",
		"[[a\" onclick=\"x]] `[[cms]]`\n```\n[[cms]]\n```\n",
		"---\ntitle: x\n---\n> [[cms]]\n- [[bloom.md|<b>]]\n",
		"[x]: vbscript:1\n[x]\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := note.Parse("f/z.md", []byte(raw))
		if err != nil {
			return
		}
		html, err := renderNote(n, testResolve)
		if err != nil {
			t.Fatal(err)
		}
		if bad := unsafeHTML(html); bad != "" {
			t.Fatalf("%q renders %s:\n%s", raw, bad, html)
		}
	})
}
