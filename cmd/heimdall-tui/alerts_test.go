package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"
)

// The dashboard's alerts, read from the terminal it runs in (a pty the
// test holds): one desktop notification (OSC 9) per inbox item, saying
// its kind and what it is about — needs input, done, failed — and the
// notify_command with the same; none for the session the user is looking
// at (the focused one), and none again for an item merely re-read.
func TestDashboardAlerts(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := newSockDir(t)
	hookOut := filepath.Join(t.TempDir(), "hook.out")
	cfg := filepath.Join(t.TempDir(), "config.toml")
	conf := fmt.Sprintf("notify = \"osc9\"\nnotify_command = \"echo \\\"$HEIMDALL_NOTIFY_EVENT $HEIMDALL_SESSION_ID\\\" >> %s\"\n", hookOut)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "FAKE_CLAUDE_STEP=100", "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	claude := []string{"--agent", "claude", "--classifier", "claude"}
	fake := []string{"env", "HOME=" + home, "FAKE_CLAUDE_STEP=100", fakeClaudePath}
	waitLive(t, startRun(t, dir, "a1", nil, claude, fake...))

	cmd := exec.Command(binPath, "--config", cfg, "--socket-dir", dir, "--log", filepath.Join(t.TempDir(), "dash.log"))
	cmd.Env = env // no TMUX: the sequences come unwrapped
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 35})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var mu sync.Mutex
	var out []byte
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			out = append(out, buf[:n]...)
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		ptmx.Close()
		<-done
	})
	output := func() []byte {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Clone(out)
	}
	waitOut := func(what string, seq string) {
		t.Helper()
		if !poll(waitTimeout, func() bool { return bytes.Contains(output(), []byte(seq)) }) {
			t.Fatalf("no %s: %q not in the terminal's output", what, seq)
		}
	}
	// a1 is listed (and focused: the first session) before b1 starts.
	waitOut("a1 listed", "a1")
	waitLive(t, startRun(t, dir, "b1", nil, claude, fake...))
	if r := hmIn(t, dir, "wait", "b1", "--for", "idle", "--timeout", "30s"); r.code != 0 {
		t.Fatalf("b1: %+v", r)
	}
	say := func(id, text string) {
		t.Helper()
		if r := hmIn(t, dir, "send", id, text); r.code != 0 {
			t.Fatalf("send %s %s: %+v", id, text, r)
		}
	}

	say("b1", "perm")
	// Claude reports the prompt twice; the alert says whichever came first
	// (its sentence, or the command), once.
	waitOut("b1's needs-input alert", "\x1b]9;heimdall: b1 needs input: ")
	say("a1", "perm") // focused: no alert
	if r := hmIn(t, dir, "wait", "a1", "--for", "input", "--timeout", "30s"); r.code != 0 {
		t.Fatalf("a1: %+v", r)
	}
	if r := hmIn(t, dir, "answer", "b1", "allow"); r.code != 0 {
		t.Fatalf("answer b1: %+v", r)
	}
	waitOut("b1's done alert", "\x1b]9;heimdall: b1 done: Done with rm -rf build.\a")
	say("b1", "ratelimit")
	waitOut("b1's error alert", "\x1b]9;heimdall: b1 failed: rate_limit: 5-hour limit reached ∙ resets 3pm\a")
	if !poll(waitTimeout, func() bool {
		b, _ := os.ReadFile(hookOut)
		return string(b) == "needs_input b1\ndone b1\nfailed b1\n"
	}) {
		b, _ := os.ReadFile(hookOut)
		t.Fatalf("notify_command ran for %q", b)
	}
	got := string(output())
	if n := strings.Count(got, "\x1b]9;"); n != 3 {
		t.Fatalf("%d notifications, want 3 (one per item, none for a1): %q", n, got)
	}
}
