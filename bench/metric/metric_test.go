package metric

import "testing"

func TestScore(t *testing.T) {
	q := Qrels{
		"a": {"x/1.md": 1},
		"b": {"x/2.md": 1, "x/3.md": 2},
		"c": {"x/4.md": 1},
		"d": {"x/5.md": 0}, // judged: eval.py counts every listed document as relevant
	}
	run := map[string][]string{
		"a": {"x/1.md", "x/9.md"},                                          // rank 1
		"b": {"x/9.md", "./x/3.md", "x/8.md", "x/2.md"},                    // ranks 2 and 4
		"c": {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "x/4.md"}, // rank 11: outside @10
		// "d" has no results.
	}
	got := Score(q, run, 10)
	// ranks 1; 2 and 4 of 2 judged; none; none. nDCG@10: a 1, b (3/log2 3 + 1/log2 5) /
	// (3 + 1/log2 3) = .6399 (x/3.md has grade 2), c 0, d 0 (a grade-0 judgement gains nothing).
	// MAP: a 1, b (1/2 + 2/4)/2 = .5, c 1/11, d 0. P@10: a .1, b .2, c 0, d 0.
	// R@100: a 1, b 1, c 1, d 0.
	want := Scores{Queries: 4, K: 10, MAP: 0.3977, NDCG: 0.41, MRR: 0.375, P: 0.075,
		Top1: 0.25, Recall1: 0.25, RecallK: 0.5, R100: 0.75}
	if got != want {
		t.Fatalf("by path: got %+v, want %+v", got, want)
	}
	// Qrels naming stems compare results by file stem.
	got = Score(Qrels{"a": {"184": 1}}, map[string][]string{"a": {"docs/7.md", "docs/184.md"}}, 10)
	if got.MRR != 0.5 || got.NDCG != 0.6309 || got.Recall1 != 0 || got.RecallK != 1 || got.Top1 != 0 || got.MAP != 0.5 {
		t.Fatalf("by stem: %+v", got)
	}
	if got := Score(Qrels{}, run, 10); got != (Scores{K: 10}) {
		t.Fatalf("no qrels: %+v", got)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"docs/184.md": "184", "a/b.tar.gz": "b.tar", ".bashrc": ".bashrc", "x/..md": "..md", "plain": "plain", "a.b/c": "c"} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseQrels(t *testing.T) {
	got, err := ParseQrels([]byte("q1\td/1.md\t2\r\nq1 d/2.md 1\n\nshort line\nq2\tx\t0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["q1"]["d/1.md"] != 2 || got["q1"]["d/2.md"] != 1 || len(got["q2"]) != 1 {
		t.Fatalf("got %v", got)
	}
	if _, err := ParseQrels([]byte("q1 d 1\nq1 d x\n")); err == nil || err.Error() != `line 2: strconv.Atoi: parsing "x": invalid syntax` {
		t.Fatalf("bad grade: %v", err)
	}
}
