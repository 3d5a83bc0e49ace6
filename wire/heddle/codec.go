package heddle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/heimdall-tui/heimdall-tui/wire/jsonl"
)

// MaxLine is the longest line either side reads (a longer one ends the
// stream: see jsonl.Reader).
const MaxLine = jsonl.DefaultMaxLine

// Writer writes messages as JSON lines. It is safe for concurrent use: a
// worker's events (from its agent loop) and replies (from its request
// reader) never interleave within a line.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
}

// NewWriter writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write encodes v (one of this package's message types) as one line.
func (w *Writer) Write(v any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Reset()
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode ends the line
		return fmt.Errorf("heddle: encode %T: %w", v, err)
	}
	_, err := w.w.Write(w.buf.Bytes())
	return err
}

// ErrInvalidJSON: a line is not a JSON object (the worker answers it with
// a protocol_error result, MsgInvalidJSON, and reads on).
var ErrInvalidJSON = errors.New("heddle: invalid JSON")

// Line is one message read: its type and id, and the line itself for the
// type's decoder.
type Line struct {
	Type string
	ID   string
	Raw  json.RawMessage
}

// Reader reads JSON lines.
type Reader struct{ r *jsonl.Reader }

// NewReader reads from r.
func NewReader(r io.Reader) *Reader { return &Reader{jsonl.NewReader(r, MaxLine)} }

// Next returns the next message. A line that is not a JSON object
// returns an error wrapping ErrInvalidJSON (with the line in Raw) and the
// reader stays usable; a
// line longer than MaxLine (jsonl.ErrLineTooLong) and the end of the input
// (io.EOF) end it. Raw is a copy: it stays valid after the next call.
func (r *Reader) Next() (Line, error) {
	b, err := r.r.ReadLine()
	if err != nil {
		return Line{}, err
	}
	var head struct {
		Type string `json:"type"`
		ID   any    `json:"id"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Line{Raw: append(json.RawMessage(nil), b...)}, fmt.Errorf("%w: %v", ErrInvalidJSON, err)
	}
	l := Line{Type: head.Type, Raw: append(json.RawMessage(nil), b...)}
	switch id := head.ID.(type) {
	case string:
		l.ID = id
	case float64: // a client that numbers its ids: taken as their text
		l.ID = fmt.Sprint(id)
	}
	return l, nil
}

// DecodeRequest reads a request line (its id as Next read it: a number
// is taken as its text).
func DecodeRequest(l Line) (Request, error) {
	var in struct {
		Request
		ID any `json:"id"` // shadows Request.ID: any JSON type
	}
	if err := json.Unmarshal(l.Raw, &in); err != nil {
		return Request{}, fmt.Errorf("heddle: %s request: %w", l.Type, err)
	}
	q := in.Request
	q.ID = l.ID
	return q, nil
}

// eventIn is an event as read: its payload still raw.
type eventIn struct {
	Event
	Payload json.RawMessage `json:"event"`
}

// DecodeEventMsg reads an event line; its Event is the decoded payload
// (DecodeEvent: a payload type, or Unknown).
func DecodeEventMsg(l Line) (Event, error) {
	var in eventIn
	if err := json.Unmarshal(l.Raw, &in); err != nil {
		return Event{}, fmt.Errorf("heddle: event: %w", err)
	}
	p, err := DecodeEvent(in.Payload)
	if err != nil {
		return Event{}, err
	}
	ev := in.Event
	ev.Event = p
	return ev, nil
}

// Decode reads a line of a reply type into v (*InitOK, *Result,
// *StatusOK, *ShutdownOK).
func Decode(l Line, v any) error {
	if err := json.Unmarshal(l.Raw, v); err != nil {
		return fmt.Errorf("heddle: %s: %w", l.Type, err)
	}
	return nil
}
