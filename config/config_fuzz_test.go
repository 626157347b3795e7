package config_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/norn-vault/norn/config"
	"go.yaml.in/yaml/v3"
)

// FuzzParse checks that Parse never panics, that every failure is an ErrInvalid, and
// that every success survives a Marshal/Parse round trip unchanged (but for the
// per-machine settings it ignored).
func FuzzParse(f *testing.F) {
	def, err := yaml.Marshal(config.Default())
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"", string(def), "gates: {profile: strict}\n", "gates:\n  profile: lax\n",
		"search:\n  weights: {title: 1e309}\n", "privacy:\n  folders: [a, ../b]\n", "privacy:\n  tags: [diary, '#A/b', x y]\n", "privacy:\n  tags: []\n",
		"a: &a [*a]\n", "x: &x {y: *x}\n", "- - - -\n", "{", "gc: {loose_objects: 0x10}\n",
		"search:\n  folder_factors: {\"a/\": 1, a: 2}\n", "rerank:\n  endpoint: 'http://[::1]:80'\n",
		"gates:\n  protected_blocks:\n    - {name: a, start: b, end: c}\n    - ~\n",
		"---\n---\n", "\xff\xfe", "inbox: \"\\u0000\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := config.Parse(b)
		if err != nil {
			if !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		out, err := yaml.Marshal(c)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		again, err := config.Parse(out)
		if err != nil {
			t.Fatalf("Parse(Marshal(Parse(b))): %v\n%s", err, out)
		}
		c.Ignored = nil // not marshalled: ignored settings are not written back
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("round trip changed the config:\n%s\n%+v\n%+v", out, c, again)
		}
	})
}
