package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/hook"
	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

// Start cost: `hook` runs before every tool call of a Claude session and
// `resolve` / `ledger log` replace bash+jq tools, so what counts is a whole
// process run — exec, runtime start, package initialisation, the command's
// work, exit. BenchmarkStartCost times such runs of heimdall (the small
// executable, which agents run) beside a static Go hello world's (hello_,
// the floor any Go program pays) and heimdall-tui's doing the same
// (tui_), interleaved, all three built here without cgo as the README
// installs them, and reports each one's median and 99th percentile wall
// time and median CPU time, and heimdall's median over hello world's
// (x_hello). testdata/starttimer, a small program of its own, starts and
// times them. Compare builds only within one invocation, as below (load
// on the machine moves every figure):
//
//	go test -run '^$' -bench StartCost -benchtime 1x ./cmd/heimdall-tui/
//
// Each case runs max(b.N, $HEIMDALL_BENCH_RUNS or 200) times (-benchtime 1x
// keeps it to one pass). HEIMDALL_BENCH_OLD_BIN adds other builds of
// heimdall (or of heimdall-tui before it: the cases are commands both
// take), as one path (prefix old_) or NAME=PATH words (prefix NAME_):
//
//	mkdir /tmp/hm-main && git archive main | tar -x -C /tmp/hm-main
//	(cd /tmp/hm-main && CGO_ENABLED=0 go build -o /tmp/hm-old ./cmd/heimdall)
//	HEIMDALL_BENCH_OLD_BIN=/tmp/hm-old go test -run '^$' -bench StartCost -benchtime 1x ./cmd/heimdall-tui/
func BenchmarkStartCost(b *testing.B) {
	if raceEnabled {
		b.Skip("a -race binary says nothing about start cost")
	}
	runs := 200
	if s := os.Getenv("HEIMDALL_BENCH_RUNS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("HEIMDALL_BENCH_RUNS=%q: want a positive count", s)
		}
		runs = n
	}
	dir := b.TempDir()
	small := buildStatic(b, dir, "../heimdall", "heimdall")
	tui := buildStatic(b, dir, ".", "heimdall-tui")
	hello := buildStatic(b, dir, "./testdata/hello", "hello")
	self, others := copyBins(b, small, append([]benchBin{{"hello_", hello}, {"tui_", tui}}, benchBins(b)...))
	timer := buildStartTimer(b)
	for _, c := range startCases {
		b.Run(c.name, func(b *testing.B) {
			inv := c.setup(b)
			if inv.stdin != nil {
				inv.stdinPath = filepath.Join(b.TempDir(), "stdin")
				if err := os.WriteFile(inv.stdinPath, inv.stdin, 0o600); err != nil {
					b.Fatal(err)
				}
			}
			bins := append([]benchBin{{path: self}}, others...)
			times := timeRuns(b, timer, bins, inv, max(b.N, runs))
			b.ReportMetric(0, "ns/op") // b.N runs are not what was timed
			for k, bin := range bins {
				times[k].report(b, bin.prefix)
			}
			b.ReportMetric(percentileMs(times[0].wall, 50)/percentileMs(times[1].wall, 50), "x_hello")
		})
	}
}

// buildStatic builds pkg without cgo, as the README installs the
// executables, into dir/name.
func buildStatic(b *testing.B, dir, pkg, name string) string {
	path := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", path, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	return path
}

// copyBins copies self and each of others into a temp dir and returns the
// copies, which the benchmark times. Each copy is written out, dropped
// from the page cache and read back whole with read(2), so that every
// binary (hello world's too) starts from the same, repeatable page-cache
// state. How a file came into the page cache changes how fast it starts:
// left to be read in by exec's page faults on its first runs, each file
// lands in a layout of its own, and identical copies timed side by side
// differed by more than the builds compared (docs/PERFORMANCE.md).
func copyBins(b *testing.B, self string, others []benchBin) (string, []benchBin) {
	dir := b.TempDir()
	copyBin := func(name, path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(dst)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		// Written back, so that the advice below drops every page.
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, f); err != nil {
			b.Fatal(err)
		}
		return dst
	}
	copies := make([]benchBin, len(others))
	for i, o := range others {
		copies[i] = benchBin{o.prefix, copyBin("bin"+strconv.Itoa(i), o.path)}
	}
	return copyBin("self", self), copies
}

// benchBin is a binary the benchmark times, its metrics' names prefixed
// with prefix.
type benchBin struct{ prefix, path string }

// benchBins are the builds HEIMDALL_BENCH_OLD_BIN names: one path
// (prefix old_) or NAME=PATH words.
func benchBins(b *testing.B) []benchBin {
	v := os.Getenv("HEIMDALL_BENCH_OLD_BIN")
	if v == "" {
		return nil
	}
	if !strings.Contains(v, "=") {
		return []benchBin{{"old_", v}}
	}
	var bins []benchBin
	for _, w := range strings.Fields(v) {
		name, path, ok := strings.Cut(w, "=")
		if !ok || name == "" || path == "" {
			b.Fatalf("HEIMDALL_BENCH_OLD_BIN: %q is not NAME=PATH", w)
		}
		bins = append(bins, benchBin{name + "_", path})
	}
	return bins
}

// startCase is one kind of whole-process run. To add one, append to
// startCases: setup prepares what it needs under b.TempDir() (a planning
// dir, a running session to report to) and returns the invocation; a
// session it starts must be stopped with b.Cleanup.
type startCase struct {
	name  string
	setup func(b *testing.B) invocation
}

// invocation is what one run executes: the binary with args, with env
// added to the benchmark's environment (TestMain's: no user config). Every
// run must exit 0; stdin, stdout and stderr are /dev/null.
type invocation struct {
	args  []string
	env   []string
	stdin []byte // when set, each run reads it on stdin (from a file)

	stdinPath string // the file holding stdin, written once per case
}

var startCases = []startCase{
	// A lookup in a 500-symbol table, as an agent's `heimdall-resolve F250`.
	{name: "resolve", setup: func(b *testing.B) invocation {
		root := benchPlanningDir(b)
		syms := map[string]string{}
		for i := range 500 {
			syms[fmt.Sprintf("F%d", i)] = fmt.Sprintf("src/module%d/file%d.ts", i/20, i)
		}
		doc, err := json.MarshalIndent(map[string]any{"version": planning.ProtocolVersion, "symbols": syms}, "", "  ")
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "protocol", "symbols.json"), doc, 0o644); err != nil {
			b.Fatal(err)
		}
		return invocation{args: []string{"resolve", "F250"}, env: []string{"HEIMDALL_PLANNING_DIR=" + root}}
	}},
	// An append to the token ledger (lock, append, protocol.log line).
	{name: "ledger-log", setup: func(b *testing.B) invocation {
		root := benchPlanningDir(b)
		return invocation{args: []string{"ledger", "log", "--role", "r", "--kind", "k", "--tokens", "1"}, env: []string{"HEIMDALL_PLANNING_DIR=" + root}}
	}},
	// Claude's PreToolUse hook reporting to a live session's supervisor.
	{name: "hook-live", setup: func(b *testing.B) invocation {
		return invocation{args: []string{"hook"}, env: []string{hook.SocketEnv + "=" + benchSession(b)}, stdin: []byte(benchHookPayload)}
	}},
	// The same with the supervisor gone (its socket missing).
	{name: "hook-missing", setup: func(b *testing.B) invocation {
		return invocation{args: []string{"hook"}, env: []string{hook.SocketEnv + "=" + filepath.Join(b.TempDir(), "gone.sock")}, stdin: []byte(benchHookPayload)}
	}},
}

// benchHookPayload is a PreToolUse payload as Claude Code sends it.
const benchHookPayload = `{"session_id":"6f1c2d9e-5a4b-4c3d-8e2f-1a0b9c8d7e6f","transcript_path":"/home/u/.claude/projects/-src-app/6f1c2d9e.jsonl",` +
	`"cwd":"/src/app","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash",` +
	`"tool_input":{"command":"go test ./...","description":"Run the tests"}}`

// benchSession starts a supervised session (`run --detach`, sleep) in a
// short temp dir, stopped when the benchmark ends, and returns its socket.
func benchSession(b *testing.B) string {
	dir, err := os.MkdirTemp("", "hmb")
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(binPath, "--socket-dir", dir, "run", "--foreground", "--id", "bench", "--", "sleep", "600")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sock := filepath.Join(dir, "bench.sock")
	b.Cleanup(func() {
		exec.Command(binPath, "--socket-dir", dir, "kill", "bench").Run()
		cmd.Wait()
		os.RemoveAll(dir)
	})
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return sock
		}
		time.Sleep(25 * time.Millisecond)
	}
	b.Fatalf("the session did not start on %s", sock)
	return ""
}

// benchPlanningDir makes an empty planning dir (ROOT/protocol) in a temp dir.
func benchPlanningDir(b *testing.B) string {
	root := filepath.Join(b.TempDir(), ".planning")
	if err := os.MkdirAll(filepath.Join(root, "protocol"), 0o755); err != nil {
		b.Fatal(err)
	}
	return root
}

// runTimes are the figures of a case's runs of one binary: wall time,
// start to reaped, and CPU time (user + system), which other load on the
// machine disturbs less.
type runTimes struct{ wall, cpu []time.Duration }

// report reports the median and 99th percentile of the wall times and the
// median CPU time, in milliseconds, their units prefixed with prefix.
func (r *runTimes) report(b *testing.B, prefix string) {
	b.ReportMetric(percentileMs(r.wall, 50), prefix+"p50_ms")
	b.ReportMetric(percentileMs(r.wall, 99), prefix+"p99_ms")
	b.ReportMetric(percentileMs(r.cpu, 50), prefix+"cpu_p50_ms")
}

// buildStartTimer builds testdata/starttimer, which times the runs (its
// doc says why not this process), into a temp dir.
func buildStartTimer(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "starttimer")
	if out, err := exec.Command("go", "build", "-o", path, "./testdata/starttimer").CombinedOutput(); err != nil {
		b.Fatalf("build starttimer: %v\n%s", err, out)
	}
	return path
}

// timeRuns has timer run each of bins n times as inv says, interleaved,
// and returns each one's times. A failed run fails the benchmark with the
// run's output.
func timeRuns(b *testing.B, timer string, bins []benchBin, inv invocation, n int) []runTimes {
	b.Helper()
	args := []string{strconv.Itoa(n), inv.stdinPath}
	for _, bin := range bins {
		args = append(args, bin.path)
	}
	cmd := exec.Command(timer, append(append(args, "--"), inv.args...)...)
	cmd.Env = append(os.Environ(), inv.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("starttimer: %v\n%s", err, stderr.Bytes())
	}
	times := make([]runTimes, len(bins))
	for line := range strings.Lines(string(out)) {
		var k int
		var wall, cpu time.Duration
		if _, err := fmt.Sscan(line, &k, &wall, &cpu); err != nil || k < 0 || k >= len(bins) {
			b.Fatalf("starttimer's line %q: %v", line, err)
		}
		times[k].wall = append(times[k].wall, wall)
		times[k].cpu = append(times[k].cpu, cpu)
	}
	for k := range times {
		if len(times[k].wall) != n {
			b.Fatalf("starttimer timed %s %d times, not %d", bins[k].path, len(times[k].wall), n)
		}
	}
	return times
}

// percentileMs is the p-th percentile of ds in milliseconds (nearest rank).
func percentileMs(ds []time.Duration, p float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return float64(s[max(k, 0)]) / float64(time.Millisecond)
}
