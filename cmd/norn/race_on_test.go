//go:build race

package main

// raceEnabled is true under -race: big-corpus tests skip themselves there.
const raceEnabled = true
