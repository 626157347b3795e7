package ledger_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/norn-vault/norn/repo"
)

// epoch is the first commit time of the test vaults: each commit is one minute
// after the one before, so dates fall between commits.
var epoch = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// newVault makes an empty vault (one seed commit) whose commit times advance by
// a minute each, from epoch.
func newVault(t testing.TB) *repo.Vault {
	t.Helper()
	var n atomic.Int64
	now := func() time.Time { return epoch.Add(time.Duration(n.Add(1)-1) * time.Minute) }
	v, _, err := repo.Init(context.Background(), t.TempDir(), repo.InitOptions{
		Options: repo.Options{Owner: repo.Author{Name: "Owner", Email: "owner@example.com"}, Now: now},
		Seed:    map[string][]byte{".norn/config.yaml": []byte("gates:\n  profile: default\n")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

// blobID is the git blob id of b (what git hash-object prints).
func blobID(b []byte) repo.Revision {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return repo.Revision(hex.EncodeToString(h.Sum(nil)))
}

func gitCmd(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
