package ledger_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

func srcRev(i int) repo.Revision { return repo.Revision(fmt.Sprintf("%040x", i)) }

func TestRegistration_RoundTrip(t *testing.T) {
	r, err := ledger.NewRegistration("tech/top.md", []ledger.Source{
		{Path: "z/last.md", Revision: srcRev(2)},
		{Path: "a/first one.md", Revision: srcRev(1)},
		{Path: "true.md", Revision: repo.Revision(strings.Repeat("1", 39) + "e")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sources[0].Path != "a/first one.md" || r.Sources[2].Path != "z/last.md" {
		t.Fatalf("sources not sorted: %+v", r.Sources)
	}
	b, err := ledger.EncodeRegistration(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ledger.DecodeRegistration(b)
	if err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	if fmt.Sprint(got) != fmt.Sprint(r) {
		t.Fatalf("round trip: got %+v, want %+v", got, r)
	}
	again, _ := ledger.EncodeRegistration(got)
	if string(again) != string(b) {
		t.Fatalf("encoding not canonical:\n%s\n%s", b, again)
	}
}

func TestRegistration_Check(t *testing.T) {
	many := make([]ledger.Source, ledger.MaxSources+1)
	for i := range many {
		many[i] = ledger.Source{Path: note.Path(fmt.Sprintf("s/%02d.md", i)), Revision: srcRev(i)}
	}
	for _, tc := range []struct {
		name    string
		summary note.Path
		sources []ledger.Source
		want    string
	}{
		{"none", "a.md", nil, "no sources"},
		{"33", "a.md", many, "33 sources"},
		{"self", "a.md", []ledger.Source{{Path: "a.md", Revision: srcRev(1)}}, "summary itself"},
		{"twice", "a.md", []ledger.Source{{Path: "b.md", Revision: srcRev(1)}, {Path: "b.md", Revision: srcRev(1)}}, "named twice"},
		{"not a note", "a.md", []ledger.Source{{Path: "img/b.png", Revision: srcRev(1)}}, "not a Markdown note"},
		{"norn file", "a.md", []ledger.Source{{Path: ".norn/x.md", Revision: srcRev(1)}}, "Norn's own"},
		{"dotdot", "a.md", []ledger.Source{{Path: "../b.md", Revision: srcRev(1)}}, "clean relative"},
		{"bad revision", "a.md", []ledger.Source{{Path: "b.md", Revision: "HEAD"}}, "40-character"},
		{"summary not a note", "a.txt", []ledger.Source{{Path: "b.md", Revision: srcRev(1)}}, "summary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ledger.NewRegistration(tc.summary, tc.sources)
			if !errors.Is(err, ledger.ErrInvalidRegistration) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrInvalidRegistration mentioning %q", err, tc.want)
			}
		})
	}
}

func TestDecodeRegistration_Strict(t *testing.T) {
	good := "summary: a.md\nsources:\n  - path: b.md\n    revision: \"" + string(srcRev(1)) + "\"\n"
	if _, err := ledger.DecodeRegistration([]byte(good)); err != nil {
		t.Fatalf("good file: %v", err)
	}
	for name, in := range map[string]string{
		"empty":          "",
		"unknown key":    good + "extra: 1\n",
		"twice":          good + "summary: a.md\n",
		"alias":          "summary: &s a.md\nsources:\n  - path: *s\n    revision: x\n",
		"two documents":  good + "---\n" + good,
		"list":           "- a\n",
		"source string":  "summary: a.md\nsources: [b.md]\n",
		"missing":        "summary: a.md\n",
		"unsorted":       "summary: a.md\nsources:\n  - {path: c.md, revision: \"" + string(srcRev(1)) + "\"}\n  - {path: b.md, revision: \"" + string(srcRev(2)) + "\"}\n",
		"tagged":         "summary: !!str a.md\nsources:\n  - path: b.md\n    revision: \"" + string(srcRev(1)) + "\"\n",
		"syntax":         "summary: [\n",
		"not utf8":       "summary: \xff\n",
		"source unknown": "summary: a.md\nsources:\n  - path: b.md\n    revision: \"" + string(srcRev(1)) + "\"\n    why: x\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ledger.DecodeRegistration([]byte(in)); !errors.Is(err, ledger.ErrInvalidRegistration) {
				t.Fatalf("got %v, want ErrInvalidRegistration", err)
			}
		})
	}
}

func TestRegistrationPath(t *testing.T) {
	p := ledger.RegistrationPath("tech/a b.md")
	if p != ".norn/synthesis/tech/a b.md.yaml" {
		t.Fatalf("path %s", p)
	}
	if note.IsNote(p) {
		t.Fatalf("%s counts as a note", p)
	}
	if s, ok := ledger.SummaryOf(p); !ok || s != "tech/a b.md" {
		t.Fatalf("SummaryOf(%s) = %s, %v", p, s, ok)
	}
	for _, p := range []note.Path{".norn/config.yaml", ".norn/synthesis/a.txt.yaml", "tech/a.md", ".norn/synthesis/a.md"} {
		if _, ok := ledger.SummaryOf(p); ok {
			t.Fatalf("SummaryOf(%s) accepted", p)
		}
	}
}
