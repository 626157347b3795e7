package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/norn-vault/norn/config"
	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/remote"
)

func runRemote(ctx context.Context, e *env, g *globals, args []string) error {
	fs := newFlags("remote", g)
	knownHosts := fs.String("known-hosts", "", "with trust: the known_hosts file to add the key to (default: the remote's known_hosts in machine.yaml, else ~/.ssh/known_hosts)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("missing subcommand: add, list, remove, check or trust")
	}
	sub, pos := pos[0], pos[1:]
	want := map[string][2]int{"add": {2, 2}, "list": {0, 0}, "remove": {1, 1}, "check": {1, 1}, "trust": {1, 2}}
	n, ok := want[sub]
	if !ok {
		return usagef("unknown subcommand %q: add, list, remove, check or trust", sub)
	}
	if err := wantArgs(pos, n[0], n[1]); err != nil {
		return err
	}
	if *knownHosts != "" && (sub != "trust" || !filepath.IsAbs(*knownHosts)) {
		return usagef("--known-hosts goes with trust and takes an absolute path")
	}
	v, _, err := openVault(ctx, e, g)
	if err != nil {
		return err
	}
	gitDir, local := v.GitDir(), v.Head()
	v.Close() // only the git directory and HEAD were needed
	m, err := loadMachine(e, gitDir)
	if err != nil {
		return err
	}
	rs, err := remote.Open(gitDir, remote.Options{Logger: logger(e, g), Credentials: remoteCredentials(e, m)})
	if err != nil {
		return err
	}
	switch sub {
	case "add":
		return remoteAdd(e, g, rs, pos[0], pos[1])
	case "remove":
		if err := rs.Remove(pos[0]); err != nil {
			return err
		}
		if g.json {
			return printJSON(e, map[string]any{"name": pos[0], "removed": true})
		}
		fmt.Fprintf(e.stdout, "removed remote %s (the remote itself is untouched)\n", pos[0])
		return nil
	case "check":
		return remoteCheck(ctx, e, g, rs, pos[0], local)
	case "trust":
		return remoteTrust(ctx, e, g, rs, m, pos, *knownHosts)
	}
	return remoteList(e, g, rs)
}

func remoteAdd(e *env, g *globals, rs *remote.Remotes, name, url string) error {
	url = absLocalURL(url)
	if err := rs.Add(name, url); err != nil {
		return err
	}
	if g.json {
		return printJSON(e, map[string]any{"name": name, "url": url})
	}
	fmt.Fprintf(e.stdout, "added remote %s %s\n", name, url)
	return nil
}

// absLocalURL makes a relative local path absolute here, where the current folder
// means something; the library takes absolute paths only. Anything else is
// returned as it is, for remote.ParseURL to judge.
func absLocalURL(url string) string {
	if _, err := remote.ParseURL(url); err != nil && url != "" && !strings.Contains(url, ":") {
		if abs, aerr := filepath.Abs(url); aerr == nil {
			return abs
		}
	}
	return url
}

func remoteList(e *env, g *globals, rs *remote.Remotes) error {
	list, err := rs.List()
	if err != nil {
		return err
	}
	if g.json {
		if list == nil {
			list = []remote.Remote{}
		}
		return printJSON(e, map[string]any{"remotes": list})
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no remotes (add one with: norn remote add NAME URL)")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tURL")
	for _, r := range list {
		kind := string(r.Kind)
		if kind == "" {
			kind = "unusable"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, kind, r.URL)
	}
	return tw.Flush()
}

// remoteCheck fetches the remote's branch (only refs/remotes/NAME/* move) and says
// how the vault's HEAD stands against it.
func remoteCheck(ctx context.Context, e *env, g *globals, rs *remote.Remotes, name string, local repo.CommitID) error {
	var progress remote.Progress
	if !g.json {
		progress = func(line string) { fmt.Fprintf(e.stderr, "%s: %s\n", name, line) }
	}
	tip, err := rs.Check(ctx, name, time.Now(), progress)
	if err != nil {
		return err
	}
	ahead, behind, err := rs.AheadBehind(ctx, local, tip)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, map[string]any{"name": name, "remote_tip": tip, "head": local, "ahead": ahead, "behind": behind})
	}
	if tip == "" {
		fmt.Fprintf(e.stdout, "%s: reachable, empty (the first sync pushes %s)\n", name, plural(ahead, "commit"))
		return nil
	}
	fmt.Fprintf(e.stdout, "%s: reachable, at %s; this vault is %d ahead, %d behind\n", name, tip.Short(), ahead, behind)
	return nil
}

// remoteTrust shows an SSH remote's host key, or with a fingerprint adds it to
// known_hosts.
func remoteTrust(ctx context.Context, e *env, g *globals, rs *remote.Remotes, m config.Machine, pos []string, file string) error {
	name := pos[0]
	if len(pos) == 1 {
		hk, err := rs.HostKey(ctx, name)
		if err != nil {
			return err
		}
		if g.json {
			return printJSON(e, map[string]any{"host": hk.Host, "fingerprint": hk.Fingerprint, "line": hk.Line})
		}
		fmt.Fprintf(e.stdout, "%s offers the host key %s\n", hk.Host, hk.Fingerprint)
		fmt.Fprintf(e.stdout, "check it with whoever runs the server (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub there), then run:\n")
		fmt.Fprintf(e.stdout, "  norn remote trust %s %s\n", name, hk.Fingerprint)
		return nil
	}
	if file == "" {
		if kh := knownHostsFiles(e, m.Remotes[name]); len(kh) > 0 {
			file = kh[0]
		} else {
			return usagef("no known_hosts file: set remotes.%s.known_hosts in machine.yaml, or pass --known-hosts FILE", name)
		}
	}
	line, err := rs.Trust(ctx, name, pos[1], file)
	if err != nil {
		return err
	}
	if g.json {
		return printJSON(e, map[string]any{"file": file, "line": line})
	}
	fmt.Fprintf(e.stdout, "trusted: %s\n  in %s\n", line, file)
	return nil
}

// remoteTokenEnv names the environment variable that gives a remote's token
// (NORN_REMOTE_<NAME>_TOKEN, the name upper-cased, '.' and '-' as '_').
func remoteTokenEnv(name string) string {
	up := strings.Map(func(r rune) rune {
		if r == '.' || r == '-' {
			return '_'
		}
		return r
	}, strings.ToUpper(name))
	return "NORN_REMOTE_" + up + "_TOKEN"
}

// remoteCredentials resolves each remote's credentials: machine.yaml's
// remotes.NAME, the variables it names (token_env, password_env), then
// NORN_REMOTE_<NAME>_TOKEN over them; SSH adds $SSH_AUTH_SOCK's agent and
// known_hosts (the remote's, else ~/.ssh/known_hosts). Only here are the
// environment and the files read.
func remoteCredentials(e *env, m config.Machine) func(string) remote.Credentials {
	return func(name string) remote.Credentials {
		mr := m.Remotes[name]
		c := remote.Credentials{Username: mr.Username, Token: mr.Token, Password: mr.Password, SSHKey: mr.SSHKey}
		if mr.TokenEnv != "" {
			c.Token = config.Secret(e.getenv(mr.TokenEnv))
		}
		if mr.PasswordEnv != "" {
			c.Password = config.Secret(e.getenv(mr.PasswordEnv))
		}
		if tok := e.getenv(remoteTokenEnv(name)); tok != "" {
			c.Token = config.Secret(tok)
		}
		c.SSHAgent = e.getenv("SSH_AUTH_SOCK")
		c.KnownHosts = knownHostsFiles(e, mr)
		if c.SSHKey == "" && c.SSHAgent == "" {
			c.SSHKey = defaultSSHKey(e)
		}
		return c
	}
}

// knownHostsFiles is the remote's known_hosts, else ~/.ssh/known_hosts.
func knownHostsFiles(e *env, mr config.Remote) []string {
	if mr.KnownHosts != "" {
		return []string{mr.KnownHosts}
	}
	if home := e.getenv("HOME"); home != "" && filepath.IsAbs(home) {
		return []string{filepath.Join(home, ".ssh", "known_hosts")}
	}
	return nil
}

// defaultSSHKey is the first of ~/.ssh/id_ed25519, id_ecdsa and id_rsa present,
// as ssh tries them.
func defaultSSHKey(e *env) string {
	home := e.getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return ""
	}
	for _, n := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		p := filepath.Join(home, ".ssh", n)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
