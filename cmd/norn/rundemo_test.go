package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestRunDemo_PortAndConnectLine: make run's script checks the port before the
// tour and, when it is taken, says so and serves on the next free one; it prints
// one "connect Claude Code" line, with the demo token itself.
func TestRunDemo_PortAndConnectLine(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := buildNorn(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	want := busy.Addr().String()
	cmd := exec.Command("bash", "../../scripts/run-demo.sh", bin, "../../demo/vault", t.TempDir())
	cmd.Env = append(os.Environ(), "NORN_ADDR="+want, "GIT_AUTHOR_NAME=P", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=P", "GIT_COMMITTER_EMAIL=p@x")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); pw.Close() }()
	var out strings.Builder
	sc := bufio.NewScanner(pr)
	serving := false
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "  stop with Ctrl-C") {
			serving = true
			break
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	go io.Copy(io.Discard, pr)
	<-done
	got := out.String()
	if !serving {
		t.Fatalf("the demo never served:\n%s", got)
	}
	_, port, _ := net.SplitHostPort(want)
	if !strings.Contains(got, fmt.Sprintf("port %s on 127.0.0.1 is taken; using ", port)) {
		t.Errorf("no word of the taken port %s:\n%s", port, got)
	}
	if i, j := strings.Index(got, "is taken"), strings.Index(got, "$ norn init"); i < 0 || j < i {
		t.Errorf("the port was not checked before the tour:\n%s", got)
	}
	var lines []string
	for _, l := range strings.Split(got, "\n") {
		if strings.Contains(l, "claude mcp add") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || strings.Contains(lines[0], "<token>") || !strings.Contains(lines[0], "Bearer norn_") {
		t.Errorf("connect lines: %q; want one, with the real token", lines)
	}
}
