package heddletest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// Stepped is an endpoint a test feeds chunk by chunk, for what a client
// does between two chunks: an http.RoundTripper (an llm.Client's
// HTTP.Transport) answering each request with 200 and a stream the test
// writes (Stream.Chunk), in memory.
type Stepped struct {
	// Streams gets each request's stream as it arrives.
	Streams chan *Stream
}

// NewStepped returns a Stepped endpoint.
func NewStepped() *Stepped { return &Stepped{Streams: make(chan *Stream, 8)} }

// RoundTrip implements http.RoundTripper. The stream ends with the
// request's context (the client's cancel) or Stream.Close.
func (s *Stepped) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	pr, pw := io.Pipe()
	st := &Stream{w: pw, ctx: r.Context()}
	go func() {
		<-r.Context().Done()
		pr.CloseWithError(r.Context().Err())
	}()
	s.Streams <- st
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr, Request: r}, nil
}

// Stream is one request's answer.
type Stream struct {
	w   *io.PipeWriter
	ctx context.Context
}

// Chunk writes an event with data and returns once the client has handled
// it: a comment written after it is read only when the client wants more
// (a line-by-line reader has dispatched the event before reading on).
func (s *Stream) Chunk(t testing.TB, data string) {
	t.Helper()
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", data); err != nil {
		t.Fatalf("chunk: %v", err)
	}
	if _, err := io.WriteString(s.w, ": handled?\n\n"); err != nil {
		t.Fatalf("chunk: %v", err)
	}
}

// Done writes [DONE] and ends the stream.
func (s *Stream) Done() {
	io.WriteString(s.w, "data: [DONE]\n\n")
	s.w.Close()
}

// Close ends the stream (the client sees the end of the body).
func (s *Stream) Close() { s.w.Close() }

// Role is the chunk OpenAI-compatible endpoints open a stream with: the
// role, an empty content, nothing said yet.
func Role() string {
	return `{"id":"gen-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`
}
