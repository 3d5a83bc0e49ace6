package ledger

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
)

func sessionUsage() []SessionUsage {
	row := func(day, model string, in, out, cw, cr int64) session.UsageRow {
		return session.UsageRow{Day: day, Model: model, Tokens: session.Tokens{Input: in, Output: out, CacheWrite: cw, CacheRead: cr}}
	}
	return []SessionUsage{
		{ID: "c1", Usage: session.Usage{row("2026-12-06", "claude-opus-4-6", 12000, 3400, 50000, 700000),
			row("2026-12-07", "claude-opus-4-6", 1200, 340, 5000, 70000)}},
		{ID: "reviewer", Usage: session.Usage{row("2026-12-07", "claude-haiku-4", 900, 120, 0, 3000)}},
	}
}

func TestUsageGolden(t *testing.T) {
	prices := config.Usage{Prices: map[string]config.Price{"claude-opus-4": {Input: 15, Output: 75, CacheWrite: 18.75, CacheRead: 1.5},
		"claude-haiku-4": {Input: 1, Output: 5, CacheWrite: 1.25, CacheRead: 0.1}}}
	for _, c := range []struct {
		name   string
		budget int64
		prices config.Usage
	}{{"tokens", 0, config.Usage{}}, {"priced", 80000, prices}} {
		for _, w := range []int{60, 120} {
			t.Run(fmt.Sprintf("%s/w%d", c.name, w), func(t *testing.T) {
				us := sessionUsage()
				h := UsageHeight(len(us), 2)
				out := UsageView(themes.Build(themes.Dark(), false), us, "2026-12-07", c.budget, c.prices, w, h)
				shapetest.Check(t, out, w, h)
				golden.RequireEqual(t, []byte(out))
				plain := ansi.Strip(out)
				if c.budget > 0 && !strings.Contains(plain, "budget spent") {
					t.Errorf("today's 80,560 tokens not shown over the 80,000 budget:\n%s", plain)
				}
				if c.prices.Prices == nil && strings.Contains(plain, ".") && w >= 120 {
					t.Errorf("a cost shown without prices:\n%s", plain)
				}
			})
		}
	}
}
