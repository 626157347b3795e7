package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// chatRequest is the chat-completions request. Temperature is a plain float64
// without omitempty, so 0 is sent as 0 (go-openai drops a zero temperature).
type chatRequest struct {
	Model          string          `json:"model,omitempty"`
	Temperature    float64         `json:"temperature"`
	Messages       []chatMessage   `json:"messages"`
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// structuredFormat asks for the answer schema.
var structuredFormat = json.RawMessage(`{"type":"json_schema","json_schema":{"name":"rerank_scores","strict":true,"schema":` + answerSchema + `}}`)

// callError is why a call failed, as the engine label words it.
type callError struct {
	reason string // "timeout", "http 503", "refused", "transport", "malformed answer"…
	err    error
}

func (e *callError) Error() string { return e.reason + ": " + e.err.Error() }
func (e *callError) Unwrap() error { return e.err }

// reply is a call's answer.
type reply struct {
	content   string
	model     string
	tokensIn  int
	tokensOut int
}

// maxBody bounds a response body read from the endpoint.
const maxBody = 4 << 20

// call posts the chat request until ctx ends: a 429 or 5xx is retried up to
// retries times (after Retry-After when it fits, else a short backoff); a 400
// answered to a structured request is retried once as plain JSON (endpoints
// without structured output).
func (r *Reranker) call(ctx context.Context, content string) (reply, error) {
	req := chatRequest{Model: r.o.Model, Messages: []chatMessage{
		{Role: "system", Content: systemPrompt}, {Role: "user", Content: content}},
		ResponseFormat: structuredFormat}
	backoff := 100 * time.Millisecond
	for attempt := 0; ; attempt++ {
		status, rep, wait, err := r.post(ctx, req)
		switch {
		case err != nil:
			return reply{}, err
		case status == http.StatusOK:
			return rep, nil
		case status == http.StatusBadRequest && req.ResponseFormat != nil:
			r.log.Debug("rerank endpoint refused the structured format; retrying as plain JSON")
			req.ResponseFormat = nil
			continue
		case (status == http.StatusTooManyRequests || status >= 500) && attempt < r.o.Retries:
			if wait <= 0 {
				wait, backoff = backoff, backoff*2
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return reply{}, &callError{"timeout", ctx.Err()}
			case <-t.C:
			}
			continue
		}
		return reply{}, &callError{"http " + strconv.Itoa(status), fmt.Errorf("endpoint answered %d", status)}
	}
}

// post sends one request. It returns the status, the reply of a 200, and the
// Retry-After wait of a 429/503. A transport failure is a *callError; the URL in
// net/http's errors holds no key (the key travels in a header).
func (r *Reranker) post(ctx context.Context, req chatRequest) (int, reply, time.Duration, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return 0, reply{}, 0, &callError{"request", err}
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return 0, reply{}, 0, &callError{"request", err}
	}
	hr.Header.Set("Content-Type", "application/json")
	if r.o.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+r.o.APIKey)
	}
	resp, err := r.o.Client.Do(hr)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return 0, reply{}, 0, &callError{"timeout", context.DeadlineExceeded}
		}
		return 0, reply{}, 0, &callError{"transport", errors.New("endpoint unreachable")}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		if ctx.Err() != nil {
			return 0, reply{}, 0, &callError{"timeout", context.DeadlineExceeded}
		}
		return 0, reply{}, 0, &callError{"transport", errors.New("answer cut off")}
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, reply{}, retryAfter(resp.Header.Get("Retry-After")), nil
	}
	if len(b) > maxBody {
		return 0, reply{}, 0, &callError{"malformed answer", fmt.Errorf("%w: body over %d bytes", ErrAnswer, maxBody)}
	}
	var cr chatResponse
	if err := json.Unmarshal(b, &cr); err != nil || len(cr.Choices) == 0 {
		return 0, reply{}, 0, &callError{"malformed answer", fmt.Errorf("%w: not a chat completion", ErrAnswer)}
	}
	m := cr.Choices[0].Message
	if m.Refusal != "" || cr.Choices[0].FinishReason == "content_filter" {
		return 0, reply{}, 0, &callError{"refused", errors.New("the model refused")}
	}
	return http.StatusOK, reply{content: m.Content, model: cr.Model,
		tokensIn: cr.Usage.PromptTokens, tokensOut: cr.Usage.CompletionTokens}, 0, nil
}

// retryAfter reads a Retry-After header in seconds (0 when absent or a date).
func retryAfter(h string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
