package unixsock

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestEnsureDir(t *testing.T) {
	dir := filepath.Join(shortDir(t), "a", "b")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir: %v, %v; want mode 0700", fi.Mode(), err)
	}
	if err := EnsureDir(dir); err != nil {
		t.Fatalf("EnsureDir again: %v", err)
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o600)
	if err := EnsureDir(file); err == nil {
		t.Fatal("EnsureDir accepted a file")
	}
	link := filepath.Join(dir, "l")
	os.Symlink(dir, link)
	if err := CheckDir(link); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("CheckDir of a symlink to a dir: %v; want it refused", err)
	}
	if os.Geteuid() != 0 {
		t.Log("not root: the foreign-owner check is not exercised")
		return
	}
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o700)
	os.Chown(other, 65534, 65534)
	if err := EnsureDir(other); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Fatalf("EnsureDir of another user's dir: %v", err)
	}
}

// deadSocket leaves a socket file nobody accepts on (a crashed owner's).
func deadSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
}

func TestListenReplacesStale(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "s.sock")
	deadSocket(t, sock)
	if st, err := Inspect(sock); st != Dead || err != nil || !Stale(sock) {
		t.Fatalf("Inspect of a dead socket: %v, %v", st, err)
	}
	l, err := Listen(sock)
	if err != nil {
		t.Fatalf("Listen over a dead socket: %v", err)
	}
	if fi, err := os.Lstat(sock); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket: %v, %v; want a socket with mode 0600", fi.Mode(), err)
	}
	if st, err := Inspect(sock); st != Live || err != nil || Stale(sock) {
		t.Fatalf("Inspect of a live socket: %v, %v", st, err)
	}
	// A live socket is refused and left alone.
	if l2, err := Listen(sock); !errors.Is(err, ErrInUse) {
		if l2 != nil {
			l2.Close()
		}
		t.Fatalf("Listen over a live socket: %v, want ErrInUse", err)
	}
	if c, err := net.Dial("unix", sock); err != nil {
		t.Fatalf("the live socket was touched: %v", err)
	} else {
		c.Close()
	}
	l.Close()
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("closing the listener left the socket: %v", err)
	}

	// A regular file of ours in its place is stale too.
	os.WriteFile(sock, []byte("junk"), 0o600)
	if st, err := Inspect(sock); st != File || err != nil {
		t.Fatalf("Inspect of a file: %v, %v", st, err)
	}
	l, err = Listen(sock)
	if err != nil {
		t.Fatalf("Listen over a file: %v", err)
	}
	l.Close()
	if st, err := Inspect(sock); st != Absent || err != nil {
		t.Fatalf("Inspect of nothing: %v, %v", st, err)
	}
}

// What may not be replaced is refused and left alone.
func TestListenRefuses(t *testing.T) {
	dir := shortDir(t)
	target := filepath.Join(dir, "target")
	deadSocket(t, target)
	cases := map[string]func(path string){
		"a directory":        func(p string) { os.Mkdir(p, 0o700) },
		"a symbolic link":    func(p string) { os.Symlink(target, p) },
		"a named pipe":       func(p string) { mkfifo(t, p) },
		"owned by uid 65534": func(p string) { deadSocket(t, p); os.Chown(p, 65534, 65534) },
	}
	for want, make := range cases {
		if strings.HasPrefix(want, "owned") && os.Geteuid() != 0 {
			continue
		}
		path := filepath.Join(dir, strings.ReplaceAll(want, " ", "_"))
		make(path)
		before, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if l, err := Listen(path); err == nil {
			l.Close()
			t.Errorf("Listen over %s succeeded", want)
		} else if !strings.Contains(err.Error(), want) {
			t.Errorf("Listen over %s: %v; want it to say so", want, err)
		}
		if Stale(path) {
			t.Errorf("Stale(%s) = true", want)
		}
		if after, err := os.Lstat(path); err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
			t.Errorf("%s was touched: %v", want, err)
		}
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}
