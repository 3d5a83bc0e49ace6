// Package client drives a heddle worker — a heddle binary, `heimdall-tui
// heddle-headless`, any program speaking heddle's headless protocol
// (wire/heddle) — as a child process: it starts the command, sends init
// and checks the version, and then sends messages, cancels, asks status and
// shuts it down. Replies to init, status and shutdown are waited for;
// events and results of sends go to a Handler as they are read. A worker
// that writes lines that are not the protocol is reported (Handler.Garbage)
// and read on; one that exits is reported once (Handler.Exit, Done).
package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	wire "github.com/heimdall-tui/heimdall-tui/wire/heddle"
)

// Handler gets what the worker writes besides replies to requests. Its
// functions are called from the client's reader goroutine, in the order
// the worker wrote; any may be nil. They must not call the Client's
// blocking methods (Init, Status, Shutdown).
type Handler struct {
	// Event is an event of a send; its Event is the decoded payload (a
	// wire payload type, or wire.Unknown: treat it as a no-op).
	Event func(wire.Event)
	// Result ends a send (ID is the send's).
	Result func(wire.Result)
	// Garbage is a line that is not a protocol message, with why.
	Garbage func(line string, err error)
	// Exit is called once when the worker has exited, with its exit
	// status (128+signal) and err saying how (nil for status 0), with the
	// last lines of its stderr. It may come before Start has returned (a
	// worker that exits at once).
	Exit func(code int, err error)
}

// Options start a worker.
type Options struct {
	Argv []string // the command
	Dir  string   // working directory ("": ours)
	Env  []string // added to our environment (KEY=value)
	// Grace is how long Close waits after SIGTERM before SIGKILL (0:
	// proc.DefaultGrace).
	Grace  time.Duration
	Logger *slog.Logger
}

// Client is a started worker.
type Client struct {
	p      *proc.Process
	in     *os.File
	w      *wire.Writer
	h      Handler
	log    *slog.Logger
	stderr *tail

	mu      sync.Mutex
	nextID  int
	waiting map[string]chan wire.Line // replies awaited, by request id
	sends   map[string]bool           // sends whose result is awaited
	exitErr error

	done       chan struct{} // closed once the worker exited and its output was read
	stderrDone chan struct{} // closed once its stderr was read to the end
}

// exitWait bounds the wait for a worker whose input broke to exit.
const exitWait = 2 * time.Second

// ErrExited: the worker has exited.
var ErrExited = errors.New("heddle worker exited")

// Start starts the worker (a process group of its own) and reads its
// output.
func Start(o Options, h Handler) (*Client, error) {
	if len(o.Argv) == 0 {
		return nil, errors.New("heddle: no worker command")
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(o.Argv[0], o.Argv[1:]...)
	cmd.Dir = o.Dir
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p, err := proc.Start(cmd, proc.Options{Grace: o.Grace, Logger: log})
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("heddle worker %s: %w", o.Argv[0], err)
	}
	c := &Client{p: p, in: inW, w: wire.NewWriter(inW), h: h, log: log, stderr: &tail{},
		waiting: map[string]chan wire.Line{}, sends: map[string]bool{}, done: make(chan struct{}), stderrDone: make(chan struct{})}
	go func() {
		defer close(c.stderrDone)
		io.Copy(c.stderr, errR)
		errR.Close()
	}()
	go c.read(outR)
	return c, nil
}

// PID is the worker's process id.
func (c *Client) PID() int { return c.p.PID() }

// Done is closed once the worker has exited and everything it wrote was
// handled.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is how the worker exited (after Done; nil for status 0).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exitErr
}

// read handles the worker's stdout until it ends, then waits for the
// process and reports its exit.
func (c *Client) read(out *os.File) {
	defer close(c.done)
	r := wire.NewReader(out)
	for {
		l, err := r.Next()
		if err != nil {
			if errors.Is(err, wire.ErrInvalidJSON) {
				c.garbage(string(l.Raw), err)
				continue
			}
			if !errors.Is(err, io.EOF) {
				c.garbage("", err) // a line too long: the stream is unreadable from here
			}
			break
		}
		c.dispatch(l)
	}
	out.Close()
	code := c.p.Wait()
	<-c.stderrDone
	err := c.exitError(code)
	c.mu.Lock()
	c.exitErr = err
	waiting := c.waiting
	c.waiting = map[string]chan wire.Line{}
	c.mu.Unlock()
	for _, ch := range waiting {
		close(ch)
	}
	if c.h.Exit != nil {
		c.h.Exit(code, err)
	}
}

// exitError is how the worker exited with status code (nil for 0), with
// the last lines of its stderr.
func (c *Client) exitError(code int) error {
	if code == 0 {
		return nil
	}
	return fmt.Errorf("%w with status %d%s", ErrExited, code, c.stderr.suffix())
}

func (c *Client) garbage(line string, err error) {
	c.log.Warn("heddle worker wrote a line that is not the protocol", "line", line, "err", err)
	if c.h.Garbage != nil {
		c.h.Garbage(line, err)
	}
}

// dispatch routes one message: a reply someone waits for, a send's event
// or result; anything else is garbage (unknown message types are logged
// and ignored).
func (c *Client) dispatch(l wire.Line) {
	c.mu.Lock()
	ch, waited := c.waiting[l.ID]
	isSend := c.sends[l.ID]
	if waited && l.Type != wire.TypeEvent {
		delete(c.waiting, l.ID)
	}
	if isSend && l.Type == wire.TypeResult {
		delete(c.sends, l.ID)
	}
	c.mu.Unlock()
	switch {
	case l.Type == wire.TypeEvent:
		ev, err := wire.DecodeEventMsg(l)
		if err != nil {
			c.garbage(string(l.Raw), err)
			return
		}
		if c.h.Event != nil {
			c.h.Event(ev)
		}
	case waited:
		ch <- l
	case l.Type == wire.TypeResult:
		var res wire.Result
		if err := wire.Decode(l, &res); err != nil {
			c.garbage(string(l.Raw), err)
			return
		}
		if c.h.Result != nil {
			c.h.Result(res)
		}
	default:
		c.log.Info("heddle worker: message ignored", "type", l.Type, "id", l.ID)
	}
}

// request writes q (its ID set) and, if wait, returns a channel that gets
// its reply (closed if the worker exits first).
func (c *Client) request(q wire.Request, wait bool) (string, chan wire.Line, error) {
	c.mu.Lock()
	if c.exitErr != nil || isClosed(c.done) {
		err := c.exitErr
		c.mu.Unlock()
		if err == nil {
			err = ErrExited
		}
		return "", nil, err
	}
	c.nextID++
	q.ID = strconv.Itoa(c.nextID)
	var ch chan wire.Line
	if wait {
		ch = make(chan wire.Line, 1)
		c.waiting[q.ID] = ch
	}
	if q.Type == wire.TypeSend {
		c.sends[q.ID] = true
	}
	c.mu.Unlock()
	if err := c.w.Write(q); err != nil {
		c.mu.Lock()
		delete(c.waiting, q.ID)
		delete(c.sends, q.ID)
		c.mu.Unlock()
		// A broken pipe is mostly a worker that has exited (one that could
		// not start): how it exited, with its stderr, says why. (Not
		// c.done: that waits for the Handler, whose caller may hold a
		// lock its Exit takes.)
		timeout := time.After(exitWait)
		select {
		case <-c.p.Done():
			select {
			case <-c.stderrDone:
			case <-timeout:
			}
			if xerr := c.exitError(c.p.Wait()); xerr != nil {
				return "", nil, xerr
			}
			return "", nil, ErrExited
		case <-timeout:
		}
		return "", nil, fmt.Errorf("heddle worker: write %s: %w", q.Type, err)
	}
	return q.ID, ch, nil
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// await waits for ch's reply.
func (c *Client) await(ctx context.Context, typ string, ch chan wire.Line) (wire.Line, error) {
	select {
	case l, ok := <-ch:
		if !ok {
			if err := c.Err(); err != nil {
				return wire.Line{}, err
			}
			return wire.Line{}, ErrExited
		}
		if l.Type == wire.TypeResult { // a refusal
			var res wire.Result
			if err := wire.Decode(l, &res); err != nil {
				return wire.Line{}, err
			}
			if res.Error != nil {
				return wire.Line{}, fmt.Errorf("heddle worker refused %s: %w", typ, res.Error)
			}
			return wire.Line{}, fmt.Errorf("heddle worker answered %s with a result", typ)
		}
		return l, nil
	case <-ctx.Done():
		return wire.Line{}, fmt.Errorf("heddle worker: no reply to %s: %w", typ, ctx.Err())
	}
}

// Init sends init with cfg, asking for our protocol version, and checks
// the worker's answer: an error envelope, or a version that is not
// compatible with ours (wire.Compatible), is an error.
func (c *Client) Init(ctx context.Context, cfg wire.InitConfig) (wire.InitOK, error) {
	if cfg.Tools == nil {
		cfg.Tools = []string{}
	}
	if cfg.SystemPrompt == nil {
		empty := ""
		cfg.SystemPrompt = &empty
	}
	var ok wire.InitOK
	if err := c.call(ctx, wire.Request{Type: wire.TypeInit, ProtocolVersion: wire.Version, Config: &cfg}, wire.TypeInitOK, &ok); err != nil {
		return wire.InitOK{}, err
	}
	if ok.Error != nil {
		return ok, fmt.Errorf("heddle worker: init: %w", ok.Error)
	}
	if e := wire.Incompatible(wire.Version, ok.ProtocolVersion); e != nil {
		return ok, fmt.Errorf("heddle worker speaks protocol %s, we speak %s (%s)", ok.ProtocolVersion, wire.Version, wire.CompatibleRule)
	}
	return ok, nil
}

// Send sends a user message; its id (the events' send_id, the result's
// id) is returned. The events and result go to the Handler.
func (c *Client) Send(message string) (string, error) {
	id, _, err := c.request(wire.Request{Type: wire.TypeSend, Message: &message}, false)
	return id, err
}

// Cancel asks the worker to cancel send sendID (its result comes as
// cancelled, through the Handler) and returns the cancel's own id: a
// worker whose send had ended meanwhile refuses it with a result of that
// id, through the Handler too.
func (c *Client) Cancel(sendID string) (string, error) {
	id, _, err := c.request(wire.Request{Type: wire.TypeCancel, TargetID: &sendID}, false)
	return id, err
}

// Status asks the worker for its state.
func (c *Client) Status(ctx context.Context) (wire.StatusOK, error) {
	var st wire.StatusOK
	if err := c.call(ctx, wire.Request{Type: wire.TypeStatus}, wire.TypeStatusOK, &st); err != nil {
		return wire.StatusOK{}, err
	}
	return st, nil
}

// call writes q, waits for its reply and decodes it into v: a reply of
// another type than want (a refusal: await's error) is an error.
func (c *Client) call(ctx context.Context, q wire.Request, want string, v any) error {
	_, ch, err := c.request(q, true)
	if err != nil {
		return err
	}
	l, err := c.await(ctx, q.Type, ch)
	if err != nil {
		return err
	}
	if l.Type != want || wire.Decode(l, v) != nil {
		return fmt.Errorf("heddle worker answered %s with %s", q.Type, l.Raw)
	}
	return nil
}

// Shutdown cancels the sends that have no result yet (a worker handles
// requests in order: a shutdown behind a send would wait for its end),
// asks the worker to shut down and waits for it to exit (until ctx is
// done: then it is stopped, SIGTERM then SIGKILL after the grace).
func (c *Client) Shutdown(ctx context.Context) error {
	c.mu.Lock()
	sends := slices.Collect(maps.Keys(c.sends))
	c.mu.Unlock()
	for _, id := range sends {
		c.Cancel(id)
	}
	_, ch, err := c.request(wire.Request{Type: wire.TypeShutdown}, true)
	if err == nil {
		_, err = c.await(ctx, "shutdown", ch)
	}
	c.in.Close() // EOF: a worker ends at the end of its input too
	select {
	case <-c.done:
		if err != nil && errors.Is(err, ErrExited) {
			err = nil // it went: that is what was asked
		}
	case <-ctx.Done():
		c.Close()
		if err == nil {
			err = fmt.Errorf("heddle worker did not exit after shutdown_ok: stopped")
		}
	}
	return err
}

// Close stops the worker (SIGTERM to its group, SIGKILL after the grace)
// without asking; it returns at once (Done says when it has gone).
func (c *Client) Close() {
	c.in.Close()
	c.p.Stop()
}

// tail keeps the last lines written to it (a worker's stderr, for the
// error that says why it exited).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

// suffix is ": " and the last lines of stderr, or "".
func (t *tail) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(bytes.ToValidUTF8(t.buf, []byte("?"))))
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return ": " + strings.Join(lines, " / ")
}
