package planning

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// The dashboard's view of the planning tree: a change made through another
// Store (another process) is reported by NextChange, and an edit made from
// a stale read is refused as a conflict, not written over the other change.
func TestLive(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".planning")
	mine, theirs := Open(root), Open(root)
	if err := mine.Init(); err != nil {
		t.Fatal(err)
	}
	l := NewLive(mine)
	defer l.Close()

	f, err := l.Facts()
	if err != nil {
		t.Fatal(err)
	}
	// Wait for the blackboard change to be reported, writing it again now
	// and then: the watcher may not be in place at the first write.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := theirs.Blackboard().Set("port", "5433"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		c, err := l.NextChange(ctx)
		cancel()
		if err == nil && c.Has(KindBlackboard) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no blackboard change reported (last %v, %v)", c, err)
		}
	}
	if _, err := l.SetFact("port", "5432", f.Version); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale edit: err = %v, want a conflict", err)
	}
	if v, _ := theirs.Blackboard().Get("port"); v != "5433" {
		t.Fatalf("the other process's value was overwritten: %q", v)
	}
	f, _ = l.Facts()
	if _, err := l.SetFact("port", "5432", f.Version); err != nil {
		t.Fatalf("edit from a fresh read: %v", err)
	}

	// Ledger appends are reported too, and the report shows them.
	if err := theirs.Ledger().Log(LedgerEntry{Role: "orchestration", Kind: "brief", Tokens: 120}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		c, err := l.NextChange(ctx)
		if err != nil {
			t.Fatalf("no ledger change reported: %v", err)
		}
		if c.Has(KindLedger) {
			break
		}
	}
	r, err := l.LedgerReport(5)
	if err != nil || r.Total != 120 {
		t.Fatalf("report = %+v, %v", r, err)
	}
}
