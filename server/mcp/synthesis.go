package mcp

import (
	"context"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/vault"
)

// addSynthesisTools registers register_synthesis and synthesis_status
// (docs/ledger.md, "Synthesis freshness").
func (t *mcpTools) addSynthesisTools() {
	addTool(t, toolDef{name: "register_synthesis", title: "Register a summary's sources", scope: auth.ScopeWrite, destructive: true, idempotent: true,
		desc: "Record the notes a summary note was written from (1 to 32 sources), each at its current revision, so " +
			"synthesis_status can later say whether any has changed since. A source may itself be a registered summary. " +
			"One commit authored by you (Norn-Op: claim) writing .norn/synthesis/<summary>.yaml; registering again " +
			"replaces the sources (history keeps the old). Call it right after writing or updating the summary. Returns " +
			"the sources with their revisions and the commit (unchanged=true when nothing changed)."},
		t.registerSynthesis)
	addTool(t, toolDef{name: "synthesis_status", title: "Is a summary still current?", scope: auth.ScopeRead, readOnly: true, idempotent: true,
		desc: "Whether a summary note is still faithful to the sources it was registered with, checked transitively " +
			"(sources that are registered summaries are walked too; cycles end). status: current (nothing drifted), " +
			"stale (drifted lists each changed, moved or archived source with its old and new revision and via, the " +
			"summaries it was reached through), incomplete (the budget ran out first: never current) or unregistered. " +
			"The budget (checks, bytes, deadline) is stated with what was used. Re-read the drifted sources, update the " +
			"summary, then register_synthesis again."},
		t.synthesisStatus)
}

// RegisterSynthesisArgs are register_synthesis's arguments.
type RegisterSynthesisArgs struct {
	Summary string   `json:"summary" jsonschema:"the summary note's path (tech/overview.md)"`
	Sources []string `json:"sources" jsonschema:"the paths of the notes it summarises (1 to 32; not the summary itself)"`
	WaitArg
}

// SynthesisRegistered is register_synthesis's answer: the registration, and
// where its commit stands against the remote (as every write tool's remote).
type SynthesisRegistered struct {
	vault.SynthesisRegistered
	Remote *vault.WriteRemote `json:"remote,omitempty"`
}

func (r *SynthesisRegistered) remoteSlot() (repo.CommitID, **vault.WriteRemote) {
	return r.Commit, &r.Remote
}

func (t *mcpTools) registerSynthesis(ctx context.Context, c *caller, in RegisterSynthesisArgs) (*SynthesisRegistered, error) {
	sources := make([]note.Path, len(in.Sources))
	for i, s := range in.Sources {
		sources[i] = note.Path(s)
	}
	r, err := c.RegisterSynthesis(ctx, vault.SynthesisRequest{Summary: note.Path(in.Summary), Sources: sources,
		Author: c.p.Author(), Roles: c.p.Roles()})
	if err != nil {
		return nil, err
	}
	return &SynthesisRegistered{SynthesisRegistered: *r}, nil
}

// SynthesisStatusArgs are synthesis_status's arguments.
type SynthesisStatusArgs struct {
	Summary string `json:"summary" jsonschema:"the summary note's path"`
}

// SynthesisStatusResult is synthesis_status's answer: the status and the budget
// its walk drew on.
type SynthesisStatusResult struct {
	Summary note.Path              `json:"summary"`
	Status  string                 `json:"status" jsonschema:"current, stale, incomplete or unregistered"`
	Scope   string                 `json:"scope" jsonschema:"all, or visible: judged on the sources you may see (always so without the private scope)"`
	Drifted []vault.SynthesisDrift `json:"drifted"`
	Checked int                    `json:"checked"`
	// Complete: every source at every depth was checked.
	Complete bool                   `json:"complete"`
	Depth    int                    `json:"depth"`
	Budget   *vault.SynthesisBudget `json:"budget"`
}

func (t *mcpTools) synthesisStatus(ctx context.Context, c *caller, in SynthesisStatusArgs) (*SynthesisStatusResult, error) {
	if in.Summary == "" {
		return nil, errInput("summary is required: a note's path")
	}
	b := c.SynthesisBudget()
	st, err := c.SynthesisStatus(ctx, note.Path(in.Summary), b)
	if err != nil {
		return nil, err
	}
	return &SynthesisStatusResult{Summary: st.Summary, Status: st.Status, Scope: st.Scope, Drifted: st.Drifted,
		Checked: st.Checked, Complete: st.Complete, Depth: st.Depth, Budget: b}, nil
}

// freshness is the synthesis status of p when it is a registered summary (nil
// otherwise, or when it cannot be judged), under b: read_note and search hits
// carry it. An error (a registration that does not decode) is logged and the
// note answered without it.
func (t *mcpTools) freshness(ctx context.Context, c *caller, p note.Path, b *vault.SynthesisBudget) *vault.SynthesisStatus {
	st, err := c.SynthesisFreshness(ctx, p, b)
	if err != nil {
		t.log.Debug("synthesis freshness", "err", err)
		return nil
	}
	return st
}
