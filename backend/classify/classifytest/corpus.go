// Package classifytest reads the classifier corpus (backend/classify/testdata)
// for the tests that replay it: through the terminal emulator in-process at
// every width and style (classify), and as pty recordings (supervisor). Draw
// turns a case into the bytes a program would write — laid out at a width,
// plain or coloured with SGR as Claude Code colours its screen — and Replay
// feeds them to backend/vt, so the rules are checked on what a terminal
// shows, wrapped rows included.
package classifytest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A Case is one file DIR/<profile>/<name>.txt:
//
//	# expect: <Idle|Thinking|Streaming|ToolUse|NeedsInput>
//	# cols: <width the rows were drawn at>      (optional)
//	# free comment lines
//	=== title: <window title>
//	<screen rows>
//	=== title: <next screen, 100 ms later>
//	...
//
// Expect is the state after the last frame. Rows are plain text: the tests
// replay every case at each of Widths, plain and coloured (see Draw), so
// a case is written once and checked as a real terminal would show it.
type Case struct {
	Profile, Name, Expect string
	// Cols is the width the rows were drawn at (0: unknown). A row exactly
	// that wide is full-width — a rule, a box, a footer spread across the
	// terminal — and is redrawn at the replay width (see Layout).
	Cols   int
	Frames []Frame
}

// Frame is one screen: its window title and rows (trailing spaces trimmed).
type Frame struct {
	Title string
	Rows  []string
}

// Load reads every case under dir (dir/*/*.txt).
func Load(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no corpus under %s", dir)
	}
	cs := make([]Case, 0, len(files))
	for _, f := range files {
		c, err := parse(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		cs = append(cs, c)
	}
	return cs, nil
}

func parse(path string) (Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Case{}, err
	}
	c := Case{
		Profile: filepath.Base(filepath.Dir(path)),
		Name:    strings.TrimSuffix(filepath.Base(path), ".txt"),
	}
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		line = strings.TrimRight(line, " ")
		switch {
		case len(c.Frames) == 0 && strings.HasPrefix(line, "# expect: "):
			c.Expect = strings.TrimPrefix(line, "# expect: ")
		case len(c.Frames) == 0 && strings.HasPrefix(line, "# cols: "):
			n, err := strconv.Atoi(strings.TrimPrefix(line, "# cols: "))
			if err != nil || n < 20 {
				return c, fmt.Errorf("bad %q", line)
			}
			c.Cols = n
		case len(c.Frames) == 0 && strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "=== title:"):
			c.Frames = append(c.Frames, Frame{Title: strings.TrimSpace(strings.TrimPrefix(line, "=== title:"))})
		case len(c.Frames) == 0:
			return c, fmt.Errorf("row %q before the first === title line", line)
		default:
			fr := &c.Frames[len(c.Frames)-1]
			fr.Rows = append(fr.Rows, line)
		}
	}
	if c.Expect == "" || len(c.Frames) == 0 {
		return c, fmt.Errorf("missing '# expect:' header, or no screen")
	}
	if c.Cols > 0 {
		for i, fr := range c.Frames {
			for _, r := range fr.Rows {
				if w := width(r); w > c.Cols {
					return c, fmt.Errorf("frame %d: row %q is %d wide, more than the %d columns it was drawn at", i+1, r, w, c.Cols)
				}
			}
		}
	}
	return c, nil
}
