package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/vault"
)

// ScaleOptions say what a Scale run measures and with what.
type ScaleOptions struct {
	Sizes []int // vault sizes in notes, e.g. 10000, 100000
	// Cache is the folder the generated vaults are kept in, one folder per size and
	// generator (N-HASH), reused by later runs; the figures come from a copy.
	Cache string
	// Generator is scale_vault.py, KnownItem known_item.py (the query set).
	Generator, KnownItem string
	// FTS5Script is the anchor script; FTS5Skip, when not "", says why it is not run.
	FTS5Script, FTS5Skip string
	Norn                 string // the norn binary measured
	Rounds               int    // cold-process rounds of each command and its anchor
	Warm, Idle           time.Duration
	Searches             int // searches through the running server
	CatchUpRounds        int // hand commits of CatchUpNotes notes
	// Ask searches the vault whose git folder is gitDir through its running
	// server's local endpoint and returns how many notes match.
	Ask func(ctx context.Context, gitDir, query string) (total int, err error)
	// OpenIndexer opens the index of a vault (the in-process search).
	OpenIndexer func(ctx context.Context, v *repo.Vault, s *vault.Settings) *vault.Indexer
	Logger      *slog.Logger // nil: slog.Default()
	// Progress, if not nil, is told what the run is doing.
	Progress func(format string, args ...any)
}

// CatchUpNotes is how many notes the hand commit of the catch-up measure touches.
const CatchUpNotes = 100

// ErrNoGenerator means the vault generator script is absent: the suite cannot run.
var ErrNoGenerator = errors.New("bench scale: no vault generator")

// Scale measures each size of o.Sizes beside its anchors and returns the figures.
// Every process it starts has ended when it returns.
func Scale(ctx context.Context, o ScaleOptions) (*ScaleReport, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Progress == nil {
		o.Progress = func(string, ...any) {}
	}
	if _, err := os.Stat(o.Generator); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoGenerator, err)
	}
	rep := &ScaleReport{GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0), Norn: o.Norn}
	for _, n := range o.Sizes {
		s, err := scaleSize(ctx, o, n)
		if err != nil {
			return rep, fmt.Errorf("bench scale %d notes: %w", n, err)
		}
		rep.Sizes = append(rep.Sizes, *s)
	}
	return rep, nil
}

// scaleSize measures one size on a fresh copy of its cached vault.
func scaleSize(ctx context.Context, o ScaleOptions, n int) (*ScaleSize, error) {
	s := &ScaleSize{Notes: n, Rounds: o.Rounds, CatchUpNotes: min(CatchUpNotes, n/2)}
	base, cached, err := cachedVault(ctx, o, n)
	if err != nil {
		return nil, err
	}
	s.Vault, s.Cached = filepath.Join(base, "vault"), cached
	work := filepath.Join(base, "work")
	if err := os.RemoveAll(work); err != nil {
		return nil, err
	}
	o.Progress("%d notes: copying the vault to %s", n, work)
	if out, err := exec.CommandContext(ctx, "cp", "-a", s.Vault, work).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copy vault: %w: %s", err, out)
	}
	defer os.RemoveAll(work)
	out, err := gitIn(ctx, work, "ls-files", "-z", "--", "*.md")
	if err != nil {
		return nil, err
	}
	notes := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	if len(notes) < 2 {
		return nil, fmt.Errorf("vault %s has %d notes", work, len(notes))
	}
	queries, err := LoadQueries(filepath.Join(base, "ki.queries.jsonl"))
	if err != nil {
		return nil, err
	}
	if err := coldProcesses(ctx, o, s, work, notes[len(notes)/2]); err != nil {
		return nil, err
	}
	if err := rebuildAndSearch(ctx, o, s, work, filepath.Join(base, "ki.queries.jsonl"), queries); err != nil {
		return nil, err
	}
	return s, serving(ctx, o, s, work, notes, queries)
}

// cachedVault returns the cache folder of size n (vault/, ki.queries.jsonl), made
// now unless an earlier run left it complete, and whether it was.
func cachedVault(ctx context.Context, o ScaleOptions, n int) (string, bool, error) {
	script, err := os.ReadFile(o.Generator)
	if err != nil {
		return "", false, fmt.Errorf("%w: %w", ErrNoGenerator, err)
	}
	sum := sha256.Sum256(script)
	base := filepath.Join(o.Cache, strconv.Itoa(n)+"-"+hex.EncodeToString(sum[:4]))
	ready := filepath.Join(base, "ready")
	if _, err := os.Stat(ready); err == nil {
		return base, true, nil
	}
	if err := os.RemoveAll(base); err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", false, err
	}
	dir := filepath.Join(base, "vault")
	o.Progress("%d notes: generating the vault in %s", n, dir)
	steps := []proc{
		{name: "python3", args: []string{o.Generator, dir, strconv.Itoa(n)}},
		{name: o.Norn, args: []string{"init", dir}},
		{name: o.Norn, args: []string{"--vault", dir, "reindex"}},
		{name: "python3", args: []string{o.KnownItem, dir, "300", "1", filepath.Join(base, "ki")}},
	}
	for _, p := range steps {
		if _, _, err := p.run(ctx); err != nil {
			return "", false, fmt.Errorf("make vault: %w", err)
		}
	}
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		return "", false, err
	}
	return base, false, nil
}

// coldProcesses times norn version, norn read and norn write as new processes,
// alternating with git version, git show and git add + git commit.
func coldProcesses(ctx context.Context, o ScaleOptions, s *ScaleSize, work, path string) error {
	var err error
	o.Progress("%d notes: norn version, norn read, norn write as new processes beside git (%d rounds)", s.Notes, o.Rounds)
	fixed := func(ours, theirs proc) func(int) (proc, proc, error) {
		return func(int) (proc, proc, error) { return ours, theirs, nil }
	}
	s.Version, s.GitVersion, err = alternate(ctx, o.Rounds, fixed(proc{name: o.Norn, args: []string{"version"}}, proc{name: "git", args: []string{"version"}}))
	if err != nil {
		return err
	}
	s.Read, s.GitShow, err = alternate(ctx, o.Rounds, fixed(
		proc{name: o.Norn, args: []string{"--vault", work, "read", path}},
		proc{name: "git", args: []string{"-C", work, "show", "HEAD:" + path}}))
	if err != nil {
		return err
	}
	// Each round writes a new note with each tool (a new note needs no revision).
	s.Write, s.GitWrite, err = alternate(ctx, o.Rounds, func(r int) (proc, proc, error) {
		ours := fmt.Sprintf("bench-scale/norn-%03d.md", r)
		theirs := fmt.Sprintf("bench-scale/git-%03d.md", r)
		if err := os.MkdirAll(filepath.Join(work, "bench-scale"), 0o755); err != nil {
			return proc{}, proc{}, err
		}
		if err := os.WriteFile(filepath.Join(work, theirs), scaleNote("git", r), 0o644); err != nil {
			return proc{}, proc{}, err
		}
		script := fmt.Sprintf(`git -C "$1" %s add -- "$2" && git -C "$1" %s commit -q -m "write $2" -- "$2"`,
			strings.Join(gitArgs, " "), strings.Join(gitArgs, " "))
		return proc{name: o.Norn, args: []string{"--vault", work, "write", ours}, stdin: scaleNote("norn", r)},
			proc{name: "sh", args: []string{"-c", script, "sh", work, theirs}}, nil
	})
	return err
}

// scaleNote is a new note that passes the default gates.
func scaleNote(tool string, r int) []byte {
	return fmt.Appendf(nil, "---\ntitle: Written by %s %d\ntype: note\nstatus: active\ntags: [bench, scale]\nupdated: 2026-01-01\n---\n# Written by %s %d\n\nA note the scale suite writes as a new process, round %d.\n", tool, r, tool, r, r)
}

// rebuildAndSearch times norn reindex as a process, the query set in-process,
// and the FTS5 anchor's build and queries on the same notes.
func rebuildAndSearch(ctx context.Context, o ScaleOptions, s *ScaleSize, work, queriesPath string, queries []Query) error {
	o.Progress("%d notes: norn reindex", s.Notes)
	wall, st, err := proc{name: o.Norn, args: []string{"--vault", work, "reindex"}}.run(ctx)
	if err != nil {
		return err
	}
	cpu, peak := rusage(st)
	s.RebuildS, s.RebuildCPUS, s.RebuildRSSMB = round3(wall.Seconds()), round3(cpu.Seconds()), peak

	o.Progress("%d notes: %d queries in-process", s.Notes, len(queries))
	v, err := repo.Open(ctx, work, repo.Options{Logger: o.Logger})
	if err != nil {
		return err
	}
	settings := vault.NewSettings()
	settings.Bind(v)
	x := o.OpenIndexer(ctx, v, settings)
	_, err = timeQueries(ctx, x, queries, &s.Search)
	x.Close()
	v.Close()
	if err != nil {
		return err
	}
	if o.FTS5Skip != "" {
		s.FTS5 = FTS5{Status: "skipped", Reason: o.FTS5Skip}
		return nil
	}
	o.Progress("%d notes: the FTS5 anchor", s.Notes)
	s.FTS5 = runFTS5(ctx, o.FTS5Script, work, queriesPath, nil)
	if s.FTS5.Status == "ok" && s.FTS5.P50MS > 0 {
		s.FTS5.RatioP50 = round3(s.Search.P50MS / s.FTS5.P50MS)
		s.FTS5.RatioBuild = round3(s.RebuildS * 1000 / s.FTS5.BuildMS)
	}
	return nil
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
