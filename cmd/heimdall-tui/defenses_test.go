package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// plainBin is a heimdall-tui binary built without the race detector,
// whose shadow memory would make figures of a process's memory say
// nothing: binPath itself in a plain run, else built once.
func plainBin(t *testing.T) string {
	t.Helper()
	if !raceEnabled {
		return binPath
	}
	plainOnce.Do(func() {
		plainPath = filepath.Join(filepath.Dir(binPath), "heimdall-tui-plain")
		if out, err := exec.Command("go", "build", "-o", plainPath, ".").CombinedOutput(); err != nil {
			plainErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if plainErr != nil {
		t.Fatal(plainErr)
	}
	return plainPath
}

var (
	plainOnce sync.Once
	plainPath string
	plainErr  error
)

// startPlainSession is startSession with plainBin.
func startPlainSession(t *testing.T, dir, id string, argv ...string) *proc {
	t.Helper()
	p := startProc(t, plainBin(t), append([]string{"run", "--foreground", "--id", id, "--socket-dir", dir, "--"}, argv...)...)
	p.sock = filepath.Join(dir, id+".sock")
	waitLive(t, p)
	return p
}

// peakRSS is a process's peak resident set (VmHWM) in KiB.
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// supervisorPid is the pid in a session's pid file.
func supervisorPid(t *testing.T, dir, id string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, id+".pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

// A RESIZE beyond what a terminal can be is refused by the supervisor
// itself: the pty keeps its size and the supervisor its memory; `run`
// refuses such a size with the reason.
func TestResizeBounded(t *testing.T) {
	dir := newSockDir(t)
	// Each line read: the screen cleared, the size shown, the cursor to
	// the bottom right corner and a mark there (every row and column of
	// the screen in use).
	startPlainSession(t, dir, "big", "sh", "-c", `while read x; do printf '\033[2J\033[Hsize %s\033[65535;65535Hmark-%s\r\n' "$(stty size)" "$x"; done`)
	w := subscribed(t, filepath.Join(dir, "big.sock"))
	for i, side := range []uint16{65535, 5000, 1001} {
		p := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, side), side)
		if err := w.send(tResize, p); err != nil {
			t.Fatal(err)
		}
		mark := "mark-" + strconv.Itoa(i)
		if err := w.send(tInput, []byte(strconv.Itoa(i)+"\r")); err != nil {
			t.Fatal(err)
		}
		if out, err := w.readOutputUntil(mark); err != nil || !strings.Contains(out, "size 24 80") {
			t.Fatalf("after a resize to %d: %q %v", side, out, err)
		}
		if _, err := querySession(filepath.Join(dir, "big.sock")); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.send(tResize, []byte{0, 100, 0, 30}); err != nil { // 100 cols, 30 rows
		t.Fatal(err)
	}
	if err := w.send(tInput, []byte("x\r")); err != nil {
		t.Fatal(err)
	}
	if out, err := w.readOutputUntil("mark-x"); err != nil || !strings.Contains(out, "size 30 100") {
		t.Fatalf("after the refused sizes, a good one: %q %v", out, err)
	}
	if kb := peakRSS(t, supervisorPid(t, dir, "big")); kb > 64<<10 {
		t.Fatalf("the supervisor peaked at %d KiB", kb)
	}
	r := hmIn(t, dir, "run", "--detach", "--id", "huge", "--cols", "5000", "--", "sh")
	if r.code == 0 || !strings.Contains(r.stderr, "at most 1000") {
		t.Fatalf("run --cols 5000: %s", r)
	}
}

// Subscribers that stop reading cannot take more of a supervisor's memory
// than its queue budget together, however many there are; one that reads
// is still served once the flood is over.
func TestStalledSubscribersBudget(t *testing.T) {
	dir := newSockDir(t)
	mark := filepath.Join(t.TempDir(), "flooded")
	startPlainSession(t, dir, "flood", "sh", "-c",
		"read x; head -c 150000000 /dev/urandom | od -An -v -tx1 | head -c 150000000; touch "+mark+"; read y; echo after-$y; read z")
	sock := filepath.Join(dir, "flood.sock")
	for range 40 {
		subscribed(t, sock) // never read
	}
	reader := subscribed(t, sock)
	reader.SetDeadline(time.Now().Add(3 * time.Minute))
	saw := make(chan error, 1)
	go func() { // reads all along, keeping only a tail to look in
		var tail []byte
		for {
			typ, p, err := reader.next()
			if err != nil {
				saw <- err
				return
			}
			if typ == tOutput {
				tail = append(tail, p...)
				if bytes.Contains(tail, []byte("after-ok")) {
					saw <- nil
					return
				}
				tail = tail[max(0, len(tail)-16):]
			}
		}
	}()
	if err := reader.send(tInput, []byte("go\r")); err != nil {
		t.Fatal(err)
	}
	if !poll(3*time.Minute, func() bool { _, err := os.Stat(mark); return err == nil }) {
		t.Fatal("the flood did not end")
	}
	if err := reader.send(tInput, []byte("ok\r")); err != nil {
		t.Fatal(err)
	}
	if err := <-saw; err != nil {
		t.Fatalf("the reading subscriber after the flood: %v", err)
	}
	// The budget (64 MiB) and the rest of a supervisor under a flood.
	if kb := peakRSS(t, supervisorPid(t, dir, "flood")); kb > 96<<10 {
		t.Fatalf("the supervisor peaked at %d MiB with 40 stalled subscribers", kb>>10)
	}
}

// A socket dir that others may write is refused by every verb, with how
// to fix it: nothing is started in it and nothing in it is talked to.
func TestSocketDirWritableByOthers(t *testing.T) {
	dir := newSockDir(t)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"ls"}, {"status", "x"}, {"attach", "x"}, {"run", "--detach", "--id", "x", "--", "true"}} {
		r := hmIn(t, dir, args[0], args[1:]...)
		if r.code == 0 || !strings.Contains(r.stderr, "chmod 700 "+dir) {
			t.Fatalf("%v in a dir others may write: %s", args, r)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("something was made there: %v", ents)
	}
}

// A session's socket that another user serves (here: a real supervisor of
// uid 65534 whose socket appears in our dir) is refused by the clients
// before they send anything: status does not show its pid, attach does not
// hand it the terminal, kill sends nothing. Needs root, to be that user.
func TestImpostorSocketRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a supervisor as another user (the check itself: wire/frame TestCheckPeer)")
	}
	tmp, err := os.MkdirTemp("", "imp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	os.Chmod(tmp, 0o711)
	bin := filepath.Join(tmp, "heimdall-tui")
	self, err := os.ReadFile(binPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "other")
	os.Mkdir(other, 0o700)
	os.Chown(other, 65534, 65534)
	imp := exec.Command(bin, "run", "--foreground", "--id", "x", "--socket-dir", other, "--", "cat")
	imp.Env = append(os.Environ(), "HOME="+other, "XDG_CONFIG_HOME="+other, "XDG_STATE_HOME="+other)
	imp.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { imp.Process.Kill(); imp.Wait() })
	sock := filepath.Join(other, "x.sock")
	if !poll(waitTimeout, func() bool { _, err := os.Stat(sock); return err == nil }) {
		t.Fatal("the other user's supervisor made no socket")
	}
	dir := newSockDir(t)
	if err := os.Link(sock, filepath.Join(dir, "x.sock")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"status", "x"}, {"attach", "x"}, {"kill", "x"}, {"screen", "x"}} {
		r := hmIn(t, dir, args[0], args[1:]...)
		if r.code == 0 || !strings.Contains(r.stderr, "served by uid 65534") {
			t.Fatalf("%v of another user's socket: %s", args, r)
		}
	}
	if imp.ProcessState != nil {
		t.Fatal("the other user's session was killed")
	}
}

// A session's program gets its pty as 0–2 and nothing else, whatever its
// `run` inherited (here a pipe and a file at 3 and 4): it holds none of
// the caller's pipes or locks.
func TestSessionInheritsOnlyItsPty(t *testing.T) {
	dir := newSockDir(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(binPath, "run", "--detach", "--id", "fds", "--socket-dir", dir, "--",
		"sh", "-c", `read x; ls -l /proc/self/fd; echo end; read y`)
	cmd.ExtraFiles = []*os.File{pw, f}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sock := filepath.Join(dir, "fds.sock")
	if !poll(waitTimeout, func() bool { st, err := querySession(sock); return err == nil && st.alive }) {
		t.Fatal("no session")
	}
	w := subscribed(t, sock)
	if err := w.send(tInput, []byte("\r")); err != nil {
		t.Fatal(err)
	}
	out, err := w.readOutputUntil("end")
	if err != nil {
		t.Fatal(err)
	}
	// What ls inherited from the shell, the program: the pty three times
	// (and ls's own descriptor of the directory it lists).
	if strings.Count(out, "-> /dev/pts/") != 3 || strings.Contains(out, "pipe:") || strings.Contains(out, "held") {
		t.Fatalf("the program's descriptors: %q", out)
	}
}

// fill writes a file at path until the disk is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// A full disk: a session that cannot write its pid file does not start
// and leaves nothing behind; one that started on the last pages and then
// ran out leaves whole files only (its record as it was, log lines whole,
// no temp file) and its pid file and socket go when it ends. Needs a
// small tmpfs (root).
func TestFullDisk(t *testing.T) {
	dir := newSockDir(t)
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", dir).Run(); err != nil {
		t.Skipf("no tmpfs to fill (needs root): %v", err)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	spare := filepath.Join(dir, "spare")
	if err := os.WriteFile(spare, make([]byte, 32<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	fill(t, filepath.Join(dir, "filler"))
	r := hmIn(t, dir, "run", "--detach", "--id", "full", "--", "sh")
	if r.code == 0 || !strings.Contains(r.stderr, "no space left on device") {
		t.Fatalf("run on a full disk: %s", r)
	}
	names := func() []string {
		ents, _ := os.ReadDir(dir)
		var ns []string
		for _, e := range ents {
			ns = append(ns, e.Name())
		}
		return ns
	}
	if ns := names(); len(ns) != 2 {
		t.Fatalf("a failed start left %v", ns)
	}
	// Room for a start, then none again.
	os.Remove(spare)
	p := startSession(t, dir, "full", "sh")
	fill(t, filepath.Join(dir, "filler2"))
	if r := hmIn(t, dir, "kill", "full"); r.code != 0 {
		t.Fatalf("kill: %s", r)
	}
	p.wait()
	for _, n := range names() {
		if strings.Contains(n, "tmp") || n == "full.pid" || n == "full.sock" {
			t.Fatalf("left behind after the end on a full disk: %v", names())
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "full.json")); err == nil {
		var rec map[string]any
		if err := json.Unmarshal(b, &rec); err != nil || rec["id"] != "full" {
			t.Fatalf("the record: %v %q", err, b)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "full.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line != "" && !json.Valid([]byte(line)) {
			t.Fatalf("a torn log line: %q", line)
		}
	}
}
