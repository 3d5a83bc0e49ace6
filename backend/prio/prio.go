// Package prio lowers the CPU priority of the calling process, so that work
// nobody waits for (a detached session supervisor emulating a flood) yields
// the CPU to work somebody does (the dashboard the user types into).
//
// Linux keeps a nice value per thread, and with autogrouping on (the
// default without a CPU cgroup of one's own: kernel.sched_autogroup_enabled)
// the scheduler first shares the CPU fairly between autogroups — one per
// session (setsid) — and applies thread nice values only within a group.
// A supervisor is the only process of its autogroup (its program starts a
// session of its own), so lowering its threads' nice values alone changes
// nothing against the dashboard in another group; the group's nice value
// (/proc/self/autogroup) is what counts there. Background sets both.
package prio

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Background raises the nice value of every thread of the calling process
// to at least nice (never lowering one that is higher: an unprivileged
// process cannot take it back), and, if the process leads its session, the
// nice value of its autogroup. Threads the process starts later inherit
// the nice value of the thread that starts them, so all of the Go
// runtime's threads keep it. A process that does not lead its session
// shares its autogroup with the processes of that session (a shell and
// its jobs), which must not be slowed: its group is left alone.
//
// Processes started before the call keep their own priority; those started
// after it inherit the threads' nice value (call it after starting a child
// that must not be slowed). A child that starts a session of its own gets
// an autogroup of its own, at nice 0.
func Background(nice int) error {
	if nice < 0 || nice > 19 {
		return fmt.Errorf("nice %d: want 0..19", nice)
	}
	var errs []error
	if err := niceThreads(nice); err != nil {
		errs = append(errs, err)
	}
	if leadsSession() {
		if err := os.WriteFile("/proc/self/autogroup", []byte(strconv.Itoa(nice)), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
			// No such file: a kernel without autogrouping.
			errs = append(errs, fmt.Errorf("autogroup: %w", err))
		}
	}
	return errors.Join(errs...)
}

// niceThreads raises every thread's nice value to at least nice. A thread
// the runtime starts while the list is walked may copy an old value from
// the thread that starts it, so the walk repeats (a few times at most)
// until one pass changes nothing.
func niceThreads(nice int) error {
	for pass := 0; pass < 4; pass++ {
		tids, err := threads()
		if err != nil {
			return err
		}
		changed := false
		for _, tid := range tids {
			// getpriority's raw system call returns 20-nice (never
			// negative); x/sys/unix returns it as is.
			p, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
			if err != nil {
				continue // the thread has exited
			}
			if 20-p >= nice {
				continue
			}
			if err := unix.Setpriority(unix.PRIO_PROCESS, tid, nice); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("thread %d: %w", tid, err)
			}
			changed = true
		}
		if !changed {
			return nil
		}
	}
	return nil
}

// threads lists the calling process's thread ids.
func threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("list threads: %w", err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// leadsSession reports whether the calling process leads its session (it
// called setsid, which gave it an autogroup of its own).
func leadsSession() bool {
	sid, err := unix.Getsid(0)
	return err == nil && sid == os.Getpid()
}

// Nice returns the nice value of the calling thread and of the process's
// autogroup (-1 when there is none to read).
func Nice() (thread, group int, err error) {
	p, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return 0, 0, err
	}
	return 20 - p, autogroupNice(), nil
}

// autogroupNice reads /proc/self/autogroup ("/autogroup-N nice V").
func autogroupNice() int {
	b, err := os.ReadFile("/proc/self/autogroup")
	if err != nil {
		return -1
	}
	var id string
	var v int
	if _, err := fmt.Sscanf(string(b), "%s nice %d", &id, &v); err != nil {
		return -1
	}
	return v
}
