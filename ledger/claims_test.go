package ledger_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

var (
	t0  = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rev = repo.Revision(strings.Repeat("ab", 20))
)

func sample(id ledger.ClaimID) ledger.Claim {
	return ledger.Claim{ID: id, Kind: ledger.KindAssertion, Subject: "payments", Property: "owner", Scope: "prod",
		Value: "team-a", Source: ledger.Source{Path: "tech/payments.md", Revision: rev},
		AssertedBy: repo.Author{Name: "agent-a", Email: "a@example.com"}, AssertedAt: t0}
}

func id(c byte) ledger.ClaimID { return ledger.ClaimID(strings.Repeat(string(c), 26)) }

func TestClaim_RoundTrip(t *testing.T) {
	c := sample(id('a'))
	c.ValidFrom, c.ValidTo, c.Supersedes = t0.Add(-time.Hour), t0.Add(time.Hour), id('b')
	c.Value = "yes" // a word YAML 1.1 would read as a bool stays text
	b, err := ledger.EncodeClaim(&c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ledger.DecodeClaim(ledger.ClaimPath(c.ID), b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if !reflect.DeepEqual(*got, c) {
		t.Fatalf("round trip:\n got %+v\nwant %+v\n%s", *got, c, b)
	}
	if p := ledger.ClaimPath(c.ID); p != note.Path(".norn/claims/aa/"+string(c.ID)+".yaml") {
		t.Fatalf("path %s", p)
	}
}

func TestNewClaimID(t *testing.T) {
	seen := map[ledger.ClaimID]string{}
	base := sample("")
	vary := map[string]func(c *ledger.Claim){
		"same":     func(c *ledger.Claim) {},
		"agent":    func(c *ledger.Claim) { c.AssertedBy.Name = "agent-b" },
		"email":    func(c *ledger.Claim) { c.AssertedBy.Email = "b@example.com" },
		"instant":  func(c *ledger.Claim) { c.AssertedAt = c.AssertedAt.Add(time.Nanosecond) },
		"value":    func(c *ledger.Claim) { c.Value = "team-b" },
		"scope":    func(c *ledger.Claim) { c.Scope = "dev" },
		"boundary": func(c *ledger.Claim) { c.Subject, c.Property = "paymentso", "wner" }, // the fields are length-prefixed
		"source":   func(c *ledger.Claim) { c.Source.Revision = repo.Revision(strings.Repeat("cd", 20)) },
		"window":   func(c *ledger.Claim) { c.ValidTo = t0 },
	}
	for name, f := range vary {
		c := base
		f(&c)
		id := ledger.NewClaimID(&c)
		if _, err := ledger.ParseClaimID(string(id)); err != nil {
			t.Fatal(err)
		}
		if other, dup := seen[id]; dup {
			t.Fatalf("%s and %s share id %s", name, other, id)
		}
		seen[id] = name
	}
	if a, b := ledger.NewClaimID(&base), ledger.NewClaimID(ptr(base)); a != b {
		t.Fatalf("the same claim: %s and %s", a, b)
	}
}

func TestDecodeClaim_Strict(t *testing.T) {
	good, err := ledger.EncodeClaim(ptr(sample(id('a'))))
	if err != nil {
		t.Fatal(err)
	}
	p := ledger.ClaimPath(id('a'))
	cases := []struct {
		name, in, rule string
		path           note.Path
	}{
		{"unknown key", string(good) + "extra: 1\n", ledger.RuleSyntax, p},
		{"repeated key", string(good) + "scope: dev\n", ledger.RuleSyntax, p},
		{"alias", strings.Replace(string(good), "scope: prod", "scope: &x prod", 1), ledger.RuleSyntax, p},
		{"tag", strings.Replace(string(good), "scope: prod", "scope: !!str prod", 1), ledger.RuleSyntax, p},
		{"list value", strings.Replace(string(good), "value: team-a", "value: [a, b]", 1), ledger.RuleSyntax, p},
		{"missing value", strings.Replace(string(good), "value: team-a\n", "", 1), ledger.RuleMissing, p},
		{"bad time", strings.Replace(string(good), "asserted_at: ", "asserted_at: yesterday #", 1), ledger.RuleSyntax, p},
		{"two documents", string(good) + "---\nid: x\n", ledger.RuleSyntax, p},
		{"not yaml", "id: [\n", ledger.RuleSyntax, p},
		{"empty", "", ledger.RuleSyntax, p},
		{"wrong file", string(good), ledger.RuleID, ledger.ClaimPath(id('b'))},
		{"bad source", strings.Replace(string(good), "tech/payments.md", ".norn/x.md", 1), ledger.RuleSource, p},
		{"too large", string(good) + "#" + strings.Repeat("x", ledger.MaxClaimBytes), ledger.RuleTooLarge, p},
		{"control char", strings.Replace(string(good), "scope: prod", `scope: "pr\nod"`, 1), ledger.RuleText, p},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ledger.DecodeClaim(tc.path, []byte(tc.in))
			var ce *ledger.ClaimError
			if !errors.As(err, &ce) || !errors.Is(err, ledger.ErrInvalidClaim) || !errors.Is(err, repo.ErrInvalid) {
				t.Fatalf("err %v: want a *ClaimError matching ErrInvalidClaim and repo.ErrInvalid", err)
			}
			found := false
			for _, p := range ce.Problems {
				found = found || p.Rule == tc.rule
			}
			if !found {
				t.Fatalf("err %v: want rule %s", err, tc.rule)
			}
		})
	}
}

func TestClaim_CheckRetraction(t *testing.T) {
	r := ledger.Claim{ID: id('c'), Kind: ledger.KindRetraction, Subject: "s", Property: "p", Scope: "x",
		AssertedBy: repo.Author{Name: "n"}, AssertedAt: t0}
	if err := r.Check(); err == nil || !strings.Contains(err.Error(), "supersedes") {
		t.Fatalf("a retraction without supersedes: %v", err)
	}
	r.Supersedes = id('a')
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	r.Value = "v"
	if err := r.Check(); err == nil {
		t.Fatal("a retraction with a value passed")
	}
	r.Value, r.Supersedes = "", r.ID
	if err := r.Check(); err == nil || !strings.Contains(err.Error(), ledger.RuleSelf) {
		t.Fatalf("self-supersession: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestResolve(t *testing.T) {
	a := sample(id('a'))
	b := sample(id('b'))
	b.AssertedAt, b.Supersedes, b.Value = t0.Add(time.Minute), a.ID, "team-b"
	c := sample(id('c'))
	c.AssertedAt, c.Value, c.AssertedBy.Name = t0.Add(2*time.Minute), "team-c", "agent-c"
	retract := ledger.Claim{ID: id('d'), Kind: ledger.KindRetraction, Subject: a.Subject, Property: a.Property, Scope: a.Scope,
		Supersedes: b.ID, AssertedBy: a.AssertedBy, AssertedAt: t0.Add(3 * time.Minute)}
	past, future := sample(id('e')), sample(id('f'))
	past.ValidTo = t0.Add(-time.Hour)
	future.ValidFrom = t0.Add(time.Hour)
	always := func(*ledger.Claim) bool { return true }
	never := func(*ledger.Claim) bool { return false }
	cases := []struct {
		name   string
		claims []ledger.Claim
		fresh  func(*ledger.Claim) bool
		want   ledger.Status
		ids    []ledger.ClaimID
	}{
		{"none", nil, always, ledger.StatusUnknown, nil},
		{"one", []ledger.Claim{a}, always, ledger.StatusCurrent, []ledger.ClaimID{a.ID}},
		{"chain", []ledger.Claim{b, a}, always, ledger.StatusCurrent, []ledger.ClaimID{b.ID}},
		{"stale", []ledger.Claim{a}, never, ledger.StatusStaleSource, []ledger.ClaimID{a.ID}},
		{"conflict", []ledger.Claim{c, a}, always, ledger.StatusConflict, []ledger.ClaimID{a.ID, c.ID}},
		{"conflict beats stale", []ledger.Claim{c, a}, never, ledger.StatusConflict, []ledger.ClaimID{a.ID, c.ID}},
		{"retracted", []ledger.Claim{a, b, retract}, always, ledger.StatusUnknown, []ledger.ClaimID{retract.ID}},
		{"expired", []ledger.Claim{past}, always, ledger.StatusExpired, []ledger.ClaimID{past.ID}},
		{"not yet valid", []ledger.Claim{future}, always, ledger.StatusNotYetValid, []ledger.ClaimID{future.ID}},
		{"future beats expired", []ledger.Claim{past, future}, always, ledger.StatusNotYetValid, []ledger.ClaimID{future.ID}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ledger.Resolve(tc.claims, t0, tc.fresh)
			var ids []ledger.ClaimID
			for _, c := range r.Claims {
				ids = append(ids, c.ID)
			}
			if r.Status != tc.want || !reflect.DeepEqual(ids, tc.ids) {
				t.Fatalf("got %s %v, want %s %v", r.Status, ids, tc.want, tc.ids)
			}
		})
	}
	// The window is judged at the time asked.
	if r := ledger.Resolve([]ledger.Claim{future}, t0.Add(2*time.Hour), always); r.Status != ledger.StatusCurrent {
		t.Fatalf("future claim at its time: %s", r.Status)
	}
	h := ledger.Chain([]ledger.Claim{retract, b, a})
	if len(h) != 3 || h[0].ID != a.ID || !reflect.DeepEqual(h[0].SupersededBy, []ledger.ClaimID{b.ID}) || h[0].Live || !h[2].Live {
		t.Fatalf("history %+v", h)
	}
}

func TestDiff(t *testing.T) {
	cases := []struct {
		a, b         string
		added, moved int
	}{
		{"", "", 0, 0},
		{"a\nb\nc\n", "a\nb\nc\n", 0, 0},
		{"a\nb\nc\n", "a\nx\nc\n", 1, 1},
		{"a\nb\n", "a\nb\nc\nd\n", 2, 0},
		{"a\nb\nc\n", "c\n", 0, 2},
		{"a\nb\nc\nd\n", "a\nc\nb\nd\n", 0, 0},
	}
	for _, tc := range cases {
		d := ledger.Diff([]byte(tc.a), []byte(tc.b))
		if d.LinesAdded != tc.added || d.LinesRemoved != tc.moved || d.BytesBefore != len(tc.a) || d.BytesAfter != len(tc.b) {
			t.Errorf("Diff(%q, %q) = %+v, want +%d -%d", tc.a, tc.b, d, tc.added, tc.moved)
		}
	}
}
