package heddletest

import (
	"bufio"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// Msg is one line a peer wrote: decoded, and as written.
type Msg struct {
	M   map[string]any
	Raw string
}

// Str is field k as a string ("" if not one).
func (m Msg) Str(k string) string { s, _ := m.M[k].(string); return s }

// Num is field k as a number (-1 if not one).
func (m Msg) Num(k string) float64 {
	if f, ok := m.M[k].(float64); ok {
		return f
	}
	return -1
}

// Obj is field k as an object (nil if not one).
func (m Msg) Obj(k string) map[string]any { o, _ := m.M[k].(map[string]any); return o }

// Lines reads r's JSON lines into a channel, closed at the end of r. A
// line that is not a JSON object fails the test.
func Lines(t testing.TB, r io.Reader) <-chan Msg {
	ch := make(chan Msg, 256)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("a line is not a JSON object: %q", sc.Text())
				continue
			}
			ch <- Msg{M: m, Raw: sc.Text()}
		}
	}()
	return ch
}

// Wait is how long Next waits for a line: a bound on a hang, not a timing
// assertion.
const Wait = 20 * time.Second

// Next is the next line from ch; it fails the test at the end of ch or
// after Wait.
func Next(t testing.TB, ch <-chan Msg) Msg {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended")
		}
		return m
	case <-time.After(Wait):
		t.Fatal("no line within the wait")
	}
	return Msg{}
}
