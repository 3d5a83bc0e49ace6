package planning

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/heimdall-tui/heimdall-tui/backend/planning/planfile"
)

// Log appends one line `ts<TAB>actor<TAB>action<TAB>detail` to protocol.log
// (tabs and newlines inside the fields become spaces).
func (s *Store) Log(actor, action, detail string) error {
	return appendLine(s.LogPath(), planfile.LogLine(s.timestamp(), actor, action, detail))
}

// Tail returns the last n complete lines of protocol.log (without their
// newlines), oldest first. It reads backwards from the end, so its cost
// does not grow with the log. A missing log is no lines.
func (s *Store) Tail(n int) ([]string, error) {
	return tailLines(s.LogPath(), n)
}

func tailLines(path string, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	// Read 64 KiB chunks backwards until they hold more than n newlines
	// (each chunk counted once), then join them once.
	const chunk = 64 << 10
	var chunks [][]byte // last chunk first
	pos, newlines := st.Size(), 0
	for pos > 0 && newlines <= n {
		size := min(int64(chunk), pos)
		pos -= size
		b := make([]byte, size)
		if _, err := f.ReadAt(b, pos); err != nil && err != io.EOF {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		chunks = append(chunks, b)
		newlines += bytes.Count(b, []byte("\n"))
	}
	slices.Reverse(chunks)
	buf := bytes.Join(chunks, nil)
	// Drop a last line still being written (no newline yet).
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i]
	} else {
		return nil, nil
	}
	lines := strings.Split(string(buf), "\n")
	if pos > 0 {
		lines = lines[1:] // the first may be a partial line
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}
