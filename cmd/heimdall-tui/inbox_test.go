package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// inbox and wait as a script uses them, with two fake Claude sessions:
// a permission prompt is an input item with its command, a finished turn
// a done item with the answer's first line; --watch prints each change;
// an answer resolves the item, a user seeing a session clears its done
// item; wait returns on the condition, 124 on its timeout.
func TestInboxAndWait(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("FAKE_CLAUDE_STEP", "100")
	dir := newSockDir(t)
	claude := []string{"--agent", "claude", "--classifier", "claude"}
	c1, c2 := startRun(t, dir, "c1", nil, claude, fakeClaudePath), startRun(t, dir, "c2", nil, claude, fakeClaudePath)
	waitLive(t, c1)
	waitLive(t, c2)
	if r := hmIn(t, dir, "inbox"); r.code != 0 || r.stdout != "Nothing waits for you.\n" {
		t.Fatalf("empty inbox: %+v", r)
	}
	watch := startProc(t, binPath, "inbox", "--watch", "--json", "--socket-dir", dir)
	waitOut(t, watch, "[]\n")
	typeInto := func(sock, s string) {
		t.Helper()
		c, err := frame.Dial(sock, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Input([]byte(s)); err != nil {
			t.Fatal(err)
		}
		c.Status() // read: the input is in
	}

	waited := make(chan result, 1)
	go func() { waited <- hmIn(t, dir, "wait", "c1", "--for", "input", "--timeout", "30s") }()
	typeInto(c1.sock, "perm\r")
	if r := <-waited; r.code != 0 {
		t.Fatalf("wait --for input: %+v", r)
	}
	// Claude reports the prompt twice: added with whichever came first,
	// then, if that was the sentence, updated with the command.
	if !poll(waitTimeout, func() bool {
		out := watch.stdout.String()
		return strings.Contains(out, `{"change":"added","item":{"session":"c1","kind":"input","reason":"Bash: rm -rf build"`) ||
			strings.Contains(out, `{"change":"updated","item":{"session":"c1","kind":"input","reason":"Bash: rm -rf build"`)
	}) {
		t.Fatalf("no item with the command:\n%s", watch.stdout.String())
	}
	typeInto(c2.sock, "hello\r")
	if r := hmIn(t, dir, "wait", "c2", "--for", "done", "--timeout", "30s"); r.code != 0 {
		t.Fatalf("wait --for done: %+v", r)
	}
	waitOut(t, watch, `{"change":"added","item":{"session":"c2","kind":"done","reason":"echo: hello"`)
	typeInto(c1.sock, "1")
	waitOut(t, watch, `{"change":"removed","item":{"session":"c1","kind":"input"`)
	waitOut(t, watch, `{"change":"added","item":{"session":"c1","kind":"done","reason":"Done with rm -rf build."`)

	r := hmIn(t, dir, "inbox", "--json")
	var items []jsonItem
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &items) != nil || len(items) != 2 ||
		items[0].Session != "c1" || items[1].Session != "c2" || items[0].Kind != inbox.Done {
		t.Fatalf("inbox --json: %+v %+v", r, items)
	}
	// The preview is c1's screen as it is: the answer shows once drawn
	// (the fake fires Stop just before it draws it).
	if !poll(waitTimeout, func() bool {
		var items []jsonItem
		r := hmIn(t, dir, "inbox", "--json")
		return json.Unmarshal([]byte(r.stdout), &items) == nil && len(items) > 0 &&
			strings.Contains(strings.Join(items[0].Preview, "\n"), "Done with rm -rf build.")
	}) {
		t.Fatalf("c1's preview never showed its answer: %q", items[0].Preview)
	}
	if r := hmIn(t, dir, "inbox"); !strings.Contains(r.stdout, "c1       done  Done with rm -rf build.") {
		t.Fatalf("inbox:\n%s", r.stdout)
	}

	// A user sees c2 (a dashboard focuses it): its item goes.
	c, err := frame.Dial(c2.sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Send(frame.Seen, nil)
	c.Status()
	c.Close()
	waitOut(t, watch, `{"change":"removed","item":{"session":"c2","kind":"done"`)

	if r := hmIn(t, dir, "wait", "c1", "--for", "input", "--timeout", "200ms"); r.code != 124 || !strings.Contains(r.stderr, "timed out") {
		t.Fatalf("wait past its timeout: %+v", r)
	}
	if r := hmIn(t, dir, "wait", "c1", "--for", "later"); r.code != 2 {
		t.Fatalf("wait --for later: %+v", r)
	}
	if r := hmIn(t, dir, "wait", "nope", "--for", "idle"); r.code != 1 || !strings.Contains(r.stderr, `No session found with ID "nope"`) {
		t.Fatalf("wait for no session: %+v", r)
	}
	watch.cmd.Process.Signal(os.Interrupt)
	if code := watch.wait(); code != 0 {
		t.Fatalf("inbox --watch exited %d on SIGINT\n%s", code, watch.stderr.String())
	}
}

// waitOut waits until p has printed want.
func waitOut(t *testing.T, p *proc, want string) {
	t.Helper()
	if !poll(waitTimeout, func() bool { return strings.Contains(p.stdout.String(), want) }) {
		t.Fatalf("%q did not print %s; it printed:\n%s\nstderr:\n%s", p.cmd.Args, want, p.stdout.String(), p.stderr.String())
	}
}
