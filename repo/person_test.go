package repo_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/norn-vault/norn/note"
	"github.com/norn-vault/norn/repo"
)

// person runs a person's git commands in a vault and counts those that failed on
// .git/index.lock (Norn's: the person runs one command at a time).
type person struct {
	t              *testing.T
	dir            string
	cmds, lockFail int
	failures       []string
	// other: failures not on index.lock that the person recovered from.
	other []string
}

// run runs one git command and returns its output and whether it succeeded,
// counting a failure on index.lock.
func (p *person) run(args ...string) (string, bool) {
	cmd := exec.Command("git", append([]string{"-C", p.dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Person", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=Person", "GIT_COMMITTER_EMAIL=p@x")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if args[0] == "switch" || args[0] == "stash" && args[1] != "list" {
		p.cmds++ // the person's commands, not the test's polling
	}
	if err == nil {
		return out.String(), true
	}
	msg := fmt.Sprintf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	if lockFailure(args, out.String()) {
		p.lockFail++
		p.failures = append(p.failures, msg)
	} else {
		p.other = append(p.other, msg)
	}
	return msg, false
}

// git runs a command that changes nothing when it fails, again until it succeeds
// (a person tries again), up to 100 times.
func (p *person) git(args ...string) (string, bool) {
	var out string
	for range 100 {
		var ok bool
		if out, ok = p.run(args...); ok || !lockFailure(args, out) {
			return out, ok
		}
		time.Sleep(time.Millisecond)
	}
	return out, false
}

// stashed reports whether the stash holds an entry.
func (p *person) stashed() bool {
	out, _ := p.git("stash", "list")
	return out != ""
}

// stashPush runs git stash, again while it fails before saving anything. A stash
// that saved its entry and then failed (its reset found index.lock taken, or HEAD
// moved by a commit since it read it) may or may not have reset the working tree:
// the person drops the entry if the edit is still there, else pops it.
func (p *person) stashPush(edit string) {
	for range 100 {
		if _, ok := p.run("stash", "push", "-q"); ok {
			return
		}
		if p.stashed() {
			if b, _ := os.ReadFile(filepath.Join(p.dir, "person", "p.md")); string(b) == edit {
				p.git("stash", "drop", "-q")
			} else {
				p.stashPop()
			}
			return
		}
		time.Sleep(time.Millisecond)
	}
	p.t.Fatal("git stash kept failing")
}

// stashPop runs git stash pop, again while it fails before applying anything; an
// entry it applied and kept is dropped.
func (p *person) stashPop() {
	for range 100 {
		if _, ok := p.run("stash", "pop", "-q"); ok || !p.stashed() {
			return
		}
		if st, _ := p.git("status", "--porcelain"); strings.Contains(st, "person/p.md") {
			p.git("stash", "drop", "-q")
			return
		}
		time.Sleep(time.Millisecond)
	}
	p.t.Fatal("git stash pop kept failing")
}

// lockFailure reports whether a failed git command failed on index.lock. git
// stash says nothing then (it takes the lock quietly to refresh the index), and
// git stash pop only that it kept the stash entry (checked with the lock held by
// hand, git 2.39).
func lockFailure(args []string, out string) bool {
	out = strings.TrimSpace(out)
	switch {
	case strings.Contains(out, "index.lock"):
		return true
	case len(args) > 0 && args[0] == "stash" && out == "":
		return true
	case len(args) > 1 && args[0] == "stash" && args[1] == "pop" && out == "The stash entry is kept in case you need it again.":
		return true
	}
	return false
}

// waitClean waits (bounded) until `git status` shows nothing: Norn committed the
// person's edit.
func (p *person) waitClean(ctx context.Context, v *repo.Vault) {
	for range 500 {
		if out, ok := p.git("status", "--porcelain"); ok && out == "" {
			return
		}
		if _, err := v.CommitExternal(ctx, "", ""); err != nil && !errors.Is(err, repo.ErrConflict) {
			p.t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	out, _ := p.git("status", "--porcelain")
	p.t.Fatalf("the working tree never came clean:\n%s", out)
}

// TestVault_PersonSwitchesAndStashesUnderLoad replays the attack mix: agents
// writing through Apply (paced at ~30 commits/s, and at full speed), a maintainer
// scanning for hand edits, and a person running git switch other, git switch
// main, an edit, git stash and git stash pop for a fixed number of rounds. main
// must hold only the agents' commits and the person's own edit (as Norn-Op:
// external), never the file only branch other has; every acknowledged write is on
// main; git fsck is clean. It reports how many of the person's git commands failed
// on index.lock, and fails when that rate is off the goal (see the end).
func TestVault_PersonSwitchesAndStashesUnderLoad(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pace   time.Duration // between writes, all agents together; 0: full speed
		rounds int
	}{
		{"paced", time.Second / 30, 12},
		{"full", 0, 8},
	} {
		t.Run(tc.name, func(t *testing.T) { personUnderLoad(t, tc.pace, tc.rounds) })
	}
}

func personUnderLoad(t *testing.T, pace time.Duration, rounds int) {
	ctx := context.Background()
	v := newVault(t, repo.Options{})
	dir := v.Dir()
	write(t, v, put("person/p.md", "# P\n", ""))
	branchOther(t, dir)
	if err := v.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	start := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "main"))

	const agents = 4
	stop := make(chan struct{})
	var wg sync.WaitGroup
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			close(stop)
			wg.Wait()
		}
	}
	defer halt()
	var mu sync.Mutex
	acked := map[note.Path]string{}
	refused := 0
	var tick <-chan time.Time
	if pace > 0 {
		tk := time.NewTicker(pace)
		defer tk.Stop()
		tick = tk.C
	}
	for a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				if tick != nil {
					select {
					case <-tick:
					case <-stop:
						return
					}
				}
				select {
				case <-stop:
					return
				default:
				}
				p := note.Path(fmt.Sprintf("w/a%d/n%05d.md", a, i))
				body := fmt.Sprintf("# N %d %d\n", a, i)
				_, err := v.Apply(ctx, repo.Tx{Author: repo.Author{Name: fmt.Sprintf("agent-%d", a)}, Op: repo.OpWrite,
					Changes: []repo.Change{put(string(p), body, "")}})
				switch {
				case err == nil:
					mu.Lock()
					acked[p] = body
					mu.Unlock()
				case errors.Is(err, repo.ErrConflict):
					mu.Lock()
					refused++ // git had the working tree (another branch checked out)
					mu.Unlock()
				default:
					t.Errorf("write %s: %v", p, err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // the maintainer's scan, often
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := v.CommitExternal(ctx, "", ""); err != nil && !errors.Is(err, repo.ErrConflict) {
				t.Errorf("scan: %v", err)
				return
			}
		}
	}()

	pp := &person{t: t, dir: dir}
	began := time.Now()
	for r := range rounds {
		for _, b := range []string{"other", "main"} {
			if out, ok := pp.git("switch", "-q", b); !ok {
				t.Fatalf("round %d: git switch %s: %s", r, b, out)
			}
		}
		edit := fmt.Sprintf("# P\n\nround %d\n", r)
		if err := os.WriteFile(filepath.Join(dir, "person", "p.md"), []byte(edit), 0o644); err != nil {
			t.Fatal(err)
		}
		pp.stashPush(edit)
		if pp.stashed() { // Norn may have taken the edit in first
			pp.stashPop()
		}
		pp.waitClean(ctx, v)
	}
	halt()
	if t.Failed() {
		return
	}
	if list := gitCmd(t, dir, "stash", "list"); list != "" {
		t.Fatalf("stash entries left behind:\n%s", list)
	}
	rate := float64(pp.lockFail) / float64(pp.cmds)
	t.Logf("pace %v: %d writes acknowledged, %d refused as conflicts in %v; the person ran %d git commands, %d failed on index.lock (%.2f%%), %d otherwise",
		pace, len(acked), refused, time.Since(began).Round(time.Millisecond), pp.cmds, pp.lockFail, 100*rate, len(pp.other))
	for _, f := range pp.failures {
		t.Log(f)
	}
	for _, f := range pp.other {
		t.Log("other failure:", f)
	}
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged")
	}

	// main: the agents' commits and the person's own edits, nothing else.
	log := gitCmd(t, dir, "log", "--first-parent", "--format=%H%x00%an%x00%(trailers:key=Norn-Op,valueonly,separator=)", start+"..main")
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 3 {
			t.Fatalf("log line %q", line)
		}
		files := strings.Fields(gitCmd(t, dir, "show", "--format=", "--name-only", f[0]))
		switch {
		case strings.HasPrefix(f[1], "agent-") && f[2] == "write" && len(files) == 1 && strings.HasPrefix(files[0], "w/"):
		case f[1] == "Owner" && f[2] == "external" && len(files) == 1 && files[0] == "person/p.md":
		default:
			t.Fatalf("commit on main by %s (%s) touching %v is neither an agent's write nor the person's edit:\n%s",
				f[1], f[2], files, gitCmd(t, dir, "show", "--stat", f[0]))
		}
	}
	if got := gitCmd(t, dir, "log", "--format=%H", "main", "--", "branchonly"); got != "" {
		t.Fatalf("main took in branchonly/x.md:\n%s", got)
	}
	if got := gitCmd(t, dir, "show", "main:person/p.md"); got != fmt.Sprintf("# P\n\nround %d\n", rounds-1) {
		t.Fatalf("the person's last edit is not on main: %q", got)
	}
	for p, body := range acked {
		if got := gitCmd(t, dir, "show", "main:"+string(p)); got != body {
			t.Fatalf("acknowledged %s is %q on main, want %q", p, got, body)
		}
	}
	assertClean(t, v)
	// The goal is no failure at 30 commits/s and under 1% at full speed. Norn holds
	// index.lock only while it publishes a batch (p50 0.5 ms) and keeps away for a
	// moment after git works, but the first command of a run can still meet a
	// publish (odds about commits/s × hold time): one such failure is allowed at
	// 30/s, and 5% at full speed, so that the test speaks of the design rather than
	// of this machine's load. Both rates are in the log (docs/security.md).
	switch {
	case pace > 0 && pp.lockFail > 1:
		t.Fatalf("at %v between writes, %d of the person's %d git commands failed on index.lock", pace, pp.lockFail, pp.cmds)
	case pace == 0 && rate > 0.05:
		t.Fatalf("at full speed, %d of the person's %d git commands failed on index.lock (%.1f%%)", pp.lockFail, pp.cmds, 100*rate)
	}
}
