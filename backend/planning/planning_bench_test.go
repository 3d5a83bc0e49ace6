package planning

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// writeLedger writes n ledger lines over 12 roles to s's ledger.
func writeLedger(b *testing.B, s *Store, n int) {
	b.Helper()
	must2(b, os.MkdirAll(s.ProtocolDir(), 0o755))
	f, err := os.Create(s.LedgerPath())
	must2(b, err)
	w := bufio.NewWriterSize(f, 1<<20)
	kinds := []string{"delta_brief", "task_result", "task_claim", "gate_report", "checkpoint"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, `{"ts":"2026-06-11T12:07:27Z","role":"role-%d","kind":"%s","tokens":%d,"msg_id":"m%d"}`+"\n", i%12, kinds[i%len(kinds)], 100+i%5000, i)
	}
	must2(b, w.Flush())
	must2(b, f.Close())
}

// `ledger report` over a million lines.
func BenchmarkLedgerReport1M(b *testing.B) {
	const n = 1_000_000
	s := Open(filepath.Join(b.TempDir(), ".planning"))
	writeLedger(b, s, n)
	st, _ := os.Stat(s.LedgerPath())
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := s.Ledger().Report(20)
		if err != nil || r.Entries != n || len(r.Latest) != 20 {
			b.Fatalf("report: %d entries, %v", r.Entries, err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// One locked, atomic rewrite of a 50-fact blackboard (plus its log line).
func BenchmarkBlackboardSet(b *testing.B) {
	s := Open(filepath.Join(b.TempDir(), ".planning"))
	for i := 0; i < 50; i++ {
		must2(b, s.Blackboard().Set("key"+strconv.Itoa(i), "value "+strconv.Itoa(i)))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		must2(b, s.Blackboard().Set("key7", strconv.Itoa(i)))
	}
}

// One locked ledger append (plus its log line).
func BenchmarkLedgerLog(b *testing.B) {
	s := Open(filepath.Join(b.TempDir(), ".planning"))
	for i := 0; i < b.N; i++ {
		must2(b, s.Ledger().Log(LedgerEntry{Role: "coder", Kind: "task_result", Tokens: 250, MsgID: "m1"}))
	}
}

func must2(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}
