package fleet

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// A session whose supervisor is SIGKILLed (as a reboot or the OOM killer
// ends it) is listed by the next fleet as Dead and Lost, with the screen
// its record last took and when; it restarts from that record, and
// removing it forgets the record.
func TestLostSession(t *testing.T) {
	dir := shortDir(t)
	o := testOptions(t, dir, testConfig())
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	id := spawn(t, f, Spec{ID: "lost", Argv: []string{"sh", "-c", "printf 'before-the-crash\\n'; exec sleep 300"}})
	waitFor(t, "its screen in the record", 20*time.Second, func() bool {
		rec, err := supervisor.ReadRecord(dir, id)
		return err == nil && rec.Seen != nil && rec.State == "Idle"
	})
	rec, _ := supervisor.ReadRecord(dir, id)
	f.Close()
	if err := syscall.Kill(rec.Supervisor, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(-rec.PID, syscall.SIGKILL) // its program, as a reboot would
	waitFor(t, "the supervisor's end", 10*time.Second, func() bool { return proc.Gone(rec.Supervisor) })

	g := openFleet(t, o)
	in := mustInfo(t, g, id)
	if in.Alive || in.State != session.Dead || !in.Lost || in.Rebooted || !in.LastSeen.Equal(*rec.Seen) || in.ExitCode != -1 {
		t.Fatalf("lost session %+v", in)
	}
	if !screenHas(g, id, "before-the-crash") {
		t.Fatalf("its last screen is not shown:\n%s", g.Screen(id).Text())
	}
	if err := g.Restart(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "it running again", 20*time.Second, func() bool {
		in, ok := info(g, id)
		return ok && in.Alive && !in.Lost && screenHas(g, id, "before-the-crash")
	})
	if err := g.Kill(id, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "its end", 20*time.Second, func() bool { in, ok := info(g, id); return ok && !in.Alive })
	if err := g.Remove(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "its record gone", 10*time.Second, func() bool {
		_, err := os.Stat(supervisor.RecordPath(dir, id))
		return os.IsNotExist(err)
	})
}

// Removing a lost session forgets its record: the next fleet does not
// list it again.
func TestLostSessionRemoved(t *testing.T) {
	dir := shortDir(t)
	o := testOptions(t, dir, testConfig())
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	id := spawn(t, f, Spec{ID: "gone", Argv: []string{"sleep", "300"}})
	rec := mustRecord(t, dir, id)
	f.Close()
	syscall.Kill(rec.Supervisor, syscall.SIGKILL)
	syscall.Kill(-rec.PID, syscall.SIGKILL)
	waitFor(t, "the supervisor's end", 10*time.Second, func() bool { return proc.Gone(rec.Supervisor) })
	g := openFleet(t, o)
	if in := mustInfo(t, g, id); !in.Lost || in.LastSeen.Before(rec.Started) {
		t.Fatalf("lost session %+v", in)
	}
	if err := g.Remove(id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(supervisor.RecordPath(dir, id)); !os.IsNotExist(err) {
		t.Fatalf("record left after Remove: %v", err)
	}
	h := openFleet(t, o)
	if _, ok := info(h, id); ok {
		t.Fatal("a removed lost session is listed again")
	}
}

func mustRecord(t testing.TB, dir, id string) supervisor.Record {
	t.Helper()
	var rec supervisor.Record
	waitFor(t, "the record", 10*time.Second, func() bool {
		var err error
		rec, err = supervisor.ReadRecord(dir, id)
		return err == nil
	})
	return rec
}
