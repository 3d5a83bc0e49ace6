package notify

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
)

// subreaper tells whether this test process is a child subreaper.
var subreaper bool

// TestMain makes the test process a child subreaper with backend/proc's
// reaper running, as `run` and the dashboard are: the command must keep
// its exit status under that reaper, and what it leaves behind is then
// reparented to us and must be reaped by Notify, not left a zombie.
func TestMain(m *testing.M) {
	subreaper = proc.EnableSubreaper(nil) == nil
	os.Exit(m.Run())
}

// quote returns s as one single-quoted shell word.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// readPid reads a pid a command wrote to path; false if it is not there.
func readPid(t *testing.T, path string) (int, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s: %q is no pid", path, b)
	}
	return pid, true
}

// assertReaped fails unless pid no longer exists, not even as a zombie.
// A process reparented to init (when we are no subreaper) is only
// required to be dead.
func assertReaped(t *testing.T, what string, pid int, ours bool) {
	t.Helper()
	if !ours {
		proctest.WaitFor(t, what+" to die", 10*time.Second, func() bool { return proc.Gone(pid) })
		return
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); !errors.Is(err, os.ErrNotExist) {
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		t.Errorf("%s (pid %d) still exists after Notify: %s", what, pid, st)
	}
}

func TestCommandEnvironment(t *testing.T) {
	out := filepath.Join(t.TempDir(), "env")
	t.Setenv("HEIMDALL_NOTIFY_TEST_INHERITED", "yes")
	cmd := `{ env; echo "stdin=$(readlink /proc/self/fd/0)"; set -- $(cat /proc/$$/stat); echo "group=$1 $5 $6"; } > ` + quote(out)
	n, _ := newNotifier(t, Options{Command: cmd})
	ev := Event{ID: "claude-1", Agent: "claude\x1b[31m", Title: "fix\x1b]0;x\a\nit", Dir: "/src/my app"}
	if err := n.Notify(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			got[k] = v
		}
	}
	want := map[string]string{
		"HEIMDALL_NOTIFY_EVENT":          "needs_input",
		"HEIMDALL_SESSION_ID":            "claude-1",
		"HEIMDALL_AGENT":                 "claude [31m",
		"HEIMDALL_TITLE":                 "fix ]0;x it",
		"HEIMDALL_DIR":                   "/src/my app",
		"HEIMDALL_MESSAGE":               "claude-1 needs input: fix ]0;x it",
		"HEIMDALL_NOTIFY_TEST_INHERITED": "yes",
		"stdin":                          "/dev/null",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// Its own process group (pid = pgid), in our session (see runCommand).
	f := strings.Fields(got["group"])
	sid, _ := unix.Getsid(0)
	if len(f) != 3 || f[0] != f[1] || f[1] == strconv.Itoa(syscall.Getpgrp()) || f[2] != strconv.Itoa(sid) {
		t.Errorf("pid pgid sid = %q; want a group of its own in session %d", got["group"], sid)
	}
}

func TestCommandFailureIsLoggedWithItsOutput(t *testing.T) {
	n, log := newNotifier(t, Options{Command: "echo to-stdout; echo to-stderr >&2; exit 3"})
	err := n.Notify(context.Background(), Event{ID: "s9"})
	if err == nil || !strings.Contains(err.Error(), "notify command: exit status 3") {
		t.Fatalf("Notify = %v, want exit status 3", err)
	}
	l := log.String()
	for _, w := range []string{`"level":"WARN"`, `"output":"to-stdout\nto-stderr\n"`, `"id":"s9"`, "exit status 3"} {
		if !strings.Contains(l, strings.ReplaceAll(w, "\n", `\n`)) {
			t.Errorf("log lacks %s:\n%s", w, l)
		}
	}
	// A success logs nothing above debug.
	n, log = newNotifier(t, Options{Command: "echo fine"})
	if err := n.Notify(context.Background(), Event{ID: "s9"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "WARN") || strings.Contains(log.String(), "fine") {
		t.Errorf("a success logged its output or a warning:\n%s", log)
	}
}

func TestCommandOutputIsBounded(t *testing.T) {
	n, log := newNotifier(t, Options{Command: "head -c 10000 /dev/zero | tr '\\0' x; exit 1"})
	if err := n.Notify(context.Background(), Event{ID: "s"}); err == nil {
		t.Fatal("no error")
	}
	l := log.String()
	if !strings.Contains(l, `"output":"`+strings.Repeat("x", maxOutput)+`"`) || strings.Contains(l, strings.Repeat("x", maxOutput+1)) {
		t.Errorf("output not cut to %d bytes: %d bytes of log", maxOutput, len(l))
	}
	if !strings.Contains(l, fmt.Sprintf(`"output_dropped":%d`, 10000-maxOutput)) {
		t.Errorf("dropped bytes not counted:\n%.300s", l)
	}
}

// Under the subreaper (TestMain) the shell's exit status is ours, every
// time: a command in a session of its own would lose it to the reaper.
func TestCommandStatusSurvivesTheReaper(t *testing.T) {
	n, _ := newNotifier(t, Options{Command: "exit 7"})
	for i := range 30 {
		if err := n.Notify(context.Background(), Event{ID: "s"}); err == nil || !strings.Contains(err.Error(), "exit status 7") {
			t.Fatalf("run %d: Notify = %v, want exit status 7", i, err)
		}
	}
}

// A command that hangs is killed after the timeout with everything in its
// group, and nothing of it is left, not even a zombie.
func TestCommandTimeoutKillsAndReaps(t *testing.T) {
	// The pids are written first thing; on a machine so loaded that the
	// shell has not done that within the timeout, try a longer one. Nothing
	// here asserts on time.
	for _, timeout := range []time.Duration{200 * time.Millisecond, 2 * time.Second, 10 * time.Second} {
		dir := t.TempDir()
		sh, bg := filepath.Join(dir, "sh"), filepath.Join(dir, "bg")
		cmd := fmt.Sprintf(`echo $$ > %s; sleep 1000 & echo $! > %s; wait`, quote(sh), quote(bg))
		n, log := newNotifier(t, Options{Command: cmd, Timeout: timeout})
		err := n.Notify(context.Background(), Event{ID: "hung"})
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("Notify = %v, want killed with context.DeadlineExceeded", err)
		}
		if !strings.Contains(log.String(), "notify command failed") {
			t.Errorf("the kill is not logged:\n%s", log)
		}
		shPid, ok1 := readPid(t, sh)
		bgPid, ok2 := readPid(t, bg)
		if !ok1 || !ok2 {
			continue
		}
		assertReaped(t, "the shell", shPid, true)
		assertReaped(t, "its background sleep", bgPid, subreaper)
		return
	}
	t.Fatal("the shell never wrote its pids")
}

// What the shell leaves running in its group is killed when it exits,
// whether or not it holds the output pipe, and Notify does not wait for it.
func TestCommandLeftoversEndWithIt(t *testing.T) {
	for _, redirect := range []string{"", ">/dev/null 2>&1"} {
		bg := filepath.Join(t.TempDir(), "bg")
		cmd := fmt.Sprintf(`sleep 1000 %s & echo $! > %s`, redirect, quote(bg))
		n, _ := newNotifier(t, Options{Command: cmd, Timeout: time.Hour})
		if err := n.Notify(context.Background(), Event{ID: "s"}); err != nil {
			t.Fatalf("%q: Notify = %v", cmd, err)
		}
		pid, ok := readPid(t, bg)
		if !ok {
			t.Fatalf("%q wrote no pid", cmd)
		}
		assertReaped(t, "background sleep "+redirect, pid, subreaper)
	}
}

func TestCommandNotRunWhenContextDone(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	n, _ := newNotifier(t, Options{Command: "touch " + quote(ran)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := n.Notify(ctx, Event{ID: "s"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Notify(done ctx) = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the command ran with a done context")
	}
}

// Concurrent Notify calls each deliver their sequence whole and run their
// command (and the race detector watches).
func TestNotifyConcurrently(t *testing.T) {
	master, tty := openPty(t)
	dir := t.TempDir()
	if err := SaveTerminal(dir, Terminal{TTY: tty.Name()}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ids")
	n, _ := newNotifier(t, Options{Terminal: FormatOSC777, Dir: dir,
		Command: `echo "$HEIMDALL_SESSION_ID" >> ` + quote(out)})
	const N = 8
	var wg sync.WaitGroup
	want := map[string]bool{}
	total := 0
	for i := range N {
		ev := Event{ID: fmt.Sprintf("s%d", i), Title: strings.Repeat("t", i*20)}
		seq, _ := Sequence(FormatOSC777, ev, false)
		want[seq] = true
		total += len(seq)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := n.Notify(context.Background(), ev); err != nil {
				t.Error(err)
			}
		}()
	}
	got := readN(t, master, total)
	wg.Wait()
	for _, s := range strings.SplitAfter(string(got), "\a") {
		if s == "" {
			continue
		}
		if !want[s] {
			t.Errorf("the tty got %q, not one of the sequences", s)
		}
		delete(want, s)
	}
	if len(want) != 0 {
		t.Errorf("%d sequences missing", len(want))
	}
	ids, _ := os.ReadFile(out)
	if lines := strings.Fields(string(ids)); len(lines) != N {
		t.Errorf("the command ran %d times, want %d: %q", len(lines), N, ids)
	}
}
