// Package prio changes the CPU priority of the calling process's
// autogroup, so that work nobody waits for (a session supervisor emulating
// a flood) yields the CPU to work somebody does (the dashboard the user
// types into), and takes it back when somebody does wait for it (a
// terminal attached). It never changes another process's: the user's
// programs keep the user's priority.
//
// With autogrouping on (kernel.sched_autogroup_enabled, Linux's default
// when processes are not put into CPU cgroups of their own) the scheduler
// first shares the CPU fairly between autogroups — one per session
// (setsid) — and applies thread nice values only within a group. A
// supervisor started by the dashboard leads a session of its own, and its
// program another, so the group's nice value (/proc/self/autogroup) is what
// counts against the dashboard. It applies to every process in the group:
// the session's leader and whatever it started that stayed in its session,
// including what outlives the leader (a daemon, an orphan that ignored the
// hang-up), for as long as any of them runs. A supervisor's program leads a
// session, and so a group, of its own: lowering the supervisor's leaves it
// alone.
//
// Thread nice values are left alone on purpose: an unprivileged process
// cannot take a raised one back (RLIMIT_NICE is 0 by default), and a niced
// supervisor delays every keystroke that goes through it whenever anything
// else keeps the CPU busy (measured with two CPU-bound loops running: a
// keystroke's round trip through the socket went from 45 µs to 4 ms at
// p50). An autogroup's nice value may go back to 0 without privilege.
package prio

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// autogroupFile is the calling process's autogroup ("/autogroup-N nice V").
const autogroupFile = "/proc/self/autogroup"

// retryEvery and retries bound how Set waits while the kernel refuses a
// change: an unprivileged process may change an autogroup's nice value
// once per 100 ms, machine-wide (EAGAIN otherwise), so supervisors started
// together take turns.
const (
	retryEvery = 110 * time.Millisecond
	retries    = 100
)

// Group is a process's autogroup, which the process owns because it leads
// its session.
type Group struct {
	path  string // its /proc/PID/autogroup
	onErr func(error)

	mu      sync.Mutex
	want    int  // the nice value asked for last
	has     int  // the nice value last read or written
	running bool // a goroutine is writing want
}

// Own returns the calling process's autogroup if the process leads its
// session (it called setsid, which gave it an autogroup of its own) and the
// kernel puts it in an autogroup; otherwise nil, whose Set does nothing: a
// process that does not lead its session shares its group with the other
// processes of that session (a shell and its jobs), which must not be
// slowed; and a process the kernel schedules by a CPU cgroup instead (its
// autogroup file reads empty, as in some containers and systemd slices)
// has no group whose nice value would count. onErr,
// if not nil, is told when a nice value could not be set.
func Own(onErr func(error)) *Group {
	if sid, err := unix.Getsid(0); err != nil || sid != os.Getpid() {
		return nil
	}
	return open(autogroupFile, onErr)
}

func open(path string, onErr func(error)) *Group {
	nice, err := ReadNice(path)
	if err != nil {
		return nil
	}
	return &Group{path: path, onErr: onErr, want: -1, has: nice}
}

// Set asks for the group's nice value to become nice (0..19). It returns at
// once: the value is written on a goroutine, which waits and tries again
// while the kernel refuses for now (see retryEvery) and exits once the last
// value asked for is written (or given up on), so a group nobody changes
// holds no goroutine or timer.
func (g *Group) Set(nice int) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.want = min(max(nice, 0), 19)
	if !g.running {
		g.running = true
		go g.apply()
	}
}

// apply writes the value last asked for until it is written.
func (g *Group) apply() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for try := 0; ; try++ {
		want := g.want
		g.mu.Unlock()
		err := os.WriteFile(g.path, []byte(strconv.Itoa(want)), 0)
		if errors.Is(err, syscall.EAGAIN) && try < retries {
			time.Sleep(retryEvery)
			g.mu.Lock()
			continue
		}
		if err != nil && g.onErr != nil {
			g.onErr(fmt.Errorf("autogroup nice %d: %w", want, err))
		}
		g.mu.Lock()
		if err == nil {
			g.has = want
		}
		if g.want == want {
			g.running = false
			return
		}
		try = -1 // a new value: its own retries
	}
}

// Nice returns the group's nice value as the kernel has it.
func (g *Group) Nice() (int, error) {
	return ReadNice(g.path)
}

// ReadNice reads the nice value from an autogroup file
// (/proc/PID/autogroup: "/autogroup-N nice V").
func ReadNice(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var id string
	var v int
	if _, err := fmt.Sscanf(string(b), "%s nice %d", &id, &v); err != nil {
		return 0, fmt.Errorf("%s: %q: %w", path, b, err)
	}
	return v, nil
}
