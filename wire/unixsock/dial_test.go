package unixsock

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary serve a socket as another user
// (UNIXSOCK_TEST_LISTEN=path): the impostor of TestDialRefusesForeignPeer.
func TestMain(m *testing.M) {
	if path := os.Getenv("UNIXSOCK_TEST_LISTEN"); path != "" {
		l, err := net.Listen("unix", path)
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("listening\n")
		for {
			c, err := l.Accept()
			if err != nil {
				os.Exit(0)
			}
			defer c.Close()
		}
	}
	os.Exit(m.Run())
}

// Dial talks to a server of ours, and refuses one of another user before
// sending anything: for real when the test can run a process as another
// uid (root), else through the check with another uid than ours.
func TestDialRefusesForeignPeer(t *testing.T) {
	dir := shortDir(t)
	ours := filepath.Join(dir, "ours.sock")
	l, err := Listen(ours)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, ours)
	if err != nil {
		t.Fatalf("our own server: %v", err)
	}
	if err := checkPeer(c, ours, os.Geteuid()+1); !errors.Is(err, ErrForeignPeer) || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("a peer of another uid: %v", err)
	}
	c.Close()

	if os.Geteuid() != 0 {
		t.Log("not root: no server of another user is started")
		return
	}
	// A directory the other user may use, holding a copy of this test
	// binary it may run (the build's is ours alone).
	os.Chmod(dir, 0o711)
	shared := filepath.Join(dir, "shared")
	os.Mkdir(shared, 0o777)
	os.Chmod(shared, 0o1777)
	bin := filepath.Join(shared, "impostor")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(shared, "s.sock")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "UNIXSOCK_TEST_LISTEN="+foreign)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	buf := make([]byte, 16)
	if n, err := out.Read(buf); err != nil || string(buf[:n]) != "listening\n" {
		t.Fatalf("the other user's server: %q %v", buf[:n], err)
	}
	if c, err := Dial(ctx, foreign); !errors.Is(err, ErrForeignPeer) || !strings.Contains(err.Error(), "uid 65534") {
		if c != nil {
			c.Close()
		}
		t.Fatalf("a server of uid 65534: %v", err)
	}
}

// A socket dir others may write is refused, with how to fix it.
func TestCheckDirWritableByOthers(t *testing.T) {
	dir := filepath.Join(shortDir(t), "d")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o770, 0o703, 0o1777} {
		os.Chmod(dir, mode)
		if err := CheckDir(dir); err == nil || !strings.Contains(err.Error(), "chmod 700") {
			t.Fatalf("mode %v: %v", mode, err)
		}
	}
	os.Chmod(dir, 0o755) // readable by others is fine: the sockets are 0600
	if err := CheckDir(dir); err != nil {
		t.Fatal(err)
	}
}
