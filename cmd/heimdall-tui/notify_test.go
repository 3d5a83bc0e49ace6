package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/heimdall-tui/heimdall-tui/backend/classify/classifytest"
	"github.com/heimdall-tui/heimdall-tui/backend/notify"
)

// A session that starts needing input while nobody watches it notifies the
// user as the config asks: OSC 9 in the terminal the last dashboard ran in
// (here a pty the test holds), and the notify_command hook with the event
// in its environment. A second session, watched (subscribed) when its
// prompt appears, notifies nobody.
func TestNotifyWhenAway(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	screen := needsInputScreen(t)
	hookOut := filepath.Join(t.TempDir(), "hook.out")
	cfg := filepath.Join(t.TempDir(), "config.toml")
	conf := `notify = "osc9"
notify_command = "echo \"$HEIMDALL_NOTIFY_EVENT $HEIMDALL_SESSION_ID $HEIMDALL_AGENT\" >> ` + hookOut + `"
`
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := notify.SaveTerminal(dir, notify.Terminal{TTY: tty.Name()}); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 16)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				got <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				close(got)
				return
			}
		}
	}()

	global := []string{"--config", cfg}
	prompt := []string{"sh", "-c", "cat " + shellQuote(screen) + "; exec sleep 60"}
	// Watched first: subscribed before its prompt shows (a gate holds it).
	gate := filepath.Join(t.TempDir(), "gate")
	watchedArgv := []string{"sh", "-c", "while [ ! -e " + shellQuote(gate) + " ]; do sleep 0.02; done; cat " + shellQuote(screen) + "; exec sleep 60"}
	w := startRun(t, dir, "watched", global, []string{"--classifier", "claude", "--cols", "120", "--rows", "40"}, watchedArgv...)
	waitLive(t, w)
	c := subscribed(t, w.sock)
	os.WriteFile(gate, nil, 0o600)
	if _, err := c.readOutputUntil("proceed"); err != nil {
		t.Fatal(err)
	}
	// It needs input — while watched — before the other one even starts:
	// had it notified, its notification would come first in the terminal
	// (each notification writes the terminal, then runs the hook).
	if !poll(10*time.Second, func() bool {
		return strings.Contains(hmIn(t, dir, "status", "watched").stdout, "needs_input: true")
	}) {
		t.Fatal("the watched session never needed input")
	}

	startRun(t, dir, "away-1", global, []string{"--classifier", "claude", "--agent", "claude", "--cols", "120", "--rows", "40"}, prompt...)
	var seq []byte
	deadline := time.After(15 * time.Second)
	for !bytes.Contains(seq, []byte("\x1b]9;heimdall: away-1 needs input\a")) {
		select {
		case b, ok := <-got:
			if !ok {
				t.Fatalf("terminal closed; got %q", seq)
			}
			seq = append(seq, b...)
		case <-deadline:
			t.Fatalf("no OSC 9 notification in the terminal; got %q", seq)
		}
	}
	if !poll(10*time.Second, func() bool {
		b, _ := os.ReadFile(hookOut)
		return strings.Contains(string(b), "needs_input away-1 claude")
	}) {
		b, _ := os.ReadFile(hookOut)
		t.Fatalf("hook output %q", b)
	}
	if b, _ := os.ReadFile(hookOut); strings.Contains(string(b), "watched") || bytes.Contains(seq, []byte("watched")) {
		t.Fatalf("the watched session notified: hook %q, terminal %q", b, seq)
	}
}

// needsInputScreen writes a claude screen that blocks on the user (a
// corpus case, drawn at 120 columns) to a file and returns its path.
func needsInputScreen(t *testing.T) string {
	t.Helper()
	cs, err := classifytest.Load("../../backend/classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Profile != "claude" || c.Expect != "NeedsInput" || !strings.HasPrefix(c.Name, "needs-bash") {
			continue
		}
		var b []byte
		for i := range c.Frames {
			b = append(b, c.Draw(i, 120, classifytest.Plain)...)
		}
		path := filepath.Join(t.TempDir(), "screen")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Fatal("no claude needs-input case in the corpus")
	return ""
}
