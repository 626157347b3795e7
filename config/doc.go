// Package config parses a vault's settings file, .norn/config.yaml, into typed
// settings with defaults: the write gates, privacy folders, the inbox, typed edges,
// search ranking, the reranker and git housekeeping (docs/config.md lists every key).
//
// It is pure: callers hand it the file's bytes; it never reads files or the
// environment. Parsing is strict — unknown keys, wrong types, out-of-range values,
// repeated keys and YAML aliases are errors naming the key and line — so a typo in a
// synced settings file never silently does nothing.
package config
