package config

import (
	"net/url"

	"go.yaml.in/yaml/v3"
)

// Rerank is the `rerank:` section (package rerank). Reranking runs only when the
// endpoint is set and BM25's top is contested.
type Rerank struct {
	// Threshold: rerank when the second score is at least Threshold × the first.
	// From 0 to 1; default 0.9.
	Threshold float64 `yaml:"threshold"`
	// Endpoint is the base URL of an OpenAI-compatible API (http or https); empty
	// (the default) turns reranking off.
	Endpoint string `yaml:"endpoint"`
	// Model is the model name sent to the endpoint; empty lets the endpoint choose.
	Model string `yaml:"model"`
}

func defaultRerank() Rerank { return Rerank{Threshold: 0.9} }

func (r *Rerank) decode(d *decoder, n *yaml.Node, key string) {
	d.mapping(n, key, []string{"threshold", "endpoint", "model"}, func(k, full string, v *yaml.Node) {
		switch k {
		case "threshold":
			d.number(v, full, 0, 1, &r.Threshold)
		case "endpoint":
			var s string
			if !d.str(v, full, &s) {
				return
			}
			if s != "" {
				u, err := url.Parse(s)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					d.errorf(v, full, "want an http:// or https:// URL such as \"http://127.0.0.1:8080/v1\", or \"\" to turn reranking off; got %q", s)
					return
				}
			}
			r.Endpoint = s
		case "model":
			d.str(v, full, &r.Model)
		}
	})
}
