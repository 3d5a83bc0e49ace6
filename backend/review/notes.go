package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/atomicfile"
)

// Note is a user's remark on one line of what an agent changed.
type Note struct {
	File  string `json:"file"`
	Line  int    `json:"line"`          // in the new file; in the old one for removed lines (Old)
	End   int    `json:"end,omitempty"` // the range's last line (0: the one line)
	Old   bool   `json:"old,omitempty"` // the lines were removed
	Quote string `json:"quote"`         // the lines as the diff showed them
	Text  string `json:"text"`
}

// Bounds on a session's notes.
const (
	MaxNotes    = 200
	MaxNoteText = 4 << 10
)

// LoadNotes reads the notes kept at path (none if there is no file).
func LoadNotes(path string) ([]Note, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ns []Note
	if err := json.Unmarshal(b, &ns); err != nil {
		return nil, fmt.Errorf("notes %s: %w", path, err)
	}
	return ns, nil
}

// SaveNotes keeps notes at path (0600, written whole), or removes the
// file when there are none. More than MaxNotes, or a note's text over
// MaxNoteText, is refused.
func SaveNotes(path string, notes []Note) error {
	if len(notes) > MaxNotes {
		return fmt.Errorf("%d notes: at most %d", len(notes), MaxNotes)
	}
	for _, n := range notes {
		if len(n.Text) > MaxNoteText || len(n.Quote) > MaxNoteText {
			return fmt.Errorf("a note of %d bytes: at most %d", len(n.Text), MaxNoteText)
		}
	}
	if len(notes) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(notes, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

// Prompt is notes as one prompt for the agent: a short header, then each
// note with its file and line and the line quoted.
func Prompt(notes []Note) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review notes on your changes (%d). Please address each one:\n", len(notes))
	for i, n := range notes {
		where := fmt.Sprintf("%s:%d", n.File, n.Line)
		if n.End > n.Line {
			where += fmt.Sprintf("-%d", n.End)
		}
		switch {
		case n.Old && n.End > n.Line:
			where += " (lines you removed)"
		case n.Old:
			where += " (a line you removed)"
		}
		var quote []string
		for _, l := range strings.Split(n.Quote, "\n") {
			quote = append(quote, "   > "+strings.TrimSpace(l))
		}
		fmt.Fprintf(&b, "\n%d. %s\n%s\n   %s\n", i+1, where, strings.Join(quote, "\n"), strings.ReplaceAll(strings.TrimSpace(n.Text), "\n", "\n   "))
	}
	return b.String()
}
