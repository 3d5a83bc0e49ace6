package ledger

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/backend/coord"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
)

func TestClaimsView(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	at := now.Add(-20 * time.Minute).Format(time.RFC3339)
	claims := []coord.Claim{
		{HAID: "haid:alice.box-1a2b/cursor", TaskRef: "T-9 [haid:alice.box-1a2b/cursor]", ClaimedSurfaces: []string{"src/a/**"}, ClaimedAt: at, Heartbeat: at, TTLMinutes: 60},
		{HAID: "haid:bob.box-3c4d", TaskRef: "T-1\x1b[31m", ClaimedSurfaces: []string{"docs/x.md", "lib/**"}, ClaimedAt: at, Heartbeat: at, TTLMinutes: 10},
	}
	st := themes.Build(themes.Dark(), false)
	out := ansi.Strip(ClaimsView(st, claims, now, 120, ClaimsHeight(len(claims))))
	lines := strings.Split(out, "\n")
	if len(lines) != 5 || !strings.Contains(lines[1], "Claims (2 active)") || !strings.Contains(lines[2], "OWNER") {
		t.Fatalf("view:\n%s", out)
	}
	if !strings.Contains(lines[3], "haid:alice.box-1a2b/cursor") || !strings.Contains(lines[3], " 40m ") || !strings.Contains(lines[3], "src/a/**") {
		t.Errorf("alice's line: %q", lines[3])
	}
	// An expired claim (the gate ignores it) shows 0m; agents' text is sanitized.
	if !strings.Contains(lines[4], " 0m ") || !strings.Contains(lines[4], "docs/x.md, lib/**") || strings.Contains(lines[4], "\x1b") {
		t.Errorf("bob's line: %q", lines[4])
	}
	for w := 1; w <= 200; w += 13 {
		for h := 1; h <= 8; h += 3 {
			shapetest.Check(t, ClaimsView(st, claims, now, w, h), w, h)
		}
	}
}

func TestDecisionsView(t *testing.T) {
	ds := []coord.Decision{
		{At: "2026-06-01T11:00:00Z", HAID: "haid:alice.box-1a2b/cursor", Title: "first"},
		{At: "2026-06-01T11:30:00Z", HAID: "haid:bob.box-3c4d", Title: "second\x1b[31m"},
		{At: "2026-06-01T12:00:00Z", HAID: "haid:bob.box-3c4d", Title: "third"},
	}
	st := themes.Build(themes.Dark(), false)
	// Room for two: the newest two are kept; agents' text is sanitized.
	out := ansi.Strip(DecisionsView(st, ds, 120, 4))
	lines := strings.Split(out, "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "Decisions (latest 2)") || !strings.Contains(lines[2], "second") ||
		!strings.Contains(lines[3], "third") || strings.Contains(out, "first") || strings.Contains(out, "\x1b") {
		t.Fatalf("view:\n%q", out)
	}
	for w := 1; w <= 200; w += 13 {
		for h := 1; h <= 8; h += 3 {
			shapetest.Check(t, DecisionsView(st, ds, w, h), w, h)
		}
	}
}
