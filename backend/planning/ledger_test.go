package planning

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/planning/planfile"
)

func TestDeltaFormat(t *testing.T) {
	d := Delta{Role: "orchestration", Baseline: 41000, Measured: 11250}
	if got, want := d.String(), "orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := d.Short(), "orchestration: 41000 -> 11250 tokens (-73%)"; got != want {
		t.Errorf("Short() = %q, want %q", got, want)
	}
	for _, c := range []struct {
		b, m int64
		want int
	}{{100, 50, -50}, {200, 1, -100}, {3, 2, -33}, {8, 7, -13}, {100, 150, 50}, {100, 100, 0}, {1000, 995, -1}, {1000, 994, -1}, {200, 199, -1}} {
		if got := (Delta{Baseline: c.b, Measured: c.m}).Percent(); got != c.want {
			t.Errorf("Percent(%d -> %d) = %d, want %d", c.b, c.m, got, c.want)
		}
	}
	if got := (Delta{Role: "r", Baseline: 100, Measured: 150}).String(); !strings.HasSuffix(got, "; +50%)") {
		t.Errorf("an increase: %q", got)
	}
}

func TestLedgerLogReportDelta(t *testing.T) {
	s := newStore(t)
	l := s.Ledger()
	if _, err := l.Delta("orchestration"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delta without baseline: %v", err)
	}
	must(t, l.Log(LedgerEntry{Role: "orchestration", Kind: "delta_brief", Tokens: 3300, MsgID: "b1"}))
	must(t, l.Log(LedgerEntry{Role: "orchestration", Kind: "delta_brief", Tokens: 7950}))
	must(t, l.Log(LedgerEntry{Role: "coder", Kind: "task_result", Tokens: 250}))
	must(t, l.SetBaseline("orchestration", 41000))
	must(t, l.SetBaseline("reviewer", 900))
	d, err := l.Delta("orchestration")
	must(t, err)
	if d.String() != "orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)" {
		t.Errorf("Delta = %q", d)
	}
	b, err := os.ReadFile(s.LedgerPath())
	must(t, err)
	want := `{"ts":"2026-06-11T12:07:27Z","role":"orchestration","kind":"delta_brief","tokens":3300,"msg_id":"b1"}` + "\n" +
		`{"ts":"2026-06-11T12:07:27Z","role":"orchestration","kind":"delta_brief","tokens":7950}` + "\n" +
		`{"ts":"2026-06-11T12:07:27Z","role":"coder","kind":"task_result","tokens":250}` + "\n"
	if string(b) != want {
		t.Errorf("ledger.jsonl =\n%s\nwant\n%s", b, want)
	}
	r, err := l.Report(2)
	must(t, err)
	if r.Total != 11500 || r.Entries != 3 || len(r.Roles) != 3 {
		t.Fatalf("Report = %+v", r)
	}
	wantRoles := []RoleReport{
		{Role: "coder", Tokens: 250, Entries: 1},
		{Role: "orchestration", Tokens: 11250, Entries: 2, Baseline: 41000, HasBaseline: true},
		{Role: "reviewer", Baseline: 900, HasBaseline: true},
	}
	for i := range wantRoles {
		if r.Roles[i] != wantRoles[i] {
			t.Errorf("Roles[%d] = %#v, want %#v", i, r.Roles[i], wantRoles[i])
		}
	}
	if len(r.Latest) != 2 || r.Latest[0].Tokens != 7950 || r.Latest[1].Role != "coder" {
		t.Errorf("Latest = %+v", r.Latest)
	}
	lines, _ := s.Tail(10)
	if len(lines) != 5 || !strings.HasSuffix(lines[2], "\tledger\tlog\tcoder/task_result=250") || !strings.HasSuffix(lines[3], "\tledger\tbaseline\torchestration=41000") {
		t.Errorf("protocol.log = %q", lines)
	}
	for _, bad := range []LedgerEntry{{Role: "", Kind: "k"}, {Role: "r", Kind: ""}, {Role: "r", Kind: "k", Tokens: -1}} {
		if err := l.Log(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Log(%+v): %v", bad, err)
		}
	}
	must(t, l.SetBaseline("zero", 0))
	if _, err := l.Delta("zero"); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero baseline: %v", err)
	}
}

func TestLedgerReportLatestRing(t *testing.T) {
	s := newStore(t)
	for i := 0; i < 25; i++ {
		must(t, s.Ledger().Log(LedgerEntry{Role: "r", Kind: "k", Tokens: int64(i)}))
	}
	r, err := s.Ledger().Report(7)
	must(t, err)
	if len(r.Latest) != 7 {
		t.Fatalf("Latest has %d entries", len(r.Latest))
	}
	for i, e := range r.Latest {
		if e.Tokens != int64(18+i) {
			t.Errorf("Latest[%d].Tokens = %d, want %d", i, e.Tokens, 18+i)
		}
	}
}

func TestLedgerCorruptLines(t *testing.T) {
	s := newStore(t)
	must(t, s.Ledger().Log(LedgerEntry{Role: "r", Kind: "k", Tokens: 1}))
	// A complete line that is not a ledger entry is foreign data: an error
	// naming the file and the line, never skipped.
	appendRaw(t, s.LedgerPath(), "garbage\n")
	must(t, s.Ledger().Log(LedgerEntry{Role: "r", Kind: "k", Tokens: 2}))
	_, err := s.Ledger().Report(0)
	var fe *FileError
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &fe) || fe.Line != 2 || !strings.Contains(err.Error(), "ledger.jsonl:2:") {
		t.Errorf("a garbage line: %v", err)
	}
	// Also when it is the last line.
	must(t, os.WriteFile(s.LedgerPath(), []byte(`{"role":"r","kind":"k","tokens":1}`+"\n"+`{"ts":"x","role":"r"`+"\n"), 0o644))
	if _, err := s.Ledger().Report(3); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "ledger.jsonl:2:") {
		t.Errorf("a complete but cut-short last line: %v", err)
	}
	must(t, os.WriteFile(s.LedgerPath(), []byte(`{"role":"r","tokens":"many"}`+"\n"), 0o644))
	if _, err := s.Ledger().Report(0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("string tokens: %v", err)
	}
	must(t, os.WriteFile(s.LedgerPath(), []byte(`{"kind":"k","tokens":3}`+"\n"), 0o644))
	if _, err := s.Ledger().Report(0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("no role: %v", err)
	}
}

// A writer that crashed mid-line leaves a torn record. Readers ignore it,
// and the next append under the lock cuts it off, so the ledger never
// becomes corrupt and no complete line is lost.
func TestLedgerCrashedWriter(t *testing.T) {
	s := newStore(t)
	for i := int64(1); i <= 3; i++ {
		must(t, s.Ledger().Log(LedgerEntry{TS: "t", Role: "r", Kind: "k", Tokens: i}))
	}
	before, err := os.ReadFile(s.LedgerPath())
	must(t, err)
	// The crash: half a line, written without the lock and never ended.
	appendRaw(t, s.LedgerPath(), `{"ts":"t","role":"r","kind":"k","tok`)
	r, err := s.Ledger().Report(5)
	must(t, err)
	if r.Entries != 3 || r.Total != 6 || len(r.Latest) != 3 {
		t.Errorf("report with a torn last line: %+v", r)
	}
	// The next append, through the Store, drops the fragment.
	must(t, s.Ledger().Log(LedgerEntry{TS: "t", Role: "q", Kind: "k", Tokens: 10}))
	after, err := os.ReadFile(s.LedgerPath())
	must(t, err)
	want := string(before) + `{"ts":"t","role":"q","kind":"k","tokens":10}` + "\n"
	if string(after) != want {
		t.Errorf("ledger after the append =\n%s\nwant\n%s", after, want)
	}
	r, err = s.Ledger().Report(5)
	must(t, err)
	if r.Entries != 4 || r.Total != 16 || len(r.Roles) != 2 || r.Roles[0].Role != "q" || r.Roles[1].Tokens != 6 {
		t.Errorf("report after the append: %+v", r)
	}
	if len(r.Latest) != 4 || r.Latest[3].Role != "q" || r.Latest[2].Tokens != 3 {
		t.Errorf("latest after the append: %+v", r.Latest)
	}
}

// The torn tail is cut at the last newline however long it is (longer than
// the backward scan's chunk), and a file that is nothing but a fragment
// becomes empty before the append.
func TestAppendCutsLongTornTail(t *testing.T) {
	s := newStore(t)
	must(t, s.Ledger().Log(LedgerEntry{TS: "t", Role: "r", Kind: "k", Tokens: 1}))
	before, err := os.ReadFile(s.LedgerPath())
	must(t, err)
	appendRaw(t, s.LedgerPath(), `{"role":"`+strings.Repeat("x", 200<<10))
	must(t, s.Ledger().Log(LedgerEntry{TS: "t", Role: "r", Kind: "k", Tokens: 2}))
	after, err := os.ReadFile(s.LedgerPath())
	must(t, err)
	if want := string(before) + `{"ts":"t","role":"r","kind":"k","tokens":2}` + "\n"; string(after) != want {
		t.Errorf("after a 200 KiB torn tail: %d bytes, want %q", len(after), want)
	}

	must(t, os.WriteFile(s.LedgerPath(), []byte(`{"ts":"t","ro`), 0o644))
	if r, err := s.Ledger().Report(1); err != nil || r.Entries != 0 {
		t.Errorf("report of a lone fragment: %+v, %v", r, err)
	}
	must(t, s.Ledger().Log(LedgerEntry{TS: "t", Role: "r", Kind: "k", Tokens: 3}))
	after, err = os.ReadFile(s.LedgerPath())
	must(t, err)
	if want := `{"ts":"t","role":"r","kind":"k","tokens":3}` + "\n"; string(after) != want {
		t.Errorf("after a lone fragment: %q, want %q", after, want)
	}
}

// appendRaw appends s to path the way a foreign or crashing writer would:
// without the lock.
func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(s)
	must(t, err)
	must(t, f.Close())
}

// planfile.FastLedgerLine agrees with encoding/json wherever it accepts a line.
func FuzzFastLedgerLine(f *testing.F) {
	for _, s := range []string{
		`{"ts":"2026-06-11T12:07:27Z","role":"orchestration","kind":"delta_brief","tokens":3300,"msg_id":"b1"}`,
		`{"role":"r","tokens":1}`,
		`{"role":"r\u00e9","tokens":1}`,
		`{"role":"r","tokens":1.5}`,
		`{"role":"r","tokens":01}`,
		`{"role":"r","tokens":1,"x":{"y":1}}`,
		`{"role":"r","tokens":-7, "kind" : "k" }`,
		`{"role":"r"}`,
		`{"role":"a","Role":"b","tokens":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		role, tokens, ok := planfile.FastLedgerLine(line)
		if !ok {
			return
		}
		var v struct {
			Role   *string `json:"role"`
			Tokens *int64  `json:"tokens"`
		}
		if err := json.Unmarshal(line, &v); err != nil || v.Role == nil || v.Tokens == nil {
			t.Fatalf("%q: fast parse accepted what encoding/json rejects: %v", line, err)
		}
		if string(role) != *v.Role || tokens != *v.Tokens {
			t.Fatalf("%q: fast %q %d, encoding/json %q %d", line, role, tokens, *v.Role, *v.Tokens)
		}
	})
}

// A line longer than the reader's buffer is read whole.
func TestLedgerLongLine(t *testing.T) {
	s := newStore(t)
	must(t, s.Ledger().Log(LedgerEntry{Role: "r", Kind: "k", Tokens: 1}))
	must(t, s.Ledger().Log(LedgerEntry{Role: "r", Kind: "k", Tokens: 2, MsgID: strings.Repeat("m", 600<<10)}))
	must(t, s.Ledger().Log(LedgerEntry{Role: "q", Kind: "k", Tokens: 4}))
	r, err := s.Ledger().Report(2)
	must(t, err)
	if r.Entries != 3 || r.Total != 7 || len(r.Latest) != 2 || len(r.Latest[0].MsgID) != 600<<10 {
		t.Errorf("report: %d entries, total %d, latest %d", r.Entries, r.Total, len(r.Latest))
	}
}

// An entry counted by the provider carries its usage, read back by Report;
// a negative count is refused.
func TestLedgerUsage(t *testing.T) {
	s := newStore(t)
	l := s.Ledger()
	u := &Usage{Input: 10, Output: 5, CacheRead: 100, CacheCreation: 7}
	must(t, l.Log(LedgerEntry{Role: "claude-1", Kind: "turn", Tokens: u.Sum(), Usage: u}))
	b, err := os.ReadFile(s.LedgerPath())
	must(t, err)
	want := `{"ts":"2026-06-11T12:07:27Z","role":"claude-1","kind":"turn","tokens":122,"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":7}}` + "\n"
	if string(b) != want {
		t.Errorf("ledger.jsonl =\n%s\nwant\n%s", b, want)
	}
	r, err := l.Report(1)
	must(t, err)
	if r.Total != 122 || len(r.Latest) != 1 || r.Latest[0].Usage == nil || *r.Latest[0].Usage != *u {
		t.Fatalf("Report = %+v", r)
	}
	if err := l.Log(LedgerEntry{Role: "r", Kind: "turn", Usage: &Usage{Input: -1}}); err == nil {
		t.Error("negative usage logged")
	}
}
