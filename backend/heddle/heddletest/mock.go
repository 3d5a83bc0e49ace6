// Package heddletest is an OpenAI-compatible streaming chat completion
// endpoint for tests (loopback, httptest): each request gets the next
// scripted Reply — server-sent events of content deltas, tool call
// fragments, a finish reason and usage, or an HTTP error — and can be held
// open until the test releases it (a slow stream, for cancels and
// heartbeats).
package heddletest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Reply is the answer to one request.
type Reply struct {
	// Status is an HTTP error status (0: 200 and a stream of Chunks).
	Status int
	// Body is the error status's body.
	Body string
	// Chunks are the data payloads of the stream's events, in order;
	// "[DONE]" follows them unless NoDone.
	Chunks []string
	NoDone bool
	// Hold, if not nil, holds the stream after HoldAfter chunks (0: before
	// the first, headers sent) until it is closed or the client goes.
	Hold      <-chan struct{}
	HoldAfter int
}

// Request is a request the mock received.
type Request struct {
	Auth string // the Authorization header
	Body struct {
		Model    string            `json:"model"`
		Stream   bool              `json:"stream"`
		Messages []json.RawMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
}

// Mock is the endpoint. Its base URL (for HEDDLE_BASE_URL) is URL.
type Mock struct {
	URL string
	// Received gets each request once its reply is taken (buffered: 64).
	Received chan Request

	mu      sync.Mutex
	replies []Reply
}

// New starts a mock answering with replies in order (Push adds more); a
// request past the script gets HTTP 500 "no reply scripted". It closes at
// the test's end.
func New(t testing.TB, replies ...Reply) *Mock {
	m := &Mock{Received: make(chan Request, 64), replies: replies}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	m.URL = srv.URL + "/v1"
	return m
}

// Push scripts more replies.
func (m *Mock) Push(r ...Reply) {
	m.mu.Lock()
	m.replies = append(m.replies, r...)
	m.mu.Unlock()
}

func (m *Mock) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var q Request
	q.Auth = r.Header.Get("Authorization")
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &q.Body)
	m.mu.Lock()
	var rep Reply
	if len(m.replies) == 0 {
		rep = Reply{Status: http.StatusInternalServerError, Body: `{"error":{"message":"no reply scripted"}}`}
	} else {
		rep, m.replies = m.replies[0], m.replies[1:]
	}
	m.mu.Unlock()
	// Received only once the reply is taken: a test that goes on after it
	// (cancels, sends again) must not find the next request taking the
	// reply this one was meant to have.
	select {
	case m.Received <- q:
	default:
	}
	if rep.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		io.WriteString(w, rep.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	flush := func() {
		if fl != nil {
			fl.Flush()
		}
	}
	io.WriteString(w, ": OPENROUTER PROCESSING\n\n") // a comment, as OpenRouter sends
	flush()
	hold := func(i int) bool {
		if rep.Hold == nil || rep.HoldAfter != i {
			return true
		}
		select {
		case <-rep.Hold:
			return true
		case <-r.Context().Done():
			return false
		}
	}
	for i, c := range rep.Chunks {
		if !hold(i) {
			return
		}
		fmt.Fprintf(w, "data: %s\n\n", c)
		flush()
	}
	if !hold(len(rep.Chunks)) {
		return
	}
	if !rep.NoDone {
		io.WriteString(w, "data: [DONE]\n\n")
		flush()
	}
}

// Chunk builders.

// Text is a chunk with a content delta.
func Text(s string) string {
	b, _ := json.Marshal(s)
	return fmt.Sprintf(`{"id":"gen-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":%s},"finish_reason":null}]}`, b)
}

// ToolCall is a chunk with a tool call fragment: id and name are sent
// when not "" (the first fragment), args is a piece of the arguments.
func ToolCall(index int, id, name, args string) string {
	f := map[string]any{"arguments": args}
	if name != "" {
		f["name"] = name
	}
	tc := map[string]any{"index": index, "function": f}
	if id != "" {
		tc["id"], tc["type"] = id, "function"
	}
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{tc}}, "finish_reason": nil}}})
	return string(b)
}

// Finish is a chunk with a finish reason ("stop", "tool_calls").
func Finish(reason string) string {
	return fmt.Sprintf(`{"choices":[{"index":0,"delta":{},"finish_reason":%q}]}`, reason)
}

// Usage is the final usage chunk (no choices).
func Usage(prompt, completion int) string {
	return fmt.Sprintf(`{"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, prompt, completion, prompt+completion)
}

// Answer is a plain answer: the text in the given pieces, stop, usage.
func Answer(prompt, completion int, pieces ...string) Reply {
	var cs []string
	for _, p := range pieces {
		cs = append(cs, Text(p))
	}
	return Reply{Chunks: append(cs, Finish("stop"), Usage(prompt, completion))}
}

// Tool is a reply calling one tool, its arguments split in two fragments
// across chunks, then tool_calls and usage.
func Tool(id, name, args string, prompt, completion int) Reply {
	half := len(args) / 2
	return Reply{Chunks: []string{
		ToolCall(0, id, name, args[:half]),
		ToolCall(0, "", "", args[half:]),
		Finish("tool_calls"),
		Usage(prompt, completion),
	}}
}

// ServerError is an HTTP 500 with OpenRouter's error body.
func ServerError(msg string) Reply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "code": 500}})
	return Reply{Status: http.StatusInternalServerError, Body: string(b)}
}
