package config

import (
	"time"

	"go.yaml.in/yaml/v3"
)

// Synthesis is the `synthesis:` section: the budget one response may spend
// judging whether registered summaries are still faithful to their sources
// (synthesis_status, and the freshness read_note and search hits carry). Every
// summary a response evaluates draws on the same budget; one that runs out
// answers incomplete, never current.
type Synthesis struct {
	// Checks is how many sources one response may compare with their current
	// revisions. Default 128.
	Checks int `yaml:"checks"`
	// Bytes is how many bytes of registrations one response may read. Default
	// 16 MiB.
	Bytes int `yaml:"bytes"`
	// Deadline is the cooperative time limit of one response's walk. Default
	// 250ms.
	Deadline Duration `yaml:"deadline"`
}

func defaultSynthesis() Synthesis {
	return Synthesis{Checks: 128, Bytes: 16 << 20, Deadline: Duration(250 * time.Millisecond)}
}

func (s *Synthesis) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"checks", "bytes", "deadline"}, func(k, full string, v *yaml.Node) {
		switch k {
		case "checks":
			d.integer(v, full, 1, 1<<20, &s.Checks)
		case "bytes":
			d.integer(v, full, 1<<10, 1<<30, &s.Bytes)
		case "deadline":
			d.duration(v, full, time.Millisecond, time.Minute, &s.Deadline)
		}
	})
}
