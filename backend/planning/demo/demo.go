// Package demo runs the token-frugal protocol's demo: one wave counted as
// v1 and as v2 (`protocol demo`).
package demo

import (
	"embed"
	"fmt"
	"os"
	"strings"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/tokens"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/validate"
)

// The demo's wave: a plan, its acceptance criteria and the context of the
// previous wave (demodata/), which a v1 orchestrator restates into every
// brief, and the three tasks of the wave.
//
//go:embed demodata/*.md
var demoData embed.FS

type demoTask struct {
	id, spawn, spec string
	symbols         []string
	result          string // what a v1 spawn reports back, in prose
	typed           string // what a v2 spawn reports back: a task_result
}

var demoSymbols = [][2]string{
	{"F12", "src/matching/engine.ts"},
	{"F13", "src/matching/book-diff.ts"},
	{"F14", "src/feed/publisher.ts"},
	{"F15", "src/clearing/ledger.ts"},
	{"C1", "a book diff applied to the previous snapshot reproduces the next snapshot"},
	{"C2", "feed sequence numbers strictly increase with no gaps; snapshot every 1,000"},
	{"C3", "balances sum to zero"},
	{"C4", "replay with seed 42 is byte-identical"},
}

var demoTasks = []demoTask{
	{
		id: "3.1", spawn: "coder-1", spec: "implement the book diff in F13 against F12's book", symbols: []string{"F12", "F13", "C1"},
		result: "I implemented the book diff in src/matching/book-diff.ts. It compares the two sorted maps " +
			"of price levels on each side and emits added, changed and removed levels. I checked acceptance " +
			"criterion 1 (a book diff applied to the previous snapshot reproduces the next snapshot exactly) against " +
			"the 50,000-order fixture log and it holds for every event. Unit tests are in book-diff.test.ts; npm test " +
			"and npm run lint pass and coverage of src/matching is 93%. I used integer ticks throughout, no floats. " +
			"The work is committed as 5c1d2e9.",
		typed: `{"type":"task_result","from":"coder-1","msg_id":"r1","task":"3.1","status":"pass","criteria":[1,5,6],"commit":"5c1d2e9","capsule":"w2.1"}`,
	},
	{
		id: "3.2", spawn: "coder-2", spec: "publish diffs and trades on the feed in F14; snapshot cadence per C2", symbols: []string{"F13", "F14", "C2"},
		result: "I implemented the feed publisher in src/feed/publisher.ts. It serialises book diffs and trades " +
			"with strictly increasing sequence numbers and publishes a snapshot every 1,000 sequence numbers, which " +
			"satisfies acceptance criterion 2; I verified there are no gaps under the fixture log at full speed. " +
			"Replaying the fixture twice with seed 42 gives byte-identical output (criterion 4). Tests and lint pass. " +
			"The work is committed as 8a7b6c5.",
		typed: `{"type":"task_result","from":"coder-2","msg_id":"r2","task":"3.2","status":"pass","criteria":[2,4,5],"commit":"8a7b6c5"}`,
	},
	{
		id: "3.3", spawn: "coder-3", spec: "book every fill as two balanced postings in F15; keep C3 after every fill", symbols: []string{"F12", "F15", "C3"},
		result: "I implemented the clearing postings in src/clearing/ledger.ts: every fill is booked as two balanced " +
			"postings inside one transaction, so a crash mid-fill leaves the ledger unchanged. Balances sum to zero " +
			"across all clearing accounts after every fill in the fixture log (criterion 3). Unit and property tests " +
			"pass, lint passes. One part is left: the crash-recovery test is flaky on CI, so I mark this partial. " +
			"The work is committed as 3f4e5d6.",
		typed: `{"type":"task_result","from":"coder-3","msg_id":"r3","task":"3.3","status":"partial","criteria":[3,5],"commit":"3f4e5d6"}`,
	},
}

// Result is what one run of the demo measured.
type Result struct {
	// Delta is the ledger's own: v1's total as the orchestration baseline
	// against the sum of v2's logged costs.
	Delta planning.Delta
}

// V1 is v1's orchestration tokens (verbatim briefs and prose results).
func (r Result) V1() int64 { return r.Delta.Baseline }

// V2 is v2's orchestration tokens (symbol table, delta briefs, typed
// results), as the ledger summed them.
func (r Result) V2() int64 { return r.Delta.Measured }

// Lines are the demo's printed lines.
func (r Result) Lines() []string {
	return []string{
		fmt.Sprintf("v1 orchestration (briefing %d spawns, verbatim): %d tokens (baseline)", len(demoTasks), r.V1()),
		fmt.Sprintf("v2 orchestration (symbol table + %d delta briefs + %d typed results): %d tokens", len(demoTasks), len(demoTasks), r.V2()),
		"measured delta: " + r.Delta.Short(),
		fmt.Sprintf("%s: %s → %d tokens, measured.", r.Delta.Role, kilo(r.Delta.Baseline), r.Delta.Measured),
	}
}

// kilo writes n in thousands for the summary card: 41000 → "41k", 4230 → "4.2k".
func kilo(n int64) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	if n%1000 == 0 || n >= 100000 {
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
}

// Run runs one wave twice — v1, where the orchestrator restates the
// plan, criteria and prior context into each of the 3 briefs and gets
// prose back, and v2, with the symbol table, delta briefs (BuildBrief) and
// typed results (validated) — in a fresh planning tree at dir (which must
// be empty or missing). Every figure is counted with the tokenizer: v1's
// total becomes the orchestration baseline, v2's costs are logged to the
// ledger one message at a time, and the delta is the ledger's own Delta.
func Run(dir string) (Result, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return Result{}, planning.Invalid("demo directory %s is not empty", dir)
	}
	d := planning.Open(dir)
	if err := d.Init(); err != nil {
		return Result{}, err
	}
	read := func(name string) (string, error) {
		b, err := demoData.ReadFile("demodata/" + name)
		return string(b), err
	}
	plan, err := read("plan.md")
	if err != nil {
		return Result{}, err
	}
	criteria, err := read("criteria.md")
	if err != nil {
		return Result{}, err
	}
	prior, err := read("prior.md")
	if err != nil {
		return Result{}, err
	}
	count := func(s string) (int64, error) {
		n, err := tokens.Count(s)
		return int64(n), err
	}
	const role = "orchestration"

	// v1: verbatim briefs and prose results.
	var v1 int64
	for _, t := range demoTasks {
		brief := fmt.Sprintf("You are %s, a spawned coding agent.\n\n%s\n%s\n%s\n# YOUR TASK %s\n%s\nFiles: %s\n",
			t.spawn, plan, criteria, prior, t.id, t.spec, strings.Join(resolveAll(t.symbols), ", "))
		for _, text := range []string{brief, t.result} {
			n, err := count(text)
			if err != nil {
				return Result{}, err
			}
			v1 += n
		}
	}
	if err := d.Ledger().SetBaseline(role, v1); err != nil {
		return Result{}, err
	}

	// v2: the symbol table, written once; a capsule for wave 1; delta
	// briefs; typed, validated results.
	var table strings.Builder
	for _, kv := range demoSymbols {
		if err := d.Symbols().Set(kv[0], kv[1]); err != nil {
			return Result{}, err
		}
		table.WriteString(kv[0] + "\t" + kv[1] + "\n")
	}
	if err := d.Capsules().Write(planning.Capsule{ID: "w1", What: "order model, gateway normalisation, engine skeleton (inserts only)", Where: "F12", Gotcha: "seed the generator (42) or replays diverge; prices are integer ticks"}); err != nil {
		return Result{}, err
	}
	var v2 int64
	logCost := func(kind, msgID, text string) error {
		n, err := count(text)
		if err != nil {
			return err
		}
		v2 += n
		return d.Ledger().Log(planning.LedgerEntry{Role: role, Kind: kind, Tokens: n, MsgID: msgID})
	}
	if err := logCost("symbol_table", "s0", table.String()); err != nil {
		return Result{}, err
	}
	v, err := validate.Load(d)
	if err != nil {
		return Result{}, err
	}
	for i, t := range demoTasks {
		brief, err := d.BuildBrief(planning.BriefSpec{Task: t.id, Spec: t.spec, Symbols: t.symbols, Capsules: []string{"w1"}, Invariants: "INVARIANTS.md"})
		if err != nil {
			return Result{}, err
		}
		if err := logCost("delta_brief", fmt.Sprintf("b%d", i+1), brief); err != nil {
			return Result{}, err
		}
		res, err := validate.Message(d, v, []byte(t.typed))
		if err != nil {
			return Result{}, err
		}
		if !res.Valid {
			return Result{}, fmt.Errorf("demo result %s is not a valid message: %v", t.id, res.Errors)
		}
		if err := logCost("task_result", res.MsgID, t.typed); err != nil {
			return Result{}, err
		}
	}
	delta, err := d.Ledger().Delta(role)
	if err != nil {
		return Result{}, err
	}
	// The ledger's sums must be what was counted and logged.
	if delta.Baseline != v1 || delta.Measured != v2 {
		return Result{}, fmt.Errorf("demo: the ledger says %d -> %d tokens, the demo counted %d -> %d", delta.Baseline, delta.Measured, v1, v2)
	}
	return Result{Delta: delta}, nil
}

func resolveAll(ids []string) []string {
	var out []string
	for _, id := range ids {
		for _, kv := range demoSymbols {
			if kv[0] == id {
				out = append(out, kv[1])
			}
		}
	}
	return out
}
