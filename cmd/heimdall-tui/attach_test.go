package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// holdsFile reports whether process pid has a descriptor open on path.
func holdsFile(pid int, path string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && l == path {
			return true
		}
	}
	return false
}

// attach hands its terminal to the session's supervisor, which then holds
// it; killed with SIGKILL, the supervisor drops the terminal at once and
// never writes to it again, while the session goes on.
func TestAttachKilledDropsTerminal(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	p := startSession(t, dir, "kk", "bash", "-c",
		`stty raw -echo; printf READY; while IFS= read -r -n 1 c; do printf '<%s>' "$c"; done`)
	m, s, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer s.Close()
	var mu sync.Mutex
	var seen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			mu.Lock()
			seen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	shows := func(s string) bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(seen.String(), s)
	}
	cmd := exec.Command(binPath, "--socket-dir", dir, "attach", "kk")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() { cmd.Process.Kill(); <-exited }()

	if !poll(waitTimeout, func() bool { return shows("READY") }) {
		t.Fatalf("attach showed no output; terminal:\n%q", seen.String())
	}
	if !holdsFile(p.pid(), s.Name()) {
		t.Fatalf("the supervisor does not hold the terminal %s", s.Name())
	}
	m.Write([]byte("a"))
	if !poll(waitTimeout, func() bool { return shows("<a>") }) {
		t.Fatalf("no echo of a key; terminal:\n%q", seen.String())
	}

	cmd.Process.Kill()
	<-exited
	if !poll(waitTimeout, func() bool { return !holdsFile(p.pid(), s.Name()) }) {
		t.Fatal("the supervisor still holds the terminal of a killed attach")
	}
	w := subscribed(t, p.sock)
	if err := w.send(tInput, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if out, err := w.readOutputUntil("<x>"); err != nil {
		t.Fatalf("the session did not go on: %v (%q)", err, out)
	}
	time.Sleep(200 * time.Millisecond) // a write to the terminal would have arrived by now
	if shows("<x>") {
		t.Error("the supervisor wrote to the terminal after its attach was killed")
	}
	if p.exited() {
		t.Error("the session ended with its attach")
	}
}
