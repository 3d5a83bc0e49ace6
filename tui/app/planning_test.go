package app

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/coord"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// stubPlanning is a blackboard and ledger in memory, with a Version that
// changes on every write, as the real one does.
type stubPlanning struct {
	mu        sync.Mutex
	facts     map[string]string
	version   int
	report    planning.LedgerReport
	changes   chan planning.Changes
	claims    []coord.Claim
	decisions []coord.Decision
}

func newStubPlanning() *stubPlanning {
	return &stubPlanning{facts: map[string]string{"dev_port": "5173"}, changes: make(chan planning.Changes, 8),
		report: planning.LedgerReport{Roles: []planning.RoleReport{{Role: "orchestration", Tokens: 11250, Entries: 1,
			Baseline: 41000, HasBaseline: true}},
			Total: 11250, Entries: 1}}
}

func (p *stubPlanning) Root() string { return ".planning" }
func (p *stubPlanning) LedgerReport(int) (planning.LedgerReport, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.report, nil
}
func (p *stubPlanning) Facts() (planning.Facts, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := planning.Facts{Facts: map[string]string{}, Version: planning.Version(fmt.Sprint(p.version))}
	for k, v := range p.facts {
		f.Facts[k] = v
	}
	return f, nil
}

// external is a write by another process.
func (p *stubPlanning) external(key, value string) {
	p.mu.Lock()
	p.facts[key] = value
	p.version++
	p.mu.Unlock()
}

func (p *stubPlanning) SetFact(key, value string, expected planning.Version) (planning.Version, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cur := planning.Version(fmt.Sprint(p.version)); cur != expected {
		return cur, &planning.ConflictError{Path: "blackboard.json", Expected: expected, Actual: cur}
	}
	p.facts[key] = value
	p.version++
	return planning.Version(fmt.Sprint(p.version)), nil
}
func (p *stubPlanning) DeleteFact(key string, expected planning.Version) (planning.Version, error) {
	return "", nil
}
func (p *stubPlanning) CapsuleIDs() ([]string, error) { return []string{"w1", "w2"}, nil }
func (p *stubPlanning) Decisions(int) ([]coord.Decision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.decisions, nil
}
func (p *stubPlanning) Claims() ([]coord.Claim, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.claims, nil
}
func (p *stubPlanning) Hydrate(id string) (string, error) {
	return "WHAT: closure of " + id, nil
}
func (p *stubPlanning) NextChange(ctx context.Context) (planning.Changes, error) {
	select {
	case c := <-p.changes:
		return c, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// settle runs cmd and what its messages lead to, as the Bubble Tea loop
// would, skipping commands that wait (for events, or timers).
func settle(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0 && steps < 100; steps++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		select {
		case msg := <-ch:
			switch msg := msg.(type) {
			case nil:
			case tea.BatchMsg:
				queue = append(queue, msg...)
			default:
				_, next := m.Update(msg)
				queue = append(queue, next)
			}
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func pressSettled(m *Model, names ...string) {
	for _, n := range names {
		if text, ok := strings.CutPrefix(n, "type:"); ok {
			for _, r := range text {
				_, cmd := m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
				settle(m, cmd)
			}
			continue
		}
		_, cmd := m.Update(keys.Press(n))
		settle(m, cmd)
	}
}

func newPlanningModel(t *testing.T) (*Model, *stubPlanning) {
	p := newStubPlanning()
	m := New(Options{Backend: newStub(), Planning: p, Theme: themes.Dark(), Keys: keys.Default(), Now: func() time.Time { return t0 }})
	t.Cleanup(m.cancel)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	return m, p
}

func TestLedgerViewLiveReload(t *testing.T) {
	m, p := newPlanningModel(t)
	pressSettled(m, "L")
	if out := plain(m); !strings.Contains(out, "Token ledger") || !strings.Contains(out, "-73%") {
		t.Fatalf("L did not show the ledger:\n%s", out)
	}
	// Another process appends: the watcher reports it, the view reloads.
	p.mu.Lock()
	p.report.Total, p.report.Roles[0].Tokens = 20000, 20000
	p.mu.Unlock()
	settle(m, func() tea.Msg { return planningChangedMsg{changes: 1 << planning.KindLedger} })
	if !strings.Contains(plain(m), "20,000") {
		t.Fatalf("ledger not reloaded:\n%s", plain(m))
	}
	pressSettled(m, "B") // straight to the blackboard
	if !strings.Contains(plain(m), "dev_port") {
		t.Fatalf("B from the ledger:\n%s", plain(m))
	}
	pressSettled(m, "esc")
	if m.page != pageSessions {
		t.Fatal("esc did not close the blackboard")
	}
}

// An edit racing another process's write is not written over it: the user
// is told, keeps their value, and can save it deliberately.
func TestBlackboardEditConflict(t *testing.T) {
	m, p := newPlanningModel(t)
	pressSettled(m, "B", "e", "ctrl+u", "type:3000")
	p.external("dev_port", "9999")
	pressSettled(m, "enter")
	if got := p.facts["dev_port"]; got != "9999" {
		t.Fatalf("the racing edit overwrote the other write: %q", got)
	}
	out := plain(m)
	if !strings.Contains(out, "changed by another process") || !strings.Contains(out, "9999") {
		t.Fatalf("conflict not shown:\n%s", out)
	}
	pressSettled(m, "enter")
	if got := p.facts["dev_port"]; got != "3000" {
		t.Fatalf("deliberate save after the conflict: %q", got)
	}
	// A fact added from the dashboard is saved.
	pressSettled(m, "a", "type:region", "tab", "type:eu", "enter")
	if got := p.facts["region"]; got != "eu" {
		t.Fatalf("add: %q", got)
	}
	// While typing, global keys are text: q does not quit, L does not switch.
	pressSettled(m, "a", "type:qL")
	if m.quitting || m.page != pageBlackboard {
		t.Fatal("keys typed into a field acted as global keys")
	}
}

func TestCapsuleBrowser(t *testing.T) {
	m, _ := newPlanningModel(t)
	pressSettled(m, "C")
	if !strings.Contains(plain(m), "closure of w1") {
		t.Fatalf("C:\n%s", plain(m))
	}
	pressSettled(m, "j")
	if !strings.Contains(plain(m), "closure of w2") {
		t.Fatalf("j:\n%s", plain(m))
	}
}

// The ledger view lists the active claims under the token ledger, and
// reloads them when a claim file changes.
func TestLedgerViewClaims(t *testing.T) {
	m, p := newPlanningModel(t)
	pressSettled(m, "L")
	if strings.Contains(plain(m), "Claims (") {
		t.Fatalf("claims section without claims:\n%s", plain(m))
	}
	now := m.now().UTC().Format(time.RFC3339)
	p.mu.Lock()
	p.claims = []coord.Claim{{HAID: "haid:alice.box-1a2b/cursor", ClaimedSurfaces: []string{"src/a/**", "docs/x.md"},
		TaskRef: "T-9", ClaimedAt: now, Heartbeat: now, TTLMinutes: 45}}
	p.mu.Unlock()
	settle(m, func() tea.Msg { return planningChangedMsg{changes: 1 << planning.KindClaims} })
	out := plain(m)
	for _, want := range []string{"Token ledger", "Claims (1 active)", "haid:alice.box-1a2b/cursor", "T-9", "45m", "src/a/**, docs/x.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the ledger view:\n%s", want, out)
		}
	}
}

// Decisions appear under the ledger as they are appended (a change of
// decisions.md reloads the view), the newest kept when they do not fit.
func TestLedgerViewDecisions(t *testing.T) {
	m, p := newPlanningModel(t)
	pressSettled(m, "L")
	if strings.Contains(plain(m), "Decisions (") {
		t.Fatalf("decisions section without decisions:\n%s", plain(m))
	}
	p.mu.Lock()
	p.decisions = []coord.Decision{
		{At: "2026-11-25T06:00:00Z", HAID: "haid:alice.box-1a2b/cursor", Title: "use tables for the parser"},
		{At: "2026-11-25T06:05:00Z", HAID: "haid:bob.box-9f9f/claude-code", Title: "ship it"},
	}
	p.mu.Unlock()
	settle(m, func() tea.Msg { return planningChangedMsg{changes: 1 << planning.KindDecisions} })
	out := plain(m)
	for _, want := range []string{"Decisions (latest 2)", "haid:alice.box-1a2b/cursor  use tables for the parser", "2026-11-25T06:05:00Z  haid:bob.box-9f9f/claude-code  ship it"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the ledger view:\n%s", want, out)
		}
	}
}
