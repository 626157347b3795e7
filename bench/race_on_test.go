//go:build race

package bench

// raceEnabled is true under -race: big-corpus tests skip themselves there.
const raceEnabled = true
