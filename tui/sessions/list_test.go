package sessions

import (
	"slices"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

func shownIDs(l *List) []string {
	var out []string
	for _, in := range l.Visible() {
		out = append(out, in.ID)
	}
	return out
}

// The list keeps its own filter, order, selection and scroll: the
// selection follows the session through re-sorting, filtering and reloads.
func TestList(t *testing.T) {
	l := NewList(func(int) int { return 3 })
	l.SetItems(fixture())
	if l.SelectedID() != "aider-1" || l.Offset() != 0 { // fixture sessions share a start time: by ID
		t.Fatalf("initial selection %q offset %d", l.SelectedID(), l.Offset())
	}
	l.Move(5)
	if l.SelectedID() != "refactor-the-entire-authentication-subsystem" || l.Offset() != 3 {
		t.Fatalf("after Move(5): %q offset %d", l.SelectedID(), l.Offset())
	}
	l.Move(100)
	if l.SelectedID() != "日本語-session" {
		t.Fatalf("Move clamps: %q", l.SelectedID())
	}
	if got := l.NextOrder(); got != SortName || l.SelectedID() != "日本語-session" {
		t.Fatalf("NextOrder: %v, selection %q", got, l.SelectedID())
	}
	l.SetFilter("CLAUDE")
	if got := shownIDs(l); !slices.Equal(got, []string{"claude-1", "claude-2", "refactor-the-entire-authentication-subsystem"}) {
		t.Fatalf("filter: %q", got)
	}
	if l.SelectedID() != "claude-1" {
		t.Fatalf("selection not moved to a shown session: %q", l.SelectedID())
	}
	if _, ok := l.Find("shell-1"); !ok {
		t.Fatal("Find misses a session the filter hides")
	}
	if l.Select("shell-1") {
		t.Fatal("Select picked a hidden session")
	}
	l.SelectWhenShown("new-1")
	l.SetFilter("")
	items := append(fixture(), fixture()[0])
	items[len(items)-1].ID = "new-1"
	l.SetItems(items)
	if l.SelectedID() != "new-1" {
		t.Fatalf("pending selection: %q", l.SelectedID())
	}
	l.SetTyping(true)
	if !l.Typing() {
		t.Fatal("typing")
	}
	if SortOrder(9).String() != "SortOrder(?)" || SortAttention.String() != "attention" {
		t.Fatal("SortOrder names")
	}
}

// The attention order puts what wants the user first (needs input, an
// error, done) and keeps the rest in start order whatever their state:
// sessions flipping between working and idle do not move.
func TestAttentionOrderStable(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	mk := func(id string, n int, st session.State) session.Info {
		return session.Info{ID: id, Alive: true, State: st, Started: t0.Add(time.Duration(n) * time.Minute)}
	}
	infos := []session.Info{mk("a", 1, session.Thinking), mk("b", 2, session.Idle), mk("c", 3, session.Thinking),
		mk("d", 4, session.Idle), mk("e", 5, session.Idle)}
	infos[3].NeedsInput = true
	infos[4].Error = "rate_limit"
	dead := mk("z", 0, session.Dead)
	dead.Alive = false
	infos = append(infos, dead)
	l := NewList(func(int) int { return 10 })
	l.SetOrder(SortAttention)
	l.SetItems(infos)
	want := []string{"d", "e", "a", "b", "c", "z"}
	if got := shownIDs(l); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	// a goes idle, b and c start working: nobody moves.
	infos[0].State, infos[1].State, infos[2].State = session.Idle, session.Thinking, session.Idle
	l.SetItems(infos)
	if got := shownIDs(l); !slices.Equal(got, want) {
		t.Fatalf("after flips: %v, want %v", got, want)
	}
}
