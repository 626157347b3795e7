// Package auth is who may use a served vault: bearer tokens kept under the
// vault's git directory (Tokens), the principal a request runs as (Principal, its
// Scopes) and how a request's context carries it (WithPrincipal, PrincipalFrom).
// A principal becomes a vault.Actor (Principal.Actor) when it asks the vault for
// something.
//
// It never serves requests nor renders errors: the transports in server and the
// tools in server/mcp do.
package auth
