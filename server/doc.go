// Package server serves a vault to the outside: the streamable HTTP handler with
// bearer-token authentication, origin and host checks and per-principal limits
// (HTTPHandler), which mounts the MCP server of server/mcp at MCPPath, and the
// local endpoint on a Unix socket under the vault's git directory through which
// one-shot CLI commands ask a running `norn serve` (StartLocal, AskLocal,
// NotifyCommitted).
//
// It owns transports only: the tools are server/mcp's, tokens and principals
// server/auth's, and every domain operation the vault package's. Nothing below it
// imports it.
package server
