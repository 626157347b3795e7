// Package mcp is Norn's MCP surface: the tools (docs/mcp-tools.md) and the note
// resources with their subscriptions, built on a vault.Vault (NewMCPServer), and
// the stdio transport (ServeStdio). It owns what is MCP and nothing more: tool
// schemas, strict argument decoding, rendering errors as {class, code, message}
// (ToolErrorFrom), the JSON-RPC envelope checks both transports share
// (InvalidRequest), and which caller a request runs as (auth.PrincipalFrom).
//
// Every domain decision — what a write changes, which notes a caller may see
// (vault.Viewer), how a name resolves — is the vault layer's; a tool decodes its
// arguments, asks the vault, and shapes the answer. It never imports server (the
// HTTP transport mounts it, not the other way round).
package mcp
