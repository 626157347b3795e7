package vault_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/errcode"
	"github.com/norn-vault/norn/internal/testvault"
	"github.com/norn-vault/norn/ledger"
	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

var (
	agentA = vault.Actor{Author: repo.Author{Name: "agent-a", Email: "a@x"}, Roles: []string{"agent"}}
	agentB = vault.Actor{Author: repo.Author{Name: "agent-b", Email: "b@x"}, Roles: []string{"agent"}}
	owner  = vault.Actor{Author: testvault.Owner, Roles: []string{"owner"}, Private: true}
)

func claimVault(t *testing.T) *vault.Vault {
	return testvault.Served(t, map[string]string{
		"tech/payments.md":        "# Payments\n\nOwned by team A.\nOn call: alice.\n",
		"tech/search.md":          "# Search\n\nOwned by team S.\n",
		"personal-notes/diary.md": "# Diary\n\nThe payments owner is secretly team Z.\n",
	})
}

func assert(t *testing.T, v *vault.Vault, a vault.Actor, r vault.ClaimRequest) *vault.ClaimWrite {
	t.Helper()
	w, err := v.AssertClaim(context.Background(), a, r)
	if err != nil {
		t.Fatalf("assert %+v: %v", r, err)
	}
	return w
}

func value(t *testing.T, v *vault.Vault, a vault.Actor, q vault.ClaimQuery) *vault.ClaimAnswer {
	t.Helper()
	ctx := context.Background()
	vw, err := v.Viewer(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := vw.ClaimValue(ctx, q)
	if err != nil {
		t.Fatalf("claim value %+v: %v", q, err)
	}
	return ans
}

func ids(cs []vault.BoundClaim) []ledger.ClaimID {
	var out []ledger.ClaimID
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

var payOwner = vault.ClaimQuery{Subject: "payments", Property: "owner", Scope: "prod"}

func req(value string) vault.ClaimRequest {
	return vault.ClaimRequest{Subject: "payments", Property: "owner", Scope: "prod", Value: value, Source: "tech/payments.md"}
}

// TestVault_ClaimChain: a supersession chain, then a retraction; the history
// shows who superseded what; the claim file is one commit authored by the
// asserting agent (git as the oracle), under .norn/claims/.
func TestVault_ClaimChain(t *testing.T) {
	v := claimVault(t)
	a := assert(t, v, agentA, req("team-a"))
	if ans := value(t, v, agentB, payOwner); ans.Status != ledger.StatusCurrent || ans.Value != "team-a" ||
		len(ans.Claims) != 1 || ans.Claims[0].Source.Revision != v.Revision("tech/payments.md") || !ans.Claims[0].Fresh {
		t.Fatalf("first claim: %+v", ans)
	}
	out := testvault.GitIn(t, v.Dir(), "log", "-1", "--format=%an <%ae>%n%B", "--name-only")
	if !strings.Contains(out, "agent-a <a@x>") || !strings.Contains(out, "Norn-Op: claim") || !strings.Contains(out, string(a.Path)) {
		t.Fatalf("the claim's commit:\n%s", out)
	}
	r := req("team-b")
	r.Supersedes = a.Claim.ID
	b := assert(t, v, agentB, r)
	r = req("team-c")
	r.Supersedes = b.Claim.ID
	c := assert(t, v, agentA, r)
	if ans := value(t, v, agentA, payOwner); ans.Status != ledger.StatusCurrent || ans.Value != "team-c" {
		t.Fatalf("after the chain: %+v", ans)
	}
	// Superseding a superseded claim is refused: supersede the newest.
	r = req("team-d")
	r.Supersedes = a.Claim.ID
	head := v.Head()
	if _, err := v.AssertClaim(context.Background(), agentA, r); !errors.Is(err, repo.ErrInvalid) || !strings.Contains(err.Error(), string(b.Claim.ID)) {
		t.Fatalf("superseding a superseded claim: %v", err)
	}
	if v.Head() != head {
		t.Fatal("a refused claim moved HEAD")
	}
	rt, err := v.RetractClaim(context.Background(), agentB, vault.RetractRequest{ID: c.Claim.ID})
	if err != nil {
		t.Fatal(err)
	}
	if ans := value(t, v, agentA, payOwner); ans.Status != ledger.StatusUnknown || ans.Value != "" || !reflect.DeepEqual(ids(ans.Claims), []ledger.ClaimID{rt.Claim.ID}) {
		t.Fatalf("after the retraction: %+v", ans)
	}
	if _, err := v.RetractClaim(context.Background(), agentB, vault.RetractRequest{ID: c.Claim.ID}); !errors.Is(err, repo.ErrInvalid) {
		t.Fatalf("retracting twice: %v", err)
	}
	vw, _ := v.Viewer(context.Background(), agentA)
	h, err := vw.ClaimHistory(context.Background(), payOwner, "")
	if err != nil {
		t.Fatal(err)
	}
	var chain []string
	for _, l := range h.Claims {
		chain = append(chain, l.AssertedBy.Name+":"+string(l.Kind)+":"+l.Value+"->"+strings.Join(idsOf(l.SupersededBy), ","))
	}
	want := []string{
		"agent-a:assertion:team-a->" + string(b.Claim.ID),
		"agent-b:assertion:team-b->" + string(c.Claim.ID),
		"agent-a:assertion:team-c->" + string(rt.Claim.ID),
		"agent-b:retraction:->",
	}
	if !reflect.DeepEqual(chain, want) {
		t.Fatalf("history:\n%s\nwant\n%s", strings.Join(chain, "\n"), strings.Join(want, "\n"))
	}
	// By id, the same chain; the files are all still at HEAD (nothing deleted).
	if h2, err := vw.ClaimHistory(context.Background(), vault.ClaimQuery{}, a.Claim.ID); err != nil || len(h2.Claims) != 4 {
		t.Fatalf("history by id: %v %+v", err, h2)
	}
	for _, w := range []*vault.ClaimWrite{a, b, c, rt} {
		if v.Revision(w.Path) == "" {
			t.Fatalf("%s is gone", w.Path)
		}
	}
	if out := testvault.GitIn(t, v.Dir(), "fsck", "--strict"); strings.Contains(out, "error") {
		t.Fatal(out)
	}
}

func idsOf(xs []ledger.ClaimID) []string {
	var out []string
	for _, x := range xs {
		out = append(out, string(x))
	}
	return out
}

// TestVault_ClaimStaleSource: an edit of the source makes the claim abstain,
// with both revisions and the diff's size; a claim bound to an older revision
// (--at) is stale at once; re-asserting binds to the new revision.
func TestVault_ClaimStaleSource(t *testing.T) {
	v := claimVault(t)
	old := v.Revision("tech/payments.md")
	a := assert(t, v, agentA, req("team-a"))
	before := v.Head()
	if err := testvault.Write(v, "tech/payments.md", "# Payments\n\nOwned by team B.\nOn call: alice.\nEscalate to bob.\n", "owner"); err != nil {
		t.Fatal(err)
	}
	cur := v.Revision("tech/payments.md")
	ans := value(t, v, agentA, payOwner)
	if ans.Status != ledger.StatusStaleSource || ans.Value != "" || len(ans.Claims) != 1 {
		t.Fatalf("after the edit: %+v", ans)
	}
	got := ans.Claims[0]
	if got.ID != a.Claim.ID || got.Source.Revision != old || got.CurrentRevision != cur || got.Fresh ||
		got.Diff == nil || got.Diff.LinesAdded != 2 || got.Diff.LinesRemoved != 1 {
		t.Fatalf("stale claim: %+v diff %+v", got, got.Diff)
	}
	// Bound to an older revision on purpose: stale at once.
	r := req("team-a")
	r.At = string(old)
	if w := assert(t, v, agentB, r); w.Claim.Source.Revision != old || w.Claim.Fresh {
		t.Fatalf("bound at %s: %+v", old, w.Claim)
	}
	// A commit-ish works too; a revision that never was the note's is not found.
	r.At = string(before)
	if w := assert(t, v, agentB, r); w.Claim.Source.Revision != old {
		t.Fatalf("bound at %s: %+v", before, w.Claim)
	}
	r.At = string(v.Revision("tech/search.md"))
	if _, err := v.AssertClaim(context.Background(), agentB, r); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("a revision of another note: %v", err)
	}
	r = req("team-b")
	r.Supersedes = a.Claim.ID
	assert(t, v, agentA, r)
	// The two claims at the old revision still agree (team-a) and are live: the
	// new claim conflicts with them.
	if ans := value(t, v, agentA, payOwner); ans.Status != ledger.StatusConflict {
		t.Fatalf("after re-asserting: %+v", ans)
	}
}

// TestVault_ClaimConflict: two agents' live claims that disagree abstain, with
// both; claims that agree are current.
func TestVault_ClaimConflict(t *testing.T) {
	v := claimVault(t)
	a := assert(t, v, agentA, req("team-a"))
	b := assert(t, v, agentB, req("team-b"))
	ans := value(t, v, agentA, payOwner)
	if ans.Status != ledger.StatusConflict || ans.Value != "" || !reflect.DeepEqual(ids(ans.Claims), []ledger.ClaimID{a.Claim.ID, b.Claim.ID}) {
		t.Fatalf("conflict: %+v", ans)
	}
	r := req("team-a")
	r.Supersedes = b.Claim.ID
	c := assert(t, v, agentB, r)
	if ans := value(t, v, agentA, payOwner); ans.Status != ledger.StatusCurrent || ans.Value != "team-a" ||
		!reflect.DeepEqual(ids(ans.Claims), []ledger.ClaimID{a.Claim.ID, c.Claim.ID}) {
		t.Fatalf("agreeing claims: %+v", ans)
	}
}

// TestVault_ClaimWindows: a window in the past is expired, one in the future
// not yet valid, each current at a time inside it.
func TestVault_ClaimWindows(t *testing.T) {
	v := claimVault(t)
	now := time.Now()
	r := req("team-a")
	r.Subject, r.ValidTo = "old", now.Add(-time.Hour)
	assert(t, v, agentA, r)
	r = req("team-b")
	r.Subject, r.ValidFrom = "new", now.Add(time.Hour)
	assert(t, v, agentA, r)
	for _, tc := range []struct {
		subject string
		at      time.Time
		want    ledger.Status
	}{
		{"old", time.Time{}, ledger.StatusExpired},
		{"old", now.Add(-2 * time.Hour), ledger.StatusCurrent},
		{"new", time.Time{}, ledger.StatusNotYetValid},
		{"new", now.Add(2 * time.Hour), ledger.StatusCurrent},
	} {
		q := payOwner
		q.Subject, q.At = tc.subject, tc.at
		if ans := value(t, v, agentB, q); ans.Status != tc.want {
			t.Errorf("%s at %v: %s, want %s", tc.subject, tc.at, ans.Status, tc.want)
		}
	}
	r.ValidTo = r.ValidFrom.Add(-time.Minute)
	if _, err := v.AssertClaim(context.Background(), agentA, r); !errors.Is(err, ledger.ErrInvalidClaim) || !strings.Contains(err.Error(), ledger.RuleWindow) {
		t.Fatalf("an empty window: %v", err)
	}
}

// TestVault_ClaimBadInput: every refusal is classified, names what to fix, and
// writes nothing (HEAD, the claims tables and the index unchanged).
func TestVault_ClaimBadInput(t *testing.T) {
	v := claimVault(t)
	ctx := context.Background()
	a := assert(t, v, agentA, req("team-a"))
	other := req("x")
	other.Subject = "search"
	cases := []struct {
		name string
		r    vault.ClaimRequest
		code errcode.Code
		msg  string
	}{
		{"no subject", vault.ClaimRequest{Property: "p", Scope: "s", Value: "v", Source: "tech/payments.md"}, errcode.InvalidInput, "subject"},
		{"no value", func() vault.ClaimRequest { r := req(""); return r }(), errcode.InvalidInput, "value"},
		{"long value", req(strings.Repeat("v", ledger.MaxValueBytes+1)), errcode.InvalidInput, ledger.RuleTooLong},
		{"control char", func() vault.ClaimRequest { r := req("v"); r.Scope = "a\nb"; return r }(), errcode.InvalidInput, ledger.RuleText},
		{"source missing", func() vault.ClaimRequest { r := req("v"); r.Source = "nope.md"; return r }(), errcode.NotFound, "nope.md"},
		{"source not a note", func() vault.ClaimRequest { r := req("v"); r.Source = ".norn/config.yaml"; return r }(), errcode.InvalidInput, "not a note"},
		{"source unsafe", func() vault.ClaimRequest { r := req("v"); r.Source = "../x.md"; return r }(), errcode.InvalidInput, "not a note"},
		{"private source", func() vault.ClaimRequest { r := req("v"); r.Source = "personal-notes/diary.md"; return r }(), errcode.NotFound, "does not exist"},
		{"bad at", func() vault.ClaimRequest { r := req("v"); r.At = "nonsense~~"; return r }(), errcode.NotFound, "no revision"},
		{"supersedes unknown", func() vault.ClaimRequest { r := req("v"); r.Supersedes = "aaaaaaaaaaaaaaaaaaaaaaaaaa"; return r }(), errcode.NotFound, "no claim"},
		{"supersedes across subjects", func() vault.ClaimRequest { r := other; r.Supersedes = a.Claim.ID; return r }(), errcode.InvalidInput, "claim-supersedes-key"},
	}
	head := v.Head()
	rows := claimTables(t, v)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.AssertClaim(ctx, agentA, tc.r)
			if err == nil || errcode.Classify(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err %v (%s), want %s mentioning %q", err, errcode.Classify(err), tc.code, tc.msg)
			}
		})
	}
	if _, err := v.RetractClaim(ctx, agentA, vault.RetractRequest{ID: "aaaaaaaaaaaaaaaaaaaaaaaaaa"}); errcode.Classify(err) != errcode.NotFound {
		t.Fatalf("retract unknown: %v", err)
	}
	vw, _ := v.Viewer(ctx, agentA)
	if _, err := vw.ClaimValue(ctx, vault.ClaimQuery{Subject: "payments"}); errcode.Classify(err) != errcode.InvalidInput {
		t.Fatalf("value without property: %v", err)
	}
	if v.Head() != head || !reflect.DeepEqual(claimTables(t, v), rows) {
		t.Fatal("a refused claim wrote something")
	}
	if out := testvault.GitIn(t, v.Dir(), "status", "--porcelain"); out != "" {
		t.Fatalf("working tree: %s", out)
	}
}

// TestVault_ClaimGates: the gates keep .norn/claims/ a ledger: a file there
// must be a valid claim at its id's path, and is never changed or removed.
func TestVault_ClaimGates(t *testing.T) {
	v := claimVault(t)
	ctx := context.Background()
	a := assert(t, v, agentA, req("team-a"))
	apply := func(c repo.Change) error {
		tx := repo.Tx{Author: testvault.Owner, Roles: []string{"owner"}, Op: repo.OpWrite, Changes: []repo.Change{c}}
		if c.Kind == repo.Archive {
			tx.Op, tx.Reason = repo.OpArchive, repo.ReasonRetracted
		}
		_, err := v.Apply(ctx, tx)
		return err
	}
	head := v.Head()
	for name, c := range map[string]repo.Change{
		"garbage":  {Kind: repo.Put, Path: ".norn/claims/aa/aaaaaaaaaaaaaaaaaaaaaaaaaa.yaml", Content: []byte("id: [\n")},
		"wrong id": {Kind: repo.Put, Path: ".norn/claims/bb/bbbbbbbbbbbbbbbbbbbbbbbbbb.yaml", Content: []byte(testvault.HeadBytes(t, v, string(a.Path)))},
		"change":   {Kind: repo.Put, Path: a.Path, Content: []byte(strings.Replace(testvault.HeadBytes(t, v, string(a.Path)), "team-a", "team-x", 1)), ExpectedRevision: v.Revision(a.Path)},
		"archive":  {Kind: repo.Archive, Path: a.Path},
	} {
		err := apply(c)
		if !errors.Is(err, repo.ErrRejected) || !strings.Contains(err.Error(), "claim-") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if v.Head() != head {
		t.Fatal("a rejected change moved HEAD")
	}
}

// TestVault_ClaimPrivacy: a reader without the private scope learns nothing of
// a claim whose source is private — not its value, not its history, not a
// count — and cannot supersede or retract it; the owner sees it all.
func TestVault_ClaimPrivacy(t *testing.T) {
	v := claimVault(t)
	ctx := context.Background()
	r := req("team-z")
	r.Source = "personal-notes/diary.md"
	if _, err := v.AssertClaim(ctx, agentA, r); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("an agent bound a claim to a private note: %v", err)
	}
	secret := assert(t, v, owner, r)
	if ans := value(t, v, owner, payOwner); ans.Status != ledger.StatusCurrent || ans.Value != "team-z" {
		t.Fatalf("owner: %+v", ans)
	}
	if ans := value(t, v, agentA, payOwner); ans.Status != ledger.StatusUnknown || len(ans.Claims) != 0 {
		t.Fatalf("agent sees the private claim: %+v", ans)
	}
	vw, _ := v.Viewer(ctx, agentA)
	if h, err := vw.ClaimHistory(ctx, payOwner, ""); err != nil || len(h.Claims) != 0 {
		t.Fatalf("agent history: %v %+v", err, h)
	}
	if _, err := vw.ClaimHistory(ctx, vault.ClaimQuery{}, secret.Claim.ID); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("agent history by id: %v", err)
	}
	if cs, n, err := vw.NoteClaims(ctx, "personal-notes/diary.md", 10); err != nil || n != 0 || len(cs) != 0 {
		t.Fatalf("agent note claims: %v %d", err, n)
	}
	// The record is private as its source is: its commit (whose subject names
	// the value) is not in the agent's history.
	if !strings.Contains(testvault.HeadBytes(t, v, string(secret.Path)), "\nprivate: true\n") {
		t.Fatalf("the record of a claim on a private note is not marked private:\n%s", testvault.HeadBytes(t, v, string(secret.Path)))
	}
	log, _, err := vw.VisibleLog(ctx, "", 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, ci := range log {
		if strings.Contains(ci.Subject, "team-z") || slices.Contains(ci.Paths, secret.Path) {
			t.Fatalf("the agent's history shows the private claim: %+v", ci)
		}
	}
	if v.PublicAt(ctx, secret.Path, v.Revision(secret.Path)) {
		t.Fatal("the feed's rule calls the private claim public")
	}
	if _, err := v.RetractClaim(ctx, agentA, vault.RetractRequest{ID: secret.Claim.ID}); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("agent retracts a hidden claim: %v", err)
	}
	// A public claim superseding the hidden one does not reveal it.
	pub := assert(t, v, agentA, req("team-a"))
	r = req("team-b")
	r.Supersedes = secret.Claim.ID
	if _, err := v.AssertClaim(ctx, agentA, r); !errors.Is(err, repo.ErrNotFound) {
		t.Fatalf("agent supersedes a hidden claim: %v", err)
	}
	if ans := value(t, v, agentA, payOwner); ans.Status != ledger.StatusCurrent || !reflect.DeepEqual(ids(ans.Claims), []ledger.ClaimID{pub.Claim.ID}) {
		t.Fatalf("agent with a public claim: %+v", ans)
	}
	if ans := value(t, v, owner, payOwner); ans.Status != ledger.StatusConflict || len(ans.Claims) != 2 {
		t.Fatalf("owner sees both: %+v", ans)
	}
	// Owner-side: the claims bound to the diary are listed for the owner alone.
	ow, _ := v.Viewer(ctx, owner)
	if cs, n, err := ow.NoteClaims(ctx, "personal-notes/diary.md", 10); err != nil || n != 1 || cs[0].ID != secret.Claim.ID || !cs[0].Fresh {
		t.Fatalf("owner note claims: %v %d %+v", err, n, cs)
	}
}

// TestVault_ClaimsRebuildEqualsIncremental: the claims tables caught up commit
// by commit equal a rebuild's, and a second process without the index (which
// scans the claim files at HEAD) gives the same answers. The claim files are
// never search hits.
func TestVault_ClaimsRebuildEqualsIncremental(t *testing.T) {
	v := claimVault(t)
	ctx := context.Background()
	a := assert(t, v, agentA, req("team-a"))
	r := req("team-b")
	r.Supersedes = a.Claim.ID
	b := assert(t, v, agentB, r)
	assert(t, v, agentA, vault.ClaimRequest{Subject: "search", Property: "owner", Scope: "prod", Value: "team-s", Source: "tech/search.md"})
	if _, err := v.RetractClaim(ctx, agentA, vault.RetractRequest{ID: b.Claim.ID}); err != nil {
		t.Fatal(err)
	}
	assert(t, v, owner, vault.ClaimRequest{Subject: "diary", Property: "mood", Scope: "me", Value: "ok", Source: "personal-notes/diary.md"})
	inc := claimTables(t, v)
	// The claim files are records, not attachments (nothing under .norn/ is a
	// document): no link resolves to one.
	if v.Index.IndexResolves(b.Path) || !v.Index.IndexResolves("tech/search.md") {
		t.Fatalf("incremental index: a claim file resolves as an attachment, or the notes do not")
	}
	if len(inc["claims.id"]) != 5 || len(inc["claims.source"]) != 4 {
		t.Fatalf("incremental tables: %d ids, %d sources", len(inc["claims.id"]), len(inc["claims.source"]))
	}
	if err := v.Index.Rebuild(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if reb := claimTables(t, v); !reflect.DeepEqual(reb, inc) {
		t.Fatalf("rebuild differs:\n%v\n%v", reb, inc)
	}
	if v.Index.IndexResolves(b.Path) || !v.Index.IndexResolves("tech/search.md") {
		t.Fatalf("rebuilt index: a claim file resolves as an attachment")
	}
	want := value(t, v, owner, vault.ClaimQuery{Subject: "search", Property: "owner", Scope: "prod"})
	other := testvault.WithoutIndex(t, v)
	if got := value(t, other, owner, vault.ClaimQuery{Subject: "search", Property: "owner", Scope: "prod"}); !reflect.DeepEqual(got.Claims, want.Claims) || got.Status != want.Status {
		t.Fatalf("without the index: %+v, want %+v", got, want)
	}
	res, err := v.Search(ctx, vault.SearchRequest{Query: "team", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if strings.HasPrefix(string(h.Path), ".norn/") {
			t.Fatalf("a claim file is a search hit: %s", h.Path)
		}
	}
	if _, p := v.Index.Status(); p != "" {
		t.Fatal(p)
	}
}

// claimTables reads the claims tables from v's index.
func claimTables(t *testing.T, v *vault.Vault) map[string][]string {
	t.Helper()
	if err := v.Index.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, table := range vault.ClaimTables {
		rows, err := v.Index.IndexRows(context.Background(), table)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out[table] = append(out[table], string(r.Key)+"="+string(r.Value))
		}
	}
	return out
}

// TestVault_NoteClaims: the live claims read from a note, each fresh or not.
func TestVault_NoteClaims(t *testing.T) {
	v := claimVault(t)
	ctx := context.Background()
	a := assert(t, v, agentA, req("team-a"))
	r := req("team-b")
	r.Supersedes = a.Claim.ID
	b := assert(t, v, agentA, r)
	r = req("alice")
	r.Property = "on-call"
	oc := assert(t, v, agentA, r)
	vw, _ := v.Viewer(ctx, agentB)
	cs, n, err := vw.NoteClaims(ctx, note.Path("tech/payments.md"), 10)
	if err != nil || n != 2 || len(cs) != 2 {
		t.Fatalf("note claims: %v %d %+v", err, n, cs)
	}
	got := map[ledger.ClaimID]bool{cs[0].ID: cs[0].Fresh, cs[1].ID: cs[1].Fresh}
	if !reflect.DeepEqual(got, map[ledger.ClaimID]bool{b.Claim.ID: true, oc.Claim.ID: true}) {
		t.Fatalf("note claims %v", got)
	}
	if err := testvault.Write(v, "tech/payments.md", "# Payments\n\nOwned by nobody.\n", "owner"); err != nil {
		t.Fatal(err)
	}
	cs, _, _ = vw.NoteClaims(ctx, "tech/payments.md", 1)
	if len(cs) != 1 || cs[0].Fresh {
		t.Fatalf("after an edit: %+v", cs)
	}
}
