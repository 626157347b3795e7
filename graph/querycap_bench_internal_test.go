package graph

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// adversarialQueries are queries of up to maxBytes built to be as costly as the
// syntax allows on a corpus whose raw text is texts: as many distinct 4-letter
// prefixes (each expanding to many terms) as fit, the same joined by OR, required
// (+) prefixes, and MaxQueryPhrases phrases of common words followed by prefixes.
func adversarialQueries(texts [][]byte, maxBytes int) map[string]string {
	expansions := map[string]map[string]bool{}
	count := map[string]int{}
	for _, t := range texts {
		for _, w := range strings.FieldsFunc(strings.ToLower(string(t)), func(r rune) bool { return !unicode.IsLetter(r) }) {
			count[w]++
			if len(w) >= 6 && len(w) < 20 {
				p := w[:4]
				if expansions[p] == nil {
					expansions[p] = map[string]bool{}
				}
				expansions[p][w] = true
			}
		}
	}
	prefixes := make([]string, 0, len(expansions))
	for p := range expansions {
		prefixes = append(prefixes, p)
	}
	slices.SortFunc(prefixes, func(a, b string) int { return len(expansions[b]) - len(expansions[a]) })
	common := make([]string, 0, len(count))
	for w := range count {
		if len(w) > 2 {
			common = append(common, w)
		}
	}
	slices.SortFunc(common, func(a, b string) int { return count[b] - count[a] })
	fill := func(item func(i int) string, sep string) string {
		var b strings.Builder
		for i := 0; i < MaxQueryClauses; i++ {
			s := item(i)
			if b.Len() > 0 {
				s = sep + s
			}
			if b.Len()+len(s) > maxBytes {
				return b.String()
			}
			b.WriteString(s)
		}
		return b.String()
	}
	return map[string]string{
		"prefixes": fill(func(i int) string { return prefixes[i%len(prefixes)] }, " "),
		"or":       fill(func(i int) string { return prefixes[i%len(prefixes)] }, " OR "),
		"required": fill(func(i int) string { return "+" + prefixes[i%len(prefixes)] }, " "),
		"phrases": fill(func(i int) string {
			if i >= MaxQueryPhrases {
				return prefixes[i%len(prefixes)]
			}
			return fmt.Sprintf("%q", common[i%50]+" "+common[(i+1)%50]+" "+common[(i+7)%50])
		}, " "),
	}
}

// BenchmarkSearch_Adversarial runs the costliest queries within the query caps
// (MaxQueryBytes, MaxQueryClauses) on obsidian-hub: the worst case a caller can
// ask for.
func BenchmarkSearch_Adversarial(b *testing.B) {
	root := filepath.Join(corporaDir, "vault-obsidian-hub", "notes")
	needDir(b, root)
	raw := rawVault(b, root)
	texts := make([][]byte, len(raw))
	for i, r := range raw {
		texts[i] = r.raw
	}
	ix := buildIndex(b, vaultDocs(b, root, nil), Options{})
	qs := adversarialQueries(texts, MaxQueryBytes)
	for _, name := range []string{"prefixes", "or", "required", "phrases"} {
		q := qs[name]
		b.Run(fmt.Sprintf("q=%s/bytes=%d", name, len(q)), func(b *testing.B) {
			for b.Loop() {
				if _, err := ix.Search(context.Background(), q, SearchOptions{Limit: 10}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
