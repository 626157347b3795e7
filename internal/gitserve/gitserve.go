// Package gitserve runs real git servers for tests, on 127.0.0.1: smart HTTP
// (git http-backend through net/http/cgi) with Basic-auth tokens, and an SSH
// server in the test process that runs git-upload-pack and git-receive-pack.
// Every goroutine it starts ends before the test's cleanup returns.
package gitserve

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"
)

func execPath(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// HTTP serves the bare repositories under root over real smart HTTP
// (git http-backend through CGI) on 127.0.0.1, taking only Basic auth whose
// password is token. A refusal echoes the password it got, as a careless proxy
// might: the client must keep it out of its errors anyway.
func HTTP(t testing.TB, root, token string) string {
	t.Helper()
	backend := &cgi.Handler{
		Path: filepath.Join(execPath(t), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=tester", "GIT_CONFIG_NOSYSTEM=1"},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pass, ok := r.BasicAuth()
		if !ok || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "bad credentials: "+pass, http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// SSHServer is an SSH server in the test process that runs the real
// git-upload-pack and git-receive-pack for clients holding the authorized key.
type SSHServer struct {
	Addr    string
	HostKey ssh.Signer
	Execs   atomic.Int32 // git commands run
}

// SSH starts an SSH server that accepts only the authorized client key.
func SSH(t testing.TB, authorized ssh.PublicKey) *SSHServer {
	t.Helper()
	gitExec := execPath(t)
	hostKey, _ := NewKey(t)
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) == string(authorized.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("key not authorized")
	}}
	cfg.AddHostKey(hostKey)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &SSHServer{Addr: ln.Addr().String(), HostKey: hostKey}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { s.serve(c, cfg, gitExec, &wg) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return s
}

func (s *SSHServer) serve(c net.Conn, cfg *ssh.ServerConfig, gitExec string, wg *sync.WaitGroup) {
	sc, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		c.Close()
		return
	}
	defer sc.Close()
	wg.Go(func() { ssh.DiscardRequests(reqs) })
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			return
		}
		wg.Go(func() { s.session(ch, creqs, gitExec, wg) })
	}
}

func (s *SSHServer) session(ch ssh.Channel, reqs <-chan *ssh.Request, gitExec string, wg *sync.WaitGroup) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" {
			req.Reply(false, nil)
			continue
		}
		var p struct{ Command string }
		if ssh.Unmarshal(req.Payload, &p) != nil {
			req.Reply(false, nil)
			return
		}
		name, arg, _ := strings.Cut(p.Command, " ")
		if name != "git-upload-pack" && name != "git-receive-pack" {
			req.Reply(false, nil)
			return
		}
		req.Reply(true, nil)
		s.Execs.Add(1)
		cmd := exec.Command(filepath.Join(gitExec, name), strings.Trim(arg, "'"))
		cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
		stdin, _ := cmd.StdinPipe()
		code := uint32(1)
		if cmd.Start() == nil {
			wg.Go(func() { io.Copy(stdin, ch); stdin.Close() })
			code = 0
			if cmd.Wait() != nil {
				code = 1
			}
		}
		ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{code}))
		return
	}
}

// NewKey returns a fresh ed25519 key as a signer and as the private key.
func NewKey(t testing.TB) (ssh.Signer, ed25519.PrivateKey) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, priv
}
