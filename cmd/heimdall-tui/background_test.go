package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/host"
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
	waitGroup(host.SupervisorNice, "detached")
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
	waitGroup(host.SupervisorNice, "detached again")
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

// A detached session's program that floods its terminal keeps the
// user's priority: heimdall lowers only its own supervisors'.
func TestFloodKeepsUserPriority(t *testing.T) {
	stop := filepath.Join(t.TempDir(), "stop")
	p, st := startLeader(t, "fl", "sh", "-c", `while [ ! -e "$1" ]; do yes flood | head -c 4000000; done; exec sleep 60`, "sh", stop)
	defer os.WriteFile(stop, nil, 0o600)
	waitNice(t, p.cmd.Process.Pid, host.SupervisorNice, "the supervisor's, detached")
	w := subscribed(t, p.sock)
	defer w.Close()
	if _, err := w.readOutputUntil("flood\r\nflood\r\n"); err != nil {
		t.Fatalf("no flood from the session: %v", err)
	}
	if n := groupNice(t, int(st.pid)); n != 0 {
		t.Errorf("the flooding program's autogroup is at nice %d, want the user's 0", n)
	}
}
