// Package hooks holds Norn's write gates: checks that see a proposed change and either
// pass it or reject it with every rule it broke (rule id, path, line, message).
//
// The rules cover path safety (no escapes from the vault, nothing in .git), the size
// limit, the note codec's refusals, the profile's format rules (default or strict),
// typed edges, protected blocks and private notes; docs/gates.md lists each rule id
// and its fix. A content rule judges what a change introduces or touches, never
// what the note already had (baseline.go); Lint, for `norn doctor`, judges a note
// whole.
//
// Gates are pure functions of the proposal and the vault settings; they never write
// and never read the repository themselves (the caller supplies the bytes and a
// symlink test). Package repo calls them through the Gate func in its Options; the
// caller wires them.
package hooks
