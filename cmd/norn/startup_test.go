package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initAllocs runs this test binary, running no test, with GODEBUG=inittrace=1
// and returns the bytes each package's init allocated: what every norn process
// pays before main, whatever the command (the test binary links what norn does).
func initAllocs(t *testing.T) map[string]int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	// init PKG @T ms, C ms clock, N bytes, M allocs
	out := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		out[f[1]] += n
	}
	if len(out) == 0 {
		t.Fatalf("no inittrace lines in %q", stderr.String())
	}
	return out
}

// TestStartup_NoEagerSchemaInit: the JSON Schema library mcp-go's server links
// compiled its meta-schemas in an init function (1.7 MB, about 3 ms, then a
// garbage collection, in every norn process); the copy go.mod replaces it with
// compiles them at the first schema compilation instead (third_party/jsonschema).
func TestStartup_NoEagerSchemaInit(t *testing.T) {
	allocs := initAllocs(t)
	const pkg, budget = "github.com/santhosh-tekuri/jsonschema/v6", 64 << 10
	n, ok := allocs[pkg]
	if !ok {
		t.Fatalf("%s is not linked: drop this test and the replace in go.mod", pkg)
	}
	if n > budget {
		t.Errorf("%s's init allocates %d bytes, over %d: are its meta-schemas compiled at init again?", pkg, n, budget)
	}
}
