package headless

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/atomicfile"
	"github.com/heimdall-tui/heimdall-tui/wire/jsonl"
)

// eventLog is a session's durable log: DIR/ID.jsonl, one Event (JSON, with
// its seq) a line, appended; DIR/ID.usage.json, its Usage, replaced by
// rename after every turn. IDs are escaped into file names (fileName).
type eventLog struct {
	f         *os.File
	usagePath string
}

// fileName escapes a session id into a file name: bytes other than
// letters, digits, '-', '_' and a '.' not in front become %XX.
func fileName(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' && i > 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func logPaths(dir, id string) (events, usage string) {
	n := fileName(id)
	return filepath.Join(dir, n+".jsonl"), filepath.Join(dir, n+".usage.json")
}

// openLog opens id's log in dir. With resume, what is there is kept: the
// last ringSize events and the usage come back; without, both start anew.
func openLog(dir, id string, resume bool, ringSize, maxLine int) (*eventLog, []Event, Usage, error) {
	var u Usage
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, u, err
	}
	events, usage := logPaths(dir, id)
	var tail []Event
	if resume {
		var err error
		if tail, err = readTail(events, ringSize, maxLine); err != nil {
			return nil, nil, u, err
		}
		if b, err := os.ReadFile(usage); err == nil {
			if err := json.Unmarshal(b, &u); err != nil {
				return nil, nil, u, fmt.Errorf("%s: %w", usage, err)
			}
		}
	} else {
		os.Remove(usage)
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if !resume {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(events, flags, 0o600)
	if err != nil {
		return nil, nil, u, err
	}
	return &eventLog{f: f, usagePath: usage}, tail, u, nil
}

// readTail reads the last n events of a log (none if it does not exist).
// A torn last line (a crash mid-write) is skipped.
func readTail(path string, n, maxLine int) ([]Event, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := newRing(n)
	jr := jsonl.NewReader(f, maxLine+1024)
	for {
		line, err := jr.ReadLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var ev Event
		if json.Unmarshal(line, &ev) != nil || ev.Seq == 0 {
			continue
		}
		ev.Raw = append(json.RawMessage(nil), ev.Raw...)
		r.push(ev)
	}
	return r.after(0), nil
}

func (l *eventLog) append(ev Event) {
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	l.f.Write(append(b, '\n'))
}

func (l *eventLog) saveUsage(u Usage) {
	b, err := json.Marshal(u)
	if err != nil {
		return
	}
	atomicfile.Write(l.usagePath, b, 0o600)
}

func (l *eventLog) close() { l.f.Close() }

func removeLog(dir, id string) {
	events, usage := logPaths(dir, id)
	os.Remove(events)
	os.Remove(usage)
}
