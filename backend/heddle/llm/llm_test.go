package llm_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle/heddletest"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle/llm"
)

// serve answers every request with body as an event stream.
func serve(t *testing.T, status int, body string) *llm.Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return &llm.Client{BaseURL: srv.URL}
}

// Tool call fragments by index (interleaved, the id and name in the first
// fragment only), data split over two lines, CRLF, comments and other
// fields, content deltas, finish reason, usage.
func TestStreamAssembles(t *testing.T) {
	body := ": keepalive\r\n\r\n" +
		"event: message\r\nid: 1\r\n" +
		`data: {"choices":[{"delta":{"content":"Hi "}}]}` + "\r\n\r\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"glob","arguments":"{\"pat"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"bash","arguments":""}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"tern\":\"*\"}"}}]}}]}` + "\n\n" +
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\n" +
		`data: "function":{"arguments":"{\"command\":\"ls\"}"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"content":"there"},"finish_reason":"tool_calls"}]}` + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}` + "\n\n" +
		"data: [DONE]\n\n" +
		`data: {"choices":[{"delta":{"content":"after done"}}]}` + "\n\n"
	var texts []string
	var usages []llm.Usage
	responded := 0
	c, err := serve(t, 200, body).Stream(context.Background(), llm.Request{Model: "m"}, llm.Handler{
		Responded: func() { responded++ },
		Text:      func(s string) { texts = append(texts, s) },
		Usage:     func(u llm.Usage) { usages = append(usages, u) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Content != "Hi there" || strings.Join(texts, "|") != "Hi |there" || c.FinishReason != "tool_calls" || responded != 1 {
		t.Fatalf("%+v %q", c, texts)
	}
	if len(c.ToolCalls) != 2 || c.ToolCalls[0].ID != "a" || c.ToolCalls[0].Function.Name != "bash" || c.ToolCalls[0].Function.Arguments != `{"command":"ls"}` ||
		c.ToolCalls[1].ID != "b" || c.ToolCalls[1].Function.Arguments != `{"pattern":"*"}` {
		t.Fatalf("tool calls %+v", c.ToolCalls)
	}
	if len(usages) != 1 || c.Usage == nil || *c.Usage != (llm.Usage{7, 2, 9}) {
		t.Fatalf("usage %+v %+v", usages, c.Usage)
	}
}

// Errors: an error status with OpenRouter's body (its message, the body
// as details), one without JSON, an error chunk in the stream, a stream
// cut short; a stream without [DONE] but finished is complete.
func TestStreamErrors(t *testing.T) {
	ctx := context.Background()
	_, err := serve(t, 502, `{"error":{"message":"bad gateway upstream","code":502}}`).Stream(ctx, llm.Request{}, llm.Handler{})
	pe, ok := llm.IsProvider(err)
	if !ok || pe.Status != 502 || pe.Message != "bad gateway upstream" || !strings.Contains(string(pe.Body), `"code":502`) {
		t.Fatalf("%v", err)
	}
	_, err = serve(t, 503, "overloaded").Stream(ctx, llm.Request{}, llm.Handler{})
	if pe, ok := llm.IsProvider(err); !ok || pe.Message != "Service Unavailable" || string(pe.Body) != `"overloaded"` {
		t.Fatalf("%v", err)
	}
	_, err = serve(t, 200, `data: {"error":{"message":"context too long"}}`+"\n\n").Stream(ctx, llm.Request{}, llm.Handler{})
	if pe, ok := llm.IsProvider(err); !ok || pe.Message != "context too long" {
		t.Fatalf("%v", err)
	}
	_, err = serve(t, 200, `data: {"choices":[{"delta":{"content":"cut"}}]}`+"\n\n").Stream(ctx, llm.Request{}, llm.Handler{})
	if pe, ok := llm.IsProvider(err); !ok || !strings.Contains(pe.Message, "[DONE]") {
		t.Fatalf("%v", err)
	}
	c, err := serve(t, 200, `data: {"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`).Stream(ctx, llm.Request{}, llm.Handler{})
	if err != nil || c.Content != "ok" {
		t.Fatalf("%+v %v", c, err)
	}
}

// A request: POST to /chat/completions, the key as a Bearer token,
// stream with usage.
func TestRequest(t *testing.T) {
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	c := &llm.Client{BaseURL: srv.URL + "/api/v1/", APIKey: "k"}
	if _, err := c.Stream(context.Background(), llm.Request{Model: "m"}, llm.Handler{}); err != nil {
		t.Fatal(err)
	}
	if got.Method != "POST" || got.URL.Path != "/api/v1/chat/completions" || got.Header.Get("Authorization") != "Bearer k" ||
		!strings.Contains(body, `"stream":true`) || !strings.Contains(body, `"include_usage":true`) || !strings.Contains(body, `"model":"m"`) {
		t.Fatalf("%s %s %v %s", got.Method, got.URL, got.Header, body)
	}
}

func FuzzStream(f *testing.F) {
	f.Add(`data: {"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	f.Add("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3}]}}]}\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
		defer srv.Close()
		(&llm.Client{BaseURL: srv.URL}).Stream(context.Background(), llm.Request{}, llm.Handler{})
	})
}

// The provider has answered (Responded) when a chunk says something, not
// at the empty role-only delta an OpenAI-compatible stream opens with: a
// call cancelled after that one has produced nothing.
func TestRespondedAtFirstOutput(t *testing.T) {
	ep := heddletest.NewStepped()
	c := &llm.Client{BaseURL: "http://endpoint.test/v1", HTTP: &http.Client{Transport: ep}}
	var responded atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.Stream(ctx, llm.Request{Model: "m"}, llm.Handler{Responded: func() { responded.Add(1) }})
		done <- err
	}()
	st := <-ep.Streams
	st.Chunk(t, heddletest.Role())
	if n := responded.Load(); n != 0 {
		t.Fatalf("responded %d times after the role chunk", n)
	}
	st.Chunk(t, heddletest.Text("hi"))
	if n := responded.Load(); n != 1 {
		t.Fatalf("responded %d times after a delta", n)
	}
	st.Chunk(t, heddletest.Finish("stop"))
	st.Done()
	if err := <-done; err != nil || responded.Load() != 1 {
		t.Fatalf("%v, responded %d", err, responded.Load())
	}

	// A stream that ends having said nothing was an answer all the same.
	go func() {
		_, err := c.Stream(ctx, llm.Request{Model: "m"}, llm.Handler{Responded: func() { responded.Add(1) }})
		done <- err
	}()
	st = <-ep.Streams
	st.Chunk(t, heddletest.Role())
	st.Done()
	if err := <-done; err != nil || responded.Load() != 2 {
		t.Fatalf("%v, responded %d", err, responded.Load())
	}
}
