package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxOutput bounds the command's output kept for the log.
const maxOutput = 4 << 10

// pipeDrain bounds how long, once the shell has exited and its group is
// killed, the output pipes may stay open: a process that left the group
// (setsid) may hold them.
const pipeDrain = time.Second

// runCommand runs Options.Command for ev as Notify says.
//
// The shell gets a process group of its own (Setpgid) but stays in this
// process's session. A new session (setsid) would be the usual choice, but
// `run` and the dashboard are child subreapers whose reaper (backend/proc)
// reaps, on every SIGCHLD, each child in another session that proc did not
// start — it would take the shell's exit status from us. A child in our
// own session it never touches.
//
// Order matters for never signalling or waiting for a stranger: the shell
// is waited for without being reaped (waitid WNOWAIT), so while the group
// is killed its pid — the group's id — cannot have been reused; then the
// shell is reaped (cmd.Wait), then the rest of its group that is ours.
func (n *Notifier) runCommand(ctx context.Context, ev Event) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("notify command: not run: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, n.o.Timeout)
	defer cancel()

	out := &limitedBuffer{limit: maxOutput}
	cmd := exec.Command("/bin/sh", "-c", n.o.Command) // stdin: /dev/null
	cmd.Env = append(os.Environ(), ev.env()...)
	cmd.Stdout, cmd.Stderr = out, out // the same writer: one pipe, in order
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = pipeDrain
	start := time.Now()
	if err := cmd.Start(); err != nil {
		err = fmt.Errorf("notify command: %w", err)
		n.log.Warn("notify command failed", "id", ev.ID, "command", n.o.Command, "err", err)
		return err
	}
	pid := cmd.Process.Pid

	exited := make(chan struct{})
	go func() {
		defer close(exited)
		waitExited(pid)
	}()
	var killed error
	select {
	case <-exited:
	case <-ctx.Done():
		killed = ctx.Err()
	}
	// The shell is running or a zombie: its group's id is still taken.
	// What the group holds is killed, whether the shell finished or not.
	unix.Kill(-pid, unix.SIGKILL)
	<-exited
	werr := cmd.Wait()
	reapGroup(pid)

	var err error
	switch {
	case killed != nil:
		err = fmt.Errorf("notify command: killed after %v: %w", time.Since(start).Round(time.Millisecond), killed)
	case errors.Is(werr, exec.ErrWaitDelay):
		// It succeeded; something outside its group kept its output open.
	case werr != nil:
		err = fmt.Errorf("notify command: %w", werr)
	}
	if err != nil {
		attrs := []any{"id", ev.ID, "command", n.o.Command, "err", err, "output", string(out.b)}
		if out.dropped > 0 {
			attrs = append(attrs, "output_dropped", out.dropped)
		}
		n.log.Warn("notify command failed", attrs...)
		return err
	}
	n.log.Debug("notify command ran", "id", ev.ID, "took", time.Since(start))
	return nil
}

// env is the event as the command's environment (see Notify).
func (e Event) env() []string {
	exact := func(s string) string { return strings.ReplaceAll(s, "\x00", "") }
	return []string{
		"HEIMDALL_NOTIFY_EVENT=" + e.Name(),
		"HEIMDALL_SESSION_ID=" + exact(e.ID),
		"HEIMDALL_DIR=" + exact(e.Dir),
		"HEIMDALL_AGENT=" + clean(e.Agent, 0, false),
		"HEIMDALL_TITLE=" + clean(e.Title, 0, false),
		"HEIMDALL_MESSAGE=" + clean(e.Message(), maxBody, false),
	}
}

// waitExited returns once the child pid has exited, leaving it unreaped (a
// zombie), or when it cannot be waited for. Nothing else in this program
// reaps a child of its own session, so the pid stays the shell's.
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// reapGroup reaps the members of process group pgid that are children of
// this process: what the shell left, reparented to us because we are a
// child subreaper (otherwise they went to init and there is nothing to
// do). Call it after the group was killed and its leader reaped. While any
// member, zombie or not, remains, the group's id cannot be reused; once
// none remains wait4 finds no child.
func reapGroup(pgid int) {
	for {
		_, err := unix.Wait4(-pgid, nil, 0, nil)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return // ECHILD: none left
		}
	}
}

// limitedBuffer keeps the first limit bytes written to it and counts the
// rest. os/exec writes to it from one goroutine (Stdout and Stderr are the
// same writer) and Wait returns after the last write.
type limitedBuffer struct {
	limit   int
	b       []byte
	dropped int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	keep := min(len(p), l.limit-len(l.b))
	l.b = append(l.b, p[:keep]...)
	l.dropped += len(p) - keep
	return len(p), nil
}
