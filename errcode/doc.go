// Package errcode owns Norn's one error vocabulary: the codes every surface (the
// CLI, the MCP tools, the local endpoint) reports, each with its class
// (retryable, fix_input, fatal), its CLI exit code and a default hint, and
// Classify, the one function that turns an error into its code.
//
// It classifies the parts' sentinels (repo, graph, hooks, note, config) with
// errors.Is and errors.As only, never by message. It renders nothing: each surface
// renders a Code its own way. It must never import a surface (server, cmd/norn).
package errcode
