package fleet_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet/fleettest"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/session/sessiontest"
)

func openFleet(t *testing.T) *fleet.Fleet {
	t.Helper()
	c := config.Default()
	c.IdleThreshold = 300 * time.Millisecond
	c.KillGrace = time.Second
	c.Classifier = "simple"
	return fleet.OpenTestFleet(t, proctest.ShortDir(t), c)
}

func infoOf(t *testing.T, f *fleet.Fleet, id string) session.Info {
	t.Helper()
	for _, in := range f.Sessions() {
		if in.ID == id {
			return in
		}
	}
	t.Fatalf("no session %q in %+v", id, f.Sessions())
	return session.Info{}
}

func seqs(es []session.Entry) []uint64 {
	var out []uint64
	for _, e := range es {
		out = append(out, e.Seq)
	}
	return out
}

// A member of another kind sits in the fleet beside pty sessions: listed
// with its kind, caps and state, its transcript read after a seq, input
// sent to it, actions it cannot do refused with the reason, and Kill ends
// it with Exited.
func TestFakeMember(t *testing.T) {
	f := openFleet(t)
	r := sessiontest.Record(t, f)
	k, err := fleettest.Add(f, "fake-1", fleettest.Options{
		Agent: "claude",
		Script: []fleettest.Step{
			fleettest.State(session.Thinking),
			fleettest.Entry(session.RoleAssistant, "hello"),
			fleettest.State(session.Idle),
		},
		Reply: func(text string) []fleettest.Step {
			return []fleettest.Step{
				fleettest.State(session.Thinking),
				fleettest.Pause(10 * time.Millisecond),
				fleettest.Entry(session.RoleAssistant, "echo: "+text),
				fleettest.State(session.Idle),
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	added := r.Wait(t, session.Added, "fake-1", 0)
	if d := r.Wait(t, session.Dirty, "fake-1", 1); d < added {
		t.Fatalf("Dirty before Added: %v", r)
	}
	r.Wait(t, session.Changed, "fake-1", 0)
	proctest.WaitFor(t, "Idle after the script", 10*time.Second, func() bool {
		return infoOf(t, f, "fake-1").State == session.Idle && len(f.Transcript("fake-1", 0)) == 1
	})
	in := infoOf(t, f, "fake-1")
	if in.Kind != fleettest.Kind || in.Caps != session.CapTranscript || !in.Alive || in.Agent != "claude" || !in.Owned {
		t.Fatalf("info %+v", in)
	}

	if err := f.Send("fake-1", session.Input{Data: []byte("hi\r")}); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Dirty, "fake-1", 3)
	got := f.Transcript("fake-1", 1)
	if !slices.Equal(seqs(got), []uint64{2, 3}) || got[0].Role != session.RoleUser || got[0].Text != "hi" ||
		got[1].Role != session.RoleAssistant || got[1].Text != "echo: hi" {
		t.Fatalf("transcript after 1: %+v", got)
	}
	if es := f.Transcript("fake-1", 3); es != nil {
		t.Fatalf("transcript after the last seq: %+v", es)
	}
	if f.Screen("fake-1") != nil {
		t.Fatal("a fake session has a screen")
	}

	fakeRefusals(t, f, "fake-1")
	if err := f.Kill("fake-1", false); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, "fake-1", 0)
	select {
	case <-k.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed after Kill")
	}
	in = infoOf(t, f, "fake-1")
	if in.Alive || in.State != session.Dead || in.ExitCode != fleettest.CodeStop {
		t.Fatalf("after Kill: %+v", in)
	}
	if err := f.Send("fake-1", session.Input{Data: []byte("x")}); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("Send to an exited member: %v", err)
	}
	if err := f.Kill("fake-1", false); err == nil {
		t.Fatal("Kill of an exited member succeeded")
	}
	if len(f.Transcript("fake-1", 0)) != 3 {
		t.Fatal("an exited member's transcript is gone")
	}
	if err := f.Remove("fake-1"); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Removed, "fake-1", 0)
	if f.Transcript("fake-1", 0) != nil || len(f.Sessions()) != 0 {
		t.Fatal("removed member still there")
	}
}

// fakeRefusals checks that what a live fake cannot do is refused with the
// reason, before anything is tried.
func fakeRefusals(t *testing.T, f *fleet.Fleet, id string) {
	t.Helper()
	_, err := f.Endpoint(id)
	wantRefused(t, err, "attach "+id+": a fake session has no terminal")
	wantRefused(t, f.Resize(id, 80, 24), "resize "+id+": a fake session has no terminal")
	wantRefused(t, f.Interrupt(id), "interrupt "+id+": a fake session cannot be interrupted")
	wantRefused(t, f.Restart(id), "restart "+id+": a fake session cannot be started again")
	if err := f.Remove(id); err == nil || !strings.Contains(err.Error(), "running") {
		t.Fatalf("Remove of a live member: %v", err)
	}
}

func wantRefused(t *testing.T, err error, msg string) {
	t.Helper()
	var ce *fleet.CapError
	if err == nil || err.Error() != msg || !errors.Is(err, errors.ErrUnsupported) || !errors.As(err, &ce) {
		t.Fatalf("got %v, want %q (a CapError, ErrUnsupported)", err, msg)
	}
}

// Pty sessions say what they can do through the same Caps: everything but
// a transcript.
func TestPtyCaps(t *testing.T) {
	f := openFleet(t)
	id, err := f.Spawn(fleet.Spec{Argv: []string{"sh", "-c", "exec sleep 30"}})
	if err != nil {
		t.Fatal(err)
	}
	if in := infoOf(t, f, id); in.Kind != session.KindPty || in.Caps != session.CapScreen|session.CapAttach|session.CapRestart|session.CapInterrupt|session.CapAnswer|session.CapOutlive {
		t.Fatalf("pty info %+v", in)
	}
	if f.Transcript(id, 0) != nil {
		t.Fatal("a pty session has a transcript")
	}
}

// Add follows Spawn's ID rules: one ID, one session, whatever its kind;
// an ID being started is taken; a failed start leaves nothing.
func TestAddIDRules(t *testing.T) {
	f := openFleet(t)
	argv := []string{"sh", "-c", "exec sleep 30"}
	if _, err := fleettest.Add(f, "sh-1", fleettest.Options{}); err != nil {
		t.Fatal(err)
	}
	if id, err := f.Spawn(fleet.Spec{Argv: argv}); err != nil || id != "sh-2" {
		t.Fatalf("auto id %q (%v), want sh-2 (sh-1 is the fake's)", id, err)
	}
	for _, id := range []string{"sh-1", "sh-2"} {
		if _, err := fleettest.Add(f, id, fleettest.Options{}); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("Add of taken %s: %v", id, err)
		}
	}
	if _, err := f.Spawn(fleet.Spec{ID: "sh-1", Argv: argv}); err == nil {
		t.Fatal("Spawn took a fake's id")
	}
	for _, id := range []string{"", "a/b", ".x"} {
		if _, err := fleettest.Add(f, id, fleettest.Options{}); err == nil {
			t.Fatalf("Add of invalid id %q accepted", id)
		}
	}
	// A start that fails lists nothing and frees the ID.
	boom := errors.New("boom")
	err := f.Add("fails", func(string, fleet.Reporter) (fleet.Member, error) { return nil, boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "add fails") {
		t.Fatalf("failed start: %v", err)
	}
	if _, err := fleettest.Add(f, "fails", fleettest.Options{}); err != nil {
		t.Fatalf("id of a failed start still taken: %v", err)
	}
	// While a start runs its ID is claimed.
	started, release := make(chan struct{}), make(chan struct{})
	go f.Add("slow", func(id string, r fleet.Reporter) (fleet.Member, error) {
		close(started)
		<-release
		return fleettest.Start(id, r, fleettest.Options{}), nil
	})
	<-started
	if _, err := f.Spawn(fleet.Spec{ID: "slow", Argv: argv}); err == nil {
		t.Fatal("Spawn took an id being added")
	}
	close(release)
	proctest.WaitFor(t, "slow listed", 10*time.Second, func() bool {
		for _, in := range f.Sessions() {
			if in.ID == "slow" {
				return true
			}
		}
		return false
	})
}

// Reports a member makes before it is listed are published after its
// Added, in order: a member that exits while starting is Added, then
// Exited.
func TestAddEarlyReports(t *testing.T) {
	f := openFleet(t)
	r := sessiontest.Record(t, f)
	err := f.Add("early", func(id string, rp fleet.Reporter) (fleet.Member, error) {
		k := fleettest.Start(id, rp, fleettest.Options{})
		k.Append(session.RoleSystem, "started")
		k.Exit(7)
		return k, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	exited := r.Wait(t, session.Exited, "early", 0)
	if added := r.Find(session.Added, "early", 0); added < 0 || added > exited {
		t.Fatalf("Added after Exited: %v", r)
	}
	r.Wait(t, session.Dirty, "early", 1)
	if in := infoOf(t, f, "early"); in.Alive || in.ExitCode != 7 {
		t.Fatalf("info %+v", in)
	}
}

// vanishing is a member whose Done closes without Exited, as a followed
// session whose server went away.
type vanishing struct {
	*fleettest.Fake
	gone chan struct{}
}

func (v vanishing) Done() <-chan struct{} { return v.gone }

// A member that ends without reporting Exited has vanished: it is Removed.
func TestVanishedMember(t *testing.T) {
	f := openFleet(t)
	r := sessiontest.Record(t, f)
	v := vanishing{gone: make(chan struct{})}
	err := f.Add("v", func(id string, rp fleet.Reporter) (fleet.Member, error) {
		v.Fake = fleettest.Start(id, rp, fleettest.Options{})
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Added, "v", 0)
	close(v.gone)
	r.Wait(t, session.Removed, "v", 0)
	if len(f.Sessions()) != 0 {
		t.Fatalf("sessions %+v", f.Sessions())
	}
	v.Fake.Stop(true) // its player goroutine
}

// Close hangs every member up and waits for it to be done.
func TestCloseHangsUpMembers(t *testing.T) {
	f := openFleet(t)
	k, err := fleettest.Add(f, "k", fleettest.Options{Script: []fleettest.Step{fleettest.Pause(time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	select {
	case <-k.Done():
	default:
		t.Fatal("Close returned before the member was done")
	}
	if in := k.Info(); in.Alive || in.ExitCode != fleettest.CodeHangup {
		t.Fatalf("after Close %+v", in)
	}
	if _, err := fleettest.Add(f, "k2", fleettest.Options{}); !errors.Is(err, fleet.ErrClosed) {
		t.Fatalf("Add after Close: %v", err)
	}
}

// Spawn is called off the UI's event loop (a tea.Cmd), so several may run
// at once: each gets its own ID and all are listed.
func TestSpawnConcurrent(t *testing.T) {
	f := openFleet(t)
	const n = 4
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = f.Spawn(fleet.Spec{Agent: "shell", Argv: []string{"sh", "-c", "exec sleep 30"}})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"shell-1", "shell-2", "shell-3", "shell-4"}) {
		t.Fatalf("ids %v", ids)
	}
	if got := len(f.Sessions()); got != n {
		t.Fatalf("%d sessions listed", got)
	}
}
