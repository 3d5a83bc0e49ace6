package main

// hm behaviours that scripts rely on (issue 10, part 2), each checked
// through the built binary.

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

// livePID starts a process that runs until the test ends and returns its pid.
func livePID(t *testing.T) int {
	t.Helper()
	c := exec.Command("sleep", "300")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c.Process.Pid
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run over a stale regular file at the socket path replaces it and starts;
// it refuses (exit 1) only when a live server answers there, or when what is
// there may not be replaced (a directory). A refused run leaves neither a pid
// file nor a log behind.
func TestRunOverStaleRegularFile(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)

	// A plain file, and a plain file plus a pid file naming a dead process.
	writeFile(t, filepath.Join(dir, "plain.sock"), "left by a script\n")
	writeFile(t, filepath.Join(dir, "crash.sock"), "")
	writeFile(t, filepath.Join(dir, "crash.pid"), fmt.Sprintf("%d\n", deadPID(t)))
	for _, id := range []string{"plain", "crash"} {
		p := startSession(t, dir, id, "sleep", "60")
		fi, err := os.Lstat(p.sock)
		if err != nil || fi.Mode()&os.ModeSocket == 0 {
			t.Errorf("%s: %v, %v; want the run's socket", p.sock, fi, err)
		}
		if r := hmIn(t, dir, "kill", id); r.code != 0 {
			t.Errorf("kill %s: %s", id, r)
		}
		if code := p.wait(); code != 143 {
			t.Errorf("run %s exited %d, want 143\n%s", id, code, p)
		}
		assertGone(t, p.sock, filepath.Join(dir, id+".pid"))
	}

	// A live server (not ours, holding no pid file) answers: refused.
	live := filepath.Join(dir, "live.sock")
	l, err := net.Listen("unix", live)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := hmIn(t, dir, "run", "--detach", "--id", "live", "--", "sleep", "60")
	if r.code != 1 || !strings.Contains(r.stderr, "already running") {
		t.Errorf("run over a live socket: %s\nwant exit 1, already running", r)
	}
	if c, err := net.DialTimeout("unix", live, 2*time.Second); err != nil {
		t.Errorf("the live socket was touched: %v", err)
	} else {
		c.Close()
	}
	assertGone(t, filepath.Join(dir, "live.pid"), filepath.Join(dir, "live.log"))

	// A directory at the socket path: refused with a clear error.
	if err := os.Mkdir(filepath.Join(dir, "d.sock"), 0o700); err != nil {
		t.Fatal(err)
	}
	r = hmIn(t, dir, "run", "--detach", "--id", "d", "--", "sleep", "60")
	if r.code != 1 || !strings.Contains(r.stderr, "not a socket (a directory)") {
		t.Errorf("run over a directory: %s\nwant exit 1 saying it is a directory", r)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "d.sock")); err != nil || !fi.IsDir() {
		t.Errorf("the directory was touched: %v", err)
	}
	assertGone(t, filepath.Join(dir, "d.pid"), filepath.Join(dir, "d.log"))
}

// STATUS, SUBSCRIBE and KILL carrying a payload are handled as if it were
// empty: the extra bytes are ignored.
func TestEmptyFramesWithPayload(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	p := startSession(t, dir, "pl", "sh", "-c", "echo ready-$((40+2)); exec sleep 60")

	w, err := dialWire(p.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.send(tStatus, []byte("extra")); err != nil {
		t.Fatal(err)
	}
	typ, payload, err := w.next()
	if err != nil || typ != tStatusResp || len(payload) != 15 || payload[8] != 1 {
		t.Fatalf("STATUS with a payload: reply 0x%02x %x, %v; want a 15-byte STATUS_RESP, alive", typ, payload, err)
	}

	sub, err := dialWire(p.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := sub.send(tSubscribe, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if out, err := sub.readOutputUntil("ready-42"); err != nil {
		t.Fatalf("SUBSCRIBE with a payload: %v (output %q)", err, out)
	}
	sub.killAndWaitExit(t, []byte("now"), 143) // KILL with a payload kills
	if code := p.wait(); code != 143 {
		t.Errorf("run exited %d, want 143\n%s", code, p)
	}
}

// ls removes a stale .sock (a dead socket or a plain file) together with its
// .pid when the pid is not alive, and does not list it; with a live pid it
// lists nothing but removes nothing.
func TestLsRemovesStaleSocketFiles(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	file, filePid := filepath.Join(dir, "f.sock"), filepath.Join(dir, "f.pid")
	writeFile(t, file, "not a socket\n")
	writeFile(t, filePid, fmt.Sprintf("%d\n", deadPID(t)))
	alone := filepath.Join(dir, "alone.sock")
	writeFile(t, alone, "")
	deadSock, deadPid := makeStale(t, dir, "ds")
	held, heldPid := filepath.Join(dir, "held.sock"), filepath.Join(dir, "held.pid")
	writeFile(t, held, "")
	writeFile(t, heldPid, fmt.Sprintf("%d\n", livePID(t)))
	live := startSession(t, dir, "up", "sleep", "60")

	lines := lsLines(t, dir)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "up ") {
		t.Errorf("ls = %q, want only the live session", lines)
	}
	assertGone(t, file, filePid, alone, deadSock, deadPid)
	for _, p := range []string{held, heldPid} {
		if !fileExists(p) {
			t.Errorf("ls removed %s although the pid it names is alive", p)
		}
	}
	if r := hmIn(t, dir, "status", "f"); r.code != 1 || !strings.Contains(r.stderr, "No session found") {
		t.Errorf("status of a removed stale session: %s", r)
	}
	hmIn(t, dir, "kill", "up")
	live.wait()
}

// setAge sets path's modification time to age ago.
func setAge(t *testing.T, path string, age time.Duration) {
	t.Helper()
	old := time.Now().Add(-age)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// clean --force removes orphan logs (no .sock, no .pid) older than
// --older-than and says "Cleaned N log file(s)", or "Nothing to clean"
// when nothing is old enough; without --force it lists them.
func TestCleanForceOrphanLogs(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	oldLog, newLog := filepath.Join(dir, "old.log"), filepath.Join(dir, "new.log")
	writeFile(t, oldLog, "{}\n")
	writeFile(t, newLog, "{}\n")
	setAge(t, oldLog, 2*time.Hour)
	// Not orphans: a log whose pid file names a live process, and a live
	// session's.
	ownedLog := filepath.Join(dir, "owned.log")
	writeFile(t, ownedLog, "{}\n")
	writeFile(t, filepath.Join(dir, "owned.pid"), fmt.Sprintf("%d\n", livePID(t)))
	setAge(t, ownedLog, 2*time.Hour)
	setAge(t, filepath.Join(dir, "owned.pid"), 2*time.Hour)
	live := startSession(t, dir, "up", "sleep", "60")
	setAge(t, filepath.Join(dir, "up.log"), 2*time.Hour)
	// A crashed session's files: socket, pid file and log all go.
	crashSock, crashPid := makeStale(t, dir, "crash")
	crashLog := filepath.Join(dir, "crash.log")
	writeFile(t, crashLog, "{}\n")
	for _, p := range []string{crashSock, crashPid, crashLog} {
		setAge(t, p, 2*time.Hour)
	}

	r := hmIn(t, dir, "clean", "--older-than", "1h")
	if r.code != 0 || !strings.Contains(r.stdout, "would remove "+oldLog+"\n") || strings.Contains(r.stdout, "Cleaned") {
		t.Errorf("clean --older-than 1h: %s\nwant %s listed and no Cleaned line", r, oldLog)
	}
	if !fileExists(oldLog) {
		t.Fatalf("clean without --force removed %s", oldLog)
	}

	r = hmIn(t, dir, "clean", "--force", "--older-than", "1h")
	if r.code != 0 || !strings.HasSuffix(r.stdout, "Cleaned 2 log file(s)\n") {
		t.Errorf("clean --force --older-than 1h: %s\nwant it to end with \"Cleaned 2 log file(s)\"", r)
	}
	assertGone(t, oldLog, crashSock, crashPid, crashLog)
	for _, p := range []string{newLog, ownedLog, filepath.Join(dir, "owned.pid"), filepath.Join(dir, "up.log"), filepath.Join(dir, "up.sock")} {
		if !fileExists(p) {
			t.Errorf("clean --force --older-than 1h removed %s", p)
		}
	}

	r = hmIn(t, dir, "clean", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, "removed "+newLog+"\n") || !strings.HasSuffix(r.stdout, "Cleaned 1 log file(s)\n") {
		t.Errorf("clean --force: %s\nwant %s removed and \"Cleaned 1 log file(s)\"", r, newLog)
	}
	if r := hmIn(t, dir, "clean", "--force"); r.code != 0 || r.stdout != "Nothing to clean\n" {
		t.Errorf("clean --force with nothing left: %s\nwant just \"Nothing to clean\"", r)
	}
	writeFile(t, newLog, "{}\n") // not old enough
	if r := hmIn(t, dir, "clean", "--force", "--older-than", "1h"); r.code != 0 || r.stdout != "Nothing to clean\n" {
		t.Errorf("clean --force with nothing old enough: %s\nwant just \"Nothing to clean\"", r)
	}
	hmIn(t, dir, "kill", "up")
	live.wait()
}

// run --cols 0 --rows 0 starts with the default size; each is independent.
func TestRunZeroSizeMeansDefault(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	for i, c := range []struct {
		flags []string
		want  string // rows x cols
	}{
		{[]string{"--cols", "0", "--rows", "0"}, "24x80"},
		{[]string{"--cols", "0", "--rows", "30"}, "30x80"},
		{[]string{"--cols=100", "--rows=0"}, "24x100"},
	} {
		id := fmt.Sprintf("z%d", i)
		p := startRun(t, dir, id, nil, c.flags, "sh", "-c", `echo "size=$(stty size | tr ' ' x)"; exec sleep 60`)
		waitLive(t, p)
		w := subscribed(t, p.sock)
		if out, err := w.readOutputUntil("size=" + c.want); err != nil {
			t.Errorf("run %q: %v (output %q)", c.flags, err, out)
		}
		w.Close()
		hmIn(t, dir, "kill", id)
		p.wait()
	}
}

// The global flags (--config, --socket-dir) work before and after the
// subcommand, in both --flag value and --flag=value forms; after `--` they
// are the program's arguments, untouched.
func TestGlobalFlagsEitherSide(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	cfgDir := newSockDir(t) // the config names this one
	cfg := filepath.Join(t.TempDir(), "c.toml")
	writeFile(t, cfg, fmt.Sprintf("socket_dir = %q\nsession_env_var = \"MY_ID\"\n", cfgDir))

	// where a flag goes: before the subcommand, or after it.
	place := func(before bool, sub string, flag []string, rest ...string) []string {
		if before {
			return append(append(append([]string(nil), flag...), sub), rest...)
		}
		return append(append([]string{sub}, flag...), rest...)
	}
	prog := []string{"sh", "-c", `echo "args=$*;id=$MY_ID"; exec sleep 60`, "sh", "--config", "x.toml", "--socket-dir=/nowhere", "--", "-h"}
	wantArgs := "args=--config x.toml --socket-dir=/nowhere -- -h"
	for i, c := range []struct {
		flag   []string
		before bool
		dir    string // where the session must be
		envID  bool   // the config's session_env_var applies
	}{
		{[]string{"--socket-dir", dir}, true, dir, false},
		{[]string{"--socket-dir", dir}, false, dir, false},
		{[]string{"--socket-dir=" + dir}, true, dir, false},
		{[]string{"--config", cfg}, true, cfgDir, true},
		{[]string{"--config", cfg}, false, cfgDir, true},
		{[]string{"--config=" + cfg}, false, cfgDir, true},
	} {
		id := fmt.Sprintf("g%d", i)
		args := place(c.before, "run", c.flag, append([]string{"--foreground", "--id", id, "--"}, prog...)...)
		p := startProc(t, binPath, args...)
		p.sock = filepath.Join(c.dir, id+".sock")
		waitLive(t, p)
		want := wantArgs + ";id="
		if c.envID {
			want += id
		}
		w := subscribed(t, p.sock)
		if out, err := w.readOutputUntil(want); err != nil {
			t.Errorf("%q: %v (output %q)", args, err, out)
		}
		w.Close()

		for _, sub := range [][]string{{"ls"}, {"status", id}, {"screen", id}, {"clean"}} {
			r := hm(t, place(c.before, sub[0], c.flag, sub[1:]...)...)
			if r.code != 0 {
				t.Errorf("%q: %s", place(c.before, sub[0], c.flag, sub[1:]...), r)
				continue
			}
			if sub[0] == "ls" && !strings.HasPrefix(r.stdout, id+" ") {
				t.Errorf("%q does not list %s: %s", place(c.before, "ls", c.flag), id, r)
			}
		}
		if r := hm(t, place(c.before, "kill", c.flag, id)...); r.code != 0 {
			t.Errorf("%q: %s", place(c.before, "kill", c.flag, id), r)
		}
		if code := p.wait(); code != 143 {
			t.Errorf("%q exited %d, want 143\n%s", args, code, p)
		}
	}
}

// KILL over a subscribed connection, for a child that backgrounded a
// grandchild: the socket is gone within 5 s, and half a second later the
// grandchild does not exist at all — not even as a zombie (run is a child
// subreaper and reaps what it inherits).
func TestKillReapsBackgroundGrandchild(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	dir := newSockDir(t)
	p := startSession(t, dir, "bg", "bash", "-c", "sleep 300 & echo gc=$!; wait")
	w := subscribed(t, p.sock)
	out, err := w.readOutputUntil("\n")
	if err != nil {
		t.Fatalf("%v (output %q)", err, out)
	}
	_, after, _ := strings.Cut(out, "gc=")
	gc, err := strconv.Atoi(strings.TrimSpace(after))
	if err != nil || gc <= 0 {
		t.Fatalf("no grandchild pid in %q", out)
	}
	t.Cleanup(func() {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", gc)); err == nil {
			syscall.Kill(gc, syscall.SIGKILL)
		}
	})

	killed := time.Now()
	if err := w.send(tKill, nil); err != nil {
		t.Fatal(err)
	}
	for {
		typ, _, err := w.next()
		if err != nil || typ == tExit {
			break
		}
	}
	if !poll(time.Until(killed.Add(5*time.Second)), func() bool { return !fileExists(p.sock) }) {
		t.Fatalf("%s still there 5s after KILL\n%s", p.sock, p)
	}
	time.Sleep(500 * time.Millisecond)
	// (A pid reused meanwhile by something else is not the grandchild.)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", gc)); err == nil && strings.Contains(string(b), "(sleep)") {
		t.Errorf("grandchild %d still exists 0.5s after the socket went: %s", gc, b)
	}
	if code := p.wait(); code != 143 {
		t.Errorf("run exited %d, want 143\n%s", code, p)
	}
}

// A program that exits leaving a background job (immune to the hangup of
// its session leader's exit): run keeps the child's exit code (the reaper
// never takes it) and, before it exits, waits for the job to end (up to
// 0.5 s) and reaps it, so nothing is left for init — not even a zombie.
func TestRunReapsOrphansBeforeExit(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	gcFile := filepath.Join(t.TempDir(), "gc")
	for round := range 3 {
		id := fmt.Sprintf("o%d", round)
		p := startRun(t, dir, id, nil, nil, "sh", "-c", `(trap "" HUP; exec sleep 0.2) & echo $! > "$1"; exit 7`, "sh", gcFile)
		if code := p.wait(); code != 7 {
			t.Fatalf("round %d: run exited %d, want 7\n%s", round, code, p)
		}
		b, err := os.ReadFile(gcFile)
		gc, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || gc <= 0 {
			t.Fatalf("round %d: no background pid: %q, %v", round, b, err)
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", gc)); err == nil && strings.Contains(string(b), "(sleep)") {
			syscall.Kill(gc, syscall.SIGKILL)
			t.Errorf("round %d: the background sleep %d outlived run: %s", round, gc, b)
		}
	}
}
