package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/norn-vault/norn/bench/metric"
)

// gitArgs are the settings every git command of the scale suite runs with: the
// anchor's durability (core.fsync=committed), no automatic gc, a fixed identity.
var gitArgs = []string{"-c", "user.name=bench", "-c", "user.email=bench@localhost",
	"-c", "core.fsync=committed", "-c", "gc.auto=0"}

// gitIn runs git in dir and returns its standard output.
func gitIn(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append(append([]string{"-C", dir}, gitArgs...), args...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out.String(), nil
}

// proc is one command to run as a new process.
type proc struct {
	name  string
	args  []string
	stdin []byte
}

// run runs p to completion and returns its wall time and the process state.
func (p proc) run(ctx context.Context) (time.Duration, *os.ProcessState, error) {
	cmd := exec.CommandContext(ctx, p.name, p.args...)
	if p.stdin != nil {
		cmd.Stdin = bytes.NewReader(p.stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, cmd.ProcessState, fmt.Errorf("%s %s: %w: %s", p.name, strings.Join(p.args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return d, cmd.ProcessState, nil
}

// alternate runs ours and theirs rounds times each, alternately (ours first), and
// returns the p50 and minimum of each. next, if not nil, makes round r's pair.
func alternate(ctx context.Context, rounds int, next func(r int) (ours, theirs proc, err error)) (Cold, Cold, error) {
	var a, b []time.Duration
	for r := range rounds {
		ours, theirs, err := next(r)
		if err != nil {
			return Cold{}, Cold{}, err
		}
		for _, x := range []struct {
			p   proc
			out *[]time.Duration
		}{{ours, &a}, {theirs, &b}} {
			d, _, err := x.p.run(ctx)
			if err != nil {
				return Cold{}, Cold{}, err
			}
			*x.out = append(*x.out, d)
		}
	}
	return coldOf(a), coldOf(b), nil
}

func coldOf(lat []time.Duration) Cold {
	if len(lat) == 0 {
		return Cold{}
	}
	p50, _, _, _ := latencyStats(lat)
	return Cold{P50MS: metric.Round(p50, 3), MinMS: metric.Round(durMS(minDur(lat)), 3)}
}

func minDur(lat []time.Duration) time.Duration {
	m := lat[0]
	for _, d := range lat[1:] {
		m = min(m, d)
	}
	return m
}

// rusage is the resource use of a finished process: user + system CPU and peak
// RSS (Linux reports ru_maxrss in KiB).
func rusage(st *os.ProcessState) (cpu time.Duration, peakMB float64) {
	if st == nil {
		return 0, 0
	}
	cpu = st.UserTime() + st.SystemTime()
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		peakMB = metric.Round(float64(ru.Maxrss)/1024, 1)
	}
	return cpu, peakMB
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat: 100 on
// every Linux architecture Go runs on.
const clockTicks = 100

// procCPU reads the user + system CPU a running process has used so far.
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("cpu of %d: %w", pid, err)
	}
	// The command name (field 2) may hold spaces: count fields after its ')'.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("cpu of %d: %w", pid, errors.New("unexpected /proc stat"))
	}
	var ticks int64
	for _, s := range f[11:13] { // utime, stime: fields 14 and 15
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cpu of %d: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// procRSS reads a running process's resident set size in MB.
func procRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("rss of %d: %w", pid, err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 {
				kb, err := strconv.ParseFloat(f[0], 64)
				if err == nil {
					return metric.Round(kb/1024, 1), nil
				}
			}
		}
	}
	return 0, fmt.Errorf("rss of %d: %w", pid, errors.New("no VmRSS"))
}

// server is a `norn serve` the suite started; stop ends it.
type server struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has been waited for
	err    error         // its exit, once exited is closed
}

// startServer starts norn serve on the vault at dir with its log in logPath.
func startServer(ctx context.Context, norn, dir, logPath string) (*server, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	defer log.Close() // the child holds its own descriptor
	cmd := exec.Command(norn, "--vault", dir, "serve", "--http", "127.0.0.1:0", "--allow-unauthenticated-loopback")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s := &server{cmd: cmd, exited: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// stop asks the server to stop (SIGINT, as Ctrl-C), kills it after grace, and
// waits for it.
func (s *server) stop(grace time.Duration) error {
	select {
	case <-s.exited:
		return s.err
	default:
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
		return nil
	case <-time.After(grace):
		s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("serve: did not stop within %s: killed", grace)
	}
}
