package planning

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/planning/planfile"
)

// newStore returns a Store on a fresh temp root with a fixed clock.
func newStore(t *testing.T) *Store {
	t.Helper()
	s := Open(filepath.Join(t.TempDir(), ".planning"))
	s.now = func() time.Time { return time.Date(2026, 6, 11, 12, 7, 27, 0, time.UTC) }
	return s
}

func TestDefaultRoot(t *testing.T) {
	t.Setenv("HEIMDALL_PLANNING_DIR", "")
	if got := DefaultRoot(); got != ".planning" {
		t.Errorf("DefaultRoot() = %q, want .planning", got)
	}
	t.Setenv("HEIMDALL_PLANNING_DIR", "/x/y")
	if got := DefaultRoot(); got != "/x/y" {
		t.Errorf("DefaultRoot() = %q, want /x/y", got)
	}
}

func TestSymbols(t *testing.T) {
	s := newStore(t)
	y := s.Symbols()
	if _, err := y.Get("F12"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get on a missing table: %v, want ErrNotFound", err)
	}
	must(t, y.Set("F12", "src/matching/engine.ts"))
	must(t, y.Set("C3", "balances sum to zero"))
	must(t, y.Set("F12b", "src/matching/engine.ts"))
	if v, err := y.Get("F12"); err != nil || v != "src/matching/engine.ts" {
		t.Errorf("Get(F12) = %q, %v", v, err)
	}
	ids, err := y.Reverse("src/matching/engine.ts")
	if err != nil || strings.Join(ids, ",") != "F12,F12b" {
		t.Errorf("Reverse = %q, %v", ids, err)
	}
	if _, err := y.Reverse("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Reverse(nope): %v, want ErrNotFound", err)
	}
	list, err := y.List()
	must(t, err)
	want := []Entry{{"C3", "balances sum to zero"}, {"F12", "src/matching/engine.ts"}, {"F12b", "src/matching/engine.ts"}}
	if len(list) != len(want) {
		t.Fatalf("List = %v, want %v", list, want)
	}
	for i := range want {
		if list[i] != want[i] {
			t.Errorf("List[%d] = %v, want %v", i, list[i], want[i])
		}
	}
	for _, bad := range [][2]string{{"", "x"}, {"a\tb", "x"}, {"a", "x\ny"}} {
		if err := y.Set(bad[0], bad[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("Set(%q, %q): %v, want ErrInvalid", bad[0], bad[1], err)
		}
	}
	// The file is what the bash implementation writes (and jq prints).
	b, err := os.ReadFile(s.SymbolsPath())
	must(t, err)
	wantFile := "{\n  \"version\": \"2.0.0\",\n  \"symbols\": {\n    \"C3\": \"balances sum to zero\",\n    \"F12\": \"src/matching/engine.ts\",\n    \"F12b\": \"src/matching/engine.ts\"\n  }\n}\n"
	if string(b) != wantFile {
		t.Errorf("symbols.json =\n%s\nwant\n%s", b, wantFile)
	}
	// Each set is one protocol.log line.
	lines, err := s.Tail(10)
	must(t, err)
	if len(lines) != 3 || lines[0] != "2026-06-11T12:07:27Z\tresolve\tset\tF12=src/matching/engine.ts" {
		t.Errorf("protocol.log = %q", lines)
	}
}

func TestBlackboardCompareAndSwap(t *testing.T) {
	s := newStore(t)
	b := s.Blackboard()
	f, err := b.Load()
	must(t, err)
	if f.Version != "" || len(f.Facts) != 0 {
		t.Fatalf("empty blackboard = %+v", f)
	}
	v1, err := b.SetIf("dev_port", "5173", f.Version)
	must(t, err)
	if v1 == "" {
		t.Fatal("SetIf returned no version")
	}
	// Another process changes the file.
	must(t, Open(s.Root()).Blackboard().Set("node_version", "20.11.0"))
	// An edit based on v1 is refused, and nothing is overwritten.
	_, err = b.SetIf("dev_port", "9999", v1)
	var ce *ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || ce.Expected != v1 || ce.Path != s.BlackboardPath() {
		t.Fatalf("SetIf on a stale version: %v, want a ConflictError", err)
	}
	if v, _ := b.Get("dev_port"); v != "5173" {
		t.Errorf("dev_port = %q after a refused edit", v)
	}
	if _, err := b.DeleteIf("dev_port", v1); !errors.Is(err, ErrConflict) {
		t.Errorf("DeleteIf on a stale version: %v", err)
	}
	// Reload, then the edit goes through.
	f, err = b.Load()
	must(t, err)
	if f.Version != ce.Actual {
		t.Errorf("Load version %q, conflict reported %q", f.Version, ce.Actual)
	}
	v3, err := b.SetIf("dev_port", "9999", f.Version)
	must(t, err)
	if got, _ := b.Load(); got.Version != v3 || got.Facts["dev_port"] != "9999" || got.Facts["node_version"] != "20.11.0" {
		t.Errorf("after SetIf: %+v (version %q)", got, v3)
	}
	v4, err := b.DeleteIf("node_version", v3)
	must(t, err)
	if _, err := b.Get("node_version"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted key: %v", err)
	}
	if err := b.Delete("node_version"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete of a missing key: %v", err)
	}
	if got, _ := b.Load(); got.Version != v4 {
		t.Errorf("a refused delete changed the version")
	}
}

func TestStateFileErrors(t *testing.T) {
	s := newStore(t)
	must(t, os.MkdirAll(s.ProtocolDir(), 0o755))
	cases := []struct {
		content string
		want    error
	}{
		{`{"version":"2.0.0","facts":{"a":"b"`, ErrCorrupt},
		{`not json`, ErrCorrupt},
		{`{"facts":{}}`, ErrCorrupt},
		{`{"version":"2.0.0","facts":{"a":1}}`, ErrCorrupt},
		{`{"version":"1.0.0","facts":{}}`, ErrVersion},
		{`{"version":"3.0.0","facts":{}}`, ErrVersion},
		{``, ErrCorrupt},
	}
	for _, c := range cases {
		must(t, os.WriteFile(s.BlackboardPath(), []byte(c.content), 0o644))
		_, err := s.Blackboard().Get("a")
		var fe *FileError
		if !errors.Is(err, c.want) || !errors.As(err, &fe) || fe.Path != s.BlackboardPath() || !strings.Contains(err.Error(), s.BlackboardPath()) {
			t.Errorf("%q: %v, want %v naming the file", c.content, err, c.want)
		}
		// A write refuses too, and leaves the file alone.
		if err := s.Blackboard().Set("a", "b"); !errors.Is(err, c.want) {
			t.Errorf("%q: Set: %v, want %v", c.content, err, c.want)
		}
		if b, _ := os.ReadFile(s.BlackboardPath()); string(b) != c.content {
			t.Errorf("%q: a refused write changed the file to %q", c.content, b)
		}
	}
	// A patch version of the same minor is read and rewritten.
	must(t, os.WriteFile(s.BlackboardPath(), []byte(`{"version":"2.0.1","facts":{"a":"b"}}`), 0o644))
	if v, err := s.Blackboard().Get("a"); err != nil || v != "b" {
		t.Errorf("2.0.1 file: %q, %v", v, err)
	}
}

func TestAtomicWriteLeavesNoTempFiles(t *testing.T) {
	s := newStore(t)
	for i := 0; i < 20; i++ {
		must(t, s.Blackboard().Set("k", strings.Repeat("v", i)))
	}
	entries, err := os.ReadDir(s.Root())
	must(t, err)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

func TestTail(t *testing.T) {
	s := newStore(t)
	if lines, err := s.Tail(5); err != nil || len(lines) != 0 {
		t.Fatalf("Tail of a missing log = %q, %v", lines, err)
	}
	// Long enough to need several backwards reads.
	long := strings.Repeat("x", 3000)
	for i := 0; i < 100; i++ {
		must(t, s.Log("actor", "act", long+string(rune('a'+i%26))))
	}
	lines, err := s.Tail(3)
	must(t, err)
	if len(lines) != 3 {
		t.Fatalf("Tail(3) = %d lines", len(lines))
	}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		want := long + string(rune('a'+(97+i)%26))
		if len(f) != 4 || f[0] != "2026-06-11T12:07:27Z" || f[1] != "actor" || f[3] != want {
			t.Errorf("line %d = %.60q...", i, l)
		}
	}
	all, err := s.Tail(1000)
	must(t, err)
	if len(all) != 100 {
		t.Fatalf("Tail(1000) = %d lines, want 100", len(all))
	}
	// A last line without its newline (being written, or torn by a crashed
	// writer) is not shown.
	appendRaw(t, s.LogPath(), "2026-06-11T12:07:27Z\tpartial")
	lines, err = s.Tail(1)
	must(t, err)
	if len(lines) != 1 || strings.Contains(lines[0], "partial") {
		t.Errorf("Tail(1) with a partial last line = %q", lines)
	}
	// The next append, under the lock, cuts the torn line off; tabs and
	// newlines in fields cannot break the format.
	must(t, s.Log("a\tb", "c\nd", "e\tf\ng"))
	lines, _ = s.Tail(3)
	if len(lines) != 3 || lines[0] != all[98] || lines[1] != all[99] || lines[2] != "2026-06-11T12:07:27Z\ta b\tc d\te f g" {
		t.Errorf("last lines = %q", lines)
	}
	b, err := os.ReadFile(s.LogPath())
	must(t, err)
	if strings.Contains(string(b), "partial") || strings.Count(string(b), "\n") != 101 {
		t.Errorf("protocol.log kept the torn line or lost one: %d lines", strings.Count(string(b), "\n"))
	}
}

func TestInit(t *testing.T) {
	s := newStore(t)
	must(t, s.Init())
	for _, p := range []string{s.LogPath(), s.BlackboardPath(), s.SymbolsPath(), s.BaselinesPath(), s.LedgerPath(), s.SchemaPath()} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("after Init: %v", err)
		}
	}
	if st, err := os.Stat(s.CapsuleDir()); err != nil || !st.IsDir() {
		t.Errorf("capsules dir: %v", err)
	}
	b, _ := os.ReadFile(s.SchemaPath())
	if string(b) != string(MessageSchema()) {
		t.Error("installed schema differs from the embedded one")
	}
	// Init keeps existing state.
	must(t, s.Blackboard().Set("dev_port", "5173"))
	must(t, s.Init())
	if v, err := s.Blackboard().Get("dev_port"); err != nil || v != "5173" {
		t.Errorf("Init lost a fact: %q, %v", v, err)
	}
	// And refuses a foreign one.
	must(t, os.WriteFile(s.SymbolsPath(), []byte(`{"version":"9.0.0","symbols":{}}`), 0o644))
	if err := s.Init(); !errors.Is(err, ErrVersion) {
		t.Errorf("Init over a 9.0.0 symbols.json: %v", err)
	}
}

func TestClassify(t *testing.T) {
	s := Open("/r/.planning")
	cases := map[string]FileKind{
		"/r/.planning/protocol.log":                     KindLog,
		"/r/.planning/blackboard.json":                  KindBlackboard,
		"/r/.planning/protocol/symbols.json":            KindSymbols,
		"/r/.planning/protocol/baselines.json":          KindBaselines,
		"/r/.planning/protocol/ledger.jsonl":            KindLedger,
		"/r/.planning/protocol/message-schema.json":     KindSchema,
		"/r/.planning/protocol/capsules/w1.md":          KindCapsule,
		"/r/.planning/ledger/claims/haid_a.b-c.json":    KindClaims,
		"/r/.planning/ledger/claims/.gate.lock":         KindOther,
		"/r/.planning/ledger/decisions.md":              KindDecisions,
		"/r/.planning/.blackboard.json.lock":            KindOther,
		"/r/.planning/.blackboard.json.tmp-123":         KindOther,
		"/r/.planning/PLAN-1.md":                        KindOther,
		"/r/.planning/protocol/capsules/.capsules.lock": KindOther,
	}
	for p, want := range cases {
		if got := s.Classify(p); got != want {
			t.Errorf("Classify(%s) = %v, want %v", p, got, want)
		}
	}
	if d := s.WatchDirs(); len(d) != 5 || d[0] != "/r/.planning" {
		t.Errorf("WatchDirs = %q", d)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// appendString must agree with encoding/json (without HTML escaping) on
// every input, so the files stay valid JSON whatever the values.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `q"b\s`, "tab\tnl\nret\r", "\x00\x1f\x7f", "é日本", "\xff\xfe", "\u2028\u2029", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("appendString(%q) = %s: %v", s, got, err)
		}
		want, _ := marshal(s)
		var wantBack string
		json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("appendString(%q) decodes to %q, encoding/json's to %q", s, back, wantBack)
		}
	})
}

// planfile.FastTable agrees with encoding/json wherever it accepts its input.
func FuzzFastTable(f *testing.F) {
	for _, s := range []string{
		`{"version":"2.0.0","facts":{"a":"b","c":"d"}}`,
		"{\n  \"version\": \"2.0.0\",\n  \"facts\": {}\n}\n",
		`{"facts":{"a":"\u00e9\n"},"version":"2.0.0"}`,
		`{"version":"2.0.0","facts":{"a":1}}`,
		`{"version":"2.0.0","facts":{"a":"b"},"x":1}`,
		`{"version":"2.0.0","facts":{"a":"b","a":"c"}}`,
		`{"version":"2.0.0","baselines":{"r":41000,"s":-1}}`,
		`{"version":"2.0.0","baselines":{"r":1.5}}`,
		`{"version":"2.0.0","facts":{"a":"b"}} x`,
		`{"version":"2.0.0","facts":{"a":"b",}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(field string, fast func() (string, any, bool), slow func() (string, any, error)) {
			v, m, ok := fast()
			if !ok {
				return
			}
			sv, sm, err := slow()
			if err != nil {
				t.Fatalf("%q: fast parse accepted what encoding/json rejects: %v", b, err)
			}
			if v != sv || fmt.Sprint(m) != fmt.Sprint(sm) {
				t.Fatalf("%q: fast %q %v, encoding/json %q %v", b, v, m, sv, sm)
			}
		}
		check("facts", func() (string, any, bool) { return planfile.FastTable[string](b, "facts", unquoteJSON) }, func() (string, any, error) {
			var x struct {
				Version *string           `json:"version"`
				Facts   map[string]string `json:"facts"`
			}
			err := json.Unmarshal(b, &x)
			if err == nil && x.Version == nil {
				err = fmt.Errorf("no version")
			}
			if err != nil {
				return "", nil, err
			}
			if x.Facts == nil {
				x.Facts = map[string]string{}
			}
			return *x.Version, x.Facts, nil
		})
		check("baselines", func() (string, any, bool) { return planfile.FastTable[int64](b, "baselines", unquoteJSON) }, func() (string, any, error) {
			var x struct {
				Version   *string          `json:"version"`
				Baselines map[string]int64 `json:"baselines"`
			}
			err := json.Unmarshal(b, &x)
			if err == nil && x.Version == nil {
				err = fmt.Errorf("no version")
			}
			if err != nil {
				return "", nil, err
			}
			if x.Baselines == nil {
				x.Baselines = map[string]int64{}
			}
			return *x.Version, x.Baselines, nil
		})
	})
}

// The symbol table and the blackboard word their errors for the CLI, which
// prints them as they are: pin the exact messages.
func TestTableErrorMessages(t *testing.T) {
	s := newStore(t)
	y, b := s.Symbols(), s.Blackboard()
	must(t, b.Set("k", "v")) // a blackboard that exists, for Delete
	_, getSym := y.Get("X")
	_, getFact := b.Get("X")
	_, delIf := b.DeleteIf("X", "")
	for _, c := range []struct {
		err  error
		kind error
		want string
	}{
		{getSym, ErrNotFound, `symbol "X": not found`},
		{y.Set("", "x"), ErrInvalid, `empty symbol id`},
		{y.Set("a\tb", "x"), ErrInvalid, `symbol id "a\tb" contains a tab or newline`},
		{y.Set("a", "x\ny"), ErrInvalid, `symbol value contains a newline`},
		{getFact, ErrNotFound, `fact "X": not found`},
		{b.Set("", "x"), ErrInvalid, `empty key`},
		{b.Set("a\nb", "x"), ErrInvalid, `key "a\nb" contains a tab or newline`},
		{b.Set("a", "x\ry"), ErrInvalid, `value contains a newline`},
		{b.Delete("X"), ErrNotFound, `fact "X": not found`},
		{delIf, ErrConflict, ""},
	} {
		if !errors.Is(c.err, c.kind) || (c.want != "" && c.err.Error() != c.want) {
			t.Errorf("error %v, want %q (%v)", c.err, c.want, c.kind)
		}
	}
}
