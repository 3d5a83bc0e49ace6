package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// readUntil reads o until its output holds want, bounded by the connection
// closing on the test's end.
func readUntil(t *testing.T, o *Output, want string) string {
	t.Helper()
	var got strings.Builder
	for !strings.Contains(got.String(), want) {
		b, err := o.Next()
		if err != nil {
			t.Fatalf("waiting for %q in %q: %v", want, got.String(), err)
		}
		got.Write(b)
	}
	return got.String()
}

// An Output starts with a repaint of the screen as it is, then the output
// from exactly there, then the exit code.
func TestOutputRepaintThenOutputThenExit(t *testing.T) {
	f := newFleet(t, "")
	id := spawn(t, f, Spec{Argv: []string{"sh", "-c", `printf 'ready\n'; read x; printf 'got:%s\n' "$x"; exit 7`}, Cols: 60, Rows: 10})
	waitFor(t, "ready on the screen", 10*time.Second, func() bool { return screenHas(f, id, "ready") })
	o, err := f.Output(id, true)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	time.AfterFunc(20*time.Second, func() { o.Close() }) // bounds every wait below
	if cols, rows := o.Size(); cols != 60 || rows != 10 {
		t.Fatalf("size %dx%d", cols, rows)
	}
	em := vt.New(60, 10, vt.Options{})
	em.Write(o.Repaint())
	if !strings.HasPrefix(string(o.Repaint()), "\x1bc") || !strings.Contains(em.Snapshot().Text(), "ready") {
		t.Fatalf("repaint %q draws %q", o.Repaint(), em.Snapshot().Text())
	}
	if err := f.Send(id, session.Input{Data: []byte("abc\r")}); err != nil {
		t.Fatal(err)
	}
	if out := readUntil(t, o, "got:abc"); strings.Contains(out, "ready") {
		t.Fatalf("output after the repaint repeats it: %q", out)
	}
	var exit *ExitError
	for {
		_, err := o.Next()
		if errors.As(err, &exit) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if exit.Code != 7 {
		t.Fatalf("exit code %d", exit.Code)
	}
	if _, err := o.Next(); !errors.As(err, &exit) {
		t.Fatalf("after the exit: %v", err)
	}
	record(t, f).Wait(t, session.Exited, id, 0)
	if _, err := f.Output(id, false); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("output of an exited session: %v", err)
	}
	if _, err := f.Output("nope", false); err == nil {
		t.Fatal("output of an unknown session")
	}
}

// Replace stops a session and starts another command under its ID; its
// followers see the old one exit, the fleet lists the new one.
func TestReplace(t *testing.T) {
	f := newFleet(t, "")
	rec := record(t, f)
	id := spawn(t, f, Spec{ID: "rep", Agent: "shell", Argv: []string{"sh", "-c", "echo one; exec sleep 60"}})
	waitFor(t, "one", 10*time.Second, func() bool { return screenHas(f, id, "one") })
	o, err := f.Output(id, false)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	time.AfterFunc(20*time.Second, func() { o.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := f.Replace(ctx, id, Spec{Agent: "shell", Argv: []string{"sh", "-c", "echo two; exec sleep 60"}, Env: []string{"X=1"}}); err != nil {
		t.Fatal(err)
	}
	var exit *ExitError
	for {
		if _, err := o.Next(); errors.As(err, &exit) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if exit.Code != 143 {
		t.Fatalf("old session's exit %d, want 143 (SIGTERM)", exit.Code)
	}
	waitFor(t, "two", 10*time.Second, func() bool { return screenHas(f, id, "two") })
	in := mustInfo(t, f, id)
	if !in.Alive || in.Agent != "shell" || !strings.Contains(strings.Join(in.Argv, " "), "echo two") {
		t.Fatalf("replacement %+v", in)
	}
	if len(f.Sessions()) != 1 {
		t.Fatalf("sessions %v", f.Sessions())
	}
	rec.Wait(t, session.Exited, id, 0)
	// The recorder hears of the replacement on its own goroutine: Info
	// may list it first.
	proctest.WaitFor(t, "the replacement's Added", 10*time.Second, func() bool { return rec.Count(session.Added, id) >= 2 })
	if rec.Count(session.Added, id) != 2 {
		t.Fatalf("events %v", rec)
	}
	if err := f.Replace(ctx, "nope", Spec{Argv: []string{"true"}}); err == nil {
		t.Fatal("replaced an unknown session")
	}
	if err := f.Replace(ctx, id, Spec{}); err == nil {
		t.Fatal("replaced with no program")
	}
}
