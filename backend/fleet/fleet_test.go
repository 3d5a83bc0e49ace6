package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// Dirty comes after the emulator applied the output: the screen read on a
// Dirty event is at least as new as the event says, and the output shows.
func TestSpawnScreenAndSocket(t *testing.T) {
	dir := shortDir(t)
	f := newFleet(t, dir)
	var seen []string
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id := spawn(t, f, Spec{Argv: []string{"sh", "-c", "printf hello; exec sleep 30"}})
	if id != "sh-1" {
		t.Fatalf("auto id %q, want sh-1", id)
	}
	added := false
	for !screenHas(f, id, "hello") || !added {
		evs, err := f.Next(ctx)
		if err != nil {
			t.Fatalf("Next: %v (events so far %v)", err, seen)
		}
		for _, ev := range evs {
			seen = append(seen, ev.Kind.String())
			switch ev.Kind {
			case session.Added:
				added = true
			case session.Dirty:
				if sn := f.Screen(id); sn.Seq < ev.Seq {
					t.Fatalf("Dirty seq %d but screen seq %d", ev.Seq, sn.Seq)
				}
			}
		}
	}
	in := mustInfo(t, f, id)
	if !in.Owned || !in.Alive || in.PID <= 0 || in.Cols != supervisor.DefaultCols || in.Rows != supervisor.DefaultRows ||
		!slices.Equal(in.Argv, []string{"sh", "-c", "printf hello; exec sleep 30"}) || in.Classifier != "simple" || in.Dir == "" {
		t.Fatalf("info %+v", in)
	}
	// What `heimdall-tui ls/status` from another terminal does.
	c, err := frame.Dial(supervisor.SocketPath(dir, id), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Conn().SetDeadline(time.Now().Add(5 * time.Second))
	st, err := c.Status()
	if err != nil {
		t.Fatal(err)
	}
	if int(st.PID) != in.PID || !st.Alive {
		t.Fatalf("status over the socket %+v, info pid %d", st, in.PID)
	}
	si, err := c.Screen(false)
	if err != nil || !strings.Contains(si.Screen, "hello") {
		t.Fatalf("screen over the socket %q, %v", si.Screen, err)
	}
	if _, err := os.Stat(supervisor.LogPath(dir, id)); err != nil {
		t.Fatalf("session log: %v", err)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	f := newFleet(t, "")
	id := spawn(t, f, Spec{ID: "rw", Argv: []string{"sh", "-c", "printf ready; read x; echo got:$x; exec sleep 30"}})
	waitFor(t, "ready", 10*time.Second, func() bool { return screenHas(f, id, "ready") })
	if err := f.Send(id, session.Input{Data: []byte("abc\r")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "got:abc", 10*time.Second, func() bool { return screenHas(f, id, "got:abc") })
	if err := f.Send("nope", session.Input{Data: []byte("x")}); err == nil {
		t.Fatal("Write to an unknown id succeeded")
	}
}

func TestExitCodeAndRemove(t *testing.T) {
	dir := shortDir(t)
	f := newFleet(t, dir)
	r := record(t, f)
	id := spawn(t, f, Spec{ID: "ex", Argv: []string{"sh", "-c", "printf ready; read x; exit 3"}})
	waitFor(t, "ready", 10*time.Second, func() bool { return screenHas(f, id, "ready") })
	if err := f.Remove(id); err == nil || !strings.Contains(err.Error(), "running") {
		t.Fatalf("Remove of a live session: %v", err)
	}
	if err := f.Send(id, session.Input{Data: []byte("\r")}); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, id, 0)
	in := mustInfo(t, f, id)
	if in.Alive || in.ExitCode != 3 || in.State != session.Dead {
		t.Fatalf("after exit: %+v", in)
	}
	if !screenHas(f, id, "ready") {
		t.Fatal("a dead session's screen is gone")
	}
	waitFor(t, "socket and pid file removed", 10*time.Second, func() bool {
		_, e1 := os.Lstat(supervisor.SocketPath(dir, id))
		_, e2 := os.Lstat(supervisor.PidPath(dir, id))
		return os.IsNotExist(e1) && os.IsNotExist(e2)
	})
	if err := f.Kill(id, false); err == nil {
		t.Fatal("Kill of a dead session succeeded")
	}
	if err := f.Send(id, session.Input{Data: []byte("x")}); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("Write to a dead session: %v", err)
	}
	if err := f.Remove(id); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Removed, id, 0)
	if _, ok := info(f, id); ok || f.Screen(id) != nil {
		t.Fatal("removed session still listed")
	}
	if err := f.Remove(id); err == nil {
		t.Fatal("second Remove succeeded")
	}
}

func TestKill(t *testing.T) {
	f := newFleet(t, "")
	r := record(t, f)
	// A program that ignores SIGTERM: the grace ends in SIGKILL.
	stubborn := []string{"sh", "-c", `trap "" TERM; printf ready; while :; do sleep 0.05; done`}
	cases := []struct {
		name  string
		argv  []string
		force bool
		code  int
	}{
		{"term", []string{"sh", "-c", "printf ready; exec sleep 30"}, false, 128 + 15},
		{"grace", stubborn, false, 128 + 9},
		{"force", stubborn, true, 128 + 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := spawn(t, f, Spec{ID: c.name, Argv: c.argv})
			waitFor(t, "ready", 10*time.Second, func() bool { return screenHas(f, id, "ready") })
			pid := mustInfo(t, f, id).PID
			start := time.Now()
			if err := f.Kill(id, c.force); err != nil {
				t.Fatal(err)
			}
			r.Wait(t, session.Exited, id, 0)
			if c.name == "grace" && time.Since(start) < time.Second {
				t.Fatalf("stubborn session died after %v, before the 1s grace", time.Since(start))
			}
			if in := mustInfo(t, f, id); in.ExitCode != c.code || in.Alive {
				t.Fatalf("exit %+v, want code %d", in, c.code)
			}
			waitFor(t, "process gone", 10*time.Second, func() bool { return processGone(pid) })
		})
	}
}

func TestResize(t *testing.T) {
	f := newFleet(t, "")
	r := record(t, f)
	id := spawn(t, f, Spec{ID: "rs", Argv: []string{"sh", "-c", "printf ready; read x; stty size; exec sleep 30"}, Cols: 80, Rows: 24})
	waitFor(t, "ready", 10*time.Second, func() bool { return screenHas(f, id, "ready") })
	if err := f.Resize(id, 100, 30); err != nil {
		t.Fatal(err)
	}
	if err := f.Send(id, session.Input{Data: []byte("\r")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "stty size 30 100", 10*time.Second, func() bool { return screenHas(f, id, "30 100") })
	waitFor(t, "Info 100x30", 10*time.Second, func() bool {
		in := mustInfo(t, f, id)
		return in.Cols == 100 && in.Rows == 30
	})
	if sn := f.Screen(id); sn.Cols != 100 || sn.Rows != 30 {
		t.Fatalf("screen %dx%d", sn.Cols, sn.Rows)
	}
	if !r.Has(session.Changed, id) {
		t.Fatal("no Changed event for the resize")
	}
	if err := f.Resize(id, 0, 10); err == nil {
		t.Fatal("zero size accepted")
	}
}

func TestRestart(t *testing.T) {
	f := newFleet(t, "")
	r := record(t, f)
	id := spawn(t, f, Spec{ID: "rst", Argv: []string{"sh", "-c", "printf run$$; exec sleep 30"}})
	waitFor(t, "run", 10*time.Second, func() bool { return screenHas(f, id, "run") })
	pid1 := mustInfo(t, f, id).PID
	if err := f.Restart(id); err != nil {
		t.Fatal(err)
	}
	var pid2 int
	waitFor(t, "restarted with a new pid", 15*time.Second, func() bool {
		in, ok := info(f, id)
		pid2 = in.PID
		return ok && in.Alive && in.PID != pid1
	})
	waitFor(t, "new screen", 10*time.Second, func() bool {
		return screenHas(f, id, "run"+strconv.Itoa(pid2))
	})
	if !processGone(pid1) {
		t.Fatal("old process still running")
	}
	if n := len(f.Sessions()); n != 1 {
		t.Fatalf("%d sessions after restart", n)
	}
	// Restart of a dead session starts it again.
	if err := f.Kill(id, true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "dead", 10*time.Second, func() bool { return !mustInfo(t, f, id).Alive })
	if err := f.Restart(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "alive again", 15*time.Second, func() bool {
		in := mustInfo(t, f, id)
		return in.Alive && in.PID != pid2
	})
	waitFor(t, "three Added events", 10*time.Second, func() bool { return r.Count(session.Added, id) == 3 })
}

func TestAutoIDs(t *testing.T) {
	dir := shortDir(t)
	f := newFleet(t, dir)
	argv := []string{"sh", "-c", "exec sleep 30"}
	a := spawn(t, f, Spec{Agent: "shell", Argv: argv})
	b := spawn(t, f, Spec{Agent: "shell", Argv: argv})
	c := spawn(t, f, Spec{Argv: []string{"/bin/sleep", "30"}})
	if a != "shell-1" || b != "shell-2" || c != "sleep-1" {
		t.Fatalf("ids %s %s %s", a, b, c)
	}
	// A socket file someone else left (live or not) takes its number too.
	l, err := net.Listen("unix", supervisor.SocketPath(dir, "shell-3"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if d := spawn(t, f, Spec{Agent: "shell", Argv: argv}); d != "shell-4" {
		t.Fatalf("id %s, want shell-4", d)
	}
	if _, err := f.Spawn(Spec{ID: "shell-1", Argv: argv}); err == nil {
		t.Fatal("duplicate id accepted")
	}
	if _, err := f.Spawn(Spec{ID: "a/b", Argv: argv}); err == nil {
		t.Fatal("invalid id accepted")
	}
	if _, err := f.Spawn(Spec{}); err == nil {
		t.Fatal("empty argv accepted")
	}
}

func TestSpawnMissingProgram(t *testing.T) {
	dir := shortDir(t)
	f := newFleet(t, dir)
	r := record(t, f)
	_, err := f.Spawn(Spec{ID: "miss", Argv: []string{"heimdall-no-such-program"}})
	if err == nil || !strings.Contains(err.Error(), "heimdall-no-such-program") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Lstat(supervisor.SocketPath(dir, "miss")); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
	if _, err := os.Lstat(supervisor.PidPath(dir, "miss")); !os.IsNotExist(err) {
		t.Fatalf("pid file left behind: %v", err)
	}
	if _, err := os.Lstat(supervisor.LogPath(dir, "miss")); !os.IsNotExist(err) {
		t.Fatalf("log file left behind: %v", err)
	}
	if len(f.Sessions()) != 0 {
		t.Fatalf("sessions %v", f.Sessions())
	}
	_, err = f.Spawn(Spec{ID: "miss2", Argv: []string{"true"}, Dir: "/nonexistent-dir"})
	if err == nil {
		t.Fatal("missing workdir accepted")
	}
	// The ID is free again.
	if id := spawn(t, f, Spec{ID: "miss", Argv: []string{"sh", "-c", "exec sleep 30"}}); id != "miss" {
		t.Fatal(id)
	}
	r.Wait(t, session.Added, "miss", 0)
	if r.Count(session.Added, "miss") != 1 || r.Has(session.Added, "miss2") {
		t.Fatalf("events %v", r)
	}
}

func TestPresets(t *testing.T) {
	cfg := testConfig()
	cfg.Agents = []config.Agent{
		{Name: "mine", Command: []string{"sh", "-c", "echo mine"}, Env: []config.EnvVar{{Name: "A", Value: "1"}}},
		{Name: "codex", Command: []string{"sh"}, Classifier: "simple"},
		{Name: "aider", Env: []config.EnvVar{{Name: "B", Value: "2"}}},
	}
	f := openFleet(t, testOptions(t, shortDir(t), cfg))
	ps := f.Presets()
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "claude,codex,aider,gemini,shell,goose,opencode,gemini-acp,mine" {
		t.Fatalf("order %v", names)
	}
	if p := ps[1]; !slices.Equal(p.Argv, []string{"sh"}) || p.Classifier != "simple" || !p.Found || p.Yolo != nil || p.Resume != nil {
		t.Fatalf("codex override %+v", p)
	}
	if p := ps[2]; !slices.Equal(p.Argv, []string{"aider"}) || !slices.Equal(p.Env, []string{"B=2"}) || p.Yolo == nil || p.Resume == nil {
		t.Fatalf("aider with env only keeps its command and YOLO mode: %+v", p)
	}
	if p := ps[0]; p.Classifier != "claude" || !slices.Equal(p.Argv, []string{"claude"}) ||
		!slices.Equal(p.Yolo, []string{"claude", "--dangerously-skip-permissions", "--continue"}) {
		t.Fatalf("claude %+v", p)
	}
	if p := ps[5]; p.Name != "goose" || !slices.Equal(p.YoloEnv, []string{"GOOSE_MODE=auto"}) {
		t.Fatalf("goose %+v", p)
	}
	if p := ps[6]; p.Name != "opencode" || p.Yolo != nil {
		t.Fatalf("opencode has no YOLO mode: %+v", p)
	}
	if p := ps[7]; p.Name != "gemini-acp" || !p.ACP || p.ACPFS != "read" || !slices.Equal(p.Argv, []string{"gemini", "--acp"}) {
		t.Fatalf("gemini over ACP %+v", p)
	}
	if p := ps[8]; !slices.Equal(p.Env, []string{"A=1"}) || !p.Found {
		t.Fatalf("mine %+v", p)
	}
	if p := ps[4]; len(p.Argv) != 1 || p.Classifier != "simple" {
		t.Fatalf("shell %+v", p)
	}
	t.Setenv("PATH", t.TempDir())
	if f.Presets()[7].Found {
		t.Fatal("sh found with an empty PATH")
	}
}

func TestPresetEnvReachesProgram(t *testing.T) {
	cfg := testConfig()
	cfg.Env = []config.EnvVar{{Name: "HF_CFG", Value: "c"}}
	cfg.Agents = []config.Agent{{Name: "envy", Command: []string{"sh"}, Env: []config.EnvVar{{Name: "HF_PRESET", Value: "p"}}}}
	f := openFleet(t, testOptions(t, shortDir(t), cfg))
	id, err := f.Spawn(Spec{Agent: "envy", Argv: []string{"sh", "-c", `echo "[$HF_CFG$HF_PRESET$HF_SPEC:$HEIMDALL_SESSION_ID]"; exec sleep 30`}, Env: []string{"HF_SPEC=s"}})
	if err != nil {
		t.Fatal(err)
	}
	if id != "envy-1" {
		t.Fatal(id)
	}
	waitFor(t, "env", 10*time.Second, func() bool { return screenHas(f, id, "[cps:envy-1]") })
	// Not on the supervisor's command line, which every user can read.
	rec, err := supervisor.ReadRecord(f.dir, id)
	if err != nil {
		t.Fatal(err)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", rec.Supervisor))
	if err != nil || bytes.Contains(cmdline, []byte("HF_PRESET=")) || bytes.Contains(cmdline, []byte("HF_SPEC=")) {
		t.Fatalf("supervisor command line %q (%v)", cmdline, err)
	}
}

// The dashboard's spawn passes the preset's env in the spec, and a restart
// passes the env the session's record says it was given: each entry is
// still given once, restart after restart.
func TestRestartGivesEnvOnce(t *testing.T) {
	cfg := testConfig()
	cfg.Agents = []config.Agent{{Name: "envy", Command: []string{"sh"}, Env: []config.EnvVar{{Name: "HF_PRESET", Value: "p"}}}}
	dir := shortDir(t)
	f := openFleet(t, testOptions(t, dir, cfg))
	id := spawn(t, f, Spec{Agent: "envy", Argv: []string{"sh", "-c", `echo "[$HF_PRESET$HF_SPEC]"; exec sleep 30`},
		Env: []string{"HF_PRESET=p", "HF_SPEC=s"}})
	want := []string{"HF_PRESET=p", "HF_SPEC=s"}
	for restarts := 0; ; restarts++ {
		pid := mustInfo(t, f, id).PID
		var rec supervisor.Record
		waitFor(t, "the session's record", 10*time.Second, func() bool {
			var err error
			rec, err = supervisor.ReadRecord(dir, id)
			return err == nil && rec.PID == pid
		})
		if !slices.Equal(rec.Env, want) {
			t.Fatalf("after %d restarts: env %q in the record, want %q", restarts, rec.Env, want)
		}
		waitFor(t, "the env on the screen", 10*time.Second, func() bool { return screenHas(f, id, "[ps]") })
		if restarts == 2 {
			return
		}
		if err := f.Restart(id); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "restarted", 15*time.Second, func() bool {
			in, ok := info(f, id)
			return ok && in.Alive && in.PID != pid
		})
	}
}

func TestEndpointOwned(t *testing.T) {
	f := newFleet(t, "")
	id := spawn(t, f, Spec{ID: "ep", Argv: []string{"sh", "-c", "printf hello; read x; echo got:$x; exit 4"}})
	ep, err := f.Endpoint(id)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	var out []byte
	deadline := time.Now().Add(10 * time.Second)
	sent := false
	for time.Now().Before(deadline) {
		p, exited, code, err := ep.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if exited {
			if code != 4 || !strings.Contains(string(out), "got:x") {
				t.Fatalf("code %d output %q", code, out)
			}
			return
		}
		out = append(out, p...)
		if !sent && strings.Contains(string(out), "hello") {
			sent = true
			ep.Input([]byte("x\r"))
		}
	}
	t.Fatal("no exit")
}

func TestUnknownID(t *testing.T) {
	f := newFleet(t, "")
	for name, err := range map[string]error{
		"Kill":    f.Kill("x", false),
		"Remove":  f.Remove("x"),
		"Restart": f.Restart("x"),
		"Resize":  f.Resize("x", 10, 10),
	} {
		if err == nil {
			t.Errorf("%s of an unknown id succeeded", name)
		}
	}
	if _, err := f.Endpoint("x"); err == nil {
		t.Error("Endpoint of an unknown id succeeded")
	}
	if f.Screen("x") != nil {
		t.Error("Screen of an unknown id")
	}
	f.Close()
	if _, err := f.Spawn(Spec{Argv: []string{"true"}}); !errors.Is(err, ErrClosed) {
		t.Errorf("Spawn after Close: %v", err)
	}
}

// A restart that cannot start the program again reports Failed and can be
// retried.
func TestRestartFailure(t *testing.T) {
	f := newFleet(t, "")
	r := record(t, f)
	wd := shortDir(t)
	id := spawn(t, f, Spec{ID: "rf", Argv: []string{"sh", "-c", "printf ready; exec sleep 30"}, Dir: wd})
	waitFor(t, "ready", 10*time.Second, func() bool { return screenHas(f, id, "ready") })
	if err := os.Remove(wd); err != nil {
		t.Fatal(err)
	}
	if err := f.Restart(id); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Failed, id, 0)
	if in := mustInfo(t, f, id); in.Alive {
		t.Fatalf("alive after a failed restart: %+v", in)
	}
	err := f.Restart(id) // dead and cleaned up: synchronous now
	if err == nil || !strings.Contains(err.Error(), "working directory") {
		t.Fatalf("second restart: %v", err)
	}
}

// An external session is named for the preset whose name or program is its
// argv[0]'s base name, else for that base name.
func TestAgentName(t *testing.T) {
	cfg := testConfig()
	cfg.Agents = []config.Agent{{Name: "mine", Command: []string{"/opt/bin/mytool", "--x"}}}
	f := &Fleet{cfg: cfg}
	for _, c := range []struct {
		shell string
		argv  []string
		want  string
	}{
		{"/bin/bash", []string{"sh", "-c", "x"}, "sh"},
		{"/bin/sh", []string{"sh", "-c", "x"}, "shell"},
		{"/usr/bin/zsh", []string{"/bin/zsh"}, "shell"},
		{"/bin/bash", []string{"/usr/local/bin/claude", "--resume"}, "claude"},
		{"/bin/bash", []string{"mytool"}, "mine"},
		{"/bin/bash", []string{"mine"}, "mine"},
		{"/bin/bash", []string{"./build.sh"}, "build.sh"},
		{"/bin/bash", nil, ""},
	} {
		t.Setenv("SHELL", c.shell)
		if got := f.agentName(c.argv); got != c.want {
			t.Errorf("SHELL=%s agentName(%q) = %q, want %q", c.shell, c.argv, got, c.want)
		}
	}
}

// A session a closed fleet spawned is restarted by the next fleet as it
// was spawned — agent, classifier, working dir, environment (its record) —
// and stays one a dashboard started.
func TestRestartAfterComingBack(t *testing.T) {
	cfg := testConfig()
	cfg.Agents = []config.Agent{{Name: "envy", Command: []string{"sh"}, Classifier: "claude", Env: []config.EnvVar{{Name: "HF_PRESET", Value: "p"}}}}
	dir, wd := shortDir(t), shortDir(t)
	o := testOptions(t, dir, cfg)
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"sh", "-c", `echo "[$HF_PRESET$HF_SPEC:$(pwd)]"; exec sleep 30`}
	id := spawn(t, f, Spec{Agent: "envy", Argv: argv, Dir: wd, Env: []string{"HF_SPEC=s"}})
	want := "[ps:" + wd + "]"
	waitFor(t, "env", 10*time.Second, func() bool { return screenHas(f, id, want) })
	old := mustInfo(t, f, id).PID
	f.Close()

	g := openFleet(t, o)
	r := record(t, g)
	if err := g.Restart(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the restarted session", 15*time.Second, func() bool {
		in, ok := info(g, id)
		return ok && in.Alive && in.PID != old && screenHas(g, id, want)
	})
	in := mustInfo(t, g, id)
	if in.Agent != "envy" || in.Classifier != "claude" || in.Dir != wd || !in.Owned || !slices.Equal(in.Argv, argv) {
		t.Fatalf("restarted %+v", in)
	}
	if r.Has(session.Failed, id) {
		t.Fatal("the restart reported a failure")
	}
}

// An automatic ID another process claims meanwhile (a second dashboard
// spawning at the same moment) is skipped for the next one, not an error.
func TestAutoIDTakenMeanwhile(t *testing.T) {
	dir := shortDir(t)
	f := newFleet(t, dir)
	// Another process holds sh-1's claim (its pid file's lock) but has no
	// socket yet: the pick of sh-1 cannot see it.
	lock, err := os.OpenFile(supervisor.PidPath(dir, "sh-1"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(lock, "%d\n", os.Getpid())
	id, err := f.Spawn(Spec{Argv: []string{"sh", "-c", "exec sleep 30"}})
	if err != nil || id != "sh-2" {
		t.Fatalf("Spawn = %q, %v; want sh-2", id, err)
	}
}

// Interrupt types the agent's interrupt key: Esc for claude (and codex),
// Ctrl-C for others.
func TestInterruptKey(t *testing.T) {
	f := newFleet(t, "")
	// Raw mode: the key arrives as a byte, printed in hex.
	argv := []string{"sh", "-c", `stty raw -echo; printf 'ready\r\n'; od -An -tx1 -N1; exec sleep 30`}
	for cls, want := range map[string]string{"claude": "1b", "simple": "03"} {
		id := spawn(t, f, Spec{ID: "int-" + cls, Argv: argv, Classifier: cls})
		waitFor(t, "ready", 10*time.Second, func() bool { return screenHas(f, id, "ready") })
		if in := mustInfo(t, f, id); !in.Caps.Has(session.CapInterrupt) {
			t.Fatalf("caps %v", in.Caps)
		}
		if err := f.Interrupt(id); err != nil {
			t.Fatal(err)
		}
		waitFor(t, cls+"'s interrupt key", 10*time.Second, func() bool { return screenHas(f, id, " "+want) })
	}
}
