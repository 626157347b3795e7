package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/norn-vault/norn/errcode"
)

// apiError is an error the API answers with its own status (a refusal the vault
// layer does not make: no session, a missing scope, a bad CSRF token).
// codeTooMany is the code of a 429: the HTTP layer's, as MCP's requests get it
// over the same bound (server/httplimits.go), not one of errcode's table.
const codeTooMany errcode.Code = "too_many_requests"

type apiError struct {
	status int
	code   errcode.Code
	msg    string
}

func (e *apiError) Error() string { return string(e.code) + ": " + e.msg }

// ErrorCode keeps the code wherever the error is classified again.
func (e *apiError) ErrorCode() errcode.Code { return e.code }

// badInput is a 400 invalid_input about the request's parameters or body.
func badInput(format string, args ...any) error {
	return &apiError{status: http.StatusBadRequest, code: errcode.InvalidInput, msg: fmt.Sprintf(format, args...)}
}

// forbidden is a 403 forbidden.
func forbidden(format string, args ...any) error {
	return &apiError{status: http.StatusForbidden, code: errcode.Forbidden, msg: fmt.Sprintf(format, args...)}
}

// errNoSession is the 401 of a request without a live session.
var errNoSession = &apiError{status: http.StatusUnauthorized, code: errcode.Forbidden,
	msg: "no session (or it ended): log in with a token (POST /web/login) or a one-time link"}

// statusOf is the HTTP status of an error code: the one mapping of errcode's
// codes to HTTP for the web API.
func statusOf(c errcode.Code) int {
	switch c {
	case errcode.NotFound:
		return http.StatusNotFound
	case errcode.InvalidInput, errcode.Usage:
		return http.StatusBadRequest
	case errcode.Forbidden:
		return http.StatusForbidden
	case errcode.Conflict, errcode.GitBusy:
		return http.StatusConflict
	case errcode.GateRejected:
		return http.StatusUnprocessableEntity
	case errcode.IndexStale, errcode.Closed, errcode.Canceled:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// writeErr answers err as {"error": {"code", "message"}} with its status. An
// internal error's text is logged, not sent.
func writeErr(w http.ResponseWriter, log *slog.Logger, err error) {
	code := errcode.Classify(err)
	status := statusOf(code)
	var ae *apiError
	if errors.As(err, &ae) {
		status = ae.status
	}
	msg := err.Error()
	if ae != nil {
		msg = ae.msg
	}
	if status == http.StatusInternalServerError {
		log.Error("web api request failed", "err", err)
		msg = "internal error: the server logged it (run `norn doctor` if it persists)"
	}
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": string(code), "message": msg}})
}

// writeJSON answers status with v as JSON, never cached.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"the answer could not be encoded"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
