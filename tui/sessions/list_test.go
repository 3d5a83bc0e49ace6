package sessions

import (
	"slices"
	"testing"
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
