package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

const (
	// serveReady bounds how long a server may take to answer its first search.
	serveReady = 10 * time.Minute
	// serveStop is how long a server is given to stop before it is killed.
	serveStop = time.Minute
	// observeWait bounds the wait for a hand edit's commit and a catch-up.
	observeWait = 30 * time.Second
)

// MaxCatchUpRounds is how many catch-up rounds a run can time (one marker each).
const MaxCatchUpRounds = 9

// scaleMarkers are made-up words, none a prefix of another, one per catch-up round.
var scaleMarkers = [MaxCatchUpRounds]string{"quorbixant", "zelfrimmot", "vantroglid", "kribbosunt", "wuffelpandor",
	"plimstaveg", "drozzelkirn", "yaffroscule", "gnurpelvist"}

// serving starts norn serve on work and measures it idle, a hand edit, catch-up
// after hand commits and searches through its local endpoint. The server has
// stopped when it returns.
func serving(ctx context.Context, o ScaleOptions, s *ScaleSize, work string, notes []string, queries []Query) (err error) {
	o.Progress("%d notes: starting norn serve", s.Notes)
	srv, err := startServer(ctx, o.Norn, work, filepath.Join(filepath.Dir(work), "serve.log"))
	if err != nil {
		return err
	}
	s.ServerPID = srv.pid()
	defer func() {
		if serr := srv.stop(serveStop); serr != nil && err == nil {
			err = serr
		}
	}()
	gitDir := filepath.Join(work, ".git")
	ready := time.Now()
	for {
		if _, aerr := o.Ask(ctx, gitDir, "readiness"); aerr == nil {
			break
		} else if time.Since(ready) > serveReady {
			return fmt.Errorf("serve did not answer within %s: %w", serveReady, aerr)
		}
		select {
		case <-srv.exited:
			return fmt.Errorf("serve exited: %v (log in %s)", srv.err, filepath.Join(filepath.Dir(work), "serve.log"))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	o.Progress("%d notes: serve answered after %.1f s; resting %s, then idle for %s", s.Notes, time.Since(ready).Seconds(), o.Warm, o.Idle)
	if err := idle(ctx, o, s, srv.pid()); err != nil {
		return err
	}
	o.Progress("%d notes: a hand edit", s.Notes)
	if s.HandEditMS, err = handEdit(ctx, work, notes[0]); err != nil {
		return err
	}
	o.Progress("%d notes: catch-up after %d hand commits of %d notes", s.Notes, o.CatchUpRounds, s.CatchUpNotes)
	for r := range min(o.CatchUpRounds, len(scaleMarkers)) {
		d, cpu, found, err := handCommit(ctx, o, srv.pid(), gitDir, work, notes[1:], r, s.CatchUpNotes)
		if err != nil {
			return err
		}
		s.CatchUpMS, s.CatchUpFound = append(s.CatchUpMS, d), append(s.CatchUpFound, found)
		s.CatchUpCPUMS = append(s.CatchUpCPUMS, cpu)
	}
	if len(s.CatchUpMS) > 0 {
		c := slices.Clone(s.CatchUpMS)
		slices.Sort(c)
		s.CatchUpMedianMS = c[len(c)/2]
	}
	o.Progress("%d notes: %d searches through the server", s.Notes, o.Searches)
	lat := make([]time.Duration, 0, o.Searches)
	for i := range o.Searches {
		start := time.Now()
		if _, err := o.Ask(ctx, gitDir, queries[i%len(queries)].Text); err != nil {
			return err
		}
		lat = append(lat, time.Since(start))
	}
	s.Searches = len(lat)
	p50, _, _, _ := latencyStats(lat)
	s.LocalSearchP50MS = round3(p50)
	s.RSSSearchedMB, err = procRSS(srv.pid())
	return err
}

// idle rests o.Warm, then measures the server's CPU over o.Idle and its RSS.
func idle(ctx context.Context, o ScaleOptions, s *ScaleSize, pid int) error {
	if err := sleep(ctx, o.Warm); err != nil {
		return err
	}
	before, err := procCPU(pid)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := sleep(ctx, o.Idle); err != nil {
		return err
	}
	after, err := procCPU(pid)
	if err != nil {
		return err
	}
	window := time.Since(start)
	s.WarmS, s.IdleS = o.Warm.Seconds(), round3(window.Seconds())
	s.IdleCPUPct = round3(100 * (after - before).Seconds() / window.Seconds())
	s.RSSIdleMB, err = procRSS(pid)
	return err
}

// handEdit appends a line to path as a person would and returns the time until
// HEAD moves (the server's external commit).
func handEdit(ctx context.Context, work, path string) (float64, error) {
	head, err := gitIn(ctx, work, "rev-parse", "HEAD")
	if err != nil {
		return 0, err
	}
	f, err := os.OpenFile(filepath.Join(work, path), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	_, err = f.WriteString("\nA line added by hand.\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	for {
		now, err := gitIn(ctx, work, "rev-parse", "HEAD")
		if err != nil {
			return 0, err
		}
		if now != head {
			return msSince(start), nil
		}
		if time.Since(start) > observeWait {
			return 0, fmt.Errorf("hand edit of %s not committed within %s", path, observeWait)
		}
		if err := sleep(ctx, 10*time.Millisecond); err != nil {
			return 0, err
		}
	}
}

// handCommit appends round r's marker to k notes, commits them with the git CLI,
// and returns the time from the commit's end until a search through the server
// (process pid) finds all k by the marker, the server's CPU meanwhile, and how many
// it found then.
func handCommit(ctx context.Context, o ScaleOptions, pid int, gitDir, work string, notes []string, r, k int) (wallMS, cpuMS float64, found int, err error) {
	marker := scaleMarkers[r]
	paths := make([]string, 0, k)
	for i := range k {
		p := notes[(r*k+i)%len(notes)]
		f, err := os.OpenFile(filepath.Join(work, p), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return 0, 0, 0, err
		}
		_, err = f.WriteString("\nscale edit " + marker + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return 0, 0, 0, err
		}
		paths = append(paths, p)
	}
	if _, err := gitIn(ctx, work, append([]string{"add", "--"}, paths...)...); err != nil {
		return 0, 0, 0, err
	}
	if _, err := gitIn(ctx, work, "commit", "-q", "-m", "bench: "+marker); err != nil {
		return 0, 0, 0, err
	}
	cpu0, err := procCPU(pid)
	if err != nil {
		return 0, 0, 0, err
	}
	start := time.Now()
	for {
		found, err = o.Ask(ctx, gitDir, marker)
		if err != nil {
			return 0, 0, 0, err
		}
		if found >= k {
			wallMS = msSince(start)
			cpu1, err := procCPU(pid)
			return wallMS, round3(durMS(cpu1 - cpu0)), found, err
		}
		if time.Since(start) > observeWait {
			return 0, 0, found, fmt.Errorf("catch-up: %d of %d notes found by %q after %s", found, k, marker, observeWait)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
