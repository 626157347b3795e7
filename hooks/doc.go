// Package hooks holds Norn's write gates: checks that see a proposed change and either
// pass it or reject it with every rule it broke (rule id, path, line, message).
//
// Gates are pure functions of the proposal and the vault settings; they never write.
// Package repo calls them through the Gate func in its Options; the caller wires them.
package hooks
