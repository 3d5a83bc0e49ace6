package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// benchPlanning runs the binary (built once by TestMain) with args against
// root, b.N times, failing on a non-zero exit.
func benchPlanning(b *testing.B, root string, args ...string) {
	b.Helper()
	env := append(os.Environ(), "HEIMDALL_PLANNING_DIR="+root)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(binPath, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%q: %v\n%s", args, err, out)
		}
	}
}

// Per-command wall time: one `heimdall-tui resolve F12`, process start to
// exit (run with -benchtime=100x for the 100 runs).
func BenchmarkResolveExec(b *testing.B) {
	root := filepath.Join(b.TempDir(), ".planning")
	cmd := exec.Command(binPath, "resolve", "set", "F12", "src/matching/engine.ts")
	cmd.Env = append(os.Environ(), "HEIMDALL_PLANNING_DIR="+root)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	benchPlanning(b, root, "resolve", "F12")
}

// A write: `heimdall-tui blackboard set` (lock, rewrite, rename, log line).
func BenchmarkBlackboardSetExec(b *testing.B) {
	benchPlanning(b, filepath.Join(b.TempDir(), ".planning"), "blackboard", "set", "dev_port", "5173")
}

// `heimdall-tui ledger report` over a 1,000,000-line ledger.
func BenchmarkLedgerReportExec1M(b *testing.B) {
	root := filepath.Join(b.TempDir(), ".planning")
	if err := os.MkdirAll(filepath.Join(root, "protocol"), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(root, "protocol", "ledger.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < 1_000_000; i++ {
		fmt.Fprintf(w, `{"ts":"2026-06-11T12:07:27Z","role":"role-%d","kind":"task_result","tokens":%d,"msg_id":"m%d"}`+"\n", i%12, 100+i%5000, i)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	benchPlanning(b, root, "ledger", "report")
}
