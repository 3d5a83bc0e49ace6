package main

// hm behaviours that scripts rely on (issue 10, part 2), each checked
// through the built binary.

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
// --older-than and says "Cleaned N log file(s)" (N may be 0); without
// --force it lists them.
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
	if r := hmIn(t, dir, "clean", "--force"); r.code != 0 || r.stdout != "Cleaned 0 log file(s)\n" {
		t.Errorf("clean --force with nothing left: %s\nwant just \"Cleaned 0 log file(s)\"", r)
	}
	hmIn(t, dir, "kill", "up")
	live.wait()
}
