package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// runDemo runs make run's script on a copy of the demo vault asking for addr,
// until norn serve says it serves; stop ends it (and is called when the test
// ends). serving is false when the demo never got that far.
func runDemo(t *testing.T, addr string) (out string, serving bool, stop func()) {
	t.Helper()
	bin := buildNorn(t)
	cmd := exec.Command("bash", "../../scripts/run-demo.sh", bin, "../../demo/vault", t.TempDir())
	cmd.Env = append(os.Environ(), "NORN_ADDR="+addr, "GIT_AUTHOR_NAME=P", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=P", "GIT_COMMITTER_EMAIL=p@x")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); pw.Close() }()
	var b strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "  stop with Ctrl-C") {
			serving = true
			break
		}
	}
	go io.Copy(io.Discard, pr)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			<-done
		})
	}
	t.Cleanup(stop)
	return b.String(), serving, stop
}

// TestRunDemo_PortAndConnectLine: make run's script checks the port before the
// tour and, when it is taken, says so and serves on the next free one; it prints
// one "connect Claude Code" line, with the demo token itself, and the web
// explorer's one-time login link, which works once (checkWebLink).
func TestRunDemo_PortAndConnectLine(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	want := busy.Addr().String()
	got, serving, stop := runDemo(t, want)
	if !serving {
		t.Fatalf("the demo never served:\n%s", got)
	}
	checkWebLink(t, got)
	stop()
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

// checkWebLink: the demo's output holds the web explorer's one-time login link;
// it logs a browser in as the vault's owner once (a 303 to / with the session
// cookie) and is refused the second time.
func checkWebLink(t *testing.T, out string) {
	t.Helper()
	m := regexp.MustCompile(`web explorer: (http://\S+)/ \(one-time login link, as the vault's owner: (http://\S+/\?token=norn_link_\S+)\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no web explorer line:\n%s", out)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(m[2])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "norn_session" {
			cookie = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || cookie == nil {
		t.Fatalf("the link: %d to %q, cookie %v", resp.StatusCode, resp.Header.Get("Location"), cookie)
	}
	req, _ := http.NewRequest(http.MethodGet, m[1]+"/web/api/session", nil)
	req.AddCookie(cookie)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"owner":true`) || !strings.Contains(string(body), `"private"`) {
		t.Fatalf("session: %d %s", resp.StatusCode, body)
	}
	resp, err = noFollow.Get(m[2])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Location") != "/?login=failed" {
		t.Fatalf("the link again: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}
