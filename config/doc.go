// Package config parses a vault's settings file, .norn/config.yaml, into typed
// settings with defaults: the write gates, privacy folders, the inbox, typed edges,
// search ranking, the reranker's threshold and git housekeeping (docs/config.md lists
// every key). It also parses one machine's settings, .git/norn/machine.yaml
// (ParseMachine): the reranker's endpoint and key, remotes' credentials and serve
// options, which are never committed; a committed file naming one of them is in
// force without it (Config.Ignored says which).
//
// It is pure: callers hand it the file's bytes; it never reads files or the
// environment. Parsing is strict — unknown keys, wrong types, out-of-range values,
// repeated keys and YAML aliases are errors naming the key and line — so a typo in a
// synced settings file never silently does nothing. Secrets never appear in its
// errors or in the String of its types.
package config
