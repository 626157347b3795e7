package graph

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"

	"github.com/norn-vault/norn/note"
)

// TestSelectLines: repeated texts are kept once per class, each class keeps at
// most maxInboundLines lines, chosen for the words they add, in canonical order
// whatever order they came in.
func TestSelectLines(t *testing.T) {
	var lines []inLine
	for i := range 3 * maxInboundLines {
		// Most lines say the same few words; every third one adds its own word.
		text := "see the note about hashing"
		if i%3 == 0 {
			text = fmt.Sprintf("see the note about word%03d", i)
		}
		lines = append(lines, inLine{from: notePath(i), text: text}, inLine{from: notePath(i), text: text + " privately", private: true})
	}
	got := selectLines(append([]inLine(nil), lines...))
	pub, priv := 0, 0
	seen := map[string]bool{}
	for i, l := range got {
		if l.private {
			priv++
		} else {
			pub++
			if priv > 0 {
				t.Fatalf("line %d: a public line after a private one", i)
			}
		}
		key := fmt.Sprintf("%v %s", l.private, l.text)
		if seen[key] {
			t.Errorf("line %q kept twice", l.text)
		}
		seen[key] = true
	}
	if pub != maxInboundLines || priv != maxInboundLines {
		t.Errorf("kept %d public and %d private lines, want %d of each", pub, priv, maxInboundLines)
	}
	if !seen["false see the note about hashing"] || !seen["false see the note about word003"] {
		t.Error("the most distinct lines were not kept")
	}
	// Reversed input, same selection.
	rev := append([]inLine(nil), lines...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if again := selectLines(rev); !reflect.DeepEqual(again, got) {
		t.Error("the selection depends on the order the lines came in")
	}
}

func notePath(i int) note.Path { return note.Path(fmt.Sprintf("n%03d.md", i)) }

// FuzzDecodeInbound: any bytes decode without panic; what decodes re-encodes to a record
// that decodes to the same.
func FuzzDecodeInbound(f *testing.F) {
	an := newAnalyzer(DefaultStopWords)
	ai := analyseInbound(newDocAnalyzer(an), []inLine{
		{from: "a.md", text: "see [[b|the other note]] for hashing"},
		{from: "p/c.md", text: "a private why", private: true},
	})
	f.Add(ai.encode(nil))
	f.Add([]byte{})
	f.Add([]byte{1, 1, 'x', 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeInbound(b)
		if err != nil {
			return
		}
		enc := (&analysedInbound{lines: r.lines}).encode(nil)
		for _, tm := range r.terms {
			enc = appendString(enc, tm.term)
			enc = binary.BigEndian.AppendUint32(enc, tm.hash)
		}
		if again, err := decodeInbound(enc); err != nil || !reflect.DeepEqual(again, r) {
			t.Fatalf("%+v re-encoded: %+v, %v", r, again, err)
		}
	})
}
