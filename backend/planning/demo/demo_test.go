package demo

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/tokens"
)

// The demo's figures are the tokenizer's counts of its texts, logged to
// the ledger and turned into a delta by the ledger's own code: recount
// them independently here.
func TestRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	res, err := Run(dir)
	must(t, err)
	d := planning.Open(dir)
	rep, err := d.Ledger().Report(100)
	must(t, err)
	if len(rep.Roles) != 1 || rep.Roles[0].Role != "orchestration" {
		t.Fatalf("roles = %+v", rep.Roles)
	}
	o := rep.Roles[0]
	if o.Tokens != res.V2() || o.Baseline != res.V1() || res.Delta != o.Delta() {
		t.Errorf("result %+v vs ledger %+v", res, o)
	}
	// 1 symbol table + 3 briefs + 3 results.
	kinds := map[string]int{}
	for _, e := range rep.Latest {
		kinds[e.Kind]++
	}
	if kinds["symbol_table"] != 1 || kinds["delta_brief"] != 3 || kinds["task_result"] != 3 || len(rep.Latest) != 7 {
		t.Errorf("ledger kinds = %v", kinds)
	}
	// Recount v2: the three briefs are what BuildBrief produces; the
	// results are the typed messages.
	var v2 int64
	table := ""
	for _, kv := range demoSymbols {
		table += kv[0] + "\t" + kv[1] + "\n"
	}
	n, _ := tokens.Count(table)
	v2 += int64(n)
	for _, task := range demoTasks {
		brief, err := d.BuildBrief(planning.BriefSpec{Task: task.id, Spec: task.spec, Symbols: task.symbols, Capsules: []string{"w1"}, Invariants: "INVARIANTS.md"})
		must(t, err)
		if strings.Contains(brief, "# PLAN") || strings.Contains(brief, "ACCEPTANCE CRITERIA") {
			t.Errorf("a v2 brief restates the plan:\n%s", brief)
		}
		a, _ := tokens.Count(brief)
		b, _ := tokens.Count(task.typed)
		v2 += int64(a + b)
	}
	if v2 != res.V2() {
		t.Errorf("v2 recounted %d, demo says %d", v2, res.V2())
	}
	if res.V1() <= res.V2() || res.V2() <= 0 {
		t.Errorf("v1 %d, v2 %d", res.V1(), res.V2())
	}
	lines := res.Lines()
	want0 := "v1 orchestration (briefing 3 spawns, verbatim): " + strconv.FormatInt(res.V1(), 10) + " tokens (baseline)"
	want2 := "measured delta: orchestration: " + strconv.FormatInt(res.V1(), 10) + " -> " + strconv.FormatInt(res.V2(), 10) + " tokens (" + strconv.Itoa(res.Delta.Percent()) + "%)"
	if lines[0] != want0 || lines[2] != want2 || !strings.HasPrefix(lines[1], "v2 orchestration (symbol table + 3 delta briefs + 3 typed results): ") {
		t.Errorf("lines = %q", lines)
	}
	// The demo refuses to run over an existing tree.
	if _, err := Run(dir); !errors.Is(err, planning.ErrInvalid) {
		t.Errorf("second run in the same dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "protocol", "capsules", "w1.md")); err != nil {
		t.Error(err)
	}
}

func TestKilo(t *testing.T) {
	for n, want := range map[int64]string{41000: "41k", 999: "999", 4230: "4.2k", 3109: "3.1k", 125000: "125k", 1000: "1k"} {
		if got := kilo(n); got != want {
			t.Errorf("kilo(%d) = %q, want %q", n, got, want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
