package rerank

import "errors"

var (
	// ErrConfig: the Options are unusable (an endpoint that is not an http(s) URL,
	// K out of range…). Nothing was sent.
	ErrConfig = errors.New("rerank: invalid options")
	// ErrAnswer: the endpoint's answer does not keep the wire contract (not JSON,
	// unknown or missing ids, scores outside [0, 1]).
	ErrAnswer = errors.New("rerank: malformed answer")
	// ErrMode: a rerank mode that is not auto, off or force.
	ErrMode = errors.New("rerank: invalid mode")
	// ErrEgress: a line of the egress file is not an egress record.
	ErrEgress = errors.New("rerank: malformed egress record")
)
