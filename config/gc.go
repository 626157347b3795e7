package config

import "go.yaml.in/yaml/v3"

// GC is the `gc:` section: git housekeeping.
type GC struct {
	// LooseObjects: pack the repository in the background once it holds more than
	// this many loose objects. Default 2000; 0 turns background packing off.
	LooseObjects int `yaml:"loose_objects"`
}

func defaultGC() GC { return GC{LooseObjects: 2000} }

func (g *GC) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"loose_objects"}, func(k, full string, v *yaml.Node) {
		d.integer(v, full, 0, 1<<31-1, &g.LooseObjects)
	})
}
