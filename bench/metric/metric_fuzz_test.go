package metric

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzParseQrels: any input parses or fails without panicking, and what parses
// prints back as tab-separated lines that parse to the same judgements.
func FuzzParseQrels(f *testing.F) {
	for _, s := range []string{"q1\td/1.md\t2\r\n", "q1 d 1\nq2 e 0\n", "a b\n", "q d x\n", "\t\t\t\n", "q d -3 extra\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := ParseQrels(b)
		if err != nil {
			return
		}
		var out strings.Builder
		for qid, rel := range q {
			for d, g := range rel {
				if strings.ContainsAny(qid+d, "\t\n\r") || qid == "" && d == "" {
					return // not representable as one tab-separated line
				}
				fmt.Fprintf(&out, "%s\t%s\t%d\n", qid, d, g)
			}
		}
		again, err := ParseQrels([]byte(out.String()))
		if err != nil {
			t.Fatalf("reparse %q: %v", out.String(), err)
		}
		for qid, rel := range q {
			for d, g := range rel {
				if again[qid][d] != g {
					t.Fatalf("%q %q: grade %d, reparsed %d", qid, d, g, again[qid][d])
				}
			}
		}
	})
}
