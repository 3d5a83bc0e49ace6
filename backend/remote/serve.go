// Package remote reaches the sessions of another machine over one SSH
// connection. Serve is the far end — `heimdall mux`, run by sshd as the
// command of the dashboard's `ssh HOST`: it serves every session of its
// socket directory over its stdin and stdout (wire/mux: each connection
// to a session's socket a channel, the sessions announced as they come
// and go). The near end dials through it.
package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/launch"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/mux"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// Serve serves the sessions of dir over rw until the stream ends (the
// ssh connection dropped: the sessions go on). dir's changes are
// watched with inotify; each announcement says what changed since the
// last. A client's RUN starts a session here, with cfg's presets and a
// supervisor that is this executable (global, its global flags).
func Serve(rw io.ReadWriteCloser, dir string, cfg config.Config, global []string) error {
	if err := supervisor.EnsureDir(dir); err != nil {
		return err
	}
	host, _ := os.Hostname()
	exe, _ := os.Executable()
	c := mux.Server(rw, mux.Hello{Host: host, Dir: dir, Exe: exe}, func(id string) (net.Conn, error) {
		if err := supervisor.ValidateID(dir, id); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := unixsock.Dial(ctx, supervisor.SocketPath(dir, id)) // refuses another user's server
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", id, err)
		}
		return conn, nil
	})
	c.ServeRuns(func(req mux.RunRequest) (string, error) { return run(cfg, dir, global, req) })
	changed, stop, err := watchDir(dir)
	if err != nil {
		c.Close()
		return err
	}
	defer stop()
	var served []string
	for {
		now, err := sessionIDs(dir)
		if err != nil {
			c.Close()
			return err
		}
		var s mux.Sessions
		var listed []string
		for _, id := range now {
			if !slices.Contains(served, id) {
				// Between a socket's bind and its listen a dial is
				// refused: a new one is announced once it answers (its
				// chmod, just after, is another change of the dir).
				if st, _ := unixsock.Inspect(supervisor.SocketPath(dir, id)); st != unixsock.Live {
					continue
				}
				s.Added = append(s.Added, id)
			}
			listed = append(listed, id)
		}
		now = listed
		for _, id := range served {
			if !slices.Contains(now, id) {
				s.Removed = append(s.Removed, id)
			}
		}
		if served == nil || len(s.Added)+len(s.Removed) > 0 {
			if s.Added == nil && s.Removed == nil {
				s.Added = []string{} // the first: every session, maybe none
			}
			if err := c.Announce(s); err != nil {
				break
			}
		}
		served = now
		select {
		case <-changed:
		case <-c.Done():
		}
		if c.Err() != nil {
			break
		}
	}
	if err := c.Err(); err != nil && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "EOF") {
		return err
	}
	return nil
}

// sessionIDs lists the sessions served in dir (their sockets), sorted.
func sessionIDs(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	ids := []string{}
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".sock"); ok && id != "" && !strings.HasPrefix(id, ".") && e.Type()&os.ModeSocket != 0 {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// watchDir tells of changes of dir's entries (a socket made or removed),
// coalesced: changed has room for one.
func watchDir(dir string) (changed <-chan struct{}, stop func(), err error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO|unix.IN_ATTRIB); err != nil {
		unix.Close(fd)
		return nil, nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	f := os.NewFile(uintptr(fd), "inotify") // non-blocking: read through the netpoller
	ch := make(chan struct{}, 1)
	go func() {
		buf := make([]byte, 16<<10)
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	return ch, func() { f.Close() }, nil
}

// Stdio is this process's stdin and stdout as one stream: Serve's, run as
// an ssh command.
type Stdio struct{}

func (Stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (Stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }

// Close closes both.
func (Stdio) Close() error {
	os.Stdin.Close()
	return os.Stdout.Close()
}

// runWait bounds the start of a session a client asks for.
const runWait = 10 * time.Second

// run starts the session req asks for in dir, resolved here: its preset
// (command, classifier, environment) from cfg, its directory this user's
// home unless req names one that exists here; it returns its ID once it
// is served.
func run(cfg config.Config, dir string, global []string, req mux.RunRequest) (string, error) {
	if req.Restart != "" {
		spec, err := restartSpec(dir, req)
		if err != nil {
			return "", err
		}
		// The old supervisor serves a moment after its program's EXIT
		// (it records the end, then removes its socket).
		sock := supervisor.SocketPath(dir, spec.ID)
		for deadline := time.Now().Add(runWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if st, _ := unixsock.Inspect(sock); st != unixsock.Live {
				break
			}
		}
		return start(cfg, dir, global, spec)
	}
	spec := launch.Spec{ID: req.ID, Agent: req.Preset, Argv: req.Argv, Cols: req.Cols, Rows: req.Rows}
	if req.Preset != "" {
		p, ok := launch.Find(cfg, req.Preset)
		if !ok {
			return "", fmt.Errorf("no preset %q here", req.Preset)
		}
		spec.Argv = p.Argv
	}
	if len(spec.Argv) == 0 {
		return "", errors.New("no program to run")
	}
	spec.Dir, _ = os.UserHomeDir()
	if fi, err := os.Stat(req.Dir); req.Dir != "" && filepath.IsAbs(req.Dir) && err == nil && fi.IsDir() {
		spec.Dir = req.Dir
	}
	id := spec.ID
	if id == "" {
		base := spec.Agent
		if base == "" {
			base = filepath.Base(spec.Argv[0])
		}
		for n := 1; id == "" && n < 10000; n++ {
			if _, err := os.Lstat(supervisor.SocketPath(dir, fmt.Sprintf("%s-%d", base, n))); errors.Is(err, os.ErrNotExist) {
				id = fmt.Sprintf("%s-%d", base, n)
			}
		}
	}
	spec.ID = id
	return start(cfg, dir, global, spec)
}

// restartSpec is what starts session req.ID again: its record here (its
// command line as req.Restart says, directory, agent, classifier and
// environment).
func restartSpec(dir string, req mux.RunRequest) (launch.Spec, error) {
	if err := supervisor.ValidateID(dir, req.ID); err != nil {
		return launch.Spec{}, err
	}
	rec, err := supervisor.ReadRecord(dir, req.ID)
	if err != nil {
		return launch.Spec{}, fmt.Errorf("restart %s: no record of it here: %w", req.ID, err)
	}
	argv, err := launch.RestartArgv(rec.Argv, req.Restart, rec.Conversation)
	if err != nil {
		return launch.Spec{}, fmt.Errorf("restart %s: %w", req.ID, err)
	}
	return launch.Spec{ID: req.ID, Agent: rec.Agent, Argv: argv, Dir: rec.Dir, Classifier: rec.Classifier,
		Env: rec.Env, Cols: req.Cols, Rows: req.Rows}, nil
}

// start starts spec (its ID chosen) and returns once its socket answers.
func start(cfg config.Config, dir string, global []string, spec launch.Spec) (string, error) {
	id := spec.ID
	if err := supervisor.ValidateID(dir, id); err != nil {
		return "", err
	}
	if st, _ := unixsock.Inspect(supervisor.SocketPath(dir, id)); st == unixsock.Live {
		return "", fmt.Errorf("session %q already exists", id)
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	args, environ, err := launch.Args(cfg, global, id, spec)
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(runWait)
	p, said, err := launch.Start(exe, args, environ, deadline, nil)
	if err != nil {
		return "", err
	}
	for time.Now().Before(deadline) {
		if st, _ := unixsock.Inspect(supervisor.SocketPath(dir, id)); st == unixsock.Live {
			return id, nil
		}
		select {
		case <-p.Done():
			if msg := strings.TrimSpace(string(said)); msg != "" {
				return "", errors.New(msg)
			}
			return "", fmt.Errorf("its supervisor exited with code %d", p.ExitCode())
		case <-time.After(20 * time.Millisecond):
		}
	}
	p.Stop()
	return "", fmt.Errorf("session %q did not start within %v", id, runWait)
}

// Global are the global flags a supervisor Serve starts gets: the socket
// dir, and the config file if one was read.
func Global(dir string, cfg config.Config) []string {
	g := []string{"--socket-dir", dir}
	if cfg.Path != "" {
		g = append(g, "--config", cfg.Path)
	}
	return g
}
