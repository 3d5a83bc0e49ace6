package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/prio"
)

// A detached supervisor that leads its session (as the dashboard starts
// them) runs its autogroup at supervisorNice while no terminal is
// attached and at 0 while one is; its threads and its program keep the
// caller's priority.
func TestDetachedSupervisorYieldsUntilAttached(t *testing.T) {
	if _, err := os.Stat("/proc/self/autogroup"); err != nil {
		t.Skip("no autogroups in this kernel")
	}
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid(1)")
	}
	dir := newSockDir(t)
	// setsid(1) execs run in place (a child of ours is no group leader).
	p := startProc(t, setsid, binPath, "run", "--detach", "--id", "bg", "--socket-dir", dir, "--", "sleep", "60")
	p.sock = filepath.Join(dir, "bg.sock")
	st := waitLive(t, p)
	sup := p.cmd.Process.Pid
	if _, err := prio.ReadNice(fmt.Sprintf("/proc/%d/autogroup", sup)); err != nil {
		t.Skipf("the supervisor has no autogroup (a CPU cgroup schedules it): %v", err)
	}
	group := func(pid int) int {
		n, err := prio.ReadNice(fmt.Sprintf("/proc/%d/autogroup", pid))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	waitGroup := func(want int, why string) {
		t.Helper()
		if !poll(waitTimeout, func() bool { return group(sup) == want }) {
			t.Fatalf("%s: the supervisor's autogroup is at nice %d, want %d", why, group(sup), want)
		}
	}
	waitGroup(supervisorNice, "detached")
	own := threadNice(t, os.Getpid())
	for _, n := range threadNices(t, sup) {
		if n != own {
			t.Fatalf("the supervisor's threads have nice values %v, want all %d", threadNices(t, sup), own)
		}
	}
	if child := int(st.pid); group(child) != 0 || threadNice(t, child) != own {
		t.Errorf("the program's autogroup nice %d, thread nice %d; want 0 and %d", group(child), threadNice(t, child), own)
	}

	w := subscribed(t, p.sock)
	if err := w.send(0x41, nil); err != nil { // ATTACH: an interactive terminal
		t.Fatal(err)
	}
	waitGroup(0, "attached")
	w.Close()
	waitGroup(supervisorNice, "detached again")
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
	if _, err := os.Stat("/proc/self/autogroup"); err != nil {
		t.Skip("no autogroups in this kernel")
	}
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid(1)")
	}
	dir := newSockDir(t)
	stop := filepath.Join(t.TempDir(), "stop")
	p := startProc(t, setsid, binPath, "run", "--detach", "--id", "fl", "--socket-dir", dir, "--",
		"sh", "-c", `while [ ! -e "$1" ]; do yes flood | head -c 4000000; done; exec sleep 60`, "sh", stop)
	p.sock = filepath.Join(dir, "fl.sock")
	st := waitLive(t, p)
	if _, err := prio.ReadNice(fmt.Sprintf("/proc/%d/autogroup", p.cmd.Process.Pid)); err != nil {
		t.Skipf("the supervisor has no autogroup (a CPU cgroup schedules it): %v", err)
	}
	prog := int(st.pid)
	waitGroup := func(want int, why string) {
		t.Helper()
		var got int
		if !poll(waitTimeout, func() bool {
			got, err = prio.ReadNice(fmt.Sprintf("/proc/%d/autogroup", prog))
			return err == nil && got == want
		}) {
			t.Fatalf("%s: the program's autogroup is at nice %d (%v), want %d", why, got, err, want)
		}
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
