package note

import "testing"

// BenchmarkParse parses whole corpora; MB/s is over the notes' bytes. The
// body-only variant parses the same notes with their frontmatter cut off, which
// shows the body scanner apart from the YAML library.
func BenchmarkParse(b *testing.B) {
	run := func(b *testing.B, notes []corpusNote) {
		var total int64
		for _, c := range notes {
			total += int64(len(c.raw))
		}
		b.SetBytes(total)
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range notes {
				Parse(c.path, c.raw)
			}
		}
	}
	b.Run("corpus=obsidian-hub", func(b *testing.B) {
		run(b, loadCorpus(b, "vault-obsidian-hub"))
	})
	b.Run("corpus=obsidian-hub/body-only", func(b *testing.B) {
		notes := loadCorpus(b, "vault-obsidian-hub")
		for i, c := range notes {
			if n, err := Parse(c.path, c.raw); err == nil {
				notes[i].raw = n.Body()
			}
		}
		run(b, notes)
	})
	b.Run("corpus=cpp-docs", func(b *testing.B) {
		run(b, loadCorpus(b, "md-cpp-docs"))
	})
}

func BenchmarkSetField(b *testing.B) {
	raw := []byte("---\ntitle: Bloom filters\ntype: concept\nstatus: active\ntags: [data-structures, hashing]\nupdated: 2026-11-30\n---\n# Bloom filters\nBody.\n")
	edges := []Edge{{To: "[[Count-min sketch]]", Type: "same_mechanism_as", Why: "Both hash items into a small array."}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SetField(raw, "edges", edges); err != nil {
			b.Fatal(err)
		}
	}
}
