package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/norn-vault/norn/config"
)

// FuzzParseMachine checks that ParseMachine never panics, that every failure is an
// ErrInvalid, and that String never shows a secret it parsed.
func FuzzParseMachine(f *testing.F) {
	for _, s := range []string{
		"", machineFile, "rerank: {api_key: sk-abcdefgh}\n", "rerank:\n  api_key: [x]\n",
		"remotes:\n  origin: {token: abcdefghij, token_env: X}\n", "serve: {http: ':0'}\n",
		"rerank: {timeout: -1s}\n", "a: &a [*a]\n", "remotes: {o: *x}\n", "---\n---\n", "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := config.ParseMachine(b)
		if err != nil {
			if !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		secrets := []config.Secret{m.Rerank.APIKey}
		for _, r := range m.Remotes {
			secrets = append(secrets, r.Token, r.Password)
		}
		out := m.String()
		for _, s := range secrets {
			// A short secret may match a key name by chance; only long ones say
			// something.
			if len(s) >= 12 && strings.Contains(out, s.Reveal()) && !strings.Contains(string(b), s.Reveal()+"\n"+s.Reveal()) {
				t.Fatalf("String shows the secret %q:\n%s", s.Reveal(), out)
			}
		}
	})
}
