// Package remote is the transport layer of sync: a vault's git remotes (stored as
// ordinary remotes in .git/config, so `git remote -v` agrees), the credentials used
// to reach them, and the operations the sync engine builds on — fetch a remote's
// branch tip, push a commit only over the remote tip the caller expects, and count
// how far two commits are apart.
//
// It speaks to local paths and file:// (through the git-upload-pack and
// git-receive-pack binaries), HTTP(S) with a token or a user and password, and SSH
// with an agent or a key file, checking host keys against known_hosts and refusing
// an unknown or changed key (fail closed).
//
// It must never read the environment or the committed .norn/config.yaml (cmd/norn
// hands it Credentials), never put a secret in an error, a log line or a stored URL,
// never move the vault's branch itself (only refs/remotes/NAME/*; Sync moves the
// branch through repo.Vault.Advance and Merge, the vault's one committer), and
// never let go-git types escape its API. It imports only note, repo and config.
// go-git sees the git directory only through gitFS, which makes go-git's writes
// whole and hides what a killed process leaves half-done, so that a fetch never
// leaves the tracking ref naming a commit the vault lacks.
//
// Sync is the engine on top: fetch, then fast-forward, push, or merge (PlanMerge,
// the three-way merge of two trees, note by note with note.Merge3, theirs kept in
// conflict siblings) and push, again while the remote moves; Status reports it.
package remote
