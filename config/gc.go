package config

import "go.yaml.in/yaml/v3"

// GC is the `gc:` section: git housekeeping.
type GC struct {
	// LooseObjects: pack the repository in the background once it holds more than
	// this many loose objects. Default 2000; 0 turns background packing off.
	LooseObjects int `yaml:"loose_objects"`
	// Packs: once the repository holds more than this many packs, gc rolls them all
	// into one (as git's gc.autoPackLimit). Default 50; 0 turns it off.
	Packs int `yaml:"packs"`
}

func defaultGC() GC { return GC{LooseObjects: 2000, Packs: 50} }

func (g *GC) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"loose_objects", "packs"}, func(k, full string, v *yaml.Node) {
		switch k {
		case "loose_objects":
			d.integer(v, full, 0, 1<<31-1, &g.LooseObjects)
		case "packs":
			d.integer(v, full, 0, 1<<31-1, &g.Packs)
		}
	})
}
