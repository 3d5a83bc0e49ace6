package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/shell"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/mux"
)

// Options say how to reach a host.
type Options struct {
	// Dest is what ssh is given as the destination: a host, user@host, or
	// an alias of ~/.ssh/config (jump hosts, keys and ports work as they
	// do for the user).
	Dest string
	// Command is the remote command (nil: heimdall mux; give the path if
	// the remote's PATH for ssh commands lacks it, and --socket-dir).
	Command []string
	// SSH is the ssh client (nil: "ssh" on PATH); tests give a fake.
	SSH string
}

// ssh's options: no prompt can block (no tty, batch mode), and a peer
// that stops answering is noticed within about 45 s.
var sshOptions = []string{"-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3"}

// Link is a running `ssh DEST heimdall mux`: the stream's client end.
type Link struct {
	*mux.Conn
	opts   Options
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tail
	exited chan struct{}
}

// Connect runs ssh to o.Dest with the remote mux as its command and
// returns the link once the far end has said hello; notify gets the
// announcements of sessions (the first lists them all). A host that
// cannot be reached is an error with what ssh said.
func Connect(ctx context.Context, o Options, notify func(mux.Sessions)) (*Link, error) {
	if err := config.CheckSSHDest(o.Dest); err != nil {
		return nil, err
	}
	ssh := o.SSH
	if ssh == "" {
		ssh = "ssh"
	}
	command := o.Command
	if len(command) == 0 {
		command = []string{"heimdall", "mux"}
	}
	args := append(append([]string(nil), sshOptions...), "--", o.Dest)
	args = append(args, command...)
	cmd := exec.Command(ssh, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	l := &Link{opts: o, cmd: cmd, stdin: stdin, stderr: &tail{max: 4 << 10}, exited: make(chan struct{})}
	cmd.Stderr = l.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // not the dashboard's terminal's signals
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ssh %s: %w", o.Dest, err)
	}
	go func() { cmd.Wait(); close(l.exited) }()
	type result struct {
		c   *mux.Conn
		err error
	}
	got := make(chan result, 1)
	go func() {
		c, err := mux.Client(pipes{stdout, stdin, l}, notify)
		got <- result{c, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			l.stop()
			return nil, fmt.Errorf("ssh %s: %s", o.Dest, l.why(r.err))
		}
		l.Conn = r.c
		return l, nil
	case <-ctx.Done():
		l.stop()
		<-got
		if said := strings.TrimSpace(l.stderr.String()); said != "" {
			return nil, fmt.Errorf("ssh %s: %w: %s", o.Dest, ctx.Err(), said)
		}
		return nil, fmt.Errorf("ssh %s: %w", o.Dest, ctx.Err())
	}
}

// why is what went wrong: ssh's own words if it said any (the host is
// unknown, refused, the key not accepted, the command not found).
func (l *Link) why(err error) string {
	select {
	case <-l.exited:
	case <-time.After(time.Second): // its stderr is complete once it has exited
	}
	if s := strings.TrimSpace(l.stderr.String()); s != "" {
		return s
	}
	return err.Error()
}

// Err is why the link ended, with what ssh said.
func (l *Link) Err() error {
	err := l.Conn.Err()
	if err == nil || errors.Is(err, mux.ErrClosed) {
		return err
	}
	return errors.New(l.why(err))
}

// closeWait bounds how long Close waits for ssh to end by itself once
// its input is closed (the far end delivers what was sent, then exits).
const closeWait = 3 * time.Second

// attachOptions are ssh's for an attach: a terminal (which ssh sets raw
// and sizes), and a peer that stops answering noticed as the link's is.
// Prompts may be answered: the user has the terminal.
var attachOptions = []string{"-t", "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3"}

// AttachCommand is the command line that attaches the terminal it is run
// in to session id of the host with detach as the detach key: ssh, as for
// the link, with a terminal, running the far end's own executable
// (`EXE --socket-dir DIR attach`, from its HELLO), as the user would with
// `ssh -t HOST heimdall attach ID`. It is an ssh connection of its own
// for as long as the attach lasts (shared with the link's when the
// user's ssh config has ControlMaster): keys then take plain ssh's path,
// with no relay through the link's two ends. nil when the far end did
// not name its executable (an older heimdall): the attach is relayed
// over the link then.
func (l *Link) AttachCommand(id string, detach byte) []string {
	h := l.Hello()
	// The far end's own check of an ID, and no leading dash: ssh's remote
	// command is a string for a shell, a word it must not read as a flag.
	if h.Exe == "" || h.Dir == "" || supervisor.ValidateID(h.Dir, id) != nil || strings.HasPrefix(id, "-") {
		return nil
	}
	ssh := l.opts.SSH
	if ssh == "" {
		ssh = "ssh"
	}
	argv := append([]string{ssh}, attachOptions...)
	// ssh joins the remote command's words with spaces for the far end's
	// shell: each is quoted for it.
	return append(argv, "--", l.opts.Dest, shell.Quote(h.Exe), "--socket-dir", shell.Quote(h.Dir),
		"attach", "--detach-key", fmt.Sprintf("0x%02x", detach), "--", shell.Quote(id))
}

// Close ends the link (the remote sessions go on): ssh's input is closed,
// so the far end delivers what was sent on the channels before it ends;
// ssh is stopped if it lingers.
func (l *Link) Close() error {
	l.stdin.Close()
	select {
	case <-l.exited:
	case <-time.After(closeWait):
	}
	if l.Conn != nil {
		l.Conn.Close()
	}
	l.stop()
	return nil
}

// stop ends ssh: SIGTERM, SIGKILL if it lingers, and reaps it.
func (l *Link) stop() {
	l.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-l.exited:
	case <-time.After(2 * time.Second):
		l.cmd.Process.Kill()
		<-l.exited
	}
}

// pipes is ssh's stdout and stdin as the stream.
type pipes struct {
	r io.ReadCloser
	w io.WriteCloser
	l *Link
}

func (p pipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error {
	p.w.Close()
	p.r.Close()
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
