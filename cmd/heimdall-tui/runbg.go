package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/host"
	hmproc "github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// startWait bounds how long run waits for its background supervisor to
// serve the session (or to say why it cannot).
const startWait = 30 * time.Second

// runBackground is `run` and `run --detach`: the session's supervisor is
// a process of its own (this binary's `run --spawned`, in a session of its
// own, its cwd /), as tmux new -d and dtach -n start theirs, so the
// terminal run was started from is never the supervisor's: --detach
// returns once the session is served; without it this terminal is
// attached to the session over its socket, as `attach` does, and Ctrl-\
// gives it back at once. run's exit status: 0 once started (--detach) or
// detached, the program's code when it ended while attached, or the
// supervisor's when it could not start the session (with what it said).
func (a *app) runBackground(o host.Options, interactive bool) error {
	dir, err := filepath.Abs(a.dir())
	if err != nil {
		return err
	}
	workdir := o.Workdir
	if workdir == "" {
		if workdir, err = os.Getwd(); err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
	}
	args := []string{"--socket-dir", dir}
	if a.configPath != "" {
		cfg, err := filepath.Abs(a.configPath)
		if err != nil {
			return err
		}
		args = append(args, "--config", cfg)
	}
	args = append(args, "run", "--spawned", "--id", o.ID, "--workdir", workdir, "--classifier", o.Classifier,
		"--cols", strconv.Itoa(int(o.Cols)), "--rows", strconv.Itoa(int(o.Rows)))
	if o.Agent != "" {
		args = append(args, "--agent", o.Agent)
	}
	if o.NoHooks {
		args = append(args, "--no-hooks")
	}
	if o.ACP {
		args = append(args, "--acp", "--acp-fs", o.ACPFS)
		if o.ACPResume != "" {
			args = append(args, "--acp-resume", o.ACPResume)
		}
	}
	args = append(append(args, "--"), o.Argv...)
	exe, err := supervisorExe()
	if err != nil {
		return err
	}
	// --env's values travel in the environment (host.SupervisorEnv), not
	// on the supervisor's command line, which other users can read.
	env, err := host.SupervisorEnv(os.Environ(), o.Env)
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = filepath.Base(exe)
	cmd.Env = env
	cmd.Dir = "/" // a supervisor lives for hours: it keeps no directory busy
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = wr, wr
	// A session of its own (hmproc.Start), holding none of what run
	// inherited beyond its stdio.
	p, err := hmproc.Start(cmd, hmproc.Options{})
	wr.Close()
	if err != nil {
		rd.Close()
		return fmt.Errorf("start the session's supervisor: %w", err)
	}
	exited := p.Done()
	// EOF: the supervisor serves the session (it released its stdio), or
	// it exited (what it said is why).
	rd.SetReadDeadline(time.Now().Add(startWait))
	said, _ := io.ReadAll(io.LimitReader(rd, 64<<10))
	rd.Close()
	sock := supervisor.SocketPath(dir, o.ID)
	// Ours serves the session when the pid file names it; otherwise it
	// failed (another session of the id may be serving: "already
	// running"), or its program ended at once and its record says how.
	if !ownsPidFile(dir, o.ID, p.PID()) {
		select {
		case <-exited:
		case <-time.After(startWait):
			a.stderr.Write(said)
			return fmt.Errorf("session %q: its supervisor (pid %d) neither serves it nor exits", o.ID, p.PID())
		}
		a.stderr.Write(said)
		if rec, rerr := supervisor.ReadRecord(dir, o.ID); rerr == nil && rec.Ended != nil && rec.Supervisor == p.PID() {
			return a.ended(dir, o.ID, interactive, rec.ExitCode)
		}
		if code := p.ExitCode(); code > 0 {
			return exitCode(code)
		}
		return errors.New("the session's supervisor exited without starting it")
	}
	c, err := frame.Dial(sock, startWait)
	if err != nil {
		return fmt.Errorf("session %q: %w", o.ID, err)
	}
	a.stderr.Write(said) // warnings it gave before serving (a record it could not write)
	if !interactive {
		defer c.Close()
		st, err := c.Status()
		if err != nil {
			return fmt.Errorf("session %q: %w", o.ID, err)
		}
		fmt.Fprintf(a.stderr, "heimdall-tui: session %q running (pid %d), socket %s\n", o.ID, st.PID, sock)
		return nil
	}
	ep, err := attach.NewSocket(c)
	if err != nil {
		c.Close()
		return fmt.Errorf("attach %q: %w", o.ID, err)
	}
	res, err := attach.Run(ep, attach.Options{In: a.stdin, Out: outFile(a)})
	switch {
	case err != nil:
		return fmt.Errorf("attach %q: %w", o.ID, err)
	case res.Detached:
		fmt.Fprintf(a.stderr, "detached: %q keeps running (heimdall-tui attach %s)\n", o.ID, o.ID)
		return nil
	}
	return a.ended(dir, o.ID, interactive, res.Code)
}

// supervisorExe is the executable supervisors run as: heimdall beside
// this one when it is there (it starts fast and stays small: it links
// only what a supervisor needs), else this one, which runs the same code.
func supervisorExe() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	small := filepath.Join(filepath.Dir(exe), "heimdall")
	if fi, err := os.Stat(small); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return small, nil
	}
	return exe, nil
}

// outFile returns stdout as a file for raw-mode attach (os.Stdout unless a
// test replaced it with a non-file writer).
func outFile(a *app) *os.File {
	if f, ok := a.stdout.(*os.File); ok {
		return f
	}
	return os.Stdout
}

// ownsPidFile reports whether DIR/ID.pid names pid.
func ownsPidFile(dir, id string, pid int) bool {
	b, err := os.ReadFile(supervisor.PidPath(dir, id))
	if err != nil {
		return false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return err == nil && n == pid
}

// ended is run's end for a session whose program exited while run watched:
// the record of its end is not kept (the user saw it), and run exits with
// its code.
func (a *app) ended(dir, id string, interactive bool, code int) error {
	if interactive {
		if err := supervisor.RemoveRecord(dir, id); err != nil && !errors.Is(err, os.ErrNotExist) {
			a.errorf("%v", err)
		}
		fmt.Fprintf(a.stderr, "session exited (code %d)\n", code)
	}
	return exitCode(code)
}
