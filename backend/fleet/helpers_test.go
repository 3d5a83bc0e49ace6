package fleet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/session/sessiontest"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// testIdle is the idle threshold of the tests' fleets and external
// sessions: short, so that settling takes a fraction of a second.
const testIdle = 300 * time.Millisecond

func testConfig() config.Config {
	c := config.Default()
	c.IdleThreshold = testIdle
	c.KillGrace = time.Second
	c.Classifier = "simple"
	return c
}

// newFleet opens a fleet on dir (a new short dir if ""); cleanup closes it
// and stops the sessions it started.
func newFleet(t testing.TB, dir string) *Fleet {
	t.Helper()
	if dir == "" {
		dir = shortDir(t)
	}
	return openFleet(t, testOptions(t, dir, testConfig()))
}

// openFleet opens a fleet with o; cleanup stops the sessions it started
// (their supervisors outlive a closed fleet) and closes it.
func openFleet(t testing.TB, o Options) *Fleet {
	t.Helper()
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := f.StopOwned(ctx); err != nil {
			t.Errorf("stop the test's sessions: %v", err)
		}
		f.Close()
	})
	return f
}

// testOptions are a test fleet's Options on dir with cfg: its sessions'
// supervisors are supervisorBin, reading a config file written from cfg
// (the keys the tests set: idle threshold, kill grace, classifier, env).
func testOptions(t testing.TB, dir string, cfg config.Config) Options {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "idle_threshold = %q\nkill_grace = %q\n", cfg.IdleThreshold, cfg.KillGrace)
	if cfg.Classifier != "" {
		fmt.Fprintf(&b, "classifier = %q\n", cfg.Classifier)
	}
	for _, e := range cfg.Env {
		fmt.Fprintf(&b, "[[env]]\nname = %q\nvalue = %q\n", e.Name, e.Value)
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killLeftovers(t, dir) })
	return Options{Dir: dir, Config: cfg, Supervisor: []string{supervisorBin, "--socket-dir", dir, "--config", path}}
}

// record collects f's events (sessiontest.Recorder); the test's end closes f.
func record(t testing.TB, f *Fleet) *sessiontest.Recorder { return sessiontest.Record(t, f) }

func info(f *Fleet, id string) (session.Info, bool) {
	for _, in := range f.Sessions() {
		if in.ID == id {
			return in, true
		}
	}
	return session.Info{}, false
}

func mustInfo(t testing.TB, f *Fleet, id string) session.Info {
	t.Helper()
	in, ok := info(f, id)
	if !ok {
		t.Fatalf("no session %q in %v", id, f.Sessions())
	}
	return in
}

func screenHas(f *Fleet, id, s string) bool {
	sn := f.Screen(id)
	return sn != nil && strings.Contains(sn.Text(), s)
}

func spawn(t testing.TB, f *Fleet, spec Spec) string {
	t.Helper()
	id, err := f.Spawn(spec)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// extSession is a session served in dir as another process's
// `heimdall-tui run` serves it (supervisor.Host).
type extSession struct {
	h    *supervisor.Hosted
	sess *supervisor.Session // h.Session
	srv  *supervisor.Server  // h.Server
	once sync.Once
}

func startExternal(t testing.TB, dir, id string, argv ...string) *extSession {
	t.Helper()
	h, err := supervisor.Host(dir, supervisor.Config{
		ID: id, Argv: argv, KillGrace: time.Second,
		Classifier: classify.NewSimple(testIdle, time.Now()),
	})
	if err != nil {
		t.Fatal(err)
	}
	x := &extSession{h: h, sess: h.Session, srv: h.Server}
	go h.Serve()
	// What run does once the child has exited.
	go func() {
		x.sess.Wait()
		x.stop()
	}()
	t.Cleanup(func() {
		// Only while it runs: once reaped, its pid (and group id) may be
		// another test's session by now, as a leader of its own group.
		select {
		case <-x.sess.Done():
		default:
			syscall.Kill(-x.sess.PID(), syscall.SIGKILL)
		}
		select {
		case <-x.sess.Done():
		case <-time.After(10 * time.Second):
			t.Errorf("external %s did not exit", id)
		}
		x.stop()
	})
	return x
}

func (x *extSession) stop() { x.once.Do(func() { x.h.Finish() }) }

// Shared with the other process-running tests (backend/internal/proctest).
type gate = proctest.Gate

var (
	shortDir    = proctest.ShortDir
	waitFor     = proctest.WaitFor
	processGone = proc.Gone
	newGate     = proctest.NewGate
)

// killLeftovers SIGKILLs what a failed test left running in dir (sessions
// outlive their fleets): each recorded session's program group and its
// supervisor.
func killLeftovers(t testing.TB, dir string) {
	ents, _ := os.ReadDir(dir)
	for _, de := range ents {
		id, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok {
			continue
		}
		rec, err := supervisor.ReadRecord(dir, id)
		if err != nil || rec.Ended != nil {
			continue
		}
		if !processGone(rec.Supervisor) {
			t.Logf("cleanup: killing leftover session %s (supervisor %d)", id, rec.Supervisor)
			proc.KillGroup(rec.PID, syscall.SIGKILL)
			syscall.Kill(rec.Supervisor, syscall.SIGKILL)
		}
	}
}
