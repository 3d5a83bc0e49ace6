package planning

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// startWatch runs s.Watch until the test ends (checking that it then
// returns nil, promptly) and returns its reports.
func startWatch(t *testing.T, s *Store, debounce time.Duration) <-chan Changes {
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan Changes, 64)
	done := make(chan error, 1)
	go func() { done <- s.Watch(ctx, debounce, func(c Changes) { got <- c }) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Watch: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Watch did not return after cancel")
		}
	})
	return got
}

// awaitChange does act, and again every half second (the watcher may not
// be in place yet), until a report from got includes k; bounded.
func awaitChange(t *testing.T, got <-chan Changes, k FileKind, act func()) {
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

func TestWatch(t *testing.T) {
	base := t.TempDir()
	s := Open(filepath.Join(base, "work", ".planning"))
	got := startWatch(t, s, 100*time.Millisecond)
	waitFor := func(k FileKind, act func()) { t.Helper(); awaitChange(t, got, k, act) }
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

// A tree that only the coordination ledger wrote (ledger/claims/, no
// protocol/ or capsules/) is watched all the same: the missing
// directories do not hide the ones that exist.
func TestWatchLedgerOnly(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), ".planning"))
	claims := filepath.Join(s.Root(), "ledger", "claims")
	must(t, os.MkdirAll(claims, 0o755))
	got := startWatch(t, s, 50*time.Millisecond)
	n := 0
	awaitChange(t, got, KindClaims, func() {
		n++
		tmp := filepath.Join(claims, ".tmp")
		must(t, os.WriteFile(tmp, []byte(`{}`), 0o644))
		must(t, os.Rename(tmp, filepath.Join(claims, fmt.Sprintf("haid_a%d.json", n))))
	})
	awaitChange(t, got, KindDecisions, func() {
		f, err := os.OpenFile(filepath.Join(s.Root(), "ledger", "decisions.md"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		must(t, err)
		fmt.Fprintln(f, "## decision")
		must(t, f.Close())
	})
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

// Only the state directories and their ancestors can change what is
// watched; a state file, a lock or temp file, a capsule are not re-checked.
func TestStructuralPaths(t *testing.T) {
	for _, root := range []string{"/r/w/.planning", ".planning", "../x/.planning"} {
		s := Open(root)
		got := s.structuralPaths()
		want := []string{root, s.ProtocolDir(), s.CapsuleDir(), filepath.Dir(root)}
		not := []string{s.BlackboardPath(), s.LedgerPath(), s.LogPath(), lockPath(s.BlackboardPath()),
			filepath.Join(root, ".blackboard.json.tmp-123"), filepath.Join(s.CapsuleDir(), "w1.md"),
			filepath.Join(filepath.Dir(root), "sibling")}
		for _, p := range want {
			if !got[filepath.Clean(p)] {
				t.Errorf("root %s: %s is not structural", root, p)
			}
		}
		for _, p := range not {
			if got[filepath.Clean(p)] {
				t.Errorf("root %s: %s is structural", root, p)
			}
		}
	}
	if got := Open("/r/w/.planning").structuralPaths(); !got["/"] || !got["/r"] || len(got) != 8 {
		t.Errorf("structural paths of /r/w/.planning = %v", got)
	}
}

// A state directory removed and created again is watched again.
func TestWatchDirRecreated(t *testing.T) {
	s := newStore(t)
	must(t, s.Init())
	got := startWatch(t, s, 10*time.Millisecond)
	awaitChange(t, got, KindLedger, func() { must(t, s.Ledger().Log(LedgerEntry{Role: "r", Kind: "k", Tokens: 1})) })
	// No capsule existed, so removing the tree reports no KindCapsule: one
	// can only come from the new capsules/ being watched.
	must(t, os.RemoveAll(s.ProtocolDir()))
	must(t, os.MkdirAll(s.CapsuleDir(), 0o755))
	awaitChange(t, got, KindCapsule, func() { must(t, s.Capsules().Write(Capsule{ID: "w1", What: "x"})) })
}
