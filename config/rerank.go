package config

import (
	"go.yaml.in/yaml/v3"
)

// Rerank is the shared part of the `rerank:` section (package rerank): when to
// rerank. Where to (the endpoint, model and key) is per machine (MachineRerank):
// a committed file naming them is ignored with a Warning (Config.Ignored).
type Rerank struct {
	// Threshold: rerank when the second score is at least Threshold × the first.
	// From 0 to 1; default 0.9.
	Threshold float64 `yaml:"threshold"`
}

func defaultRerank() Rerank { return Rerank{Threshold: 0.9} }

func (r *Rerank) decode(d *decoder, n *yaml.Node, key string, c *Config) {
	d.mappingAlso(n, key, []string{"threshold"}, machineRerankKeys(), c.ignore, func(k, full string, v *yaml.Node) {
		if k == "threshold" {
			d.number(v, full, 0, 1, &r.Threshold)
		}
	})
}
