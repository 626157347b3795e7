package graph_test

// vault is the fixture of the feature tests: small notes, each there to make
// one behaviour observable.
var vault = map[string]string{
	"tech/bloom-filters.md": `---
title: Bloom filters
tags: [data-structures, hashing]
aliases: [Bloom filter]
status: active
---
# Bloom filters

A probabilistic set that answers "maybe" or "no".

## False positives

A lookup may say yes for an item never added: a false positive.
The rate depends on the number of hash functions.

## Sizing

Pick the bit array size from the expected items and the target rate.
`,
	"tech/count-min-sketch.md": `---
title: Count-min sketch
tags: [data-structures, streaming]
status: active
---
# Count-min sketch

Hashes items into a small array of counters to estimate heavy hitters.
`,
	"tech/hashing/consistent-hashing.md": `---
title: Consistent hashing
tags: [hashing/distributed]
status: draft
---
Nodes sit on a ring; each key goes to the next node clockwise.
`,
	"life/cafe.md": `---
title: Café Ærø
tags: [travel]
---
We visited the café in Ærøskøbing on a Sunday.
`,
	"life/zurich.md": "# Zurich\n\nThe old town of Zurich by the lake.\n",
	"archive/old-bloom.md": `---
title: Old bloom notes
tags: [data-structures]
status: archived
---
Bloom filters are probabilistic sets.
`,
	"projects/norn.md":      "# Norn\n\nNorn is a git-native knowledge graph.\n",
	"inbox/config.md":       "# Setup\n\nThe configuration of the configurator took a day.\n",
	"inbox/config-exact.md": "# Config\n\nOne config file.\n",
	"tech/phrases.md":       "# Phrases\n\nthe quick brown fox\n",
	"tech/reversed.md":      "# Reversed\n\nbrown quick fox\n",
	"projects/dated.md": `---
title: Quarterly plan
aliases: [Roadmap]
updated: 2026-11-30
owner: Ada Lovelace
reviewers: [Grace Hopper, Alan Turing]
---
Plans for the next quarter.
`,
}
