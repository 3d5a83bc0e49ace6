package planning

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// 8 processes × 1,000 operations (ledger log, blackboard set, resolve set
// in turn) on one planning root, in parallel: afterwards every ledger line
// and every protocol.log line is there exactly once and whole, and each
// worker's fact and symbol hold its complete history (see
// testdata/stress) — nothing lost, nothing torn. The child is built once, without -race (the race detector would
// only slow the processes; what is tested here is between processes).
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs 8 processes")
	}
	const workers, ops = 8, 1000
	bin := filepath.Join(t.TempDir(), "stress")
	build := exec.Command("go", "build", "-o", bin, "./testdata/stress")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build stress: %v\n%s", err, out)
	}
	root := filepath.Join(t.TempDir(), ".planning")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmds := make([]*exec.Cmd, workers)
	outs := make([]*bytes.Buffer, workers)
	for w := range cmds {
		c := exec.CommandContext(ctx, bin, strconv.Itoa(w), strconv.Itoa(ops))
		c.Env = append(os.Environ(), "HEIMDALL_PLANNING_DIR="+root)
		outs[w] = new(bytes.Buffer)
		c.Stdout, c.Stderr = outs[w], outs[w]
		c.WaitDelay = 5 * time.Second
		must(t, c.Start())
		cmds[w] = c
	}
	for w, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("worker %d: %v\n%s", w, err, outs[w])
		}
	}
	if t.Failed() {
		return
	}
	s := Open(root)

	// Ledger: one whole, parseable line per ledger op, each once.
	perWorker := (ops + 2) / 3
	seen := map[string]bool{}
	f, err := os.Open(s.LedgerPath())
	must(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e LedgerEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("torn ledger line %q: %v", sc.Text(), err)
		}
		if seen[e.MsgID] {
			t.Errorf("ledger line %s twice", e.MsgID)
		}
		seen[e.MsgID] = true
	}
	if len(seen) != workers*perWorker {
		t.Errorf("ledger has %d lines, want %d", len(seen), workers*perWorker)
	}
	rep, err := s.Ledger().Report(0)
	must(t, err)
	var wantSum int64
	for i := 0; i < ops; i += 3 {
		wantSum += int64(i)
	}
	for _, r := range rep.Roles {
		if r.Tokens != wantSum || r.Entries != perWorker {
			t.Errorf("role %s: %d tokens in %d entries, want %d in %d", r.Role, r.Tokens, r.Entries, wantSum, perWorker)
		}
	}

	// Blackboard and symbols: each worker's history is complete.
	facts, err := s.Blackboard().Load()
	must(t, err)
	syms, _, err := s.Symbols().Load()
	must(t, err)
	for w := 0; w < workers; w++ {
		var wantFacts, wantSyms strings.Builder
		for i := 0; i < ops; i++ {
			switch i % 3 {
			case 1:
				fmt.Fprintf(&wantFacts, " %d", i)
			case 2:
				fmt.Fprintf(&wantSyms, " %d", i)
			}
		}
		if got := facts.Facts[fmt.Sprintf("w%d", w)]; got != wantFacts.String() {
			t.Errorf("fact w%d lost updates: %d of %d entries", w, len(strings.Fields(got)), len(strings.Fields(wantFacts.String())))
		}
		if got := syms[fmt.Sprintf("S%d", w)]; got != wantSyms.String() {
			t.Errorf("symbol S%d lost updates: %d of %d entries", w, len(strings.Fields(got)), len(strings.Fields(wantSyms.String())))
		}
	}
	if len(facts.Facts) != workers || len(syms) != workers {
		t.Errorf("%d facts, %d symbols; want %d each", len(facts.Facts), len(syms), workers)
	}

	// protocol.log: one well-formed line per operation.
	b, err := os.ReadFile(s.LogPath())
	must(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != workers*ops {
		t.Errorf("protocol.log has %d lines, want %d", len(lines), workers*ops)
	}
	for _, l := range lines {
		if f := strings.Split(l, "\t"); len(f) != 4 {
			t.Fatalf("torn protocol.log line %q", l)
		}
	}

	// No temp file survived a rename.
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.Contains(filepath.Base(p), ".tmp-") {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}
