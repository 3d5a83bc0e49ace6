package inbox

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

var now = time.Date(2026, 12, 7, 15, 0, 0, 0, time.UTC)

func items() []inbox.Item {
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	return []inbox.Item{
		{Session: "claude-api", Kind: inbox.Input, Reason: "Bash: rm -rf build && npm install --no-audit --prefer-offline", Since: ago(12 * time.Second)},
		{Session: "review", Kind: inbox.Input, Reason: "Which database should the service use? (1. PostgreSQL · 2. SQLite · 3. DynamoDB)", Since: ago(3 * time.Minute)},
		{Session: "docs", Kind: inbox.Done, Reason: "Updated the README and the changelog.", Since: ago(20 * time.Minute)},
		{Session: "migrate", Kind: inbox.Error, Reason: "rate_limit: 5-hour limit reached ∙ resets 3pm", Since: ago(2 * time.Hour)},
		{Session: "build", Kind: inbox.Done, Since: ago(50 * time.Hour)},
	}
}

const hint = "y allow · Y always · N deny · 1-9 option · t words · enter go to it"

func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name  string
		items []inbox.Item
		sel   int
	}{{"items", items(), 1}, {"empty", nil, 0}} {
		for _, size := range [][2]int{{120, 35}, {60, 20}, {60, 4}} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				out := View(themes.Build(themes.Dark(), false), c.items, c.sel, now, hint, size[0], size[1])
				if n := strings.Count(out, "\n") + 1; n != size[1] {
					t.Fatalf("%d lines, want %d", n, size[1])
				}
				for i, l := range strings.Split(out, "\n") {
					if w := ansi.StringWidth(l); w != size[0] {
						t.Fatalf("line %d is %d cells wide, want %d: %q", i, w, size[0], l)
					}
				}
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// The selected row is kept in view when the items do not fit.
func TestScroll(t *testing.T) {
	out := ansi.Strip(View(themes.Build(themes.Dark(), false), items(), 4, now, hint, 60, 4))
	if !strings.Contains(out, "▶  2d") || strings.Contains(out, "claude-api") {
		t.Fatalf("scrolled view:\n%s", out)
	}
}
