package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// `resolve ID` and `ledger log` are answered during package initialisation
// (internal/earlyplan), before reflect and what waits for it, as the
// binary and through its tool links; what earlyplan declines still works
// (planning_e2e_test.go checks the commands' answers in full).
func TestPlanToolsRunBeforeInit(t *testing.T) {
	if raceEnabled {
		t.Skip("the -race runtime initialises its own packages first")
	}
	root := filepath.Join(t.TempDir(), ".planning")
	os.MkdirAll(filepath.Join(root, "protocol"), 0o755)
	os.WriteFile(filepath.Join(root, "protocol", "symbols.json"), []byte(`{"version":"2.0.0","symbols":{"F1":"src/a.go"}}`), 0o644)
	links := t.TempDir()
	for _, name := range []string{"heimdall-resolve", "heimdall-ledger"} {
		if err := os.Symlink(binPath, filepath.Join(links, name)); err != nil {
			t.Fatal(err)
		}
	}
	run := func(early bool, want string, argv ...string) {
		t.Helper()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "HEIMDALL_PLANNING_DIR="+root)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil || stdout.String() != want {
			t.Fatalf("%q: %v, stdout %q, want %q\n%s", argv[1:], err, stdout.String(), want, stderr.String())
		}
		inited := initTrace(stderr.String())
		if !early {
			if !slices.Contains(inited, "reflect") {
				t.Errorf("%q: answered early", argv[1:])
			}
			return
		}
		// earlyplan imports syscall and nothing that waits for more, so
		// it comes right after syscall and earlyhook; the trace must end
		// there, or the checks below passed on nothing.
		if n := len(inited); n < 2 || inited[n-2] != "syscall" || !strings.HasSuffix(inited[n-1], "/internal/earlyhook") {
			t.Fatalf("%q: the init trace does not end with syscall and earlyhook:\n%s", argv[1:], stderr.String())
		}
		// time and os: once time is, github.com/BurntSushi/toml/internal
		// loads the local time zone (~64k instructions), then context,
		// internal/poll, io/fs and os run. unicode builds its tables
		// (~60k instructions, 13 KB): planfile keeps package bytes, which
		// imports it, off this path.
		checkNotInited(t, inited, "time", "os", "github.com/BurntSushi/toml/internal", "unicode")
	}
	run(true, "src/a.go\n", binPath, "resolve", "F1")
	run(true, "src/a.go\n", filepath.Join(links, "heimdall-resolve"), "F1")
	run(true, "", binPath, "ledger", "log", "--role", "coder", "--kind", "task_result", "--tokens", "12", "--msg-id", "m1")
	run(true, "", filepath.Join(links, "heimdall-ledger"), "log", "--role=coder", "--kind=k", "--tokens=3")
	run(false, "F1\n", binPath, "resolve", "--reverse", "src/a.go")
	run(false, "", binPath, "ledger", "log", "--role", "coder", "--kind", "k", "--text", "hello world")
	run(false, "", binPath, "ledger", "log", "--role", "coder", "--kind", "k\u00e9", "--tokens", "1")

	ledger, _ := os.ReadFile(filepath.Join(root, "protocol", "ledger.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(ledger)), "\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[0], `"role":"coder","kind":"task_result","tokens":12,"msg_id":"m1"}`) ||
		!strings.HasSuffix(lines[1], `"role":"coder","kind":"k","tokens":3}`) {
		t.Fatalf("ledger.jsonl:\n%s", ledger)
	}
	log, _ := os.ReadFile(filepath.Join(root, "protocol.log"))
	if n := strings.Count(string(log), "\tledger\tlog\t"); n != 4 || !strings.Contains(string(log), "\tledger\tlog\tcoder/task_result=12\n") {
		t.Fatalf("protocol.log:\n%s", log)
	}
}
