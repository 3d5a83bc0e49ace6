package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

var fakeAgent string // testdata/fakeacp of cmd/heimdall-tui, built once

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "acptest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeAgent = filepath.Join(tmp, "fakeacp")
	if out, err := exec.Command("go", "build", "-o", fakeAgent, "github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/testdata/fakeacp").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the fake agent: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// start starts the fake agent in dir with fs access, logging to log.
func start(t *testing.T, dir, fs, log string) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Start(ctx, Options{ID: "a1", Argv: []string{fakeAgent}, Dir: dir, FS: fs, Env: []string{"FAKE_ACP_LOG=" + log}, KillGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Kill(true)
		<-s.Done()
	})
	return s
}

func transcript(s *Session) string {
	var b strings.Builder
	for _, e := range s.Entries(0) {
		fmt.Fprintf(&b, "%s: %s\n", e.Role, e.Text)
	}
	return b.String()
}

func waitTranscript(t *testing.T, s *Session, want string) {
	t.Helper()
	proctest.WaitFor(t, "the transcript to say "+want, 20*time.Second, func() bool { return strings.Contains(transcript(s), want) })
}

func readLog(log string) string { b, _ := os.ReadFile(log); return string(b) }

// A turn's text, its tool call and permission request answered by the
// protocol's reply, a turn cancelled (with a permission request pending,
// answered cancelled), and the state and tokens the turns report.
func TestSession(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	s := start(t, t.TempDir(), "", log)
	if err := s.Say("hello"); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, s, "assistant: Hello from the fake agent.\n")
	proctest.WaitFor(t, "done", 10*time.Second, func() bool { v := s.View(); return v.Done && v.State == session.Idle })
	if u := s.View().Usage; len(u) != 1 || u[0].Input != 100 || u[0].Output != 20 || u[0].Model != "acp:fakeacp" {
		t.Fatalf("usage %+v", u)
	}

	if err := s.Say("tool"); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "the permission request", 10*time.Second, func() bool { return s.View().NeedsInput })
	if err := s.Say("again"); err != ErrBusy {
		t.Fatalf("a prompt during a turn: %v", err)
	}
	p := s.Prompt()
	if p.Question != "Run ls (1. Allow, 2. Always allow, 3. Reject)" || strings.Join(p.Options, "|") != "Allow|Always allow|Reject" {
		t.Fatalf("prompt %+v", p)
	}
	if r := s.Answer(frame.AnswerRequest{Choice: "always"}); !r.OK || r.Option != 2 || r.Label != "Always allow" {
		t.Fatalf("answer %+v", r)
	}
	waitTranscript(t, s, "assistant: ran ls\n")
	if !strings.Contains(readLog(log), "permission always\n") {
		t.Fatalf("the agent got %q", readLog(log))
	}
	if r := s.Answer(frame.AnswerRequest{Choice: "allow"}); r.OK {
		t.Fatal("an answer with nothing asked")
	}

	// Cancel while permission is asked: the request is answered cancelled.
	proctest.WaitFor(t, "idle", 10*time.Second, func() bool { return s.View().State == session.Idle })
	s.Say("tool")
	proctest.WaitFor(t, "the permission request", 10*time.Second, func() bool { return s.View().NeedsInput })
	if err := s.Cancel(); err != nil {
		t.Fatal(err)
	}
	// The request answered cancelled, or, the turn's cancel reaching the
	// agent first, given up on by the agent itself.
	proctest.WaitFor(t, "the agent told", 10*time.Second, func() bool {
		return strings.Contains(readLog(log), "permission cancelled\n") || strings.Contains(readLog(log), "permission error")
	})
	// Cancel a streaming turn.
	proctest.WaitFor(t, "idle", 10*time.Second, func() bool { return s.View().State == session.Idle })
	before, cancels := readLog(log), strings.Count(transcript(s), "system: cancelled\n")
	s.Say("slow")
	waitTranscript(t, s, "working…")
	if err := s.Cancel(); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "the agent cancelled", 10*time.Second, func() bool {
		return strings.HasSuffix(strings.TrimPrefix(readLog(log), before), "prompt slow\ncancelled\n")
	})
	proctest.WaitFor(t, "idle after the cancel", 10*time.Second, func() bool { return s.View().State == session.Idle })
	proctest.WaitFor(t, "the cancel in the transcript", 10*time.Second, func() bool {
		return strings.Count(transcript(s), "system: cancelled\n") == cancels+1
	})
}

// The agent's file requests: served within the working directory when
// the session allows them, refused outside it (a symbolic link out too)
// and when not allowed; the agent sees the refusal as an error.
func TestFileAccess(t *testing.T) {
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "in.txt"), []byte("inside\n"), 0o600)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret\n"), 0o600)
	os.Symlink(outside, filepath.Join(work, "link.txt"))
	log := filepath.Join(t.TempDir(), "log")
	s := start(t, work, "read", log)
	read := func(path, want string) {
		t.Helper()
		proctest.WaitFor(t, "idle", 10*time.Second, func() bool { return s.View().State == session.Idle })
		before := readLog(log)
		if err := s.Say("read " + path); err != nil {
			t.Fatal(err)
		}
		proctest.WaitFor(t, "the read's outcome", 10*time.Second, func() bool {
			l := strings.TrimPrefix(readLog(log), before)
			return strings.Contains(l, "read ok") || strings.Contains(l, "read error")
		})
		if l := strings.TrimPrefix(readLog(log), before); !strings.Contains(l, want) {
			t.Fatalf("read %s: the agent logged %q, want %q", path, l, want)
		}
	}
	read(filepath.Join(work, "in.txt"), "read ok 7\n")
	read(outside, "read error")
	read(filepath.Join(work, "link.txt"), "read error")
	read(filepath.Join(work, "..", filepath.Base(filepath.Dir(outside)), "secret.txt"), "read error")
	waitTranscript(t, s, "outside the session's working directory")

	// Not allowed at all: no reads.
	log2 := filepath.Join(t.TempDir(), "log")
	s2 := start(t, work, "", log2)
	s2.Say("read " + filepath.Join(work, "in.txt"))
	proctest.WaitFor(t, "the refusal", 10*time.Second, func() bool { return strings.Contains(readLog(log2), "read error") })
}

// Shutdown closes a connection that watches nothing at once and keeps a
// watcher's until it has been sent everything up to the agent's exit,
// then EXIT: here Shutdown is asked while the agent still runs, and the
// watcher still gets the end.
func TestShutdownDeliversExit(t *testing.T) {
	s := start(t, t.TempDir(), "", filepath.Join(t.TempDir(), "log"))
	srv := &Server{Session: s}
	path := filepath.Join(proctest.ShortDir(t), "a1.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	c, err := frame.Dial(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	idle, err := frame.Dial(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if err := c.Send(frame.WatchEntries, frame.WatchEntriesPayload(0)); err != nil {
		t.Fatal(err)
	}
	if err := s.Say("hello"); err != nil {
		t.Fatal(err)
	}
	c.Conn().SetReadDeadline(time.Now().Add(20 * time.Second))
	var got []string
	exited := false
	next := func() {
		f, err := c.Next()
		if err != nil {
			t.Fatalf("the watcher's connection ended (%v) before EXIT; entries: %q", err, got)
		}
		switch f.Type {
		case frame.Entries:
			var es []frame.Entry
			if err := json.Unmarshal(f.Payload, &es); err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				got = append(got, e.Role+": "+e.Text)
			}
		case frame.Exit:
			exited = true
		}
	}
	for !slices.Contains(got, "assistant: Hello from the fake agent.") {
		next() // the watch is served
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(ctx) }()
	idle.Conn().SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := idle.Next(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a connection that watches nothing was not closed at Shutdown: %v", err)
	}
	s.Kill(true)
	<-s.Done()
	for !exited {
		next()
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "system: the agent exited") {
		t.Fatalf("entries before EXIT: %q", got)
	}
}
