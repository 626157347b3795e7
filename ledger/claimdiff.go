package ledger

import "bytes"

// DiffStat is the size of the change between the revision a claim read and its
// source's current revision.
type DiffStat struct {
	LinesAdded   int `json:"lines_added"`
	LinesRemoved int `json:"lines_removed"`
	BytesBefore  int `json:"bytes_before"`
	BytesAfter   int `json:"bytes_after"`
}

// Diff measures the change from before to after in lines: the common first and
// last lines are set aside and the lines between are compared as multisets
// (a line moved within the change counts as kept). It is linear in the input
// and never more than a line diff would report.
func Diff(before, after []byte) DiffStat {
	st := DiffStat{BytesBefore: len(before), BytesAfter: len(after)}
	a, b := lines(before), lines(after)
	for len(a) > 0 && len(b) > 0 && bytes.Equal(a[0], b[0]) {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && bytes.Equal(a[len(a)-1], b[len(b)-1]) {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	count := make(map[string]int, len(a))
	for _, l := range a {
		count[string(l)]++
	}
	for _, l := range b {
		if count[string(l)] > 0 {
			count[string(l)]--
			continue
		}
		st.LinesAdded++
	}
	for _, n := range count {
		st.LinesRemoved += n
	}
	return st
}

func lines(b []byte) [][]byte {
	if len(b) == 0 {
		return nil
	}
	return bytes.SplitAfter(b, []byte("\n"))
}
