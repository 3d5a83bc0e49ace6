package main

// End-to-end tests of the heimdall-tui CLI: each runs the real binary (built
// once by TestMain) in its own short socket directory, waits with bounded
// polls, and reaps every process it starts.

import (
	"encoding/binary"
	"encoding/json"
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

// fileExists reports whether something (of any type) is at path.
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// assertGone fails unless none of paths exists.
func assertGone(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if fileExists(p) {
			t.Errorf("%s still exists", p)
		}
	}
}

// lsLines returns the non-empty lines of `ls`.
func lsLines(t *testing.T, dir string) []string {
	t.Helper()
	r := hmIn(t, dir, "ls")
	if r.code != 0 {
		t.Fatalf("ls: %s", r)
	}
	var lines []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func assertNoSessions(t *testing.T, dir string) {
	t.Helper()
	if lines := lsLines(t, dir); len(lines) != 1 || lines[0] != "No active sessions" {
		t.Errorf("ls = %q, want [No active sessions]", lines)
	}
}

// lsFields parses one ls line: the id and its key=value fields.
func lsFields(line string) (id string, kv map[string]string) {
	f := strings.Fields(line)
	kv = map[string]string{}
	for _, s := range f[1:] {
		if k, v, ok := strings.Cut(s, "="); ok {
			kv[k] = v
		}
	}
	return f[0], kv
}

// Requirement 1: run --detach, ls, pid file, socket mode, status (text and
// JSON), kill, cleanup of socket and pid file.
func TestRunDetachLsStatusKill(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	const id = "one"
	p := startSession(t, dir, id, "sh", "-c", "echo hi; sleep 30")
	sock, pidFile := filepath.Join(dir, id+".sock"), filepath.Join(dir, id+".pid")

	if !poll(waitTimeout, func() bool { return strings.Contains(p.stderr.String(), fmt.Sprintf("session %q running", id)) }) {
		t.Errorf("run --detach did not report the session running:\n%s", p)
	}

	st, err := querySession(sock)
	if err != nil {
		t.Fatal(err)
	}
	childPID := int(st.pid)
	if childPID <= 0 || childPID == p.pid() {
		t.Errorf("STATUS pid = %d, want the child's pid (not the supervisor's %d)", childPID, p.pid())
	}

	lines := lsLines(t, dir)
	if len(lines) != 1 {
		t.Fatalf("ls printed %d lines, want 1: %q", len(lines), lines)
	}
	gotID, kv := lsFields(lines[0])
	if gotID != id {
		t.Errorf("ls id = %q, want %q (line %q)", gotID, id, lines[0])
	}
	for _, k := range []string{"pid", "state", "idle", "alive"} {
		if kv[k] == "" {
			t.Errorf("ls line %q has no %s=", lines[0], k)
		}
	}
	if kv["pid"] != strconv.Itoa(childPID) {
		t.Errorf("ls pid=%s, want %d", kv["pid"], childPID)
	}
	if kv["alive"] != "yes" {
		t.Errorf("ls alive=%s, want yes", kv["alive"])
	}
	if _, err := time.ParseDuration(kv["idle"]); err != nil {
		t.Errorf("ls idle=%q is not a duration: %v", kv["idle"], err)
	}

	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != strconv.Itoa(p.pid()) {
		t.Errorf("%s contains %q, want the run process's pid %d", pidFile, got, p.pid())
	}
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s mode = %v, want a socket with 0600", sock, fi.Mode())
	}

	r := hmIn(t, dir, "status", id)
	if r.code != 0 {
		t.Fatalf("status: %s", r)
	}
	for _, want := range []string{"id:       one", "pid:      " + strconv.Itoa(childPID), "alive:    true", "state:", "state_ms:", "idle_ms:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status output lacks %q:\n%s", want, r.stdout)
		}
	}

	r = hmIn(t, dir, "status", id, "--json")
	if r.code != 0 {
		t.Fatalf("status --json: %s", r)
	}
	var js map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &js); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, r.stdout)
	}
	if js["id"] != id || js["pid"] != float64(childPID) || js["alive"] != true {
		t.Errorf("status --json = %v, want id %q, pid %d, alive true", js, id, childPID)
	}
	if s, ok := js["state"].(string); !ok || s == "" {
		t.Errorf("status --json state = %v, want a name", js["state"])
	}
	for _, k := range []string{"state_ms", "idle_ms"} {
		if _, ok := js[k].(float64); !ok {
			t.Errorf("status --json %s = %v, want a number", k, js[k])
		}
	}

	// The child's output is in the scrollback, replayed to a subscriber.
	w := subscribed(t, sock)
	if out, err := w.readOutputUntil("hi"); err != nil {
		t.Errorf("subscriber: %v (got %q)", err, out)
	}

	r = hmIn(t, dir, "kill", id)
	if r.code != 0 || !strings.Contains(r.stdout, "Sent KILL to one") {
		t.Errorf("kill: %s", r)
	}
	if code := p.wait(); code != 143 {
		t.Errorf("run exited with %d, want 143 (SIGTERM)\n%s", code, p)
	}
	// The subscriber got EXIT with the same code before the socket went.
	for {
		typ, payload, err := w.next()
		if err != nil {
			t.Errorf("subscriber: no EXIT frame: %v", err)
			break
		}
		if typ == tExit {
			if len(payload) != 4 || int32(binary.BigEndian.Uint32(payload)) != 143 {
				t.Errorf("EXIT payload = %x, want 143", payload)
			}
			break
		}
	}
	w.Close()
	assertGone(t, sock, pidFile)
	assertNoSessions(t, dir)
}

// The socket speaks the protocol: INPUT reaches the pty, RESIZE resizes it,
// KILL ends the child and subscribers get its output and EXIT.
func TestWireProtocol(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	p := startSession(t, dir, "wire", "sh", "-c", `while read -r l; do echo "got-$l-$(stty size | tr ' ' x)"; done`)
	w := subscribed(t, p.sock)
	resize := make([]byte, 4)
	binary.BigEndian.PutUint16(resize[0:2], 91)
	binary.BigEndian.PutUint16(resize[2:4], 17)
	if err := w.send(tResize, resize); err != nil {
		t.Fatal(err)
	}
	if err := w.send(tInput, []byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	if out, err := w.readOutputUntil("got-ping-17x91"); err != nil {
		t.Fatalf("%v; output %q", err, out)
	}
	w.killAndWaitExit(t, nil, 143)
	if code := p.wait(); code != 143 {
		t.Errorf("run exited with %d, want 143\n%s", code, p)
	}
}

// Requirement 2: run exits with the child's code and removes its socket and
// pid file; the log stays until clean removes it.
func TestRunExitCodeAndClean(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	const id = "three"
	p := startRun(t, dir, id, nil, nil, "sh", "-c", "echo bye; exit 3")
	if code := p.wait(); code != 3 {
		t.Fatalf("run exited with %d, want 3\n%s", code, p)
	}
	sock, pidFile, logFile := filepath.Join(dir, id+".sock"), filepath.Join(dir, id+".pid"), filepath.Join(dir, id+".log")
	assertGone(t, sock, pidFile)
	if !fileExists(logFile) {
		t.Fatalf("%s was removed; the session log should stay until clean", logFile)
	}

	// A live session's files are never listed.
	live := startSession(t, dir, "live", "sleep", "60")

	r := hmIn(t, dir, "clean")
	if r.code != 0 || !strings.Contains(r.stdout, "would remove "+logFile) {
		t.Errorf("clean does not list %s: %s", logFile, r)
	}
	if strings.Contains(r.stdout, "live.") {
		t.Errorf("clean lists the live session's files: %s", r)
	}
	if !fileExists(logFile) {
		t.Errorf("clean without --force removed %s", logFile)
	}

	r = hmIn(t, dir, "clean", "--older-than", "1h")
	if r.code != 0 || strings.Contains(r.stdout, "would remove") || !strings.Contains(r.stdout, "Nothing to clean") {
		t.Errorf("clean --older-than 1h of a fresh log: %s", r)
	}

	r = hmIn(t, dir, "clean", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, logFile) {
		t.Errorf("clean --force: %s", r)
	}
	assertGone(t, logFile)
	for _, f := range []string{"live.sock", "live.pid", "live.log"} {
		if !fileExists(filepath.Join(dir, f)) {
			t.Errorf("clean --force removed the live session's %s", f)
		}
	}

	if r := hmIn(t, dir, "clean"); r.code != 0 || strings.TrimSpace(r.stdout) != "Nothing to clean" {
		t.Errorf("clean after --force: %s", r)
	}

	hmIn(t, dir, "kill", "live")
	if code := live.wait(); code != 143 {
		t.Errorf("live run exited with %d, want 143", code)
	}
}

// Requirement 3: a program that cannot be started.
func TestRunMissingProgram(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	notExec := filepath.Join(t.TempDir(), "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, prog := range []string{"hm-no-such-program-xyz", "/nonexistent/hm-prog", notExec} {
		id := fmt.Sprintf("miss%d", len(prog))
		p := startRun(t, dir, id, nil, nil, prog, "arg")
		code := p.wait()
		if code == 0 {
			t.Errorf("run of %s exited 0, want non-zero\n%s", prog, p)
		}
		if stderr := p.stderr.String(); !strings.Contains(stderr, prog) || !strings.Contains(stderr, "cannot start") {
			t.Errorf("run of %s: stderr does not say it cannot start it:\n%s", prog, stderr)
		}
		assertGone(t, filepath.Join(dir, id+".sock"), filepath.Join(dir, id+".pid"))
	}
	assertNoSessions(t, dir)
}

// Requirement 4: of two concurrent runs of one id exactly one wins.
func TestRunDuplicateID(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	for round := range 4 {
		a := startRun(t, dir, "same", nil, nil, "sleep", "60")
		b := startRun(t, dir, "same", nil, nil, "sleep", "60")
		if !poll(waitTimeout, func() bool { return a.exited() || b.exited() }) {
			t.Fatalf("round %d: both runs of one id are still running\nA:\n%s\nB:\n%s", round, a, b)
		}
		winner, loser := a, b
		if a.exited() {
			winner, loser = b, a
		}
		if code := loser.wait(); code == 0 {
			t.Errorf("round %d: the losing run exited 0", round)
		}
		if !strings.Contains(loser.stderr.String(), "already running") {
			t.Errorf("round %d: the losing run does not say \"already running\":\n%s", round, loser)
		}
		waitLive(t, winner)
		pidText, err := os.ReadFile(filepath.Join(dir, "same.pid"))
		if err != nil || strings.TrimSpace(string(pidText)) != strconv.Itoa(winner.pid()) {
			t.Errorf("round %d: pid file = %q (%v), want the winner's pid %d", round, pidText, err, winner.pid())
		}
		if r := hmIn(t, dir, "kill", "same"); r.code != 0 {
			t.Fatalf("round %d: kill: %s", round, r)
		}
		if code := winner.wait(); code != 143 {
			t.Errorf("round %d: winner exited with %d, want 143\n%s", round, code, winner)
		}
	}
}

// makeStale leaves a socket nobody listens on and a pid file naming a dead
// process for id in dir, as a crashed supervisor would.
func makeStale(t *testing.T, dir, id string) (sock, pidFile string) {
	t.Helper()
	sock, pidFile = filepath.Join(dir, id+".sock"), filepath.Join(dir, id+".pid")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !fileExists(sock) {
		t.Fatalf("stale socket %s was not left behind", sock)
	}
	return sock, pidFile
}

// Requirement 5: stale sockets and pid files are cleaned by ls and do not
// stop a new run of the id.
func TestStaleFiles(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	sock, pidFile := makeStale(t, dir, "old")

	if r := hmIn(t, dir, "status", "old"); r.code != 1 || !strings.Contains(r.stderr, "No session found") {
		t.Errorf("status of a stale session: %s", r)
	}
	assertNoSessions(t, dir)
	assertGone(t, sock, pidFile)

	p := startSession(t, dir, "old", "sleep", "60")
	if lines := lsLines(t, dir); len(lines) != 1 || !strings.HasPrefix(lines[0], "old ") {
		t.Errorf("ls = %q, want the new session", lines)
	}
	hmIn(t, dir, "kill", "old")
	if code := p.wait(); code != 143 {
		t.Errorf("run exited with %d, want 143", code)
	}

	// clean lists and removes stale sockets and pid files too.
	sock, pidFile = makeStale(t, dir, "old3")
	r := hmIn(t, dir, "clean")
	if !strings.Contains(r.stdout, "would remove "+sock) || !strings.Contains(r.stdout, "would remove "+pidFile) {
		t.Errorf("clean does not list the stale %s and %s: %s", sock, pidFile, r)
	}
	if r := hmIn(t, dir, "clean", "--force"); r.code != 0 {
		t.Errorf("clean --force: %s", r)
	}
	assertGone(t, sock, pidFile)

	// run itself replaces stale files, without an ls first.
	makeStale(t, dir, "old2")
	p = startSession(t, dir, "old2", "sleep", "60")
	hmIn(t, dir, "kill", "old2")
	if code := p.wait(); code != 143 {
		t.Errorf("run over stale files exited with %d, want 143\n%s", code, p)
	}
	assertNoSessions(t, dir)
}

// Requirement 6: commands on a session that does not exist.
func TestMissingSession(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	for _, d := range []string{dir, filepath.Join(dir, "no-such-dir")} {
		for _, args := range [][]string{{"status", "nosuch"}, {"status", "nosuch", "--json"}, {"kill", "nosuch"}, {"attach", "nosuch"}} {
			r := hmIn(t, d, args[0], args[1:]...)
			if r.code != 1 || !strings.Contains(r.stderr, "No session found") || r.stdout != "" {
				t.Errorf("%q in %s: %s\nwant exit 1 and \"No session found\" on stderr", args, d, r)
			}
		}
	}
	r := hmIn(t, filepath.Join(dir, "no-such-dir"), "ls")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "No active sessions" {
		t.Errorf("ls of a missing dir: %s", r)
	}
}

// Requirement 7: --config.
func TestConfigMissingFile(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	missing := filepath.Join(t.TempDir(), "nope.toml")
	r := hm(t, "--config", missing, "ls", "--socket-dir", dir)
	if r.code == 0 || !strings.Contains(r.stderr, missing) {
		t.Errorf("--config with a missing file: %s\nwant an error naming it", r)
	}
	// A bad value is an error too, naming the key.
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("kill_grace = \"soon\"\n"), 0o600)
	if r := hm(t, "--config", bad, "ls", "--socket-dir", dir); r.code == 0 || !strings.Contains(r.stderr, "kill_grace") {
		t.Errorf("--config with a bad kill_grace: %s", r)
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	tmp := t.TempDir()
	cfg := filepath.Join(tmp, "config.toml")
	err := os.WriteFile(cfg, []byte(`# test config
kill_grace = "300ms"
session_env_var = "MY_ID"
scrollback_bytes = 1000
no_such_option = 1

[[env]]
name = "FOO"
value = "bar"
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(tmp, "env")
	// The child ignores SIGTERM (and so does the sleep it becomes), prints
	// its environment to a file, then 100 lines (far more than 1000
	// bytes) and END.
	script := `trap "" TERM; env > "$1.tmp"; mv "$1.tmp" "$1"; ` +
		`i=0; while [ $i -lt 100 ]; do echo "line-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; i=$((i+1)); done; ` +
		`echo END; exec sleep 60`
	const id = "cfg"
	p := startRun(t, dir, id, []string{"--config", cfg}, nil, "sh", "-c", script, "sh", envFile)
	waitLive(t, p)

	if !poll(waitTimeout, func() bool { return strings.Contains(p.stderr.String(), "no_such_option") }) {
		t.Errorf("no warning about the unknown key on stderr:\n%s", p)
	} else if !strings.Contains(p.stderr.String(), "warning") {
		t.Errorf("the unknown key is not reported as a warning:\n%s", p)
	}

	var env string
	if !poll(waitTimeout, func() bool {
		b, err := os.ReadFile(envFile)
		env = string(b)
		return err == nil
	}) {
		t.Fatalf("the child did not write %s\n%s", envFile, p)
	}
	for _, want := range []string{"FOO=bar", "MY_ID=" + id} {
		if !strings.Contains("\n"+env, "\n"+want+"\n") {
			t.Errorf("the child's environment lacks %s:\n%s", want, env)
		}
	}

	// scrollback_bytes = 1000: once END has been published, a new
	// subscriber's replay is the last ≤1000 bytes.
	w, err := dialWire(p.sock)
	if err != nil {
		t.Fatal(err)
	}
	w.send(tSubscribe, nil)
	if out, err := w.readOutputUntil("END"); err != nil {
		t.Fatalf("first subscriber: %v (%q)", err, out)
	}
	w.Close()
	w, err = dialWire(p.sock)
	if err != nil {
		t.Fatal(err)
	}
	w.send(tSubscribe, nil)
	replay, err := w.readOutputUntil("END")
	w.Close()
	if err != nil {
		t.Fatalf("second subscriber: %v (%q)", err, replay)
	}
	if len(replay) > 1000 || strings.Contains(replay, "line-0-") || !strings.Contains(replay, "line-99-") {
		t.Errorf("replay of %d bytes with scrollback_bytes = 1000:\n%q", len(replay), replay)
	}

	// kill_grace = 300ms: the TERM-proof child is SIGKILLed soon after.
	start := time.Now()
	if r := hmIn(t, dir, "kill", id); r.code != 0 {
		t.Fatalf("kill: %s", r)
	}
	code := p.wait()
	elapsed := time.Since(start)
	if code != 137 {
		t.Errorf("run exited with %d, want 137 (SIGKILL after the grace)\n%s", code, p)
	}
	// The default grace is 5s; well under it means the config's applied.
	if elapsed < 250*time.Millisecond || elapsed > 4*time.Second {
		t.Errorf("the session ended %v after kill, want about 300ms", elapsed)
	}
}

// Requirement 8: the seed's minimal client, built from testdata/seedclient.
func TestSeedClient(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)

	t.Run("replay+live", func(t *testing.T) {
		// Deterministic: the child prints "ready", waits until the test
		// has seen it through the client (so the client is subscribed),
		// then prints from-child live and exits 7.
		gate := filepath.Join(t.TempDir(), "gate")
		p := startSession(t, dir, "x", "sh", "-c",
			`echo ready; while [ ! -e "$1" ]; do sleep 0.02; done; sleep 0.3; echo from-child; exit 7`, "sh", gate)
		c := startProc(t, seedClientPath, p.sock)
		if !poll(waitTimeout, func() bool { return strings.Contains(c.stdout.String(), "ready") }) {
			t.Fatalf("the seed client did not print the replayed output\n%s", c)
		}
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if code := c.wait(); code != 7 {
			t.Errorf("seed client exited %d, want 7\n%s", code, c)
		}
		if !strings.Contains(c.stdout.String(), "from-child") {
			t.Errorf("seed client output lacks from-child:\n%s", c)
		}
		if code := p.wait(); code != 7 {
			t.Errorf("run exited %d, want 7\n%s", code, p)
		}
	})

	t.Run("as in the brief", func(t *testing.T) {
		// The child exits 0.3s after it starts: a client that connects
		// later finds no session. That is a slow machine, not a bug, so it
		// is retried; a client that connects gets the output and the code.
		for attempt := 1; ; attempt++ {
			id := fmt.Sprintf("s%d", attempt)
			p := startRun(t, dir, id, nil, nil, "sh", "-c", "sleep 0.3; echo from-child; exit 7")
			if !poll(waitTimeout, func() bool { return fileExists(p.sock) || p.exited() }) {
				t.Fatalf("no socket %s\n%s", p.sock, p)
			}
			c := startProc(t, seedClientPath, p.sock)
			code := c.wait()
			p.wait()
			if code == 1 && strings.HasPrefix(c.stderr.String(), "connect:") && attempt < 3 {
				t.Logf("attempt %d: the session ended before the client connected; retrying", attempt)
				continue
			}
			if code != 7 || !strings.Contains(c.stdout.String(), "from-child") {
				t.Errorf("seed client: exit %d, want 7 and from-child\n%s", code, c)
			}
			break
		}
	})
}

// Killing a session leaves nothing of its process group behind, even a
// grandchild that ignores SIGTERM and SIGHUP.
func TestKillReapsProcessGroup(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	gcFile := filepath.Join(t.TempDir(), "gc")
	p := startSession(t, dir, "grp", "sh", "-c",
		`sh -c 'trap "" TERM HUP; echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 60' "$1" & wait`, "sh", gcFile)
	var gc int
	if !poll(waitTimeout, func() bool {
		b, err := os.ReadFile(gcFile)
		gc, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && gc > 0
	}) {
		t.Fatalf("the grandchild did not start\n%s", p)
	}
	t.Cleanup(func() { syscall.Kill(gc, syscall.SIGKILL) })

	hmIn(t, dir, "kill", "grp")
	if code := p.wait(); code != 143 {
		t.Errorf("run exited with %d, want 143\n%s", code, p)
	}
	if !poll(waitTimeout, func() bool { return processGone(gc) }) {
		t.Errorf("grandchild %d (ignores TERM) still runs after the session was killed and run exited", gc)
	}
}

// assertCooked checks, from the pane's shell, that the terminal was handed
// back in cooked mode (icanon and echo on): bash runs commands with the
// settings it found when it drew its prompt.
func assertCooked(t *testing.T, x *tmuxServer) {
	t.Helper()
	x.sendLine("clear; echo raw-flags-$(stty -a | grep -ow -e -icanon -e -echo | wc -l)")
	x.waitFor("raw-flags-0")
	x.waitPrompt("hm$")
}

// Requirement 9: attach as a person would, in tmux.
func TestTmuxAttach(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	x := newTmux(t, "env HISTFILE=/dev/null PS1='hm$ ' bash --norc --noprofile")
	p := startSession(t, dir, "tm", "env", "HISTFILE=/dev/null", "PS1=in$ ", "bash", "--norc", "--noprofile", "-i")
	x.waitPrompt("hm$")
	attachCmd := fmt.Sprintf("%s --socket-dir %s attach tm", shellQuote(binPath), shellQuote(dir))

	x.sendLine(attachCmd)
	x.waitDisplay("#{alternate_on}", "1") // attached: raw mode, alternate screen
	x.waitFor("in$")
	x.sendLine("echo inside-$((6*7))")
	x.waitFor("inside-42")

	// The attach sent the pane's size as RESIZE when it started.
	size := x.display("#{pane_height}x#{pane_width}")
	if size != "35x120" {
		t.Logf("pane size is %s (tmux chose it), not 35x120", size)
	}
	x.sendLine("echo sz-$(stty size | tr ' ' x)")
	x.waitFor("sz-" + size)

	// Resizing the window sends SIGWINCH to attach, which sends RESIZE.
	x.run("resize-window", "-t", "main", "-x", "100", "-y", "30")
	x.waitDisplay("#{pane_height}x#{pane_width}", "30x100")
	// SIGWINCH and the typed keys race in attach; ask until the size shows.
	ok := poll(waitTimeout, func() bool {
		x.sendLine("echo sz-$(stty size | tr ' ' x)")
		return poll(time.Second, func() bool { return strings.Contains(x.capture(), "sz-30x100") })
	})
	if !ok {
		t.Fatalf("stty size never reported 30 100 after the resize; screen:\n%s", x.capture())
	}

	// Ctrl-\ detaches: "detached", the outer prompt, the session alive.
	x.sendKeys(`C-\`)
	x.waitFor("detached")
	x.waitPrompt("hm$")
	x.waitDisplay("#{alternate_on}", "0")
	if r := hmIn(t, dir, "status", "tm"); r.code != 0 || !strings.Contains(r.stdout, "alive:    true") {
		t.Errorf("status after detach: %s", r)
	}
	if p.exited() {
		t.Fatalf("the session ended on detach\n%s", p)
	}
	assertCooked(t, x)

	// Attach again and end the session from inside.
	x.sendLine("clear")
	x.waitScreen("a cleared screen", func(s string) bool { return !strings.Contains(s, "detached") })
	x.sendLine(attachCmd)
	x.waitDisplay("#{alternate_on}", "1")
	x.sendLine("echo again-$((1+1))")
	x.waitFor("again-2")
	x.sendLine("exit 5")
	x.waitFor("session exited (code 5)")
	x.waitPrompt("hm$")
	x.sendLine("echo rc=$?")
	x.waitFor("rc=5")
	assertCooked(t, x)
	if code := p.wait(); code != 5 {
		t.Errorf("run exited with %d, want 5\n%s", code, p)
	}
	assertGone(t, p.sock, filepath.Join(dir, "tm.pid"))
}

// run without --detach: the terminal is attached to the session; Ctrl-\
// gives it back at once (the prompt returns, exit 0) with the session still
// running, as tmux and dtach detach; attach comes back to it, and the
// program's end is the attached terminal's exit status.
func TestTmuxRunAttached(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	x := newTmux(t, "env HISTFILE=/dev/null PS1='hm$ ' bash --norc --noprofile")
	x.waitPrompt("hm$")
	x.sendLine(fmt.Sprintf(`%s run --socket-dir %s --id ra -- sh -c 'while read -r l; do echo "got-$l-$(stty size | tr " " x)"; done'`,
		shellQuote(binPath), shellQuote(dir)))
	x.waitDisplay("#{alternate_on}", "1")
	sock := filepath.Join(dir, "ra.sock")
	if !poll(waitTimeout, func() bool { _, err := querySession(sock); return err == nil }) {
		t.Fatalf("run in tmux did not serve %s; screen:\n%s", sock, x.capture())
	}

	// Keys go to the session, whose pty has the pane's size.
	x.sendLine("abc")
	x.waitFor("got-abc-" + x.display("#{pane_height}x#{pane_width}"))

	x.sendKeys(`C-\`)
	x.waitFor("detached")
	x.waitDisplay("#{alternate_on}", "0")
	x.waitPrompt("hm$")
	x.sendLine("echo rc=$?")
	x.waitFor("rc=0")
	if r := hmIn(t, dir, "status", "ra"); r.code != 0 || !strings.Contains(r.stdout, "alive:    true") {
		t.Fatalf("status after detaching run: %s", r)
	}
	assertCooked(t, x)

	x.sendLine(fmt.Sprintf(`%s attach --socket-dir %s ra`, shellQuote(binPath), shellQuote(dir)))
	x.waitDisplay("#{alternate_on}", "1")
	x.sendLine("def")
	x.waitFor("got-def-")
	if r := hmIn(t, dir, "kill", "ra"); r.code != 0 {
		t.Fatalf("kill: %s", r)
	}
	x.waitFor("session exited (code 143)")
	x.waitPrompt("hm$")
	x.sendLine("echo rc=$?")
	x.waitFor("rc=143")
	assertCooked(t, x)
	assertGone(t, sock, filepath.Join(dir, "ra.pid"))
}

// A program that cannot be started exits like a shell would: 127 when it
// is not found, 126 when it is found but cannot run; either way the
// session leaves nothing in the socket dir.
func TestRunStartFailureCodes(t *testing.T) {
	dir := newSockDir(t)
	notExec := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(notExec, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		prog string
		code int
		says string
	}{
		{"no-such-program-hm", 127, "no-such-program-hm"},
		{notExec, 126, "permission denied"},
	} {
		r := hmIn(t, dir, "run", "--id", "bad", "--detach", "--", c.prog)
		if r.code != c.code || !strings.Contains(r.stderr, c.says) {
			t.Errorf("run %s: want exit %d saying %q, got %s", c.prog, c.code, c.says, r)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("run %s left %v in the socket dir", c.prog, names)
		}
	}
}

// --version and version say what was built; hook --help prints the hook's
// help (a hook run prints nothing).
func TestVersionAndHookHelp(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := hm(t, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "heimdall-tui ") || !strings.Contains(r.stdout, "go1.") {
			t.Fatalf("%v: %s", args, r)
		}
	}
	r := hm(t, "hook", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "hook is the command in the hooks") {
		t.Fatalf("hook --help: %s", r)
	}
}

// send types its text and Enter into a session (--no-enter: no Enter);
// a missing session is "No session found" and exit 1, as the other verbs.
func TestSend(t *testing.T) {
	dir := newSockDir(t)
	p := startSession(t, dir, "s1", "sh", "-c", `read a; read b; echo "got:$a:$b"; read c`)
	w := subscribed(t, p.sock)
	if r := hmIn(t, dir, "send", "s1", "hello", "world"); r.code != 0 || r.stdout != "" {
		t.Fatalf("send: %s", r)
	}
	if r := hmIn(t, dir, "send", "--no-enter", "s1", "--", "-x"); r.code != 0 {
		t.Fatalf("send --no-enter: %s", r)
	}
	if r := hmIn(t, dir, "send", "s1", "y"); r.code != 0 {
		t.Fatalf("send: %s", r)
	}
	if out, err := w.readOutputUntil("got:hello world:-xy"); err != nil {
		t.Fatalf("%q %v", out, err)
	}
	if r := hmIn(t, dir, "send", "nosuch", "x"); r.code != 1 || !strings.Contains(r.stdout+r.stderr, "No session found") {
		t.Fatalf("send to a missing session: %s", r)
	}
}

// run --detach returns once the session is served (exit 0, the session
// running on), as tmux new -d and dtach -n do; a session that cannot start
// is the reason and a non-zero status.
func TestRunDetachReturns(t *testing.T) {
	dir := newSockDir(t)
	r := hmIn(t, dir, "run", "--detach", "--id", "dd", "--", "sleep", "300")
	if r.code != 0 || !strings.Contains(r.stderr, `session "dd" running`) {
		t.Fatalf("run --detach: %s", r)
	}
	if st, err := querySession(filepath.Join(dir, "dd.sock")); err != nil || !st.alive {
		t.Fatalf("the session after run --detach returned: %+v %v", st, err)
	}
	if r := hmIn(t, dir, "run", "--detach", "--id", "dd", "--", "sleep", "300"); r.code != 1 || !strings.Contains(r.stderr, "already running") {
		t.Fatalf("the same id again: %s", r)
	}
	if r := hmIn(t, dir, "kill", "dd"); r.code != 0 {
		t.Fatalf("kill: %s", r)
	}
}

// The shell completes session ids for the verbs that take one, and the
// values of --classifier and --theme (cobra's __complete, what the
// completion scripts call).
func TestCompletion(t *testing.T) {
	dir := newSockDir(t)
	startSession(t, dir, "comp-1", "sleep", "60")
	for _, verb := range []string{"attach", "kill", "status", "screen", "send"} {
		r := hmIn(t, dir, "__complete", verb, "")
		if !strings.Contains(r.stdout, "comp-1\n") {
			t.Errorf("%s: %s", verb, r)
		}
	}
	if r := hm(t, "__complete", "run", "--classifier", ""); !strings.Contains(r.stdout, "claude\n") || !strings.Contains(r.stdout, "simple\n") {
		t.Errorf("--classifier: %s", r)
	}
	if r := hm(t, "__complete", "--theme", ""); !strings.Contains(r.stdout, "dark\n") {
		t.Errorf("--theme: %s", r)
	}
	hmIn(t, dir, "kill", "comp-1")
}
