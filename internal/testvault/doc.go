// Package testvault holds helpers that the tests of several packages share
// (vault, server/mcp, server). It is imported only by tests.
package testvault
