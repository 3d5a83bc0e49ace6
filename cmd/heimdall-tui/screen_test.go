package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// A fake Claude Code draws a permission prompt and a title into its pty: the
// supervisor's emulator and the claude classifier see it, and `screen` and
// `status --json` show it to a user.
func TestScreenAndNeedsInput(t *testing.T) {
	t.Parallel()
	dir := newSockDir(t)
	const id = "fake-claude"
	script := `printf '\033]0;✳ Fix the parser\007'
printf '\033[2J\033[H'
printf '⏺ Bash(rm -rf build)\r\n\r\n'
printf ' Do you want to proceed?\r\n'
printf ' \033[1m❯ 1. Yes\033[0m\r\n'
printf '   2. No, and tell Claude what to do differently (esc)\r\n'
exec sleep 30`
	p := startRun(t, dir, id, nil, []string{"--classifier", "claude"}, "sh", "-c", script)
	waitLive(t, p)

	var st statusJSON
	ok := poll(waitTimeout, func() bool {
		r := hmIn(t, dir, "status", id, "--json")
		if r.code != 0 {
			t.Fatalf("status --json:\n%s", r)
		}
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
			t.Fatalf("status --json: %v\n%s", err, r)
		}
		return st.NeedsInput != nil && *st.NeedsInput
	})
	if !ok {
		t.Fatalf("needs_input never became true: %+v", st)
	}
	if st.Title == nil || *st.Title != "✳ Fix the parser" {
		t.Errorf("title = %q, want the OSC 0 title", deref(st.Title))
	}
	if st.State != "Idle" {
		t.Errorf("state = %s, want Idle (the wire reports a waiting prompt as Idle)", st.State)
	}

	r := hmIn(t, dir, "screen", id)
	if r.code != 0 {
		t.Fatalf("screen:\n%s", r)
	}
	lines := strings.Split(r.stdout, "\n")
	if len(lines) < 5 || lines[0] != "⏺ Bash(rm -rf build)" || lines[2] != " Do you want to proceed?" || lines[3] != " ❯ 1. Yes" {
		t.Errorf("screen printed %q", lines)
	}
	r = hmIn(t, dir, "screen", id, "--ansi")
	if !strings.Contains(r.stdout, "\x1b[") || !strings.Contains(r.stdout, "❯ 1. Yes") {
		t.Errorf("screen --ansi has no SGR sequences: %q", r.stdout)
	}

	if r := hmIn(t, dir, "screen", "nope"); r.code != 1 || !strings.Contains(r.stderr, "No session found") {
		t.Errorf("screen of a missing session:\n%s", r)
	}
	hmIn(t, dir, "kill", id)
	p.wait()
}

func deref(s *string) string {
	if s == nil {
		return "<absent>"
	}
	return *s
}

// Every command refuses a socket dir owned by someone else, not only run, ls
// and clean: a session command would otherwise talk to a stranger's socket.
func TestSessionCommandsRefuseForeignDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the dir to another uid")
	}
	dir := newSockDir(t)
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"status", "screen", "kill", "attach"} {
		r := hmIn(t, dir, sub, "x")
		if r.code == 0 || !strings.Contains(r.stderr, "not by you") {
			t.Errorf("%s in a foreign dir:\n%s", sub, r)
		}
	}
}
