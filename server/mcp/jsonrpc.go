package mcp

import (
	"bytes"
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// InvalidRequest checks the envelope of one JSON-RPC message (valid JSON) before
// either transport hands it on, and returns the Invalid Request error (-32600, id
// null) to answer instead, or nil when the message may go on. Refused, with nothing
// run:
//
//   - anything but a JSON object: a batch (an array; MCP dropped batches in
//     2025-06-18 and norn serves none) or a bare scalar;
//   - an id that is not a string or a number (an object, an array, a boolean);
//   - a request (a message with a method) whose id is null: MCP forbids it, and
//     mcp-go would take the message for a notification and drop it unanswered.
//
// A message without an id is a notification; a response without a method may carry
// id null (JSON-RPC's answer to a request whose id could not be read).
func InvalidRequest(msg []byte) *mcpgo.JSONRPCError {
	msg = bytes.TrimSpace(msg)
	refuse := func(why string) *mcpgo.JSONRPCError {
		e := mcpgo.NewJSONRPCError(mcpgo.NewRequestId(nil), mcpgo.INVALID_REQUEST, "Invalid Request: "+why, nil)
		return &e
	}
	switch {
	case len(msg) == 0:
		return refuse("an empty message")
	case msg[0] == '[':
		return refuse("a batch (JSON array) is not supported: send each message on its own")
	case msg[0] != '{':
		return refuse("a message must be a JSON object")
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return nil // no id (a notification), or a shape mcp-go answers itself
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return nil
	case 'n':
		if len(m.Method) == 0 {
			return nil
		}
		return refuse("a request's id must be a string or a number, not null (a notification has no id)")
	}
	return refuse("the id must be a string or a number, not " + jsonKind(m.ID[0]))
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	}
	return "null"
}
