package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// supervisorOf is the executable, the environment and the command line
// of the supervisor serving id in dir (its pid file names it).
func supervisorOf(t *testing.T, dir, id string) (exe string, env []string, cmdline string) {
	t.Helper()
	b, err := os.ReadFile(supervisor.PidPath(dir, id))
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	exe, err = os.Readlink("/proc/" + pid + "/exe")
	if err != nil {
		t.Fatal(err)
	}
	environ, err := os.ReadFile("/proc/" + pid + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	args, err := os.ReadFile("/proc/" + pid + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	return exe, strings.Split(strings.TrimRight(string(environ), "\x00"), "\x00"), string(args)
}

// programEnv starts `run --detach` of a program that writes its
// environment to a file, through the heimdall-tui at tui with env, and
// returns the supervisor's executable, environment and command line, and
// the program's environment.
func programEnv(t *testing.T, tui string, env []string, extra ...string) (sup string, supEnv []string, supArgs string, prog []string) {
	t.Helper()
	dir := newSockDir(t)
	out := filepath.Join(t.TempDir(), "env")
	args := append([]string{"run", "--detach", "--id", "e", "--socket-dir", dir}, extra...)
	args = append(args, "--", "sh", "-c", `env > "$1.tmp" && mv "$1.tmp" "$1"; exec sleep 60`, "sh", out)
	cmd := exec.Command(tui, args...)
	cmd.Env = append(os.Environ(), env...)
	if r := runCmd(t, cmd); r.code != 0 {
		t.Fatalf("run --detach: %s", r)
	}
	t.Cleanup(func() { hmIn(t, dir, "kill", "--force", "e") })
	sup, supEnv, supArgs = supervisorOf(t, dir, "e")
	var b []byte
	if !poll(waitTimeout, func() bool {
		var err error
		b, err = os.ReadFile(out)
		return err == nil
	}) {
		t.Fatal("the program did not write its environment")
	}
	return sup, supEnv, supArgs, strings.Split(strings.TrimSpace(string(b)), "\n")
}

// With heimdall beside it, heimdall-tui starts supervisors as heimdall,
// with the runtime settings a supervisor runs best under; the program
// gets none of them but the user's own, and what --env adds (which is not
// on the supervisor's command line).
func TestSupervisorIsTheSmallExecutable(t *testing.T) {
	sup, supEnv, supArgs, prog := programEnv(t, binPath, []string{"GOGC=77"}, "--env", "SECRET_TOKEN=s3cret")
	if sup != smallPath {
		t.Errorf("the supervisor runs %s, want %s", sup, smallPath)
	}
	for _, want := range []string{"GOMAXPROCS=1", "GOGC=off", "GOMEMLIMIT=32MiB"} {
		if !slices.Contains(supEnv, want) {
			t.Errorf("the supervisor's environment lacks %s", want)
		}
	}
	for _, e := range prog {
		if strings.HasPrefix(e, "GOMAXPROCS=") || strings.HasPrefix(e, "GOMEMLIMIT=") || strings.HasPrefix(e, "HEIMDALL_SPAWN_ENV=") {
			t.Errorf("the program inherited %s", e)
		}
	}
	if !slices.Contains(prog, "GOGC=77") || !slices.Contains(prog, "SECRET_TOKEN=s3cret") {
		t.Errorf("the program's environment lacks the user's GOGC=77 or --env's SECRET_TOKEN: %q", prog)
	}
	if !strings.Contains(supArgs, "--spawned") || strings.Contains(supArgs, "s3cret") {
		t.Errorf("the supervisor's command line %q: --env's value on it, or not the supervisor's", supArgs)
	}
}

// Alone (heimdall not beside it), heimdall-tui is the supervisor itself,
// and runs it as heimdall would.
func TestSupervisorWithoutTheSmallExecutable(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "heimdall-tui")
	b, err := os.ReadFile(binPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	sup, supEnv, _, prog := programEnv(t, alone, nil)
	if sup != alone {
		t.Errorf("the supervisor runs %s, want %s", sup, alone)
	}
	if !slices.Contains(supEnv, "GOMAXPROCS=1") || slices.ContainsFunc(prog, func(e string) bool { return strings.HasPrefix(e, "GOMAXPROCS=") }) {
		t.Errorf("runtime settings: the supervisor's %q, the program's %q", supEnv, prog)
	}
}

// heimdall takes every command: what it does not serve itself it hands to
// the heimdall-tui beside it (same arguments, same exit status); through a
// tool link it is that tool.
func TestSmallExecutableHandsOver(t *testing.T) {
	r := runCmd(t, exec.Command(smallPath, "--version"))
	if r.code != 0 || !strings.Contains(r.stdout, "heimdall-tui") {
		t.Errorf("heimdall --version: %s", r)
	}
	dir := newSockDir(t)
	if r := runCmd(t, exec.Command(smallPath, "ls", "--socket-dir", dir)); r.code != 0 {
		t.Errorf("heimdall ls: %s", r)
	}
	if r := runCmd(t, exec.Command(smallPath, "status", "--socket-dir", dir, "nope")); r.code == 0 {
		t.Errorf("heimdall status of no session: %s", r)
	}
	// Alone, it says what is missing.
	alone := filepath.Join(t.TempDir(), "heimdall")
	b, err := os.ReadFile(smallPath)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(alone, b, 0o755)
	if r := runCmd(t, exec.Command(alone, "ls")); r.code != 2 || !strings.Contains(r.stderr, "heimdall-tui") {
		t.Errorf("heimdall ls without heimdall-tui: %s", r)
	}
}

// resolve and ledger log answer alike from either executable, directly or
// through a link: output, messages (but for the name) and exit codes.
func TestPlanToolsAlike(t *testing.T) {
	e := newPlanEnv(t)
	e.run("", "protocol", "init")
	links := t.TempDir()
	for _, exe := range []string{smallPath, binPath} {
		sub := filepath.Join(links, filepath.Base(exe))
		os.Mkdir(sub, 0o755)
		for _, l := range []string{"heimdall-resolve", "heimdall-ledger"} {
			if err := os.Symlink(exe, filepath.Join(sub, l)); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := [][]string{
		{"resolve", "set", "F1", "src/a.go"},
		{"resolve", "F1"},
		{"resolve", "F2"},
		{"resolve"},
		{"resolve", "--bogus"},
		{"resolve", "-x"},
		{"resolve", "--reverse", "src/a.go"},
		{"resolve", "--reverse=src/a.go", "extra"},
		{"resolve", "list"},
		{"resolve", "set", "NEG", "-5"},
		{"resolve", "NEG"},
		{"resolve", "--", "F1"},
		{"resolve", "--help"},
		{"ledger", "log", "--role", "coder", "--kind", "task_result", "--tokens", "12", "--msg-id", "m1"},
		{"ledger", "log", "--role=coder", "--kind=k", "--tokens=0x10"},
		{"ledger", "log", "--role", "r", "--kind", "k"},
		{"ledger", "log", "--role", "r", "--kind", "k", "--tokens", "many"},
		{"ledger", "log", "--role", "r", "--kind", "k", "--tokens", "-3"},
		{"ledger", "log", "--role", "r", "--kind", "k", "--tokens", "1", "stray"},
		{"ledger", "log", "--role", "r", "--kind", "k", "--tokens", "1", "--tokens", "2"},
		{"ledger", "log", "--role", "r", "--kind", "k", "--tokens"},
		{"ledger", "log", "--role", "r", "--kind", "k", "--text", "hello world"},
		{"ledger", "log", "--role", "r", "--kind", "k", "--file", "/nonexistent/f"},
		{"ledger", "report"},
	}
	// The executable's name, as messages and usage lines give it.
	norm := func(s string) string {
		return strings.NewReplacer("heimdall-tui:", "PROG:", "heimdall:", "PROG:", "heimdall-tui ", "PROG ", "heimdall ", "PROG ").Replace(s)
	}
	for _, c := range cases {
		var got [2]result
		for i, exe := range []string{smallPath, binPath} {
			got[i] = e.runProg(exe, "", c...)
			got[i].stdout, got[i].stderr = norm(got[i].stdout), norm(got[i].stderr)
		}
		if got[0] != got[1] {
			t.Errorf("%q:\nheimdall:     %s\nheimdall-tui: %s", c, got[0], got[1])
		}
		if c[0] == "resolve" || len(c) > 1 && c[1] == "log" {
			var link [2]result
			for i, exe := range []string{smallPath, binPath} {
				if c[0] == "resolve" {
					link[i] = e.runProg(filepath.Join(links, filepath.Base(exe), "heimdall-resolve"), "", c[1:]...)
				} else {
					link[i] = e.runProg(filepath.Join(links, filepath.Base(exe), "heimdall-ledger"), "", c[1:]...)
				}
			}
			if link[0] != link[1] {
				t.Errorf("%q through a link:\nheimdall:     %s\nheimdall-tui: %s", c, link[0], link[1])
			}
		}
	}
	// Each wrote the ledger, directly and through its link, for each of
	// the four log cases that succeed (m1, 0x10, the twice-given tokens,
	// the counted text).
	b, _ := os.ReadFile(filepath.Join(e.root, "protocol", "ledger.jsonl"))
	if n := strings.Count(string(b), "\n"); n != 4*4 {
		t.Errorf("the ledger has %d lines, want %d:\n%s", n, 4*4, b)
	}
}

// heimdall run --foreground is the supervisor itself, its flags in either
// place (the global ones before or after the subcommand, as heimdall-tui
// and hm take them), and exits with the program's code.
func TestSmallExecutableSupervises(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--foreground", "--id", "f", "--socket-dir", "DIR", "--", "sh", "-c", "exit 3"},
		{"--socket-dir", "DIR", "run", "--foreground", "--id", "f", "--", "sh", "-c", "exit 3"},
	} {
		dir := newSockDir(t)
		for i, a := range args {
			if a == "DIR" {
				args[i] = dir
			}
		}
		if r := runCmd(t, exec.Command(smallPath, args...)); r.code != 3 || !strings.Contains(r.stderr, `session "f" running`) {
			t.Errorf("%q: %s", args, r)
		}
		if _, err := os.Stat(supervisor.RecordPath(dir, "f")); err != nil {
			t.Errorf("%q: no record: %v", args, err)
		}
	}
}
