package repo

import (
	"slices"
	"strings"
)

// MinPrefix is the fewest hex digits ResolvePrefix takes: the abbreviation
// git log --oneline prints.
const MinPrefix = 7

// ResolvePrefix turns an object id, full or abbreviated to MinPrefix or more hex
// digits (as archive and log print them), into the commit or the blob it names:
// exactly one of commit and rev is set. A prefix that names both a commit and a
// blob, or several of either, is ErrInvalid listing them; one that names neither
// is ErrNotFound; anything but 7 to 40 hex digits is ErrInvalid.
func (v *Vault) ResolvePrefix(prefix string) (commit CommitID, rev Revision, err error) {
	if len(prefix) < MinPrefix || !isHex(prefix) {
		return "", "", invalidf("%q is not an object id: give %d to 40 hex digits", prefix, MinPrefix)
	}
	var commits, blobs []string
	for _, id := range v.objs.withPrefix(strings.ToLower(prefix)) {
		if _, err := v.readCommit(id); err == nil {
			commits = append(commits, id.String())
		} else if _, err := v.objs.readTyped(id, "blob"); err == nil {
			blobs = append(blobs, id.String())
		}
	}
	if len(commits) == 0 && len(blobs) == 0 {
		// go-git also reads packs Norn's own readers cannot.
		if id, err := v.ResolveCommit(prefix); err == nil {
			return CommitID(id.String()), "", nil
		}
		return "", "", notFoundf("no commit or revision starts with %s", prefix)
	}
	switch {
	case len(commits) == 1 && len(blobs) == 0:
		return CommitID(commits[0]), "", nil
	case len(blobs) == 1 && len(commits) == 0:
		return "", Revision(blobs[0]), nil
	}
	all := append(commits, blobs...)
	slices.Sort(all)
	return "", "", invalidf("%s is ambiguous: %d objects start with it (%s); give more digits", prefix, len(all), strings.Join(all, ", "))
}
