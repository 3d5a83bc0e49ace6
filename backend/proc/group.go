package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// KillGroup sends sig to the process group whose id is pid (a program
// started as a group leader, by this process or another one) and, if that
// fails because the group is gone or not ours to signal, to pid alone. A
// process that is gone is not an error. Use it only for a pid that is not
// this process's child, or whose exit has not been reaped: a reaped pid may
// be another process's.
func KillGroup(pid int, sig syscall.Signal) error {
	if pid <= 0 {
		return fmt.Errorf("signal %v: invalid pid %d", sig, pid)
	}
	if err := syscall.Kill(-pid, sig); err == nil {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %v to %d: %w", sig, pid, err)
	}
	return nil
}

// GroupAlive reports whether the process group pgid has any member left
// (one we may not signal counts).
func GroupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Gone reports whether process pid has ended: no such process, or a
// zombie (ended, not yet reaped by its parent — which, for a process
// reparented to an init that does not reap, may be never).
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	f := statFields(strconv.Itoa(pid))
	if len(f) <= statState {
		return !processExists(pid)
	}
	st := f[statState]
	return len(st) == 1 && (st[0] == 'Z' || st[0] == 'X')
}

// processExists reports whether /proc lists pid.
func processExists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// ExitCode returns the exit code a shell reports for a waited-for process:
// its exit status, or 128+signal if a signal killed it. With no state it
// is -1 if err is not nil (the wait failed), else 0.
func ExitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return -1
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// Exit codes for a program that could not be started, as a shell uses them.
const (
	ExitNotFound      = 127 // no such program (or working directory)
	ExitCannotExecute = 126 // found but not executable (permissions, format)
)

// StartFailureCode returns the exit code a shell reports when a program
// cannot be started with err: ExitNotFound if it does not exist,
// ExitCannotExecute otherwise.
func StartFailureCode(err error) int {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return ExitNotFound
	}
	return ExitCannotExecute
}
