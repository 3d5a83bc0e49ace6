// Package llm is a client of OpenAI-compatible chat completion endpoints
// (OpenRouter's, by default) in streaming mode: POST {BaseURL}/chat/completions
// with "stream": true, the answer read as server-sent events — content
// deltas, tool call fragments assembled by index, the finish reason, a final
// usage chunk — up to "data: [DONE]". Standard library only.
package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// DefaultBaseURL is OpenRouter's API.
const DefaultBaseURL = "https://openrouter.ai/api/v1"

// Message is a chat message. Content is a pointer because an assistant
// message that only calls tools has "content": null.
type Message struct {
	Role       string     `json:"role"` // system, user, assistant, tool
	Content    *string    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Text is a message's content ("" for null).
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// ToolCall is a function call the model asked for.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // function
	Function FunctionCall `json:"function"`
}

// FunctionCall is a tool call's function and its arguments (a JSON text,
// as the model wrote it).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a function the model may call.
type Tool struct {
	Type     string   `json:"type"` // function
	Function Function `json:"function"`
}

// Function describes a tool: its name, what it does, its parameters' JSON
// schema.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is a chat completion request (always streamed, with usage).
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
}

// Usage is a completion's token usage.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// Completion is a streamed answer, assembled.
type Completion struct {
	Content      string
	ToolCalls    []ToolCall // in index order
	FinishReason string
	Usage        *Usage // the last usage chunk's, if any
}

// Handler receives a stream as it comes. Any field may be nil.
type Handler struct {
	// Responded is called once, when the provider has answered: the first
	// data chunk that carries something (content, a tool call fragment, a
	// finish reason, usage, an error, or a chunk that is not JSON), the end
	// of the stream, or an error status with its body. An empty delta —
	// the role-only chunk OpenAI-compatible endpoints open with — is not
	// an answer yet: a call cancelled then has produced nothing.
	Responded func()
	// Text is called with each non-empty content delta.
	Text func(string)
	// Usage is called for each chunk that carries usage.
	Usage func(Usage)
}

// ProviderError is an error the provider returned: an HTTP error status
// with its body, or an error object in the stream (Status 0).
type ProviderError struct {
	Status  int
	Message string
	// Body is the error's body as JSON: the parsed response (or stream
	// chunk) if it was JSON, else its text as a JSON string; null if empty.
	Body json.RawMessage
}

func (e *ProviderError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("provider: HTTP %d: %s", e.Status, e.Message)
	}
	return "provider: " + e.Message
}

// Client calls one endpoint.
type Client struct {
	BaseURL string // "" = DefaultBaseURL
	APIKey  string // sent as a Bearer token ("" = no Authorization header)
	HTTP    *http.Client
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 1 << 20

// Stream sends req and reads the streamed answer, calling h as it comes.
// It returns the assembled completion, or an error: *ProviderError for
// the provider's, ctx's error once ctx is done (the request is aborted),
// or a transport error. A stream that ends without "[DONE]" but with a
// finish reason is complete; without either it is an error.
func (c *Client) Stream(ctx context.Context, req Request, h Handler) (Completion, error) {
	body, err := json.Marshal(struct {
		Request
		Stream        bool `json:"stream"`
		StreamOptions any  `json:"stream_options"`
	}{req, true, map[string]bool{"include_usage": true}})
	if err != nil {
		return Completion{}, fmt.Errorf("llm: encode request: %w", err)
	}
	base := c.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return Completion{}, fmt.Errorf("llm: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	if c.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return Completion{}, ctx.Err()
		}
		return Completion{}, fmt.Errorf("llm: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if ctx.Err() != nil {
			return Completion{}, ctx.Err()
		}
		call(h.Responded)
		return Completion{}, statusError(resp.StatusCode, b)
	}
	var s stream
	s.h = h
	err = s.read(resp.Body)
	if ctx.Err() != nil {
		return Completion{}, ctx.Err()
	}
	if err != nil {
		return Completion{}, err
	}
	return s.completion(), nil
}

func call(f func()) {
	if f != nil {
		f()
	}
}

// statusError is the ProviderError of an error response: the message of
// its {"error":{"message":…}} if it has one, else its status text.
func statusError(status int, b []byte) *ProviderError {
	e := &ProviderError{Status: status, Message: http.StatusText(status), Body: jsonBody(b)}
	var eb struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &eb) == nil && eb.Error.Message != "" {
		e.Message = eb.Error.Message
	}
	return e
}

// jsonBody is b as JSON: itself if it is valid JSON, else a JSON string of
// its text, null if empty.
func jsonBody(b []byte) json.RawMessage {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0:
		return json.RawMessage("null")
	case json.Valid(b):
		return append(json.RawMessage(nil), b...)
	}
	s, _ := json.Marshal(string(b))
	return s
}

// stream assembles a completion from SSE events.
type stream struct {
	h         Handler
	responded bool
	done      bool
	content   strings.Builder
	calls     map[int]*ToolCall
	finish    string
	usage     *Usage
}

// chunk is what the stream reads of a chunk.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// read reads SSE events (data lines joined by "\n" up to a blank line;
// comments and other fields ignored) until [DONE] or the end of body.
func (s *stream) read(body io.Reader) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var data []string
	dispatch := func() error {
		if len(data) == 0 {
			return nil
		}
		d := strings.Join(data, "\n")
		data = data[:0]
		return s.event(d)
	}
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			if err := dispatch(); err != nil {
				return err
			}
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
		if s.done {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("llm: read stream: %w", err)
	}
	if err := dispatch(); err != nil {
		return err
	}
	s.respond() // the stream ended: the provider has answered, if with nothing
	if !s.done && s.finish == "" {
		return &ProviderError{Message: "the stream ended before [DONE]", Body: json.RawMessage("null")}
	}
	return nil
}

// event handles one SSE event's data.
func (s *stream) event(d string) error {
	if strings.TrimSpace(d) == "[DONE]" {
		s.respond()
		s.done = true
		return nil
	}
	var c chunk
	if err := json.Unmarshal([]byte(d), &c); err != nil {
		s.respond()
		return &ProviderError{Message: "a stream chunk is not JSON: " + err.Error(), Body: jsonBody([]byte(d))}
	}
	if c.carries() {
		s.respond()
	}
	if c.Error != nil {
		return &ProviderError{Message: c.Error.Message, Body: jsonBody([]byte(d))}
	}
	if len(c.Choices) > 0 {
		ch := c.Choices[0]
		if t := ch.Delta.Content; t != nil && *t != "" {
			s.content.WriteString(*t)
			if s.h.Text != nil {
				s.h.Text(*t)
			}
		}
		for _, f := range ch.Delta.ToolCalls {
			if s.calls == nil {
				s.calls = map[int]*ToolCall{}
			}
			tc := s.calls[f.Index]
			if tc == nil {
				tc = &ToolCall{Type: "function"}
				s.calls[f.Index] = tc
			}
			if f.ID != "" {
				tc.ID = f.ID
			}
			if f.Function.Name != "" {
				tc.Function.Name = f.Function.Name
			}
			tc.Function.Arguments += f.Function.Arguments
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finish = *ch.FinishReason
		}
	}
	if c.Usage != nil {
		u := *c.Usage
		s.usage = &u
		if s.h.Usage != nil {
			s.h.Usage(u)
		}
	}
	return nil
}

// respond calls Responded, the first time.
func (s *stream) respond() {
	if !s.responded {
		s.responded = true
		call(s.h.Responded)
	}
}

// carries reports whether a chunk says anything: not an empty delta (a
// role, an empty content).
func (c *chunk) carries() bool {
	if c.Error != nil || c.Usage != nil {
		return true
	}
	for _, ch := range c.Choices {
		if (ch.Delta.Content != nil && *ch.Delta.Content != "") || len(ch.Delta.ToolCalls) > 0 || (ch.FinishReason != nil && *ch.FinishReason != "") {
			return true
		}
	}
	return false
}

func (s *stream) completion() Completion {
	c := Completion{Content: s.content.String(), FinishReason: s.finish, Usage: s.usage}
	idx := make([]int, 0, len(s.calls))
	for i := range s.calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for n, i := range idx {
		tc := *s.calls[i]
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d", n)
		}
		c.ToolCalls = append(c.ToolCalls, tc)
	}
	return c
}

// IsProvider reports whether err is the provider's (*ProviderError).
func IsProvider(err error) (*ProviderError, bool) {
	var pe *ProviderError
	ok := errors.As(err, &pe)
	return pe, ok
}
