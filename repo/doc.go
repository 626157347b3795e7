// Package repo owns the vault: a git repository of Markdown notes in which every
// mutation is exactly one commit. It reads notes at any revision, writes changes as
// commits built directly from objects (no worktree scan), makes them durable before
// acknowledging, keeps the working tree and git's index in step with HEAD, detects
// edits a person makes in the working tree, and tells observers about every commit
// on the branch (Event, with its changes) from a goroutine of its own.
//
// It must never rewrite history, never delete a note's bytes from history, and never
// let go-git types escape its API. It imports only package note.
package repo
