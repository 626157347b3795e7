package rerank_test

import (
	"errors"
	"testing"

	"github.com/norn-vault/norn/rerank"
)

func FuzzParseMode(f *testing.F) {
	for _, s := range []string{"", "auto", "off", "force", "Force", "on", " auto", "auto\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := rerank.ParseMode(s)
		if err != nil {
			if !errors.Is(err, rerank.ErrMode) {
				t.Fatalf("ParseMode(%q): %v does not match ErrMode", s, err)
			}
			return
		}
		b, err := m.MarshalText()
		if err != nil {
			t.Fatalf("MarshalText(%v): %v", m, err)
		}
		var back rerank.Mode
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Fatalf("%q → %v → %q → %v, %v", s, m, b, back, err)
		}
		if s != "" && string(b) != s {
			t.Fatalf("ParseMode(%q) = %v named %q", s, m, b)
		}
	})
}
