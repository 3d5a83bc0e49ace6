// Package proc starts programs as process-group leaders and ends them the
// way every session kind needs: a group signalled as one, SIGTERM then
// SIGKILL after a grace, a terminal's hang-up, what is left of a stopped
// group killed, exit codes as a shell reports them, and a child subreaper
// for what programs orphan (reap.go).
//
// A Process leads a new session and process group (setsid), so its group
// id is its pid and signals reach the program and everything it started
// that stayed in its group. Pty sessions (supervisor) make the group's
// controlling terminal their pty (Options.Ctty); headless sessions (stdio
// pipes) start the same way without one.
package proc

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// DefaultGrace is Options.Grace's zero value.
const DefaultGrace = 5 * time.Second

// hangupTerm is how long after Hangup's SIGHUP a program still running gets
// SIGTERM (at most half the grace).
const hangupTerm = time.Second

// Options tune Start. The zero value is a group leader without a
// controlling terminal, signalled as a group, with DefaultGrace.
type Options struct {
	// Ctty makes the child's standard input (a pty's tty: set cmd.Stdin)
	// its controlling terminal.
	Ctty bool
	// Grace is how long after Stop's SIGTERM (or Hangup's SIGHUP) SIGKILL
	// follows if the child or its group is still alive. Zero means
	// DefaultGrace; negative means SIGKILL at once.
	Grace time.Duration
	// ChildOnly sends signals to the child alone instead of its process
	// group (config key kill_process_group = false).
	ChildOnly bool
	// Logger receives warnings about escalations (nil: none).
	Logger *slog.Logger
}

// Process is a started child leading its own session and process group.
// Its methods are safe for concurrent use. Start waits for the child on a
// goroutine of its own; Done is closed once it has been reaped.
type Process struct {
	cmd *exec.Cmd
	pid int
	o   Options
	log *slog.Logger

	mu        sync.Mutex
	reaped    bool
	code      int
	stopped   bool        // Stop, ForceKill or Hangup was called
	killTimer *time.Timer // SIGKILL after the grace
	termTimer *time.Timer // Hangup's SIGTERM
	done      chan struct{}
}

// Start starts cmd as the leader of a new session and process group (its
// SysProcAttr, if set, is kept and Setsid added; with o.Ctty, Setctty on
// fd 0 too) and waits for it on a goroutine of its own. Because of that,
// give the child *os.File stdio (a pty's tty, pipes from os.Pipe) and not
// cmd.StdoutPipe and the like, whose reading ends Wait closes.
//
// The child gets only its stdio and cmd.ExtraFiles: whatever this process
// inherited beyond 0–2 (a caller's pipe or lock) is made close-on-exec
// first (inheritNothing).
//
// With EnableSubreaper the reaper never takes this child's exit status:
// no scan runs while it starts, and it is registered until reaped.
func Start(cmd *exec.Cmd, o Options) (*Process, error) {
	if o.Grace == 0 {
		o.Grace = DefaultGrace
	}
	attr := cmd.SysProcAttr
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Setsid, attr.Setpgid = true, false // setsid makes a new group; setpgid after it fails
	if o.Ctty {
		attr.Setctty, attr.Ctty = true, 0
	}
	cmd.SysProcAttr = attr
	if err := inheritNothing(); err != nil {
		return nil, err
	}
	if err := startRegistered(cmd); err != nil {
		return nil, err
	}
	p := &Process{
		cmd:  cmd,
		pid:  cmd.Process.Pid,
		o:    o,
		log:  o.Logger,
		done: make(chan struct{}),
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	go p.wait()
	return p, nil
}

// wait reaps the child once it has exited (awaitExit: no thread held
// meanwhile), records its exit code and closes done.
func (p *Process) wait() {
	awaitExit(p.pid)
	err := p.cmd.Wait()
	code := ExitCode(p.cmd.ProcessState, err)
	p.mu.Lock()
	p.reaped, p.code = true, code
	// A pending grace (and Hangup's SIGTERM) still matters while members
	// of the group outlive the child (a grandchild ignoring SIGTERM and the
	// SIGHUP of its session leader's exit). Otherwise the group's id is
	// free for reuse and nothing may signal it any more.
	if !p.groupLeftLocked() {
		p.stopTimersLocked()
	}
	p.mu.Unlock()
	close(p.done)
	unregister(p.pid)
}

// PID returns the child's process id, which is also its process group's.
func (p *Process) PID() int { return p.pid }

// Done is closed once the child has been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitCode returns the child's exit code (128+signal if a signal killed it)
// once Done is closed; before that it returns -1.
func (p *Process) ExitCode() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		return -1
	}
	return p.code
}

// Wait blocks until Done and returns the exit code.
func (p *Process) Wait() int {
	<-p.done
	return p.ExitCode()
}

// Signal sends sig to the child's process group (the child alone with
// ChildOnly). A reaped child is never signalled by pid (it may be another
// process's by now); its group is while it has members (its id cannot be
// reused until it has none). A group or child that is gone is not an error.
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.signalLocked(sig)
}

func (p *Process) signalLocked(sig syscall.Signal) error {
	pid := p.pid
	if p.o.ChildOnly {
		if p.reaped {
			return nil
		}
	} else {
		pid = -pid
	}
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %v: %w", sig, err)
	}
	return nil
}

// groupLeftLocked reports whether something of the child may still be
// signalled: the child itself until reaped, else its group's members.
func (p *Process) groupLeftLocked() bool {
	return !p.reaped || (!p.o.ChildOnly && GroupAlive(p.pid))
}

func (p *Process) stopTimersLocked() {
	for _, t := range []*time.Timer{p.killTimer, p.termTimer} {
		if t != nil {
			t.Stop()
		}
	}
}

// Stop sends SIGTERM to the child's group (or the child alone with
// ChildOnly) and, if the child or its group is still alive after the
// grace, SIGKILL. Repeated calls resend SIGTERM but keep the first
// deadline. It is a no-op once nothing is left to signal.
func (p *Process) Stop() error { return p.stop(syscall.SIGTERM) }

// ForceKill is Stop with SIGKILL at once (the stop is recorded, so KillRest
// kills what is left of the group after the child's exit).
func (p *Process) ForceKill() error { return p.stop(syscall.SIGKILL) }

// Hangup stops the child as closing its terminal would: SIGHUP to the
// group (or the child alone with ChildOnly), which ends interactive shells
// (they ignore SIGTERM) and lets a program clean up as on a closed
// terminal; SIGTERM a second later (at most half the grace) if the child or
// its group is still there (nohup'd programs ignore SIGHUP); SIGKILL after
// the grace as with Stop. It is a no-op once nothing is left to signal.
func (p *Process) Hangup() error {
	if err := p.stop(syscall.SIGHUP); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.o.Grace < 0 || p.termTimer != nil || !p.groupLeftLocked() {
		return nil
	}
	p.termTimer = time.AfterFunc(min(hangupTerm, p.o.Grace/2), func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.groupLeftLocked() {
			p.signalLocked(syscall.SIGTERM)
		}
	})
	return nil
}

// stop sends sig (SIGKILL instead with a negative grace) and arms the grace.
func (p *Process) stop(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.groupLeftLocked() {
		return nil
	}
	p.stopped = true
	if p.o.Grace < 0 {
		return p.signalLocked(syscall.SIGKILL)
	}
	err := p.signalLocked(sig)
	if p.killTimer == nil {
		p.killTimer = time.AfterFunc(p.o.Grace, p.killAfterGrace)
	}
	return err
}

func (p *Process) killAfterGrace() {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case !p.reaped:
		p.log.Warn("still alive after kill grace; sending SIGKILL", "pid", p.pid, "grace", p.o.Grace)
		p.signalLocked(syscall.SIGKILL)
	case !p.o.ChildOnly && GroupAlive(p.pid):
		// The child is gone but its group is not. While the group has
		// members its id (the child's pid) cannot be reused.
		p.log.Warn("process group still alive after kill grace; sending SIGKILL", "pgid", p.pid, "grace", p.o.Grace)
		syscall.Kill(-p.pid, syscall.SIGKILL)
	}
}

// Stopped reports whether Stop, ForceKill or Hangup has acted.
func (p *Process) Stopped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

// KillRest SIGKILLs what is left of the process group once a stop was
// requested, so stopping a program never leaves its grandchildren behind;
// after a natural exit it does nothing (a daemon the program started may
// outlive it). Call it when the owner goes away and can no longer enforce
// the grace (the child should be reaped by then).
func (p *Process) KillRest() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped && !p.o.ChildOnly {
		syscall.Kill(-p.pid, syscall.SIGKILL)
	}
}
