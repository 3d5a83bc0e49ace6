package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/hook"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// `hook` sends its event to the socket its environment names, as one HOOK
// frame, printing nothing and exiting 0: heimdall's and heimdall-tui's
// alike, Claude's payload (stdin) and codex's (its argument).
func TestHookReachesItsSession(t *testing.T) {
	const payload = `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`
	for _, c := range []struct {
		exe    string
		args   []string
		stdin  string
		source byte
	}{
		{smallPath, []string{"hook"}, payload, frame.HookClaude},
		{binPath, []string{"hook"}, payload, frame.HookClaude},
		{smallPath, []string{"hook", "--codex", payload}, "", frame.HookCodex},
		{binPath, []string{"hook", "--codex", payload}, "", frame.HookCodex},
	} {
		sock := filepath.Join(newSockDir(t), "s")
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte, 1)
		go func() {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, _ := io.ReadAll(c)
			got <- b
		}()
		cmd := exec.Command(c.exe, c.args...)
		cmd.Env = append(os.Environ(), hook.SocketEnv+"="+sock)
		cmd.Stdin = strings.NewReader(c.stdin)
		r := runCmd(t, cmd)
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("%s %q: %s", filepath.Base(c.exe), c.args, r)
		}
		select {
		case b := <-got:
			if want := frame.AppendFrame(nil, frame.Hook, append([]byte{c.source}, payload...)); !bytes.Equal(b, want) {
				t.Errorf("%s %q: the socket got %q, want %q", filepath.Base(c.exe), c.args, b, want)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s %q: the hook did not connect", filepath.Base(c.exe), c.args)
		}
		l.Close()
	}
}

// A hook whose supervisor is gone, or whose stdin never ends, still exits
// 0 having printed nothing (within its budget: the agent waits for it).
func TestHookAlwaysReturns(t *testing.T) {
	gone := filepath.Join(newSockDir(t), "gone.sock")
	cmd := exec.Command(smallPath, "hook")
	cmd.Env = append(os.Environ(), hook.SocketEnv+"="+gone)
	cmd.Stdin = strings.NewReader("{}")
	if r := runCmd(t, cmd); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("supervisor gone: %s", r)
	}
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close() // never written: the payload never ends
	defer rd.Close()
	cmd = exec.Command(smallPath, "hook")
	cmd.Env = append(os.Environ(), hook.SocketEnv+"="+gone)
	cmd.Stdin = rd
	if r := runCmd(t, cmd); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("stdin that never ends: %s", r)
	}
}

// Through a tool link the executables are that tool: `heimdall-resolve
// hook` resolves the id "hook" (not found: exit 1), it is no hook run.
func TestHookNotThroughToolLinks(t *testing.T) {
	e := newPlanEnv(t)
	e.want(0, "", "resolve", "set", "F1", "a")
	for _, exe := range []string{smallPath, binPath} {
		link := filepath.Join(t.TempDir(), "heimdall-resolve")
		if err := os.Symlink(exe, link); err != nil {
			t.Fatal(err)
		}
		if r := e.runProg(link, "", "hook"); r.code != 1 || !strings.Contains(r.stderr, "hook") {
			t.Errorf("%s as heimdall-resolve hook: %s", filepath.Base(exe), r)
		}
	}
}
