package config_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/norn-vault/norn/config"
)

const machineFile = `rerank:
  endpoint: https://rerank.example.com/v1
  model: bge-reranker
  api_key: sk-very-secret-key
  timeout: 500ms
remotes:
  origin:
    username: ann
    password_env: NORN_ORIGIN_PASSWORD
  backup:
    token: tok-very-secret-token
    ssh_key: /home/ann/.ssh/id_ed25519
    known_hosts: /home/ann/.ssh/known_hosts
serve:
  http: 127.0.0.1:7777
  max_concurrent: 8
  allow_unauthenticated_loopback: true
  sync_interval: 5m
`

func TestParseMachine(t *testing.T) {
	got, err := config.ParseMachine([]byte(machineFile))
	if err != nil {
		t.Fatalf("ParseMachine: %v", err)
	}
	want := config.Machine{
		Rerank: config.MachineRerank{Endpoint: "https://rerank.example.com/v1", Model: "bge-reranker",
			APIKey: "sk-very-secret-key", Timeout: config.Duration(500 * time.Millisecond)},
		Remotes: map[string]config.Remote{
			"origin": {Username: "ann", PasswordEnv: "NORN_ORIGIN_PASSWORD"},
			"backup": {Token: "tok-very-secret-token", SSHKey: "/home/ann/.ssh/id_ed25519", KnownHosts: "/home/ann/.ssh/known_hosts"},
		},
		Serve: config.Serve{HTTP: "127.0.0.1:7777", MaxConcurrent: 8, AllowUnauthenticatedLoopback: true,
			SyncInterval: config.Duration(5 * time.Minute)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseMachine =\n%#v\nwant\n%#v", got, want)
	}
	if got.Rerank.APIKey.Reveal() != "sk-very-secret-key" {
		t.Errorf("Reveal = %q", got.Rerank.APIKey.Reveal())
	}
	empty, err := config.ParseMachine([]byte("# nothing\n"))
	if err != nil || !reflect.DeepEqual(empty, config.DefaultMachine()) {
		t.Errorf("ParseMachine(comment) = %+v, %v; want the defaults", empty, err)
	}
}

// TestMachine_Redacted checks that no way of printing, logging or marshalling the
// settings shows a secret.
func TestMachine_Redacted(t *testing.T) {
	m, err := config.ParseMachine([]byte(machineFile))
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("settings", "key", m.Rerank.APIKey, "remote", m.Remotes["backup"])
	outs := map[string]string{
		"String": m.String(), "%v": fmt.Sprintf("%v", m), "%+v": fmt.Sprintf("%+v", m),
		"%#v": fmt.Sprintf("%#v", m), "%s key": fmt.Sprintf("%s", m.Rerank.APIKey), "json": string(js), "slog": logged.String(),
	}
	for how, out := range outs {
		for _, secret := range []string{"sk-very-secret-key", "tok-very-secret-token"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s shows a secret: %s", how, out)
			}
		}
		if !strings.Contains(out, "[redacted]") {
			t.Errorf("%s does not say a secret is set: %s", how, out)
		}
	}
	if !strings.Contains(m.String(), "endpoint: https://rerank.example.com/v1") || !strings.Contains(m.String(), "timeout: 500ms") {
		t.Errorf("String lost the settings:\n%s", m)
	}
}

func TestParseMachine_Errors(t *testing.T) {
	tests := []struct {
		name, in, key string
		line          int
		msg           string
	}{
		{"unknown key", "rerank:\n  api-key: sk-secret-typo\n", "rerank.api-key", 2, "unknown key"},
		{"unknown section", "search:\n  prefix: 0\n", "search", 1, "allowed here: rerank, remotes, serve"},
		{"key and env", "rerank:\n  api_key: sk-secret-both\n  api_key_env: KEY\n", "rerank.api_key", 2, "not both"},
		{"token and env", "remotes:\n  origin: {token: sk-secret-tok, token_env: T}\n", "remotes.origin.token", 2, "not both"},
		{"endpoint scheme", "rerank:\n  endpoint: ftp://x\n", "rerank.endpoint", 2, "http:// or https://"},
		{"endpoint no host", "rerank:\n  endpoint: \"http://\"\n", "rerank.endpoint", 2, "http:// or https://"},
		{"endpoint credentials", "rerank:\n  endpoint: https://ann:sk-secret-pw@x.example.com\n", "rerank.endpoint", 2, "not go in the URL"},
		{"env name", "rerank:\n  api_key_env: 1KEY\n", "rerank.api_key_env", 2, "environment variable"},
		{"secret as env name", "remotes:\n  origin: {token_env: sk-secret-pasted}\n", "remotes.origin.token_env", 2, "not shown"},
		{"relative key file", "remotes:\n  origin:\n    ssh_key: .ssh/id\n", "remotes.origin.ssh_key", 3, "absolute path"},
		{"timeout", "rerank:\n  timeout: 2\n", "rerank.timeout", 2, "duration"},
		{"timeout range", "rerank:\n  timeout: 1h\n", "rerank.timeout", 2, "duration from"},
		{"secret not a string", "rerank:\n  api_key: [sk-secret-list]\n", "rerank.api_key", 2, "not shown"},
		{"serve address", "serve:\n  http: 7777\n", "serve.http", 2, "want a string"},
		{"serve bool", "serve:\n  allow_unauthenticated_loopback: yes please\n", "serve.allow_unauthenticated_loopback", 2, "true or false"},
		{"max concurrent", "serve: {max_concurrent: 0}\n", "serve.max_concurrent", 1, "from 1 to 10000"},
		{"sync interval range", "serve:\n  sync_interval: 1s\n", "serve.sync_interval", 2, "duration from"},
		{"sync interval", "serve:\n  sync_interval: often\n", "serve.sync_interval", 2, "duration"},
		{"remotes not a mapping", "remotes: [origin]\n", "remotes", 1, "want a mapping of names to settings"},
		{"secret where a mapping goes", "remotes:\n  origin: sk-secret-as-remote\n", "remotes.origin", 2, "got a single value"},
		{"remote name", "remotes:\n  \"my remote\": {}\n", "remotes.my remote", 2, "one word"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.ParseMachine([]byte(tt.in))
			var ce *config.Error
			if !errors.As(err, &ce) || !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("ParseMachine = %v, want a *config.Error", err)
			}
			if ce.Key != tt.key || ce.Line != tt.line || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("ParseMachine = %+v, want key %q line %d saying %q", ce, tt.key, tt.line, tt.msg)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("error shows a secret: %v", err)
			}
		})
	}
	if _, err := config.ParseMachine([]byte("rerank:\n  api_key: \"sk-secret-unterminated\n")); err == nil ||
		strings.Contains(err.Error(), "sk-secret") || !errors.Is(err, config.ErrInvalid) {
		t.Errorf("syntax error = %v, want an ErrInvalid without the text", err)
	}
}

// TestParse_IgnoresMachineKeys checks that a committed config naming per-machine
// settings is in force without them, each named (key, line) in Ignored, values not
// shown.
func TestParse_IgnoresMachineKeys(t *testing.T) {
	in := "rerank:\n  threshold: 0.5\n  endpoint: https://evil.example.com/v1\n  api_key: sk-secret-committed\n" +
		"serve:\n  http: 0.0.0.0:80\nremotes:\n  origin: {token: sk-secret-remote}\ngc: {packs: 3}\n"
	c, err := config.Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if c.Rerank.Threshold != 0.5 || c.GC.Packs != 3 {
		t.Errorf("the shared settings are not in force: %+v", c)
	}
	var keys []string
	for _, w := range c.Ignored {
		keys = append(keys, fmt.Sprintf("%d:%s", w.Line, w.Key))
		if strings.Contains(w.String(), "sk-secret") || strings.Contains(w.String(), "evil") {
			t.Errorf("warning shows the value: %s", w)
		}
		if !strings.Contains(w.String(), "per-machine") {
			t.Errorf("warning does not say why: %s", w)
		}
	}
	want := []string{"3:rerank.endpoint", "4:rerank.api_key", "5:serve", "7:remotes"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("Ignored = %v, want %v", keys, want)
	}
}
