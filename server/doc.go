// Package server wires Norn's parts together: the vault (repo) with the write gates
// (hooks) under the vault's settings (config), and, as they land, the MCP tools, the
// HTTP mux, authentication and the bridge that feeds the index (graph) from commits.
//
// It owns no data: everything it serves comes from repo and graph.
package server
