package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/norn-vault/norn/internal/testmcp"
	"github.com/norn-vault/norn/server/auth"
	"github.com/norn-vault/norn/server/mcp"
)

// shellWords splits a shell command line the way sh would for what docs use:
// words separated by blanks, '…' literal, "…" with $VARS from env, and a backslash
// before a newline joining lines.
func shellWords(t *testing.T, cmd string, env map[string]string) []string {
	t.Helper()
	cmd = strings.ReplaceAll(cmd, "\\\n", " ")
	var words []string
	var w strings.Builder
	in := false
	expand := func(s string) string {
		return regexp.MustCompile(`\$[A-Z_]+`).ReplaceAllStringFunc(s, func(v string) string { return env[v[1:]] })
	}
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; {
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				t.Fatalf("unclosed ' in %q", cmd)
			}
			w.WriteString(cmd[i+1 : i+1+j])
			i, in = i+1+j, true
		case c == '"':
			j := strings.IndexByte(cmd[i+1:], '"')
			if j < 0 {
				t.Fatalf("unclosed \" in %q", cmd)
			}
			w.WriteString(expand(cmd[i+1 : i+1+j]))
			i, in = i+1+j, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// documentedCurl is the curl command of docs/mcp.md's raw stateless call: its URL,
// headers and body.
func documentedCurl(t *testing.T, token string) (url string, hdr map[string]string, body string) {
	t.Helper()
	doc, err := os.ReadFile("../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sh\n(curl .*?)\n```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/mcp.md has no ```sh block with a curl command")
	}
	words := shellWords(t, string(m[1]), map[string]string{"NORN_TOKEN": token})
	hdr = map[string]string{}
	for i := 1; i < len(words); i++ {
		switch w := words[i]; {
		case w == "-s":
		case w == "-H" && i+1 < len(words):
			k, v, ok := strings.Cut(words[i+1], ": ")
			if !ok {
				t.Fatalf("header %q", words[i+1])
			}
			hdr[k] = v
			i++
		case w == "-d" && i+1 < len(words):
			body = words[i+1]
			i++
		case strings.HasPrefix(w, "http://"):
			url = w
		default:
			t.Fatalf("the documented curl has %q, which this test does not know", w)
		}
	}
	if url == "" || body == "" {
		t.Fatalf("no URL or body in %q", words)
	}
	return url, hdr, body
}

// TestHTTPHandler_DocumentedCurlCall: the raw stateless tools/call docs/mcp.md
// shows, sent as written (to a test server instead of 127.0.0.1:7777), reads the
// note; without the parts the doc says are required, it is refused as the doc says.
func TestHTTPHandler_DocumentedCurlCall(t *testing.T) {
	v, e := testmcp.NewEnv(t, testmcp.Fixture)
	tok, secrets := testmcp.Tokens(t, v, map[string][]auth.Scope{"curl": {auth.ScopeRead}})
	url := testmcp.ServeHTTP(t, e.S, tok)
	docURL, hdr, body := documentedCurl(t, secrets["curl"])
	if docURL != "http://127.0.0.1:7777/mcp" {
		t.Fatalf("the documented URL is %q", docURL)
	}

	resp, got := testmcp.RawPost(t, url, hdr, body)
	var ans struct {
		ID     int `json:"id"`
		Result struct {
			IsError           bool               `json:"isError"`
			StructuredContent mcp.ReadNoteResult `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got), &ans); err != nil || resp.StatusCode != http.StatusOK ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("the documented call: %d %v %s", resp.StatusCode, err, got)
	}
	if r := ans.Result.StructuredContent; ans.ID != 1 || ans.Result.IsError || r.Path != "README.md" ||
		r.Content != testmcp.Fixture["README.md"] || r.Revision != v.Revision("README.md") {
		t.Fatalf("the documented call answered %s", got)
	}

	without := func(k string) map[string]string {
		h := map[string]string{}
		for hk, hv := range hdr {
			if hk != k {
				h[hk] = hv
			}
		}
		return h
	}
	noMeta := regexp.MustCompile(`,"_meta":\{.*\}\}\}$`).ReplaceAllString(body, "}}")
	if noMeta == body {
		t.Fatal("the documented body has no _meta to leave out")
	}
	{
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		for k, v := range without("Accept") {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"result"`) {
			t.Fatalf("without Accept (which the doc says this server does not insist on): %d %s", resp.StatusCode, b)
		}
	}
	for _, c := range []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
		rpc    int
		code   string
	}{
		{"no Mcp-Method", without("Mcp-Method"), body, http.StatusBadRequest, -32020, ""},
		{"no Mcp-Name", without("Mcp-Name"), body, http.StatusBadRequest, -32020, ""},
		{"no Mcp-Protocol-Version", without("Mcp-Protocol-Version"), body, http.StatusBadRequest, -32020, ""},
		{"no _meta", hdr, noMeta, http.StatusBadRequest, -32602, ""},
		{"no _meta clientCapabilities", hdr, strings.Replace(body, `,"io.modelcontextprotocol/clientCapabilities":{}`, "", 1), http.StatusBadRequest, -32602, ""},
		{"neither", without("Mcp-Protocol-Version"), noMeta, http.StatusBadRequest, 0, "missing_session"},
	} {
		if c.body == body && len(c.hdr) == len(hdr) {
			t.Fatalf("%s: nothing left out", c.name)
		}
		resp, got := testmcp.RawPost(t, url, c.hdr, c.body)
		if resp.StatusCode != c.status {
			t.Errorf("%s: %d %s", c.name, resp.StatusCode, got)
			continue
		}
		if c.code != "" {
			if testmcp.ErrorCode(t, got) != c.code {
				t.Errorf("%s: %s", c.name, got)
			}
			continue
		}
		var m struct{ Error *struct{ Code int } }
		if json.Unmarshal([]byte(got), &m); m.Error == nil || m.Error.Code != c.rpc {
			t.Errorf("%s: %s, want JSON-RPC error %d", c.name, got, c.rpc)
		}
	}
}
