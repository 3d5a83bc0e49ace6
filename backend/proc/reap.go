package proc

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	ossignal "os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Orphan reaping.
//
// A session's program may leave processes behind: `bash -c 'sleep 300 &
// wait'` killed with its group leaves the sleep an orphan for a moment, and
// a daemon it started outlives it. An orphan is reparented to the nearest
// ancestor that is a child subreaper, else to init — which in a container
// may be a program that never reaps, so a dead orphan stays a zombie for
// ever. EnableSubreaper makes this process that subreaper
// (PR_SET_CHILD_SUBREAPER), as hm's supervisor is, and reaps what it
// inherits.
//
// The reaper must not take the exit status of a child that os/exec waits
// for (a session's program: os.Process.Wait may wait on a pidfd, and a
// wait4(-1) loop would race with it). So children are owned or inherited:
// Start starts a program while no reaping scan can run and registers its
// pid as owned until it has been reaped; on every
// SIGCHLD the reaper lists this process's children
// (/proc/self/task/*/children, else a /proc scan) and waits for each
// inherited one by pid with WNOHANG. What a session orphans belongs to the
// session (setsid) of the session's program; a child in this process's own
// session is one it started some other way (os/exec, for a helper), so it
// is never reaped either: its Wait keeps its status.

var reaper struct {
	enabled atomic.Bool
	once    sync.Once
	err     error
	logger  atomic.Pointer[slog.Logger]

	// spawnMu is held for reading while a child is started and registered
	// (Host), and for writing by a scan, so a scan never sees an owned
	// child that is not registered yet.
	spawnMu sync.RWMutex
	mu      sync.Mutex
	owned   map[int]struct{}
}

// EnableSubreaper makes this process a child subreaper and starts reaping,
// on every SIGCHLD, the processes it inherits. It is process-wide and
// idempotent; a later call with a non-nil logger replaces the logger that
// reaps are reported to (at debug level; nil: not reported). It returns an
// error where the kernel does not support subreapers; nothing is reaped
// then. Children the process starts in its own session (os/exec without
// Setsid) are never reaped; one started in a session of its own must be
// started with Start, or it may lose its exit status to the reaper.
func EnableSubreaper(logger *slog.Logger) error {
	if logger != nil {
		reaper.logger.Store(logger)
	}
	reaper.once.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			reaper.err = os.NewSyscallError("prctl PR_SET_CHILD_SUBREAPER", err)
			return
		}
		reaper.owned = make(map[int]struct{})
		sigs := make(chan os.Signal, 1)
		ossignal.Notify(sigs, syscall.SIGCHLD)
		reaper.enabled.Store(true)
		go func() {
			for range sigs {
				reapInherited()
			}
		}()
	})
	return reaper.err
}

// ReapOrphans reaps the inherited children that have exited and, for up to
// wait, waits for those still running, reaping each as it exits. Call it
// before the process exits: what is left is reparented to init, which may
// never reap it. It returns how many inherited children are still running
// (0 when the reaper is not enabled).
func ReapOrphans(wait time.Duration) int {
	if !reaper.enabled.Load() {
		return 0
	}
	deadline := time.Now().Add(wait)
	for {
		left := reapInherited()
		if left == 0 || !time.Now().Before(deadline) {
			return left
		}
		time.Sleep(min(10*time.Millisecond, time.Until(deadline)))
	}
}

// startRegistered starts cmd so that the reaper never takes its exit
// status: no scan runs until its pid is registered as owned, and it stays
// registered until unregister (after its Wait).
func startRegistered(cmd *exec.Cmd) error {
	if !reaper.enabled.Load() {
		return cmd.Start()
	}
	reaper.spawnMu.RLock()
	defer reaper.spawnMu.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	reaper.mu.Lock()
	reaper.owned[cmd.Process.Pid] = struct{}{}
	reaper.mu.Unlock()
	return nil
}

// unregister forgets an owned pid once it has been reaped.
func unregister(pid int) {
	if !reaper.enabled.Load() {
		return
	}
	reaper.mu.Lock()
	delete(reaper.owned, pid)
	reaper.mu.Unlock()
	// An orphan that exited while its pid was taken for ours would
	// otherwise wait for the next SIGCHLD.
	reapInherited()
}

// reapInherited waits (WNOHANG) for every child that is not owned and
// returns how many of them are still running.
func reapInherited() (left int) {
	reaper.spawnMu.Lock()
	defer reaper.spawnMu.Unlock()
	self, _ := unix.Getsid(0)
	for _, pid := range children() {
		reaper.mu.Lock()
		_, owned := reaper.owned[pid]
		reaper.mu.Unlock()
		if owned || sessionOf(pid) == self {
			continue
		}
		var ws unix.WaitStatus
		wpid, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		for errors.Is(err, unix.EINTR) {
			wpid, err = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
		switch {
		case err != nil:
			// ECHILD: gone meanwhile (or not our child after all).
		case wpid == pid:
			if l := reaper.logger.Load(); l != nil {
				l.Debug("inherited process reaped", "pid", pid, "status", waitString(ws))
			}
		default:
			left++
		}
	}
	return left
}

// Fields of /proc/PID/stat after "pid (comm)" (comm may hold spaces and
// parens), counted from 0: state, ppid, pgrp, session, ...
const (
	statState   = 0
	statPPID    = 1
	statSession = 3
)

// statFields returns the fields of process pid's stat after "pid (comm)"
// (statPPID…), or nil. A zombie keeps its stat until reaped.
func statFields(pid string) [][]byte {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 {
		return nil
	}
	return bytes.Fields(b[i+1:])
}

// statField returns field k (see statPPID) of process pid's stat, or -1.
func statField(pid string, k int) int {
	f := statFields(pid)
	if len(f) <= k {
		return -1
	}
	v, err := strconv.Atoi(string(f[k]))
	if err != nil {
		return -1
	}
	return v
}

// sessionOf returns pid's session id, or -1.
func sessionOf(pid int) int { return statField(strconv.Itoa(pid), statSession) }

func waitString(ws unix.WaitStatus) string {
	if ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return "exit " + strconv.Itoa(ws.ExitStatus())
}

// children returns the pids of this process's children: from
// /proc/self/task/*/children (each thread's; an inherited orphan is
// reparented to one of them), or, where the kernel lacks that file, from a
// scan of every /proc/PID/stat for our pid as the parent.
func children() []int {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var pids []int
	readAny := false
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		readAny = true
		for _, s := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(s)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if readAny {
		return pids
	}
	return childrenByScan()
}

func childrenByScan() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && statField(e.Name(), statPPID) == self {
			pids = append(pids, pid)
		}
	}
	return pids
}
