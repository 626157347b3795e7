package auth

import (
	"context"
	"slices"

	"github.com/norn-vault/norn/hooks"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// Scope is one thing a token allows.
type Scope string

// The scopes a token may hold.
const (
	// ScopeRead reads notes that are not private, searches and queries the graph.
	ScopeRead Scope = "read"
	// ScopeWrite creates, edits, moves, links, archives and restores notes.
	ScopeWrite Scope = "write"
	// ScopePrivate reads and writes private notes.
	ScopePrivate Scope = "private"
	// ScopeMaintenance may change protected blocks.
	ScopeMaintenance Scope = "maintenance"
	// ScopeAdmin may change the vault's settings under .norn/.
	ScopeAdmin Scope = "admin"
)

// AllScopes lists every scope, in the order help texts show them.
var AllScopes = []Scope{ScopeRead, ScopeWrite, ScopePrivate, ScopeMaintenance, ScopeAdmin}

// ValidScope reports whether s is one of AllScopes.
func ValidScope(s Scope) bool { return slices.Contains(AllScopes, s) }

// Principal is who is calling: a token's holder, or the vault's owner on stdio. Its
// name is the commit author of every write it makes.
type Principal struct {
	Name   string
	Email  string
	Scopes []Scope
	// Owner is the vault's person (stdio without --agent, the CLI): the gates see
	// the owner role instead of the agent role. Scopes still say what it may do.
	Owner bool
}

// Can reports whether the principal holds scope s.
func (p Principal) Can(s Scope) bool {
	return slices.Contains(p.Scopes, s)
}

// Author is the commit author of the principal's writes. A principal without an
// email writes as NAME@norn.invalid.
func (p Principal) Author() repo.Author {
	email := p.Email
	if email == "" {
		email = p.Name + "@norn.invalid"
	}
	return repo.Author{Name: p.Name, Email: email}
}

// Roles are the gate roles the principal writes with: the owner role for the owner,
// the agent role otherwise, plus private, maintenance and admin from its scopes.
func (p Principal) Roles() []string {
	roles := []string{hooks.RoleAgent}
	if p.Owner {
		roles = []string{hooks.RoleOwner}
	}
	for _, s := range []struct {
		scope Scope
		role  string
	}{{ScopePrivate, hooks.RolePrivate}, {ScopeMaintenance, hooks.RoleMaintenance}, {ScopeAdmin, hooks.RoleAdmin}} {
		if p.Can(s.scope) {
			roles = append(roles, s.role)
		}
	}
	return roles
}

// Actor is the principal as the vault layer takes it: its author, its roles, and
// whether it may see private notes (the private scope).
func (p Principal) Actor() vault.Actor {
	return vault.Actor{Author: p.Author(), Roles: p.Roles(), Private: p.Can(ScopePrivate)}
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal ctx carries, if any.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
