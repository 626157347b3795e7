//go:build !race

package graph

// raceEnabled is true under -race: big-corpus tests skip themselves there.
const raceEnabled = false
