package main

// End-to-end tests of the token-frugal protocol commands: the real binary
// (built once by TestMain) driven the way the seed's examples drive the
// bash tools, against a temp HEIMDALL_PLANNING_DIR, with exact outputs and
// exit codes.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/demo"
)

// planEnv is one planning tree and a working directory to run commands in.
type planEnv struct {
	t        *testing.T
	root, wd string
}

func newPlanEnv(t *testing.T) *planEnv {
	t.Helper()
	wd := t.TempDir()
	return &planEnv{t: t, root: filepath.Join(wd, ".planning"), wd: wd}
}

// run runs prog (binPath, or a multi-call link) with args and stdin, in
// the env's working directory and planning root.
func (e *planEnv) runProg(prog, stdin string, args ...string) result {
	e.t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = e.wd
	cmd.Env = append(os.Environ(), "HEIMDALL_PLANNING_DIR="+e.root)
	cmd.Stdin = strings.NewReader(stdin)
	return runCmd(e.t, cmd)
}

func (e *planEnv) run(stdin string, args ...string) result {
	e.t.Helper()
	return e.runProg(binPath, stdin, args...)
}

// want runs args and checks the exit code and the exact stdout.
func (e *planEnv) want(code int, stdout string, args ...string) result {
	e.t.Helper()
	return e.wantIn("", code, stdout, args...)
}

func (e *planEnv) wantIn(stdin string, code int, stdout string, args ...string) result {
	e.t.Helper()
	r := e.run(stdin, args...)
	if r.code != code || r.stdout != stdout {
		e.t.Errorf("%q: got %s\nwant exit %d, stdout %q", args, r, code, stdout)
	}
	if code == 0 && r.stderr != "" {
		e.t.Errorf("%q: stderr on success: %q", args, r.stderr)
	}
	if code == 2 && r.stderr == "" {
		e.t.Errorf("%q: exit 2 without a message on stderr", args)
	}
	return r
}

func (e *planEnv) read(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

var logLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\t[^\t]+\t[^\t]+\t[^\t]*$`)

// The seed's examples, in its order, one command at a time.
func TestPlanningSeedExamples(t *testing.T) {
	t.Parallel()
	e := newPlanEnv(t)
	e.want(0, "initialized "+e.root+" (protocol 2.0.0)\n", "protocol", "init")
	if e.read("protocol/message-schema.json") != string(planning.MessageSchema()) {
		t.Error("protocol init did not install the message schema")
	}

	// Mechanism 1: typed messages.
	msg := `{"type":"task_result","from":"coder","msg_id":"m1","task":"3.2","status":"pass","criteria":[1,2],"commit":"a2ef507"}`
	e.wantIn(msg+"\n", 0, `{"valid":true,"errors":[]}`+"\n", "validate")
	e.wantIn(`{"type":"task_result","from":"coder","msg_id":"m2","task":"3.2","status":"done"}`, 1,
		`{"valid":false,"errors":["/status: value must be one of 'pass', 'fail', 'partial'"]}`+"\n", "validate")
	e.wantIn(`{"type":`, 1, `{"valid":false,"errors":["malformed JSON: unexpected EOF"]}`+"\n", "validate")

	// Mechanism 2: symbol table.
	e.want(0, "", "resolve", "set", "F12", "src/matching/engine.ts")
	e.want(0, "", "resolve", "set", "C3", "balances sum to zero")
	e.want(0, "src/matching/engine.ts\n", "resolve", "F12")
	e.want(0, "balances sum to zero\n", "resolve", "C3")
	e.want(0, "F12\n", "resolve", "--reverse", "src/matching/engine.ts")
	e.want(0, "C3\tbalances sum to zero\nF12\tsrc/matching/engine.ts\n", "resolve", "list")
	e.want(1, "", "resolve", "F99")
	e.want(1, "", "resolve", "--reverse", "nowhere")
	e.want(0, "", "resolve", "set", "NEG", "-5") // a value that looks like a flag
	e.want(0, "-5\n", "resolve", "NEG")

	// Mechanism 3: capsules.
	e.want(0, "", "capsule", "write", "w1", "--what", "added LOB engine", "--where", "F12", "--gotcha", "seed must be fixed")
	e.want(0, "", "capsule", "write", "w2", "--what", "added book diff", "--where", "F13", "--depends", "w1")
	e.want(0, "", "capsule", "write", "w3", "--what", "unrelated docs", "--where", "README")
	w1, w2 := e.read("protocol/capsules/w1.md"), e.read("protocol/capsules/w2.md")
	if !regexp.MustCompile(`^---\nid: w1\ndepends: \nts: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n---\nWHAT: added LOB engine\nWHERE: F12\nGOTCHA: seed must be fixed\n$`).MatchString(w1) {
		t.Errorf("w1.md =\n%s", w1)
	}
	if !regexp.MustCompile(`^---\nid: w2\ndepends: w1\nts: \S+\n---\nWHAT: added book diff\nWHERE: F13\n$`).MatchString(w2) {
		t.Errorf("w2.md =\n%s", w2)
	}
	e.want(0, w1+w2, "capsule", "hydrate", "w2") // w1 then w2 — not w3
	e.want(0, "w1\nw2\n", "capsule", "deps", "w2")
	e.want(0, "w1\nw2\nw3\n", "capsule", "list")
	r := e.want(2, "", "capsule", "write", "w9", "--what", "one\ntwo\nthree\nfour", "--where", "X", "--decision", "d", "--gotcha", "g")
	if !strings.Contains(r.stderr, "the cap is 10") {
		t.Errorf("over-cap message: %q", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.root, "protocol/capsules/w9.md")); err == nil {
		t.Error("an over-cap capsule was written")
	}

	// Mechanism 4: delta briefs — a planted PLAN-*.md never leaks.
	const planted = "PLANTED PLAN BODY: restated criteria and the whole plan"
	for _, p := range []string{filepath.Join(e.root, "PLAN-3.md"), filepath.Join(e.root, "protocol", "PLAN-all.md"), filepath.Join(e.wd, "PLAN-wd.md")} {
		if err := os.WriteFile(p, []byte(planted), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(e.wd, "INVARIANTS.md"), []byte("INVARIANT BODY"), 0o644); err != nil {
		t.Fatal(err)
	}
	brief := "TASK 3.2: implement book diff\nSYMBOLS:\nF12 = src/matching/engine.ts\nC3 = balances sum to zero\nCAPSULES:\n" + w1 + w2 +
		"INVARIANTS: see INVARIANTS.md (reference, not inlined)\n"
	r = e.want(0, brief, "brief", "build", "--task", "3.2", "--spec", "implement book diff", "--symbols", "F12,C3", "--capsules", "w2", "--invariants", "INVARIANTS.md")
	if strings.Contains(r.stdout, "PLANTED") || strings.Contains(r.stdout, "INVARIANT BODY") || strings.Contains(r.stdout, "unrelated") {
		t.Errorf("the brief leaks:\n%s", r.stdout)
	}

	// Mechanism 5: blackboard.
	e.want(0, "", "blackboard", "set", "dev_port", "5173")
	e.want(0, "", "blackboard", "set", "node_version", "20.11.0")
	e.want(0, "5173\n", "blackboard", "get", "dev_port")
	e.want(0, "dev_port\t5173\nnode_version\t20.11.0\n", "blackboard", "list")
	e.want(1, "", "blackboard", "get", "nope")
	e.want(0, "", "blackboard", "delete", "node_version")
	e.want(0, "dev_port\t5173\n", "blackboard", "list")
	if got := e.read("blackboard.json"); got != "{\n  \"version\": \"2.0.0\",\n  \"facts\": {\n    \"dev_port\": \"5173\"\n  }\n}\n" {
		t.Errorf("blackboard.json =\n%s", got)
	}

	// Mechanism 6: token ledger.
	e.want(0, "", "ledger", "log", "--role", "orchestration", "--kind", "delta_brief", "--tokens", "3300", "--msg-id", "b1")
	e.want(0, "", "ledger", "log", "--role", "orchestration", "--kind", "delta_brief", "--tokens", "7950")
	e.want(0, "", "ledger", "baseline", "--role", "orchestration", "--tokens", "41000")
	e.want(0, "orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)\n", "ledger", "delta", "--role", "orchestration")
	// Measured by the BPE: "hello world" is 2 o200k tokens (11 characters).
	e.want(0, "", "ledger", "log", "--role", "coder", "--kind", "task_result", "--text", "hello world", "--msg-id", "m1")
	if err := os.WriteFile(filepath.Join(e.wd, "result.txt"), []byte("Hello, world!"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.want(0, "", "ledger", "log", "--role", "coder", "--kind", "task_result", "--file", "result.txt")
	e.want(0, "coder\t6\norchestration\t11250\n", "ledger", "report")
	ledger := strings.Split(strings.TrimSuffix(e.read("protocol/ledger.jsonl"), "\n"), "\n")
	if len(ledger) != 4 || !regexp.MustCompile(`^\{"ts":"\S+Z","role":"orchestration","kind":"delta_brief","tokens":3300,"msg_id":"b1"\}$`).MatchString(ledger[0]) ||
		!regexp.MustCompile(`^\{"ts":"\S+Z","role":"coder","kind":"task_result","tokens":2,"msg_id":"m1"\}$`).MatchString(ledger[2]) {
		t.Errorf("ledger.jsonl = %q", ledger)
	}
	if got := e.read("protocol/baselines.json"); got != "{\n  \"version\": \"2.0.0\",\n  \"baselines\": {\n    \"orchestration\": 41000\n  }\n}\n" {
		t.Errorf("baselines.json =\n%s", got)
	}

	// Gate adapter: reference-only gate_report, schema-valid.
	reportDir := filepath.Join(e.wd, "evals", "oracles", "exchange-lob")
	os.MkdirAll(reportDir, 0o755)
	report := filepath.Join(reportDir, "report.json")
	os.WriteFile(report, []byte(`{"gate_id":"exchange-lob","status":"pass","wave":2,"summary":"REPORT BODY","metrics":{"bloat":0.3}}`), 0o644)
	gateMsg := `{"type":"gate_report","from":"sentinel-bloat","msg_id":"g1","gate_id":"exchange-lob","status":"pass","wave":2,"report_ref":"` + report + `"}` + "\n"
	r = e.want(0, gateMsg, "gate", "to-message", "--report", "evals/oracles/exchange-lob/report.json", "--from", "sentinel-bloat", "--msg-id", "g1")
	e.wantIn(r.stdout, 0, `{"valid":true,"errors":[]}`+"\n", "validate")

	// The audit trail.
	tail := e.run("", "protocol", "log", "3")
	lines := strings.Split(strings.TrimSuffix(tail.stdout, "\n"), "\n")
	if tail.code != 0 || len(lines) != 3 {
		t.Fatalf("protocol log 3: %s", tail)
	}
	for _, l := range lines {
		if !logLine.MatchString(l) {
			t.Errorf("protocol.log line %q", l)
		}
	}
	if !strings.HasSuffix(lines[1], "\tgate\tto-message\tg1 exchange-lob=pass "+report) || !strings.HasSuffix(lines[2], "\tvalidate\taccept\tg1") {
		t.Errorf("protocol log 3 = %q", lines)
	}
	all := e.read("protocol.log")
	for _, want := range []string{"\tvalidate\taccept\tm1\n", "\tledger\tlog\tcoder/task_result=2\n", "\tresolve\tset\tF12=src/matching/engine.ts\n", "\tprotocol\tinit\t2.0.0\n"} {
		if !strings.Contains(all, want) {
			t.Errorf("protocol.log lacks %q", want)
		}
	}
	if e.run("", "protocol", "log").stdout != strings.Join(strings.Split(strings.TrimSuffix(all, "\n"), "\n")[strings.Count(all, "\n")-10:], "\n")+"\n" {
		t.Error("protocol log without N is not the last 10 lines")
	}
}

func TestPlanningValidateOnReceipt(t *testing.T) {
	t.Parallel()
	e := newPlanEnv(t)
	good := func(id string) string {
		return `{"type":"question","from":"coder","msg_id":"` + id + `","question":"which port?"}`
	}
	const ok = `{"valid":true,"errors":[]}`
	const bad = `{"type":"question","from":"coder","msg_id":"x1"}`
	badRes := `{"valid":false,"errors":["/: missing property 'question'"]}`

	// Malformed, then a good retry: accepted, exit 0.
	r := e.run(good("a1")+"\n{not json\n"+good("a2")+"\n"+good("a3")+"\n", "validate", "--on-receipt")
	out := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(out) != 5 || out[0] != ok || !strings.HasPrefix(out[1], `{"valid":false,"errors":["malformed JSON`) ||
		!strings.Contains(out[2], "retry") || out[3] != ok || out[4] != ok {
		t.Errorf("retry that succeeds: %s", r)
	}
	// Invalid twice: escalated, logged, non-zero.
	r = e.run(good("b1")+"\n"+bad+"\n"+bad+"\n"+good("b2")+"\n", "validate", "--on-receipt")
	out = strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 1 || len(out) != 4 || out[1] != badRes || !strings.Contains(out[2], "retry") || out[3] != badRes || !strings.Contains(r.stderr, "escalate") {
		t.Errorf("second failure: %s", r)
	}
	// An invalid last message whose retry never comes escalates too.
	r = e.run(bad+"\n", "validate", "--on-receipt")
	if r.code != 1 || !strings.Contains(r.stdout, "retry") {
		t.Errorf("no retry line: %s", r)
	}
	log := e.read("protocol.log")
	if strings.Count(log, "\tvalidate\tescalate\tx1 invalid after one retry: /: missing property 'question'\n") != 2 ||
		strings.Count(log, "\tvalidate\tretry\t") != 3 {
		t.Errorf("protocol.log:\n%s", log)
	}
}

// The demo's figures are the measured ones: the same as the library's
// demo run in-process (deterministic texts, the same tokenizer), and the
// delta line is the ledger's.
func TestPlanningDemo(t *testing.T) {
	t.Parallel()
	e := newPlanEnv(t)
	keep := filepath.Join(e.wd, "demo")
	r := e.run("", "protocol", "demo", "--dir", keep)
	if r.code != 0 {
		t.Fatalf("demo: %s", r)
	}
	lib, err := demo.Run(filepath.Join(t.TempDir(), "demo"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(lib.Lines(), "\n") + "\n"
	if r.stdout != want {
		t.Errorf("demo =\n%s\nwant\n%s", r.stdout, want)
	}
	if !regexp.MustCompile(`^v1 orchestration \(briefing 3 spawns, verbatim\): (\d+) tokens \(baseline\)\n` +
		`v2 orchestration \(symbol table \+ 3 delta briefs \+ 3 typed results\): (\d+) tokens\n` +
		`measured delta: orchestration: (\d+) -> (\d+) tokens \(-\d+%\)\n`).MatchString(r.stdout) {
		t.Errorf("demo output shape:\n%s", r.stdout)
	}
	// The kept tree's ledger gives the same delta through `ledger delta`.
	e2 := &planEnv{t: t, root: keep, wd: e.wd}
	dr := e2.run("", "ledger", "delta", "--role", "orchestration")
	if dr.code != 0 || dr.stdout != lib.Delta.String()+"\n" {
		t.Errorf("ledger delta in the demo tree: %s, want %q", dr, lib.Delta.String())
	}
	if !strings.Contains(e.read("protocol.log"), "\tprotocol\tdemo\t"+lib.Delta.Short()+"\n") {
		t.Error("the demo is not in protocol.log")
	}
	// Without --dir nothing is left behind in the planning root but the log.
	e.want(0, want, "protocol", "demo")
	if _, err := os.Stat(filepath.Join(e.root, "protocol", "ledger.jsonl")); err == nil {
		t.Error("the demo wrote to the real ledger")
	}
}

func TestPlanningExitCodes(t *testing.T) {
	t.Parallel()
	e := newPlanEnv(t)
	e.want(0, "", "resolve", "set", "F1", "a")
	cases := []struct {
		code int
		args []string
	}{
		{2, []string{"resolve"}},
		{2, []string{"resolve", "--bogus"}},
		{1, []string{"resolve", "NOPE"}},
		{2, []string{"blackboard", "frob", "x"}},
		{1, []string{"blackboard", "get", "nope"}},
		{2, []string{"capsule", "frob"}},
		{2, []string{"capsule", "write", "x", "--where", "y"}},
		{1, []string{"capsule", "write", "../x", "--what", "w", "--where", "y"}},
		{1, []string{"capsule", "write", "x", "--what", "w", "--where", "y", "--depends", "ghost"}},
		{1, []string{"capsule", "hydrate", "ghost"}},
		{2, []string{"brief", "build", "--task", "1"}},
		{1, []string{"brief", "build", "--task", "1", "--spec", "s", "--symbols", "NOPE"}},
		{2, []string{"ledger", "log", "--role", "r", "--kind", "k"}},
		{2, []string{"ledger", "log", "--role", "r", "--kind", "k", "--tokens", "many"}},
		{2, []string{"ledger", "log", "--role", "r", "--kind", "k", "--file", "/nonexistent/f"}},
		{1, []string{"ledger", "log", "--role", "r", "--kind", "k", "--tokens", "-3"}},
		{1, []string{"ledger", "delta", "--role", "ghost"}},
		{2, []string{"gate", "to-message", "--report", "/nonexistent/report.json", "--from", "f", "--msg-id", "m"}},
		{2, []string{"protocol", "log", "many"}},
		{2, []string{"protocol", "frob"}},
	}
	for _, c := range cases {
		e.want(c.code, "", c.args...)
	}
	// A report whose status the schema refuses: invalid, exit 1.
	os.WriteFile(filepath.Join(e.wd, "r.json"), []byte(`{"gate_id":"g","status":"flaky"}`), 0o644)
	e.want(1, "", "gate", "to-message", "--report", "r.json", "--from", "f", "--msg-id", "m")

	// Corrupt and foreign-version state: exit 2, the file named.
	os.WriteFile(filepath.Join(e.root, "blackboard.json"), []byte(`{"version":"2.0.0","facts":{`), 0o644)
	r := e.want(2, "", "blackboard", "get", "x")
	if !strings.Contains(r.stderr, filepath.Join(e.root, "blackboard.json")) || !strings.Contains(r.stderr, "corrupt") {
		t.Errorf("corrupt blackboard: %q", r.stderr)
	}
	os.WriteFile(filepath.Join(e.root, "protocol", "symbols.json"), []byte(`{"version":"1.4.0","symbols":{}}`), 0o644)
	r = e.want(2, "", "resolve", "F1")
	if !strings.Contains(r.stderr, filepath.Join(e.root, "protocol", "symbols.json")) || !strings.Contains(r.stderr, `version "1.4.0"`) {
		t.Errorf("foreign symbols.json: %q", r.stderr)
	}
	os.WriteFile(filepath.Join(e.root, "protocol", "ledger.jsonl"), []byte("{\"role\":\"r\",\"tokens\":1}\ngarbage\n"), 0o644)
	r = e.want(2, "", "ledger", "report")
	if !strings.Contains(r.stderr, "ledger.jsonl:2:") {
		t.Errorf("corrupt ledger: %q", r.stderr)
	}
}

// install-links, then every tool by its bash name.
func TestPlanningMulticall(t *testing.T) {
	t.Parallel()
	e := newPlanEnv(t)
	bin := filepath.Join(e.wd, "bin")
	r := e.run("", "install-links", bin)
	names := []string{"heimdall-blackboard", "heimdall-brief", "heimdall-capsule", "heimdall-claim", "heimdall-gate", "heimdall-haid", "heimdall-ledger", "heimdall-ledger-mcp", "heimdall-protocol", "heimdall-resolve", "heimdall-validate"}
	var want strings.Builder
	for _, n := range names {
		want.WriteString(filepath.Join(bin, n) + "\n")
	}
	if r.code != 0 || r.stdout != want.String() {
		t.Fatalf("install-links: %s", r)
	}
	exe, _ := filepath.EvalSymlinks(smallPath) // heimdall, beside heimdall-tui
	for _, n := range names {
		if target, err := os.Readlink(filepath.Join(bin, n)); err != nil || target != exe {
			t.Errorf("%s -> %q, %v", n, target, err)
		}
	}
	// Again: the links are already there, fine.
	if r := e.run("", "install-links", bin); r.code != 0 {
		t.Errorf("install-links twice: %s", r)
	}
	// Something else in the way: refused, unless --force.
	os.Remove(filepath.Join(bin, "heimdall-gate"))
	os.WriteFile(filepath.Join(bin, "heimdall-gate"), []byte("#!/bin/sh\n"), 0o755)
	if r := e.run("", "install-links", bin); r.code != 2 || !strings.Contains(r.stderr, "heimdall-gate exists") {
		t.Errorf("install-links over a file: %s", r)
	}
	if r := e.run("", "install-links", "--force", bin); r.code != 0 {
		t.Errorf("install-links --force: %s", r)
	}

	tool := func(name string) string { return filepath.Join(bin, name) }
	check := func(r result, code int, stdout string) {
		t.Helper()
		if r.code != code || r.stdout != stdout {
			t.Errorf("got %s\nwant exit %d, stdout %q", r, code, stdout)
		}
	}
	check(e.runProg(tool("heimdall-protocol"), "", "init"), 0, "initialized "+e.root+" (protocol 2.0.0)\n")
	check(e.runProg(tool("heimdall-resolve"), "", "set", "F12", "src/matching/engine.ts"), 0, "")
	check(e.runProg(tool("heimdall-resolve"), "", "F12"), 0, "src/matching/engine.ts\n")
	check(e.runProg(tool("heimdall-protocol"), "", "resolve", "F12"), 0, "src/matching/engine.ts\n")
	r = e.runProg(tool("heimdall-resolve"), "", "NOPE")
	check(r, 1, "")
	if !strings.HasPrefix(r.stderr, "heimdall-resolve: ") {
		t.Errorf("error prefix: %q", r.stderr)
	}
	// A usage line names the tool as invoked.
	if r := e.runProg(tool("heimdall-resolve"), ""); r.code != 2 || !strings.Contains(r.stderr, "usage: heimdall-resolve ID | heimdall-resolve set ID VALUE") {
		t.Errorf("usage through the link: %s", r)
	}
	check(e.runProg(tool("heimdall-blackboard"), "", "list"), 0, "")
	check(e.runProg(tool("heimdall-brief"), "", "build", "--task", "1", "--spec", "s", "--symbols", "F12"), 0, "TASK 1: s\nSYMBOLS:\nF12 = src/matching/engine.ts\n")
	check(e.runProg(tool("heimdall-ledger"), "", "log", "--role", "r", "--kind", "k", "--tokens", "5"), 0, "")
	check(e.runProg(tool("heimdall-ledger"), "", "report"), 0, "r\t5\n")
	os.WriteFile(filepath.Join(e.wd, "report.json"), []byte(`{"gate_id":"g","status":"fail"}`), 0o644)
	g := e.runProg(tool("heimdall-gate"), "", "to-message", "--report", "report.json", "--from", "s", "--msg-id", "g1")
	check(g, 0, `{"type":"gate_report","from":"s","msg_id":"g1","gate_id":"g","status":"fail","report_ref":"`+filepath.Join(e.wd, "report.json")+`"}`+"\n")
	check(e.runProg(tool("heimdall-validate"), g.stdout), 0, `{"valid":true,"errors":[]}`+"\n")
}

// Parallel CLI writers through the real binary: nothing lost. (The
// 8 × 1,000 test is backend/planning's TestConcurrentProcesses, whose
// processes call the same code; this one checks the CLI path with a few
// calls, as each is a process — a race-enabled one under -race.)
func TestPlanningCLIConcurrentWriters(t *testing.T) {
	t.Parallel()
	e := newPlanEnv(t)
	const workers, ops = 8, 1
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < ops; i++ {
				id := fmt.Sprintf("%d.%d", w, i)
				for _, args := range [][]string{
					{"ledger", "log", "--role", "r", "--kind", "k", "--tokens", "1", "--msg-id", id},
					{"blackboard", "set", "k" + id, id},
				} {
					if r := e.run("", args...); r.code != 0 {
						t.Errorf("%q: %s", args, r)
					}
				}
			}
		}()
	}
	wg.Wait()
	e.want(0, fmt.Sprintf("r\t%d\n", workers*ops), "ledger", "report")
	facts := e.run("", "blackboard", "list")
	if n := strings.Count(facts.stdout, "\n"); n != workers*ops {
		t.Errorf("%d facts, want %d:\n%s", n, workers*ops, facts.stdout)
	}
	if n := strings.Count(e.read("protocol.log"), "\n"); n != 2*workers*ops {
		t.Errorf("%d protocol.log lines, want %d", n, 2*workers*ops)
	}
}

// The protocol tools are drop-ins for bash scripts that read no config:
// a broken (or newer, with unknown keys) dashboard config neither fails
// them nor adds warnings to what agents read on stderr.
func TestPlanningIgnoresTheConfigFile(t *testing.T) {
	e := newPlanEnv(t)
	cfgHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfgHome, "heimdall"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgHome, "heimdall", "config.toml"), []byte("kill_grace = [broken\nfuture_key = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, "resolve", "set", "F12", "src/engine.ts")
	cmd.Dir = e.wd
	cmd.Env = append(os.Environ(), "HEIMDALL_PLANNING_DIR="+e.root, "XDG_CONFIG_HOME="+cfgHome)
	if r := runCmd(t, cmd); r.code != 0 || r.stderr != "" {
		t.Fatalf("resolve set with a broken config: %s", r)
	}
	// The dashboard's own commands still read it (and report it).
	cmd = exec.Command(binPath, "ls", "--socket-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfgHome)
	if r := runCmd(t, cmd); r.code == 0 || !strings.Contains(r.stderr, "config") {
		t.Fatalf("ls with a broken config: %s", r)
	}
}

// Where there is no planning tree at all, a planning tool's error says so
// and how to start one; once there is one, it does not.
func TestPlanningWithoutTree(t *testing.T) {
	e := newPlanEnv(t)
	r := e.run("", "blackboard", "get", "x")
	if r.code != 1 || !strings.Contains(r.stderr, "no planning tree at "+e.root) || !strings.Contains(r.stderr, "protocol init") {
		t.Fatalf("without a tree: %s", r)
	}
	if r := e.run("", "protocol", "init"); r.code != 0 {
		t.Fatalf("protocol init: %s", r)
	}
	if r := e.run("", "blackboard", "get", "x"); r.code != 1 || strings.Contains(r.stderr, "no planning tree") {
		t.Fatalf("with a tree: %s", r)
	}
}
