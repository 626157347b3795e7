package config_test

import (
	"errors"
	"testing"
	"time"

	"github.com/norn-vault/norn/config"
)

func TestParse_Synthesis(t *testing.T) {
	c, err := config.Parse([]byte("synthesis:\n  checks: 8\n  bytes: 4096\n  deadline: 50ms\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Synthesis{Checks: 8, Bytes: 4096, Deadline: config.Duration(50 * time.Millisecond)}
	if c.Synthesis != want {
		t.Fatalf("got %+v, want %+v", c.Synthesis, want)
	}
	if d := config.Default().Synthesis; d.Checks != 128 || d.Bytes != 16<<20 || time.Duration(d.Deadline) != 250*time.Millisecond {
		t.Fatalf("defaults %+v", d)
	}
	for _, bad := range []string{"synthesis:\n  checks: 0\n", "synthesis:\n  deadline: 2h\n", "synthesis:\n  budget: 3\n", "synthesis:\n  bytes: 10\n"} {
		if _, err := config.Parse([]byte(bad)); !errors.Is(err, config.ErrInvalid) {
			t.Errorf("%q: got %v, want ErrInvalid", bad, err)
		}
	}
}
