package ledger

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
)

// report is three roles: one 73% under its baseline, one over it, one
// without a baseline; and twelve recent entries.
func report() planning.LedgerReport {
	r := planning.LedgerReport{
		Roles: []planning.RoleReport{
			{Role: "coder", Tokens: 800, Entries: 3, Baseline: 600, HasBaseline: true},
			{Role: "orchestration", Tokens: 11250, Entries: 4, Baseline: 41000, HasBaseline: true},
			{Role: "review", Tokens: 250, Entries: 5},
		},
		Total: 12300, Entries: 12,
	}
	for i := range 12 {
		role := []string{"coder", "orchestration", "review"}[i%3]
		r.Latest = append(r.Latest, planning.LedgerEntry{TS: fmt.Sprintf("2026-11-22T12:%02d:07Z", i), Role: role,
			Kind: "delta_brief", Tokens: int64(100 * (i + 1)), MsgID: fmt.Sprintf("m%d", i)})
	}
	return r
}

// usageReport is report with its last two entries a headless session's
// turns, counted by the provider.
func usageReport() planning.LedgerReport {
	r := report()
	for i := range 2 {
		u := &planning.Usage{Input: 10, Output: 5, CacheRead: 100, CacheCreation: 7}
		r.Latest = append(r.Latest[1:], planning.LedgerEntry{TS: fmt.Sprintf("2026-11-22T12:2%d:07Z", i), Role: "claude-3f2a",
			Kind: "turn", Tokens: u.Sum(), Usage: u})
	}
	return r
}

func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		r    planning.LedgerReport
	}{{"report", report()}, {"empty", planning.LedgerReport{}}, {"usage", usageReport()}} {
		for _, p := range []themes.Palette{themes.Dark(), themes.Light()} {
			for _, w := range []int{60, 80, 120, 200} {
				t.Run(fmt.Sprintf("%s/%s/w%d", c.name, p.Name, w), func(t *testing.T) {
					out := View(themes.Build(p, false), c.r, "/work/app/.planning", w, 24)
					golden.RequireEqual(t, []byte(out))
				})
			}
		}
	}
}

func TestContent(t *testing.T) {
	out := ansi.Strip(View(themes.Build(themes.Dark(), false), report(), ".planning", 120, 30))
	for _, want := range []string{"orchestration", "11,250", "41,000", "-73%", "+33%", "│", "total 12,300 tokens in 12 entries", "12:11:07", "m11"} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	// The review role has no baseline: no delta, no baseline mark on its bar.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "review ") && strings.Contains(l, "│") {
			t.Errorf("review (no baseline) shows a baseline mark: %q", l)
		}
	}
	// Latest entries are cut oldest-first when they do not fit.
	small := ansi.Strip(View(themes.Build(themes.Dark(), false), report(), ".planning", 120, 12))
	if !strings.Contains(small, "m11") || strings.Contains(small, "m0 ") {
		t.Errorf("a short view should keep the newest entries:\n%s", small)
	}
}

// Rows the provider counted say so, with their usage; the title says what
// the others are.
func TestUsageRows(t *testing.T) {
	out := ansi.Strip(View(themes.Build(themes.Dark(), false), usageReport(), ".planning", 120, 30))
	for _, want := range []string{"Latest  (usage: the provider's count; the others by tokenizer)", "claude-3f2a", "usage in 10 out 5 cache 107"} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(ansi.Strip(View(themes.Build(themes.Dark(), false), report(), ".planning", 120, 30)), "by tokenizer") {
		t.Error("a ledger without provider rows explains them")
	}
}

func TestShape(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	for w := 1; w <= 200; w += 7 {
		for h := 1; h <= 60; h += 5 {
			shapetest.Check(t, View(st, report(), ".planning", w, h), w, h)
		}
	}
}

// One entry is "1 entry".
func TestOneEntry(t *testing.T) {
	r := planning.LedgerReport{Roles: []planning.RoleReport{{Role: "coder", Tokens: 80, Entries: 1}}, Total: 80, Entries: 1}
	if out := ansi.Strip(View(themes.Build(themes.Dark(), false), r, ".planning", 100, 20)); !strings.Contains(out, "in 1 entry") {
		t.Fatalf("%q", out)
	}
}
