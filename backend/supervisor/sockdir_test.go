package supervisor

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// staleSocket leaves a socket file at path that nobody listens on, as a
// crashed owner would.
func staleSocket(t testing.TB, path string) {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if _, err := net.Dial("unix", path); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("stale socket: dial err %v, want ECONNREFUSED", err)
	}
}

func TestClaimReplacesStaleSocket(t *testing.T) {
	dir := shortDir(t)
	sock := SocketPath(dir, "x")
	staleSocket(t, sock)
	if !SocketStale(sock) {
		t.Fatal("SocketStale = false for a socket nobody listens on")
	}
	c, err := ClaimID(dir, "x")
	if err != nil {
		t.Fatalf("ClaimID over a stale socket: %v", err)
	}
	defer c.Release()
	// The socket now answers, and it is ours.
	go func() {
		if nc, err := c.Listener.Accept(); err == nil {
			nc.Write([]byte("ours"))
			nc.Close()
		}
	}()
	nc, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatalf("dial the claimed socket: %v", err)
	}
	defer nc.Close()
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 4)
	if _, err := nc.Read(b); err != nil || string(b) != "ours" {
		t.Fatalf("read %q, %v", b, err)
	}
	if SocketStale(sock) {
		t.Fatal("SocketStale = true for a live socket")
	}
	pid, err := os.ReadFile(PidPath(dir, "x"))
	if err != nil || strings.TrimSpace(string(pid)) != fmt.Sprint(os.Getpid()) {
		t.Fatalf("pid file %q, %v; want %d", pid, err, os.Getpid())
	}
}

func TestClaimRefusesLiveSocket(t *testing.T) {
	dir := shortDir(t)
	sock := SocketPath(dir, "x")
	l, err := net.Listen("unix", sock) // a live owner that holds no pid lock
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := ClaimID(dir, "x")
	if !errors.Is(err, ErrAlreadyRunning) {
		if c != nil {
			c.Release()
		}
		t.Fatalf("ClaimID over a live socket: %v, want ErrAlreadyRunning", err)
	}
	// The live socket was left alone.
	nc, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatalf("the live socket is gone: %v", err)
	}
	nc.Close()
}

// A regular file at the socket path (left by a crash or a careless script)
// is replaced, as hm does.
func TestClaimReplacesRegularFile(t *testing.T) {
	dir := shortDir(t)
	sock := SocketPath(dir, "x")
	if err := os.WriteFile(sock, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !SocketStale(sock) {
		t.Error("SocketStale = false for a regular file at the socket path")
	}
	c, err := ClaimID(dir, "x")
	if err != nil {
		t.Fatalf("ClaimID over a regular file: %v", err)
	}
	defer c.Release()
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("%s after the claim: %v, %v; want a socket", sock, fi, err)
	}
}

// What may not be replaced (a directory; a file of another user) is
// refused and left alone, and the failed claim leaves no pid file.
func TestClaimRefusesNonSocket(t *testing.T) {
	dir := shortDir(t)
	sock := SocketPath(dir, "x")
	if err := os.Mkdir(sock, 0o700); err != nil {
		t.Fatal(err)
	}
	if c, err := ClaimID(dir, "x"); err == nil {
		c.Release()
		t.Fatal("ClaimID over a directory succeeded")
	} else if !strings.Contains(err.Error(), "directory") {
		t.Errorf("ClaimID over a directory: %v; want it to say so", err)
	}
	if fi, err := os.Lstat(sock); err != nil || !fi.IsDir() {
		t.Fatalf("the directory was touched: %v", err)
	}
	if SocketStale(sock) {
		t.Error("SocketStale = true for a directory")
	}
	if _, err := os.Lstat(PidPath(dir, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed claim left %s: %v", PidPath(dir, "x"), err)
	}
	if os.Geteuid() != 0 {
		return
	}
	sock = SocketPath(dir, "y")
	if err := os.WriteFile(sock, []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(sock, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if c, err := ClaimID(dir, "y"); err == nil {
		c.Release()
		t.Fatal("ClaimID over another user's file succeeded")
	} else if !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("ClaimID over another user's file: %v", err)
	}
	if b, err := os.ReadFile(sock); err != nil || string(b) != "theirs" {
		t.Fatalf("the file was touched: %q, %v", b, err)
	}
	if SocketStale(sock) {
		t.Error("SocketStale = true for another user's file")
	}
	if _, err := os.Lstat(PidPath(dir, "y")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed claim left %s: %v", PidPath(dir, "y"), err)
	}
}

// A failed claim keeps a pid file naming a live process (an hm supervisor,
// which does not flock, may own it) and removes one naming a dead process.
func TestClaimFailureKeepsLiveOwnersPidFile(t *testing.T) {
	dir := shortDir(t)
	sock := SocketPath(dir, "x")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pid  int
		kept bool
	}{{live.Process.Pid, true}, {dead.Process.Pid, false}} {
		pidFile := PidPath(dir, "x")
		if err := os.WriteFile(pidFile, []byte(fmt.Sprintf("%d\n", c.pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		if cl, err := ClaimID(dir, "x"); !errors.Is(err, ErrAlreadyRunning) {
			if cl != nil {
				cl.Release()
			}
			t.Fatalf("ClaimID over a live socket: %v", err)
		}
		_, err := os.Lstat(pidFile)
		if kept := err == nil; kept != c.kept {
			t.Errorf("pid file naming %d (kept=%v wanted): %v", c.pid, c.kept, err)
		}
	}
}

func TestClaimHeldThenReleased(t *testing.T) {
	dir := shortDir(t)
	a, err := ClaimID(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := ClaimID(dir, "x"); !errors.Is(err, ErrAlreadyRunning) {
		if c != nil {
			c.Release()
		}
		t.Fatalf("second claim: %v, want ErrAlreadyRunning", err)
	}
	a.Release()
	for _, p := range []string{SocketPath(dir, "x"), PidPath(dir, "x")} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s after Release: %v", p, err)
		}
	}
	b, err := ClaimID(dir, "x")
	if err != nil {
		t.Fatalf("claim after release: %v", err)
	}
	b.Release()
}

// Of several goroutines claiming one ID at once exactly one wins.
func TestClaimConcurrentGoroutines(t *testing.T) {
	for round := range 20 {
		dir := shortDir(t)
		const n = 8
		var (
			wg     sync.WaitGroup
			start  = make(chan struct{})
			claims = make([]*Claim, n)
			errs   = make([]error, n)
		)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				claims[i], errs[i] = ClaimID(dir, "dup")
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i := range n {
			if errs[i] == nil {
				won++
				defer claims[i].Release()
			} else if !errors.Is(errs[i], ErrAlreadyRunning) {
				t.Errorf("round %d: claim %d: %v, want ErrAlreadyRunning", round, i, errs[i])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d claims won, want exactly 1", round, won)
		}
	}
}

// claimHelperEnv switches the test binary into TestClaimHelperProcess.
const claimHelperEnv = "HEIMDALL_TEST_CLAIM_HELPER"

// TestClaimHelperProcess is not a test: re-executed with claimHelperEnv=DIR
// it waits for a line on stdin, claims DIR/dup, prints WON or LOST <is
// ErrAlreadyRunning> and holds the claim until stdin closes.
func TestClaimHelperProcess(t *testing.T) {
	dir := os.Getenv(claimHelperEnv)
	if dir == "" {
		t.Skip("helper process only")
	}
	in := bufio.NewReader(os.Stdin)
	in.ReadString('\n')
	c, err := ClaimID(dir, "dup")
	if err != nil {
		fmt.Printf("LOST %v %v\n", errors.Is(err, ErrAlreadyRunning), err)
	} else {
		fmt.Println("WON")
	}
	in.ReadString('\n') // EOF when the parent closes stdin
	if c != nil {
		c.Release()
	}
	os.Exit(0)
}

type claimProc struct {
	cmd   *exec.Cmd
	write func(string) error
	out   *bufio.Reader
}

func startClaimProc(t *testing.T, dir string) *claimProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestClaimHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), claimHelperEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return &claimProc{cmd: cmd, out: bufio.NewReader(stdout),
		write: func(s string) error { _, err := stdin.Write([]byte(s)); return err }}
}

// result reads the helper's verdict line, with a bound.
func (p *claimProc) result(t *testing.T) string {
	t.Helper()
	ch := make(chan string, 1)
	go func() { s, _ := p.out.ReadString('\n'); ch <- strings.TrimSpace(s) }()
	select {
	case s := <-ch:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("helper process did not answer")
		return ""
	}
}

// Of two processes claiming one ID at once exactly one wins; when the
// winner dies without releasing (SIGKILL), its leftovers are stale and the
// ID can be claimed again.
func TestClaimTwoProcesses(t *testing.T) {
	dir := shortDir(t)
	procs := []*claimProc{startClaimProc(t, dir), startClaimProc(t, dir)}
	// Both are up (past test binary start-up) once they read the go line;
	// send it to both back to back.
	for _, p := range procs {
		if err := p.write("go\n"); err != nil {
			t.Fatal(err)
		}
	}
	var winner *claimProc
	for i, p := range procs {
		switch r := p.result(t); {
		case r == "WON":
			if winner != nil {
				t.Fatal("both processes won the claim")
			}
			winner = p
		case strings.HasPrefix(r, "LOST true"):
		default:
			t.Fatalf("process %d: %q, want WON or LOST true (ErrAlreadyRunning)", i, r)
		}
	}
	if winner == nil {
		t.Fatal("no process won the claim")
	}
	if c, err := ClaimID(dir, "dup"); !errors.Is(err, ErrAlreadyRunning) {
		if c != nil {
			c.Release()
		}
		t.Fatalf("claim while another process holds it: %v", err)
	}

	// Crash the winner: its socket and pid file stay behind.
	winner.cmd.Process.Kill()
	winner.cmd.Process.Wait()
	if would, _ := RemoveStale(dir, "dup", StaleOptions{DryRun: true}); len(would) != 2 {
		t.Fatalf("a crashed owner's socket and pid file should be stale; a dry run would remove %q", would)
	}
	c, err := ClaimID(dir, "dup")
	if err != nil {
		t.Fatalf("claim after the owner crashed: %v", err)
	}
	c.Release()
}

func TestSocketDirModes(t *testing.T) {
	dir := filepath.Join(shortDir(t), "d")
	c, err := ClaimID(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
		t.Fatalf("dir mode %v, %v; want drwx------", fi.Mode(), err)
	}
	fi, err = os.Lstat(SocketPath(dir, "x"))
	if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, %v; want srw-------", fi.Mode(), err)
	}
	fi, err = os.Stat(PidPath(dir, "x"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("pid file mode %v, %v; want -rw-------", fi.Mode(), err)
	}
}

func TestSocketDirOwnedByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown a directory to another user")
	}
	dir := filepath.Join(shortDir(t), "d")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(dir); err == nil {
		t.Fatal("EnsureDir accepted a dir owned by uid 65534")
	}
	if err := CheckDir(dir); err == nil {
		t.Fatal("CheckDir accepted a dir owned by uid 65534")
	}
	if c, err := ClaimID(dir, "x"); err == nil {
		c.Release()
		t.Fatal("ClaimID used a dir owned by uid 65534")
	}
}

func TestSocketDirNotADirectory(t *testing.T) {
	base := shortDir(t)
	f := filepath.Join(base, "f")
	os.WriteFile(f, nil, 0o600)
	if err := CheckDir(f); err == nil {
		t.Fatal("CheckDir accepted a regular file")
	}
	l := filepath.Join(base, "l")
	os.Symlink(base, l)
	if err := CheckDir(l); err == nil {
		t.Fatal("CheckDir accepted a symlink")
	}
}

func TestValidateID(t *testing.T) {
	dir := shortDir(t)
	for _, id := range []string{"", ".", "..", ".hidden", "a/b", "a\x00b", strings.Repeat("x", 120)} {
		if err := ValidateID(dir, id); err == nil {
			t.Errorf("ValidateID(%q) = nil", id)
		}
	}
	for _, id := range []string{"a", "claude-1", "x.y"} {
		if err := ValidateID(dir, id); err != nil {
			t.Errorf("ValidateID(%q): %v", id, err)
		}
	}
	// The longest allowed path still binds.
	long := strings.Repeat("y", maxSockPath-len(SocketPath(dir, "")))
	if len(SocketPath(dir, long)) != maxSockPath {
		t.Fatalf("path length %d", len(SocketPath(dir, long)))
	}
	c, err := ClaimID(dir, long)
	if err != nil {
		t.Fatalf("claim with a %d-byte socket path: %v", maxSockPath, err)
	}
	c.Release()
	if err := ValidateID(dir, long+"z"); err == nil {
		t.Fatal("ValidateID accepted a 108-byte socket path")
	}
}

// RemoveStale removes a crashed session's socket, pid file and (withLog)
// log; it leaves a claimed id alone, and a pid file naming a live process
// (hm's supervisor does not flock) with the socket beside it.
func TestRemoveStale(t *testing.T) {
	dir := shortDir(t)
	sock, pid, log := SocketPath(dir, "x"), PidPath(dir, "x"), LogPath(dir, "x")
	staleSocket(t, sock)
	os.WriteFile(pid, []byte("999999999\n"), 0o600)
	os.WriteFile(log, []byte("{}\n"), 0o600)
	if would, _ := RemoveStale(dir, "x", StaleOptions{Log: true, DryRun: true}); len(would) != 3 {
		t.Fatalf("a dry run would remove %q, want the socket, the pid file and the log", would)
	}
	removed, err := RemoveStale(dir, "x", StaleOptions{})
	if err != nil || len(removed) != 2 {
		t.Fatalf("RemoveStale = %q, %v; want the socket and the pid file", removed, err)
	}
	if _, err := os.Lstat(log); err != nil {
		t.Fatal("the log went without withLog")
	}
	if removed, _ := RemoveStale(dir, "x", StaleOptions{Log: true, May: func(p string) bool { return p != log }}); len(removed) != 0 {
		t.Fatalf("removed %q though may refused the log", removed)
	}
	if removed, _ := RemoveStale(dir, "x", StaleOptions{Log: true}); len(removed) != 1 || removed[0] != log {
		t.Fatalf("withLog removed %q, want the orphan log", removed)
	}
	if _, err := os.Lstat(pid); err == nil {
		t.Fatal("RemoveStale left a pid file it created")
	}

	// A claimed id: nothing goes, even with the socket not yet answering.
	c, err := ClaimID(dir, "y")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if removed, _ := RemoveStale(dir, "y", StaleOptions{Log: true}); len(removed) != 0 {
		t.Fatalf("removed %q of a claimed id", removed)
	}
	for _, p := range []string{SocketPath(dir, "y"), PidPath(dir, "y")} {
		if _, err := os.Lstat(p); err != nil {
			t.Fatalf("%s of a claimed id: %v", p, err)
		}
	}

	// A live process named in an unlocked pid file keeps it and the socket.
	staleSocket(t, SocketPath(dir, "z"))
	os.WriteFile(PidPath(dir, "z"), []byte(fmt.Sprintln(os.Getppid())), 0o600)
	if removed, _ := RemoveStale(dir, "z", StaleOptions{Log: true}); len(removed) != 0 {
		t.Fatalf("removed %q though the pid file names a live process", removed)
	}
}

// A claim waits out a RemoveStale holding the pid file's lock for a moment
// (ls, clean) instead of calling the id taken; a live session's claim is
// refused.
func TestClaimWaitsForRemoveStale(t *testing.T) {
	dir := shortDir(t)
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	lock, err := lockFile(PidPath(dir, "x")) // as RemoveStale holds it
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		lock.Close()
	}()
	c, err := ClaimID(dir, "x")
	if err != nil {
		t.Fatalf("claim while RemoveStale held the lock: %v", err)
	}
	defer c.Release()
	if _, err := ClaimID(dir, "x"); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second claim: %v, want ErrAlreadyRunning", err)
	}
}
