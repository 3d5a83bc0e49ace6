package transcript

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
)

var (
	dark  = themes.Build(themes.Dark(), false)
	light = themes.Build(themes.Light(), false)
	mono  = themes.Build(themes.Dark(), true)
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// fixture has every role, a long entry that wraps, a multi-line entry, a
// wide-character entry, control characters and an unknown role.
func fixture() []session.Entry {
	es := []session.Entry{
		{Role: session.RoleSystem, Text: "session started: claude -p --output-format stream-json"},
		{Role: session.RoleUser, Text: "fix the crop edge in tui/pane and add a golden test for it"},
		{Role: session.RoleAssistant, Text: "I'll read the renderer first, then change the crop so the cursor stays inside the pane when it is narrower than the screen."},
		{Role: session.RoleTool, Text: "Read tui/pane/render.go\n(324 lines)"},
		{Role: session.RoleAssistant, Text: "日本語のテキストも折り返します。 done\twith tabs"},
		{Role: session.RoleTool, Text: "evil \x1b[2J escape\x07"},
		{Role: "critic", Text: "looks fine"},
	}
	for i := range es {
		es[i].Seq = uint64(i + 1)
		es[i].Time = t0.Add(time.Duration(i) * time.Second)
	}
	return es
}

func TestGolden(t *testing.T) {
	for _, th := range []struct {
		name string
		st   *themes.Styles
	}{{"dark", dark}, {"light", light}, {"mono", mono}} {
		// 20 is a narrow grid pane (short markers), 38 and 78 the preview
		// beside the list at 80 and 120 columns, 118 a zoomed pane.
		for _, w := range []int{20, 38, 78, 118} {
			t.Run(fmt.Sprintf("%s/w%d", th.name, w), func(t *testing.T) {
				out := View(th.st, fixture(), w, 12)
				shapetest.Check(t, out, w, 12)
				golden.RequireEqual(t, out)
			})
		}
	}
	t.Run("empty", func(t *testing.T) {
		out := View(dark, nil, 30, 3)
		shapetest.Check(t, out, 30, 3)
		golden.RequireEqual(t, out)
	})
}

func TestNewestAtBottom(t *testing.T) {
	es := fixture()
	lines := strings.Split(ansi.Strip(View(dark, es, 40, 4)), "\n")
	if got := strings.TrimSpace(lines[3]); got != "crit… looks fine" {
		t.Errorf("last line %q, want the newest entry", got)
	}
	// When everything fits, the oldest entry is at the top.
	lines = strings.Split(ansi.Strip(View(dark, es[:2], 80, 6)), "\n")
	if !strings.HasPrefix(lines[0], "sys   session started") || !strings.HasPrefix(lines[1], "you   fix the crop") {
		t.Errorf("short transcript:\n%s", strings.Join(lines, "\n"))
	}
	if strings.TrimSpace(lines[5]) != "" {
		t.Errorf("short transcript not top-aligned: %q", lines[5])
	}
}

func TestSanitizesAndWraps(t *testing.T) {
	out := ansi.Strip(View(dark, fixture(), 40, 30))
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\x07") {
		t.Errorf("control characters from the transcript reached the output:\n%q", out)
	}
	if !strings.Contains(out, "evil ?[2J escape?") {
		t.Errorf("control characters not shown as ?:\n%s", out)
	}
	if !strings.Contains(out, "agent I'll read the renderer first, then\n      change") {
		t.Errorf("wrapped lines are not indented under the gutter:\n%s", out)
	}
}

// Every size, including degenerate ones, gives exactly w×h cells.
func TestShape(t *testing.T) {
	es := fixture()
	for w := 0; w <= 50; w++ {
		for _, h := range []int{0, 1, 2, 5, 13} {
			out := View(dark, es, w, h)
			if w == 0 {
				if strings.Trim(out, "\n") != "" || strings.Count(out, "\n") != max(h-1, 0) {
					t.Fatalf("w=0 h=%d: %q", h, out)
				}
				continue
			}
			shapetest.Check(t, out, w, h)
		}
	}
}

func BenchmarkView1000Entries(b *testing.B) {
	var es []session.Entry
	for i := range 1000 {
		es = append(es, session.Entry{Seq: uint64(i + 1), Role: session.RoleAssistant,
			Text: strings.Repeat("some words of an answer ", 20)})
	}
	for b.Loop() {
		View(dark, es, 80, 40)
	}
}
