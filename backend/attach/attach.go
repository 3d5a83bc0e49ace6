// Package attach hands the user's terminal to a session: raw mode, output
// streamed to the terminal, keys sent as input, the window size sent on start
// and on SIGWINCH, and a detach key (Ctrl-\ by default) that returns control.
//
// Over a session's socket the terminal itself is handed to the session's
// supervisor when it takes it (the TERMINAL extension): the supervisor then
// reads the keys and writes the output, one process between the terminal
// and the program each way, as tmux's server; Run waits for the terminal
// back (the detach key) or the session's EXIT. Otherwise (an hm server, an
// older supervisor, Local) Run moves the bytes itself: each direction is
// one loop on one goroutine, with no hand-off between goroutines: keys are
// read from the terminal and written to the session by one, output is read
// from the session and written to the terminal by the other (Run's). Both
// wait for readiness in the netpoller and read and write with raw system
// calls (backend/internal/rawio) where the files allow: the terminal is
// reopened as a non-blocking description of its own for that (the shell's
// stays blocking), and a Socket reads and writes its connection so. A
// keystroke then costs each process one wake-up and its reads and writes,
// as in a C event loop; heimdall-loadcheck -only rtt measures the round
// trip and each hop beside tmux.
//
// The terminal is restored on every path out of Run (detach, exit, error).
// The session is reached through an Endpoint: over its socket (Dial) or in
// the same process (Local), which keeps the keystroke path free of an extra
// client process. A session of another host is a Commander: Run hands the
// terminal to `ssh -t` running that host's `heimdall attach`.
package attach

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/muesli/cancelreader"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/detachkey"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/rawio"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// DefaultDetachKey is Ctrl-\ (FS, 0x1c).
const DefaultDetachKey byte = 0x1c

// Endpoint is a session as seen by an attached terminal.
type Endpoint interface {
	// Input writes keys to the session's pty.
	Input(p []byte) error
	// Resize sets the session's pty size.
	Resize(cols, rows uint16) error
	// Recv blocks for the next output, which is only valid until the next
	// Recv. When the session has ended it returns exited=true and the exit
	// code. After Close it returns an error.
	Recv() (out []byte, exited bool, code int, err error)
	// Close releases the endpoint and unblocks Recv.
	Close() error
}

// Options configure Run.
type Options struct {
	In        *os.File // keys (default os.Stdin)
	Out       *os.File // output (default os.Stdout)
	DetachKey byte     // default DefaultDetachKey
}

// Result says how Run ended.
type Result struct {
	Detached bool // the user pressed the detach key
	Exited   bool // the session ended
	Code     int  // its exit code when Exited
}

// Terminal modes an attached program may have switched on; they are switched
// off when the terminal is handed back, so the user's shell is not left in
// the alternate screen, with a hidden cursor or reporting the mouse.
const (
	enterScreen = "\x1b[?1049h\x1b[H\x1b[2J"
	leaveScreen = "\x1b[0m\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l" +
		"\x1b[?2004l\x1b[?1004l\x1b[?1l\x1b>\x1b[?1049l"
)

// Run attaches until the user detaches or the session ends. The endpoint is
// closed when Run returns.
func Run(ep Endpoint, opts Options) (res Result, err error) {
	if opts.In == nil {
		opts.In = os.Stdin
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.DetachKey == 0 {
		opts.DetachKey = DefaultDetachKey
	}
	defer ep.Close()
	if c, ok := ep.(Commander); ok {
		if argv := c.Command(opts.DetachKey); argv != nil {
			ep.Close() // its relay is not used: nothing held open meanwhile
			return RunCommand(argv, opts)
		}
	}

	inFd, outFd := int(opts.In.Fd()), int(opts.Out.Fd())
	if term.IsTerminal(inFd) {
		state, err := term.MakeRaw(inFd)
		if err != nil {
			return res, fmt.Errorf("raw mode: %w", err)
		}
		defer term.Restore(inFd, state)
	}
	if term.IsTerminal(outFd) {
		io.WriteString(opts.Out, enterScreen)
		defer io.WriteString(opts.Out, leaveScreen)
		sendSize(ep, outFd)
		winch := make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		defer signal.Stop(winch)
		stopWinch := make(chan struct{})
		defer close(stopWinch)
		go func() {
			for {
				select {
				case <-winch:
					sendSize(ep, outFd)
				case <-stopWinch:
					return
				}
			}
		}()
	}

	if sock, ok := ep.(*Socket); ok {
		res, done, err := handOver(sock, opts.In, opts.Out, opts.DetachKey)
		if done {
			return res, err
		}
	}
	tout := io.Writer(opts.Out)
	outF, outC, outErr := rawio.Reopen(opts.Out, os.O_WRONLY)
	if outErr == nil {
		defer outF.Close()
		tout = outC
	}
	inF, inC, inErr := rawio.Reopen(opts.In, os.O_RDONLY)
	if inErr == nil {
		defer inF.Close()
	}
	in, cancel, closeIn := keyReader(opts.In, inF, inC, inErr)
	detached := make(chan struct{})
	var keys sync.WaitGroup
	keys.Add(1)
	go func() {
		defer keys.Done()
		if detachkey.Forward(in, ep.Input, opts.DetachKey) {
			close(detached)
			ep.Close() // unblocks Recv
		}
	}()
	defer func() {
		cancel()
		keys.Wait()
		closeIn()
	}()

	for {
		out, exited, code, err := ep.Recv()
		if exited {
			return Result{Exited: true, Code: code}, nil
		}
		if err != nil {
			select {
			case <-detached:
				return Result{Detached: true}, nil
			default:
				return res, err
			}
		}
		if _, err := tout.Write(out); err != nil {
			return res, fmt.Errorf("write terminal: %w", err)
		}
	}
}

// handOver hands the terminal to the session's supervisor when it takes
// it (the TERMINAL extension): new non-blocking descriptions of in and out
// of their own (rawio.ReopenFD: the shell's stay blocking), which this
// process closes once the supervisor has answered, so that nothing here
// watches them. The supervisor then reads the keys and writes the output
// itself, one process between the terminal and the program each way, as
// tmux's server does; Run only waits for it to hand the terminal back (the
// detach key) or for the session's EXIT, and SIGWINCH still sends RESIZE.
// done is false when Run goes on over the socket: in or out is no terminal
// that can be reopened, the supervisor does not know the extension or
// refused, or it gave the terminal back because it fell behind the output
// (a socket subscriber drops output instead).
func handOver(sock *Socket, in, out *os.File, detach byte) (res Result, done bool, err error) {
	if !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return res, false, nil
	}
	inFD, err := rawio.ReopenFD(in, os.O_RDONLY)
	if err != nil {
		return res, false, nil
	}
	outFD, err := rawio.ReopenFD(out, os.O_WRONLY)
	if err != nil {
		unix.Close(inFD)
		return res, false, nil
	}
	taken, err := sock.handOver(inFD, outFD, detach)
	unix.Close(inFD) // the supervisor has its own if it took them
	unix.Close(outFD)
	if err != nil {
		return res, true, err
	}
	if !taken {
		return res, false, nil
	}
	reason, exited, code, err := sock.waitTerminal()
	switch {
	case err != nil:
		return res, true, err
	case exited:
		return Result{Exited: true, Code: code}, true, nil
	case reason == frame.TerminalDetached:
		return Result{Detached: true}, true, nil
	case reason == frame.TerminalSlow:
		return res, false, nil
	default:
		return res, true, fmt.Errorf("the session's supervisor gave the terminal back (reason %d)", reason)
	}
}

// keyReader returns the terminal's keys as a reader whose Read a cancel
// ends: f, in's non-blocking description of its own (rawio.Reopen, which
// gave c or reopenErr; closing it is the cancel), else a cancelreader on
// in (which waits in a blocking epoll of its own), else in read plainly (a
// regular file, /dev/null: such input ends on its own). closeIn releases
// it.
func keyReader(in, f *os.File, c rawio.Conn, reopenErr error) (r io.Reader, cancel, closeIn func()) {
	if reopenErr == nil {
		return c, func() { f.Close() }, func() {}
	}
	cr, err := cancelreader.NewReader(in)
	if err != nil {
		cr, _ = cancelreader.NewReader(struct{ io.Reader }{in})
	}
	return cr, func() { cr.Cancel() }, func() { cr.Close() }
}

func sendSize(ep Endpoint, fd int) {
	cols, rows, err := term.GetSize(fd)
	if err == nil && cols > 0 && rows > 0 {
		ep.Resize(uint16(min(cols, 65535)), uint16(min(rows, 65535)))
	}
}

// ErrClosed is returned by an endpoint's Recv after Close.
var ErrClosed = errors.New("attach: endpoint closed")
