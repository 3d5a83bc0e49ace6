// Package usage reads the tokens an agent reports using: Claude Code's
// transcript (the JSONL file its hooks name as transcript_path), summed
// per day and model, and what a price table makes of them.
package usage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Bounds on what a transcript may cost its reader.
const (
	// MaxLine is the longest line read; a longer one (a tool's huge
	// result) is skipped: assistant lines with usage are short.
	MaxLine = 4 << 20
	// MaxRead is what one Read reads at most; the rest waits for the
	// next.
	MaxRead = 64 << 20
	// maxSeen bounds the message ids remembered to count each message
	// once (Claude writes a line per content block, each carrying the
	// message's usage, one after the other).
	maxSeen = 4096
	// maxRows bounds the day × model rows kept.
	maxRows = 4096
)

// Transcript follows one agent's transcript files as they grow (a /clear
// starts a new file: Follow it; earlier files' tokens stay counted). It
// is not safe for concurrent use.
type Transcript struct {
	path string
	off  int64
	seen map[string]bool
	rows map[[2]string]session.Tokens
	loc  *time.Location // days are this zone's (time.Local)
	// last is the context of the last message counted: what the next
	// request re-sends, and its model.
	last      int64
	lastModel string
}

// New returns a Transcript following nothing yet; days are loc's
// (nil: time.Local).
func New(loc *time.Location) *Transcript {
	if loc == nil {
		loc = time.Local
	}
	return &Transcript{seen: map[string]bool{}, rows: map[[2]string]session.Tokens{}, loc: loc}
}

// Follow makes path the transcript read from now on, from its start if
// it is another file than the one followed. It must be absolute.
func (t *Transcript) Follow(path string) error {
	if path == t.path {
		return nil
	}
	if !filepath.IsAbs(path) {
		return fmt.Errorf("transcript path %q is not absolute", path)
	}
	t.path, t.off = path, 0
	return nil
}

// line is what an assistant line of a transcript says of its usage.
type line struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	RequestID string    `json:"requestId"`
	Message   struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage *struct {
			Input      int64 `json:"input_tokens"`
			Output     int64 `json:"output_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// Read reads what the transcript gained since the last Read (complete
// lines only, at most MaxRead) and reports whether the usage changed. A
// missing file is no error (the agent has not written it yet); one that
// is not a regular file is.
func (t *Transcript) Read() (changed bool, err error) {
	if t.path == "" {
		return false, nil
	}
	f, err := os.Open(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("transcript %s is not a regular file", t.path)
	}
	if fi.Size() < t.off { // rewritten: read it again (what was counted stays)
		t.off = 0
	}
	if _, err := f.Seek(t.off, io.SeekStart); err != nil {
		return false, err
	}
	r := bufio.NewReaderSize(io.LimitReader(f, MaxRead), 64<<10)
	var long bool // in the rest of a line over MaxLine
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		complete := err == nil
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			break // EOF (or the read bound): an incomplete line waits
		}
		t.off += int64(len(chunk))
		switch {
		case long:
		case len(buf)+len(chunk) > MaxLine:
			long, buf = true, buf[:0]
		default:
			buf = append(buf, chunk...)
		}
		if !complete {
			continue
		}
		if !long && t.add(buf) {
			changed = true
		}
		long, buf = false, buf[:0]
	}
	// An incomplete last line is read again next time (the rest of an
	// over-long one is skipped: it does not parse).
	t.off -= int64(len(buf))
	return changed, nil
}

// add counts one line's usage, once per message; it reports whether it
// counted anything.
func (t *Transcript) add(b []byte) bool {
	if !bytes.Contains(b, []byte(`"usage"`)) {
		return false
	}
	var l line
	if json.Unmarshal(b, &l) != nil || l.Type != "assistant" || l.Message.Usage == nil {
		return false
	}
	if key := l.Message.ID + "\x00" + l.RequestID; l.Message.ID != "" {
		if t.seen[key] {
			return false
		}
		if len(t.seen) >= maxSeen {
			clear(t.seen) // old messages do not come again
		}
		t.seen[key] = true
	}
	u := l.Message.Usage
	if u.Input < 0 || u.Output < 0 || u.CacheWrite < 0 || u.CacheRead < 0 {
		return false
	}
	at := l.Timestamp
	if at.IsZero() {
		at = time.Now()
	}
	k := [2]string{at.In(t.loc).Format(time.DateOnly), strings.TrimSpace(l.Message.Model)}
	if _, ok := t.rows[k]; !ok && len(t.rows) >= maxRows {
		return false
	}
	t.rows[k] = t.rows[k].Add(session.Tokens{Input: u.Input, Output: u.Output, CacheWrite: u.CacheWrite, CacheRead: u.CacheRead})
	t.last, t.lastModel = u.Input+u.Output+u.CacheWrite+u.CacheRead, k[1]
	return true
}

// Usage is what was counted, ordered by day then model.
func (t *Transcript) Usage() session.Usage {
	out := make(session.Usage, 0, len(t.rows))
	for k, v := range t.rows {
		out = append(out, session.UsageRow{Day: k[0], Model: k[1], Tokens: v})
	}
	slices.SortFunc(out, func(a, b session.UsageRow) int {
		if c := strings.Compare(a.Day, b.Day); c != 0 {
			return c
		}
		return strings.Compare(a.Model, b.Model)
	})
	return out
}

// Context is the last message's context (its input, cache and output
// tokens: what going on re-sends) and its model; 0 before any.
func (t *Transcript) Context() (int64, string) { return t.last, t.lastModel }
