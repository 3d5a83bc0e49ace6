package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A detached supervisor lowers its priority once its program runs: every
// thread of the run process ends at supervisorNice, and the program keeps
// the priority it was started with (ours).
func TestDetachedSupervisorRunsNiced(t *testing.T) {
	dir := newSockDir(t)
	p := startSession(t, dir, "nice", "sleep", "60")
	st := waitLive(t, p)
	sup := p.cmd.Process.Pid
	var last []int
	if !poll(waitTimeout, func() bool {
		last = taskNices(t, sup)
		for _, n := range last {
			if n != supervisorNice {
				return false
			}
		}
		return len(last) > 0
	}) {
		t.Fatalf("run's threads have nice values %v, want all %d", last, supervisorNice)
	}
	own := taskNices(t, os.Getpid())[0]
	if child := taskNices(t, int(st.pid)); child[0] != own {
		t.Errorf("the program's nice value is %d, want the caller's %d", child[0], own)
	}
}

// taskNices returns the nice value of each thread of pid, from
// /proc/PID/task/TID/stat (field 19).
func taskNices(t *testing.T, pid int) []int {
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
