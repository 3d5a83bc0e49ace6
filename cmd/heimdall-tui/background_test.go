package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/prio"
)

// A detached supervisor that leads its session (as the dashboard starts
// them) runs its autogroup at supervisorNice while no terminal is
// attached and at 0 while one is; its threads and its program keep the
// caller's priority.
func TestDetachedSupervisorYieldsUntilAttached(t *testing.T) {
	p, st := startLeader(t, "bg", "sleep", "60")
	sup := p.cmd.Process.Pid
	waitGroup := func(want int, why string) {
		t.Helper()
		waitNice(t, sup, want, "the supervisor's, "+why)
	}
	waitGroup(supervisorNice, "detached")
	own := threadNice(t, os.Getpid())
	for _, n := range threadNices(t, sup) {
		if n != own {
			t.Fatalf("the supervisor's threads have nice values %v, want all %d", threadNices(t, sup), own)
		}
	}
	if child := int(st.pid); groupNice(t, child) != 0 || threadNice(t, child) != own {
		t.Errorf("the program's autogroup nice %d, thread nice %d; want 0 and %d", groupNice(t, child), threadNice(t, child), own)
	}

	w := subscribed(t, p.sock)
	if err := w.send(0x41, nil); err != nil { // ATTACH: an interactive terminal
		t.Fatal(err)
	}
	waitGroup(0, "attached")
	w.Close()
	waitGroup(supervisorNice, "detached again")
}

// startLeader starts `run --detach` of argv as setsid(1) does for the
// dashboard's spawns (the supervisor leads its session and owns its
// autogroup), and waits until it serves. It skips the test where the
// kernel has no autogroups for it.
func startLeader(t *testing.T, id string, argv ...string) (*proc, wireStatus) {
	t.Helper()
	if _, err := os.Stat("/proc/self/autogroup"); err != nil {
		t.Skip("no autogroups in this kernel")
	}
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid(1)")
	}
	dir := newSockDir(t)
	// setsid(1) execs run in place (a child of ours is no group leader).
	p := startProc(t, setsid, append([]string{binPath, "run", "--foreground", "--id", id, "--socket-dir", dir, "--"}, argv...)...)
	p.sock = filepath.Join(dir, id+".sock")
	st := waitLive(t, p)
	if _, err := prio.ReadNice(fmt.Sprintf("/proc/%d/autogroup", p.cmd.Process.Pid)); err != nil {
		t.Skipf("the supervisor has no autogroup (a CPU cgroup schedules it): %v", err)
	}
	return p, st
}

// groupNice is the nice value of pid's autogroup.
func groupNice(t *testing.T, pid int) int {
	t.Helper()
	n, err := prio.ReadNice(fmt.Sprintf("/proc/%d/autogroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitNice waits until pid's autogroup is at nice want.
func waitNice(t *testing.T, pid, want int, what string) {
	t.Helper()
	if !poll(waitTimeout, func() bool { return groupNice(t, pid) == want }) {
		t.Fatalf("%s autogroup is at nice %d, want %d", what, groupNice(t, pid), want)
	}
}

// threadNices returns the nice value of each thread of pid, from
// /proc/PID/task/TID/stat (field 19).
func threadNices(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("threads of %d: %v", pid, err)
	}
	var nices []int
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread has exited
		}
		// Fields after "(comm) ": state is field 3, nice is field 19.
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		n, err := strconv.Atoi(fields[16])
		if err != nil {
			t.Fatalf("%s: %q", f, b)
		}
		nices = append(nices, n)
	}
	return nices
}

func threadNice(t *testing.T, pid int) int { return threadNices(t, pid)[0] }

// A detached session's program that floods its terminal runs its
// autogroup at floodNice while no terminal is attached, at 0 while one is,
// and at 0 again once the flood stops.
func TestDetachedFloodYields(t *testing.T) {
	stop := filepath.Join(t.TempDir(), "stop")
	p, st := startLeader(t, "fl", "sh", "-c", `while [ ! -e "$1" ]; do yes flood | head -c 4000000; done; exec sleep 60`, "sh", stop)
	waitGroup := func(want int, why string) {
		t.Helper()
		waitNice(t, int(st.pid), want, "the program's, "+why)
	}
	waitGroup(floodNice, "flooding, detached")
	w := subscribed(t, p.sock)
	if err := w.send(0x41, nil); err != nil { // ATTACH: an interactive terminal
		t.Fatal(err)
	}
	waitGroup(0, "flooding, attached")
	w.Close()
	waitGroup(floodNice, "flooding, detached again")
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitGroup(0, "the flood over")
}

// A program that exits while it floods its terminal with no terminal
// attached gives its autogroup the user's priority back before it is
// reaped: what it left running (here an orphan that ignores the hang-up,
// in the program's session and so its group) does not stay at floodNice
// for the rest of its life. background is driven as run drives it (the
// program's group, a flood reported, then exiting), on a real program's
// real autogroup; how a flood is detected, and that exiting runs before
// the reap, are the supervisor's tests (TestFloodMeter,
// TestFloodEndsBeforeExiting): a flood to detect here would depend on how
// much CPU the machine leaves the flooding program.
func TestFloodEndsWithTheProgram(t *testing.T) {
	if _, err := os.Stat("/proc/self/autogroup"); err != nil {
		t.Skip("no autogroups in this kernel")
	}
	tmp := t.TempDir()
	hold, orphanPid := filepath.Join(tmp, "hold"), filepath.Join(tmp, "orphan")
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(hold) }) // the orphan exits (init reaps it)
	prog := exec.Command("sh", "-c", `(trap "" HUP; while [ -e "$1" ]; do sleep 0.05; done) </dev/null >/dev/null 2>&1 &
echo $! >"$2"; read x`, "sh", hold, orphanPid)
	prog.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // a session, and so an autogroup, of its own
	in, err := prog.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := prog.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prog.Process.Kill(); prog.Wait() })
	if _, err := prio.ReadNice(fmt.Sprintf("/proc/%d/autogroup", prog.Process.Pid)); err != nil {
		t.Skipf("the program has no autogroup (a CPU cgroup schedules it): %v", err)
	}
	var orphan int
	if !poll(waitTimeout, func() bool {
		b, _ := os.ReadFile(orphanPid)
		orphan, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}) {
		t.Fatal("no orphan-to-be")
	}
	b := newBackground(false) // the test's own group is left alone
	b.prog = prio.Of(prog.Process.Pid, func(err error) { t.Logf("priority: %v", err) })
	if b.prog == nil {
		t.Skip("no autogroup to set")
	}
	b.start(prog.Process.Pid, slog.New(slog.DiscardHandler))
	b.flood(true) // flooding, no terminal attached
	waitNice(t, orphan, floodNice, "the orphan-to-be's (the program's group), flooding")
	b.exiting() // the program exited mid-flood, not yet reaped
	in.Close()
	prog.Wait()
	if n := groupNice(t, orphan); n != 0 {
		t.Fatalf("after the program exited mid-flood, what it left running is at nice %d, want 0", n)
	}
}

// recordedGroup records what background asks of the program's group.
type recordedGroup struct{ calls []string }

func (g *recordedGroup) Set(nice int) { g.calls = append(g.calls, fmt.Sprint("Set ", nice)) }
func (g *recordedGroup) End(nice int) { g.calls = append(g.calls, fmt.Sprint("End ", nice)) }

// Once the program has exited (exiting), background gives its group back
// and never writes it again, whatever comes after: a terminal detaching
// while the flood flag is still set, a late flood report. Its pid may be
// another process's by then.
func TestBackgroundLeavesExitedProgramAlone(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	// Flooding while attached, then the program exits; the attached
	// client, told of the exit, disconnects.
	g := &recordedGroup{}
	b := newBackground(false) // owns no group: start leaves prog to the test
	b.prog = g
	b.start(1, logger)
	b.terminals(1)
	b.flood(true)
	b.exiting()
	b.terminals(0)
	b.flood(false)
	b.flood(true)
	if want := []string{"End 0"}; !slices.Equal(g.calls, want) {
		t.Errorf("flooding while attached, exited, detached: %q; want %q", g.calls, want)
	}

	// Flooding detached; the flood ends as the program exits.
	g = &recordedGroup{}
	b = newBackground(false)
	b.prog = g
	b.start(1, logger)
	b.flood(true)
	b.flood(false) // the flood meter's stop
	b.exiting()
	b.terminals(1)
	b.terminals(0)
	if want := []string{fmt.Sprint("Set ", floodNice), "Set 0", "End 0"}; !slices.Equal(g.calls, want) {
		t.Errorf("flooding detached, exited: %q; want %q", g.calls, want)
	}
}
