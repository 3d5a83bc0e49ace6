package planning

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWatch(t *testing.T) {
	base := t.TempDir()
	s := Open(filepath.Join(base, "work", ".planning"))
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan Changes, 64)
	done := make(chan error, 1)
	go func() { done <- s.Watch(ctx, 100*time.Millisecond, func(c Changes) { got <- c }) }()
	defer func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Watch: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Watch did not return after cancel")
		}
	}()
	// waitFor waits (bounded) for a report that includes k, doing act
	// again every half second: the watcher may not be in place yet.
	waitFor := func(k FileKind, act func()) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		retry := time.NewTicker(500 * time.Millisecond)
		defer retry.Stop()
		act()
		for {
			select {
			case c := <-got:
				if c.Has(k) {
					return
				}
			case <-retry.C:
				act()
			case <-deadline:
				t.Fatalf("no %v change reported", k)
			}
		}
	}
	// The root does not exist yet: its creation is seen from the parent.
	must(t, os.MkdirAll(filepath.Join(base, "work"), 0o755))
	waitFor(KindSymbols, func() { must(t, s.Init()) })
	waitFor(KindBlackboard, func() { must(t, s.Blackboard().Set("dev_port", "5173")) })
	waitFor(KindLedger, func() { must(t, s.Ledger().Log(LedgerEntry{Role: "r", Kind: "k", Tokens: 1})) })
	waitFor(KindCapsule, func() { must(t, s.Capsules().Write(Capsule{ID: "w1", What: "x"})) })
	waitFor(KindBaselines, func() { must(t, s.Ledger().SetBaseline("r", 10)) })
	// A burst is coalesced: 50 appends are far fewer reports.
	for len(got) > 0 {
		<-got
	}
	for i := 0; i < 50; i++ {
		must(t, s.Ledger().Log(LedgerEntry{Role: "r", Kind: "k", Tokens: 1}))
	}
	n := 0
	quiet := time.After(time.Second)
loop:
	for {
		select {
		case c := <-got:
			if !c.Has(KindLedger) && !c.Has(KindLog) {
				t.Errorf("unexpected report %v", c)
			}
			n++
		case <-quiet:
			break loop
		}
	}
	if n == 0 || n >= 25 {
		t.Errorf("50 appends gave %d reports", n)
	}
}

func TestChangesString(t *testing.T) {
	c := Changes(1<<KindLedger | 1<<KindBlackboard)
	if c.String() != "blackboard,ledger" || !c.Has(KindLedger) || c.Has(KindLog) {
		t.Errorf("Changes = %v", c)
	}
}

// The tree appearing all at once (mkdir -p, then writes) right as the
// watch starts, many times: the watch always catches up.
func TestWatchRootRace(t *testing.T) {
	for i := 0; i < 20; i++ {
		base := t.TempDir()
		s := Open(filepath.Join(base, "a", "b", ".planning"))
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan Changes, 16)
		done := make(chan error, 1)
		go func() { done <- s.Watch(ctx, 10*time.Millisecond, func(c Changes) { got <- c }) }()
		must(t, s.Init()) // races the watch's start
		// A later write must be seen, whatever the interleaving was.
		deadline := time.After(10 * time.Second)
		seen := false
		for !seen {
			must(t, s.Blackboard().Set("k", "v"))
			select {
			case c := <-got:
				seen = c.Has(KindBlackboard)
			case <-time.After(200 * time.Millisecond):
			case <-deadline:
				t.Fatalf("round %d: no change reported", i)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
