package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The browser tests run the real `norn serve --http` (the binary, built once)
// over a copy of the demo vault with two private notes, and drive one headless
// Chromium (one per test binary; each test has its own browser context, so its
// own cookies). Without Chromium they skip with a message; .ci/run installs it.

var (
	chromePath string          // "" when no Chromium was found
	browserCtx context.Context // the one browser, started by TestMain
	nornBin    string          // the norn binary built by TestMain
	buildErr   error           // why nornBin could not be built
	serverOnce sync.Once
	shared     *nornServer
	sharedErr  error
)

// Private markers: strings that name the vault's private notes (their paths and
// titles). A reader without the private scope must never receive any of them.
var demoPrivateMarkers = []string{"my-rules-for-agents", "My rules for agents", "zanzibar"}

// extraNotes go into the demo vault copy: a note private by its frontmatter that
// links to public notes (so it would show in their backlinks, the graph, search),
// and a note the tests archive and restore.
var extraNotes = map[string]string{
	"concepts/zanzibar-plan.md": "---\ntitle: Zanzibar plan\ntype: concept\nstatus: active\ntags: [private-plan, secret]\nprivate: true\nupdated: 2026-12-02\n---\n# Zanzibar plan\n\nThe zanzibar write plan builds on [[Vault]] and [[Commit per write]].\n",
	"guides/old-guide.md":       "---\ntitle: Old guide\ntype: guide\nstatus: active\ntags: [guide, old]\nupdated: 2026-12-02\n---\n# Old guide\n\nSuperseded by [[Writing a note safely]].\n",
}

func TestMain(m *testing.M) {
	code := run(m)
	os.Exit(code)
}

func run(m *testing.M) int {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chromePath = p
			break
		}
	}
	if chromePath == "" {
		return m.Run() // the browser tests skip; the others run
	}
	dir, err := os.MkdirTemp("", "norn-web-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	nornBin = filepath.Join(dir, "norn")
	if out, err := exec.Command("go", "build", "-o", nornBin, "../../cmd/norn").CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build: %v\n%s", err, out)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromePath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		fmt.Fprintf(os.Stderr, "chromium at %s does not start (%v): browser tests skip\n", chromePath, err)
		chromePath = ""
	}
	browserCtx = bctx
	code := m.Run()
	if shared != nil {
		shared.stop()
	}
	return code
}

// needBrowser skips t without Chromium and fails it without the norn binary.
func needBrowser(t *testing.T) {
	t.Helper()
	if chromePath == "" {
		t.Skip("no Chromium found (apt-get install chromium; .ci/run installs it): browser test skipped")
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// nornServer is `norn serve --http 127.0.0.1:0` over a vault, with its tokens.
type nornServer struct {
	dir    string
	base   string            // http://127.0.0.1:PORT
	tokens map[string]string // name → secret: owner (all scopes), reader (read), agent (read, write)
	cmd    *exec.Cmd
	done   chan struct{} // closed when the stderr reader has finished
	stderr strings.Builder
	mu     sync.Mutex
}

// demoServer is the shared server over a copy of the demo vault, started once.
func demoServer(t *testing.T) *nornServer {
	t.Helper()
	needBrowser(t)
	serverOnce.Do(func() { shared, sharedErr = startServer(demoVault) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// demoVault fills dir with the demo vault and extraNotes.
func demoVault(dir string) error {
	if err := copyTree("../../demo/vault", dir); err != nil {
		return err
	}
	for p, s := range extraNotes {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(s), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func startServer(fill func(dir string) error) (*nornServer, error) {
	dir, err := os.MkdirTemp("", "norn-web-vault-")
	if err != nil {
		return nil, err
	}
	if err := fill(dir); err != nil {
		return nil, err
	}
	s := &nornServer{dir: dir, tokens: map[string]string{}, done: make(chan struct{})}
	if _, err := s.cli("init"); err != nil {
		return nil, err
	}
	for name, scopes := range map[string]string{"owner": "read,write,private,admin", "reader": "read", "agent": "read,write"} {
		out, err := s.cli("token", "add", name, "--scopes", scopes, "--json")
		if err != nil {
			return nil, err
		}
		var tok struct{ Token string }
		if err := json.Unmarshal(out, &tok); err != nil || tok.Token == "" {
			return nil, fmt.Errorf("token add %s: %s (%v)", name, out, err)
		}
		s.tokens[name] = tok.Token
	}
	s.cmd = exec.Command(nornBin, "serve", "--http", "127.0.0.1:0")
	s.cmd.Env = append(os.Environ(), "NORN_VAULT="+dir)
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go s.readStderr(pipe, found) // owned: stop waits for done
	select {
	case u := <-found:
		s.base = u
		return s, nil
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, fmt.Errorf("norn serve printed no address in 60 s:\n%s", s.log())
	}
}

var servingURL = regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/mcp`)

func (s *nornServer) readStderr(r io.Reader, found chan<- string) {
	defer close(s.done)
	sc := bufio.NewScanner(r)
	sent := false
	for sc.Scan() {
		s.mu.Lock()
		s.stderr.WriteString(sc.Text() + "\n")
		s.mu.Unlock()
		if m := servingURL.FindStringSubmatch(sc.Text()); m != nil && !sent {
			found <- m[1]
			sent = true
		}
	}
}

func (s *nornServer) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

func (s *nornServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		<-s.done
		_ = s.cmd.Wait()
	}
	os.RemoveAll(s.dir)
}

// cli runs the norn binary on the server's vault.
func (s *nornServer) cli(args ...string) ([]byte, error) {
	cmd := exec.Command(nornBin, args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "NORN_VAULT="+s.dir)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		return out, fmt.Errorf("norn %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return out, nil
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// tab is one browser context (its own cookies) with what the page did recorded:
// console errors and uncaught exceptions, the responses and websocket frames it
// received (for the privacy test).
type tab struct {
	t   *testing.T
	ctx context.Context

	mu        sync.Mutex
	problems  []string
	responses map[network.RequestID]string // finished request → URL
	urls      map[network.RequestID]string // request → URL, from its response
	frames    []string
}

func newTab(t *testing.T) *tab {
	t.Helper()
	needBrowser(t)
	var copts []chromedp.ContextOption
	if os.Getenv("DBG_NOBC") == "" {
		copts = append(copts, chromedp.WithNewBrowserContext())
	}
	ctx, cancel := chromedp.NewContext(browserCtx, copts...)
	tb := &tab{t: t, ctx: ctx, responses: map[network.RequestID]string{}, urls: map[network.RequestID]string{}}
	// The first run opens the tab: without a timeout, which would close it.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	if os.Getenv("DBG_NOLISTEN") != "" {
		return tb
	}
	if err := chromedp.Listen(ctx, tb.event); err != nil {
		cancel()
		t.Fatal(err)
	}
	if os.Getenv("DBG_NOCONSOLE") != "" {
		return tb
	}
	console := chromedp.Console(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { // owned: Cleanup cancels ctx and waits
		for m, err := range console {
			if err != nil {
				return
			}
			// A failed fetch the page handles (the 401 of /web/api/session before
			// login, a refusal it shows) is a network entry of the browser log:
			// expected. Every console.error, exception or other error entry is not.
			if (m.Type == chromedp.ConsoleError && m.Source != "network") || m.IsException() {
				tb.problem(m.String() + " " + m.URL)
			}
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, p := range tb.problems {
			t.Errorf("browser console: %s", p)
		}
	})
	tb.do(
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
				return err
			}
			_, err := chromedp.Call(ctx, log.Enable, cdp.Empty{})
			return err
		}),
		chromedp.EmulateViewport(1280, 900))
	return tb
}

// event records network events; it runs on the tab's reader: it only appends.
func (tb *tab) event(ev any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventResponseReceived:
		tb.urls[e.RequestID] = e.Response.URL
	case *network.EventLoadingFinished:
		if u, ok := tb.urls[e.RequestID]; ok {
			tb.responses[e.RequestID] = u
		}
	case *network.EventWebSocketFrameReceived:
		tb.frames = append(tb.frames, string(e.Response.PayloadData))
	}
}

// received is every response body (by URL) and websocket frame the page got.
func (tb *tab) received() (map[string]string, []string) {
	tb.t.Helper()
	tb.mu.Lock()
	ids := make(map[network.RequestID]string, len(tb.responses))
	for id, u := range tb.responses {
		ids[id] = u
	}
	frames := append([]string(nil), tb.frames...)
	tb.mu.Unlock()
	bodies := map[string]string{}
	for id, u := range ids {
		r, err := chromedp.Call(tb.ctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: id})
		if err != nil {
			continue // a body the browser no longer holds (a page navigated away from)
		}
		bodies[u+" #"+string(id)] = string(r.Body)
	}
	return bodies, frames
}

func (tb *tab) problem(s string) {
	tb.mu.Lock()
	tb.problems = append(tb.problems, s)
	tb.mu.Unlock()
}

func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 8*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
}

// eval runs js in the page and returns its value.
func eval[T any](tb *tab, js string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("browser: %s: %v", js, err)
	}
	return v
}

// waitJS waits until the page's js is truthy (the DOM, never a sleep).
func (tb *tab) waitJS(js string) {
	tb.t.Helper()
	for try := 0; ; try++ {
		_, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second)))
		// A poll that began just as a navigation replaced the page's context is
		// asked again in the new one.
		if err != nil && try < 3 && strings.Contains(err.Error(), "Cannot find context") {
			continue
		}
		if err != nil {
			tb.t.Fatalf("browser: waiting for %s: %v", js, err)
		}
		return
	}
}

// login opens the page and logs in with the form.
func (tb *tab) login(s *nornServer, name string) {
	tb.t.Helper()
	tb.do(
		chromedp.Navigate(s.base+"/"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), s.tokens[name]),
		chromedp.Click(chromedp.ID("login-submit")),
		chromedp.WaitVisible(chromedp.CSS(".tree-root")),
	)
	tb.waitJS(`document.getElementById("view").dataset.loaded === "1"`)
}

// open goes to a route and waits until its view has rendered.
func (tb *tab) open(hash string) {
	tb.t.Helper()
	eval[bool](tb, fmt.Sprintf(`(() => {
		document.getElementById("view").removeAttribute("data-loaded");
		if (location.hash === %[1]q) window.dispatchEvent(new HashChangeEvent("hashchange")); else location.hash = %[1]q;
		return true })()`, hash))
	tb.waitJS(`document.getElementById("view").dataset.loaded === "1"`)
}

// html is the page's whole DOM.
func (tb *tab) html() string {
	tb.t.Helper()
	return eval[string](tb, `document.documentElement.outerHTML`)
}

// screenshot writes the page to $NORN_SCREENSHOTS/name.png when that is set
// (a path relative to the repository, e.g. docs/web).
func (tb *tab) screenshot(name string) {
	tb.t.Helper()
	dir := os.Getenv("NORN_SCREENSHOTS")
	if dir == "" {
		return
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", "..", dir)
	}
	png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}
