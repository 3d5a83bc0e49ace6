package capsules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/internal/shapetest"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

const closure = `---
id: w1
depends: 
ts: 2026-11-22T12:00:00Z
---
WHAT: added LOB engine
WHERE: F12
GOTCHA: seed must be fixed
---
id: w2
depends: w1
ts: 2026-11-22T12:05:00Z
---
WHAT: added book diff
WHERE: F13`

func browser() *Browser {
	b := New(keys.Default())
	b.SetList([]string{"w1", "w2", "w3"})
	b.Update(keys.Press("j"))
	b.SetShown("w2", closure, nil)
	return b
}

func TestMovingAsksForTheClosure(t *testing.T) {
	b := New(keys.Default())
	b.SetList([]string{"w1", "w2"})
	if act := b.Update(keys.Press("down")); act != (Show{ID: "w2"}) {
		t.Fatalf("down = %#v", act)
	}
	if act := b.Update(keys.Press("down")); act != nil {
		t.Fatalf("down at the end = %#v", act)
	}
	if act := b.Update(keys.Press("esc")); act != (Close{}) {
		t.Fatalf("esc = %#v", act)
	}
	b.SetList([]string{"w0", "w1", "w2"}) // a new capsule: the selection stays on w2
	if b.Selected() != "w2" {
		t.Fatalf("selected %q", b.Selected())
	}
}

func TestGolden(t *testing.T) {
	for _, p := range []themes.Palette{themes.Dark(), themes.Light()} {
		for _, w := range []int{60, 80, 120, 200} {
			t.Run(fmt.Sprintf("%s/w%d", p.Name, w), func(t *testing.T) {
				golden.RequireEqual(t, []byte(browser().View(themes.Build(p, false), w, 18)))
			})
		}
	}
}

func TestShape(t *testing.T) {
	st := themes.Build(themes.Dark(), false)
	for w := 1; w <= 200; w += 9 {
		for h := 1; h <= 60; h += 7 {
			shapetest.Check(t, browser().View(st, w, h), w, h)
		}
	}
}

func TestEnterAndScroll(t *testing.T) {
	b := browser()
	if act := b.Update(keys.Press("enter")); act != (Show{ID: "w2"}) {
		t.Fatalf("enter = %#v", act)
	}
	st := themes.Build(themes.Dark(), false)
	before := ansi.Strip(b.View(st, 120, 6))
	b.Update(keys.Press("pgdown"))
	after := ansi.Strip(b.View(st, 120, 6))
	if before == after || !strings.Contains(after, "WHERE: F13") && !strings.Contains(after, "depends: w1") {
		t.Fatalf("pgdown did not scroll the closure:\n%s\n--\n%s", before, after)
	}
	b.Update(keys.Press("pgup"))
	if again := ansi.Strip(b.View(st, 120, 6)); again != before {
		t.Fatalf("pgup did not scroll back:\n%s\n--\n%s", before, again)
	}
}

// Closures may arrive out of order: one for a capsule no longer selected
// does not replace what the selection shows.
func TestLateClosureIsDropped(t *testing.T) {
	b := browser() // w2 selected and shown
	b.Update(keys.Press("j"))
	b.SetShown("w3", "w3 text", nil)
	b.SetShown("w2", "stale w2 text", nil) // w2's second lookup, late
	out := b.View(themes.Build(themes.Dark(), true), 80, 12)
	if !strings.Contains(out, "w3 text") || strings.Contains(out, "stale") {
		t.Fatalf("view after a late closure:\n%s", out)
	}
}
