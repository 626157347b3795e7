// Package repo owns the vault: a git repository of Markdown notes in which every
// mutation is exactly one commit. It reads notes at any revision, writes changes as
// commits built directly from objects (no worktree scan), makes them durable before
// acknowledging, keeps the working tree and git's index in step with HEAD, and detects
// edits a person makes in the working tree.
//
// It must never rewrite history, never delete a note's bytes from history, and never
// let go-git types escape its API. It imports only package note.
package repo
