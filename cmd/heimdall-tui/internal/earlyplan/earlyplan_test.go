package earlyplan

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

func TestParseLog(t *testing.T) {
	ok := map[string]logEntry{
		"--role r --kind k --tokens 5":                     {role: "r", kind: "k", tokens: "5"},
		"--role=r --kind=k --tokens=0 --msg-id=m.1":        {role: "r", kind: "k", tokens: "0", msgID: "m.1"},
		"--tokens 9223372036854775807 --kind k --role a/b": {role: "a/b", kind: "k", tokens: "9223372036854775807"},
	}
	for args, want := range ok {
		if got, ok := parseLog(strings.Fields(args)); !ok || got != want {
			t.Errorf("%s: %+v %v", args, got, ok)
		}
	}
	for _, args := range [][]string{
		{"--role", "r", "--kind", "k"},                    // no tokens
		{"--role", "r", "--kind", "k", "--text", "hi"},    // counted by the tokenizer
		{"--role", "r", "--kind", "k", "--tokens", "010"}, // octal to the flag parser
		{"--role", "r", "--kind", "k", "--tokens", "-1"},  // negative
		{"--role", "r", "--kind", "k", "--tokens", "1_0"}, //
		{"--role", "r", "--kind", "k", "--tokens", "99999999999999999999"},
		{"--role", "r", "--role", "s", "--kind", "k", "--tokens", "1"}, // twice
		{"--role", "r\"", "--kind", "k", "--tokens", "1"},              // JSON escapes it
		{"--role", "r\t", "--kind", "k", "--tokens", "1"},              // an invalid role
		{"--role", "", "--kind", "k", "--tokens", "1"},                 //
		{"--role", "ré", "--kind", "k", "--tokens", "1"},               // not ASCII
		{"--role", "-r", "--kind", "k", "--tokens", "1"},               // looks like a flag
		{"--role", "r", "--kind", "k", "--tokens", "1", "--msg-id="},
		{"--role", "r", "--kind", "k", "--tokens", "1", "extra"},
		{"--role", "r", "--kind", "k", "--tokens", "1", "-h"},
		{"--role", "r", "--kind", "k", "--tokens"},
	} {
		if e, ok := parseLog(args); ok {
			t.Errorf("%q taken: %+v", args, e)
		}
	}
}

// What the early `ledger log` writes is what planning.Ledger.Log writes.
func TestWriteAsLedgerLog(t *testing.T) {
	at := time.Date(2026, 6, 11, 12, 7, 27, 0, time.UTC)
	for _, e := range []logEntry{{role: "orchestration", kind: "delta_brief", tokens: "3300", msgID: "b1"}, {role: "a b/c", kind: "k:1", tokens: "0"}} {
		early, late := t.TempDir(), t.TempDir()
		if err := e.write(early, at.Unix); err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.ParseInt(e.tokens, 10, 64)
		if err := planning.Open(late).Ledger().Log(planning.LedgerEntry{TS: "2026-06-11T12:07:27Z", Role: e.role, Kind: e.kind, Tokens: n, MsgID: e.msgID}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"protocol/ledger.jsonl", "protocol.log"} {
			a, _ := os.ReadFile(filepath.Join(early, name))
			b, _ := os.ReadFile(filepath.Join(late, name))
			_, a2, _ := strings.Cut(string(a), "\t") // protocol.log's time is the clock's
			_, b2, _ := strings.Cut(string(b), "\t")
			if name == "protocol.log" {
				a, b = []byte(a2), []byte(b2)
			}
			if len(a) == 0 || string(a) != string(b) {
				t.Errorf("%+v: %s is\n%q early,\n%q by planning", e, name, a, b)
			}
		}
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "protocol"), 0o755)
	write := func(doc string) {
		if err := os.WriteFile(filepath.Join(root, "protocol", "symbols.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := resolve(root, []string{"F1"}); ok {
		t.Error("taken without a table")
	}
	write(`{"version":"2.0.1","symbols":{"F1":"src/a.go","set":"x","E":"é"}}`)
	for id, want := range map[string]string{"F1": "src/a.go", "E": "é"} {
		if v, ok := resolve(root, []string{id}); !ok || v != want {
			t.Errorf("%s: %q %v", id, v, ok)
		}
	}
	for _, args := range [][]string{{"F2"}, {"set"}, {"list"}, {"--reverse", "x"}, {"-h"}, {"F1", "F1"}, {}} {
		if v, ok := resolve(root, args); ok {
			t.Errorf("%q taken: %q", args, v)
		}
	}
	// A foreign version, a string with escapes (left to encoding/json),
	// another shape: the command tree reads them.
	for _, doc := range []string{`{"version":"3.0.0","symbols":{"F1":"src/a.go"}}`, `{"version":"2.0.0","symbols":{"F1":"src/a.go","E":"a\"b"}}`,
		`{"version":"2.0.0","symbols":{"F1":"src/a.go"},"x":1}`, `{"version":"2.0.0","symbols":{"F1":"src/a.go"}`} {
		write(doc)
		if _, ok := resolve(root, []string{"F1"}); ok {
			t.Errorf("%s taken", doc)
		}
	}
}
