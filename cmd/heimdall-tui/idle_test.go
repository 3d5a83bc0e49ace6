package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// An idle dashboard sleeps: with 20 idle sessions in the grid (a page of
// their panes on screen, no duration shown) nothing it draws changes, so no
// timer may wake it: neither a renderer's frame ticker nor the list's
// duration tick. Its threads' context switches are counted over a window from
// /proc: a frame ticker at Bubble Tea's 60 Hz costs at least one a tick
// (180 in the window; upstream v2.0.10's renderer measured ~1000), an
// asleep dashboard none but stray runtime work. The bound is an absolute
// count, not a duration: a slow machine does not make the program wake
// more often. The quietest of a few windows counts, so work still settling
// when the first began (a late state change, a pane's first pull) cannot
// fail it; a timer fails every window.
func TestDashboardIdleSleeps(t *testing.T) {
	const (
		sessions = 20
		window   = 3 * time.Second
		windows  = 3
		maxWakes = 20
	)
	d := startDashboard(t)
	for i := 1; i <= sessions; i++ {
		d.command("spawn sh")
		d.waitFor(fmt.Sprintf("%d running", i))
	}
	d.waitScreen("every session at its prompt, Idle", func(s string) bool {
		return strings.Count(s, "Idle") >= sessions
	})
	d.sendKeys("g")
	d.waitFor("sh-" + strconv.Itoa(sessions))
	// The status line's "started sh-20" goes after its one-shot timer.
	d.waitScreen("the status line cleared", func(s string) bool {
		return !strings.Contains(s, fmt.Sprintf("started sh-%d", sessions))
	})
	pid := dashboardPID(t, d)

	best := int64(-1)
	for range windows {
		before := contextSwitches(t, pid)
		time.Sleep(window) // the measurement window; nothing is asserted about time
		n := contextSwitches(t, pid) - before
		t.Logf("dashboard %d: %d context switches in %v", pid, n, window)
		if best < 0 || n < best {
			best = n
		}
		if best <= maxWakes {
			break
		}
	}
	if best > maxWakes {
		t.Errorf("the idle dashboard woke %d times in %v at the quietest (want ≤ %d): something runs on a timer", best, window, maxWakes)
	}
	d.quit()
}

// dashboardPID is the pid of the heimdall-tui the pane's shell started.
func dashboardPID(t *testing.T, d *dash) int {
	t.Helper()
	shell := d.display("#{pane_pid}")
	var pid int
	if !poll(waitTimeout, func() bool {
		kids, _ := filepath.Glob("/proc/" + shell + "/task/*/children")
		for _, k := range kids {
			b, _ := os.ReadFile(k)
			for _, f := range strings.Fields(string(b)) {
				if exe, _ := os.Readlink("/proc/" + f + "/exe"); exe == binPath {
					pid, _ = strconv.Atoi(f)
					return true
				}
			}
		}
		return false
	}) {
		t.Fatalf("no heimdall-tui among the children of the pane's shell %s", shell)
	}
	return pid
}

// contextSwitches is the number of times pid's threads have been switched
// out so far (voluntary_ctxt_switches + nonvoluntary_ctxt_switches of each
// /proc/PID/task/*/status): each wake-up of a sleeping thread ends in one.
func contextSwitches(t *testing.T, pid int) int64 {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no threads of %d: %v", pid, err)
	}
	var total int64
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			continue // the thread exited
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 2 && (f[0] == "voluntary_ctxt_switches:" || f[0] == "nonvoluntary_ctxt_switches:") {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				total += n
			}
		}
	}
	return total
}
