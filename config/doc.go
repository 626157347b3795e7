// Package config parses a vault's settings file, .norn/config.yaml, into typed
// settings with defaults. It is pure: callers hand it the file's bytes; it never reads
// files or the environment.
package config
