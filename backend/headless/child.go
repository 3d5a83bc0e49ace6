package headless

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/proc"
)

// child is one run of claude for a session.
type child struct {
	p     *proc.Process
	stdin *os.File
	done  chan struct{} // reaped, output read, exit handled
	exp   atomic.Bool   // its exit is expected (stopped by us)
	oauth atomic.Bool   // its stderr said the token expired
	// fault says it does not speak the protocol (EventFault's text); set
	// by the stdout reader, read once the readers are done.
	fault string

	tailMu sync.Mutex
	tail   []string // last lines of stderr

	// stderr rate limit (the stderr reader's own)
	winStart time.Time
	winCount int
	dropped  int
}

const tailLines = 20

func (c *child) expect()      { c.exp.Store(true) }
func (c *child) exited() bool { return isDone(c.p.Done()) }

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (c *child) addTail(line string) {
	c.tailMu.Lock()
	c.tail = append(c.tail, line)
	if len(c.tail) > tailLines {
		c.tail = c.tail[len(c.tail)-tailLines:]
	}
	c.tailMu.Unlock()
}

func (c *child) tailText() string {
	c.tailMu.Lock()
	defer c.tailMu.Unlock()
	return strings.Join(c.tail, "\n")
}

// spawn starts claude for the session (resume: with --resume) and makes
// it the session's child.
func (s *Session) spawn(resume bool) error {
	s.mu.Lock()
	argv, dir := s.argv(resume), s.dir
	s.mu.Unlock()
	cmd := exec.Command(s.m.cfg.Claude, argv...)
	cmd.Dir = dir
	var files [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(files[:])
			return fmt.Errorf("%w: pipe: %v", ErrSpawn, err)
		}
		files[i], files[i+1] = r, w
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[3], files[5]
	p, err := proc.Start(cmd, proc.Options{Grace: s.m.cfg.InterruptGrace, Logger: s.m.log})
	files[0].Close()
	files[3].Close()
	files[5].Close()
	if err != nil {
		closeAll([]*os.File{files[1], files[2], files[4]})
		s.m.log.Info("spawn failed", "session_id", s.id, "err", err)
		return fmt.Errorf("%w: %v", ErrSpawn, err)
	}
	c := &child{p: p, stdin: files[1], done: make(chan struct{})}
	s.mu.Lock()
	s.child = c
	s.mu.Unlock()
	s.m.wg.Add(1)
	s.m.log.Info("claude spawned", "session_id", s.id, "pid", p.PID(), "resume", resume)
	go s.runChild(c, files[2], files[4])
	return nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// readerWait bounds how long the output of a reaped child is read: a
// grandchild may hold its pipes open.
const readerWait = 2 * time.Second

func (s *Session) runChild(c *child, out, errp *os.File) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.readStdout(c, out) }()
	go func() { defer wg.Done(); s.readStderr(c, errp) }()
	<-c.p.Done()
	c.stdin.Close()
	readers := make(chan struct{})
	go func() { wg.Wait(); close(readers) }()
	select {
	case <-readers:
	case <-time.After(readerWait):
		out.Close()
		errp.Close()
		<-readers
	}
	out.Close()
	errp.Close()
	s.childExited(c, c.p.ExitCode())
	close(c.done)
}

// childExited handles the end of c: a crash is reported unless we stopped
// it (or it said its token expired); a fault once the session is ready for
// the next turn.
func (s *Session) childExited(c *child, code int) {
	defer s.m.wg.Done()
	s.m.log.Info("claude exited", "session_id", s.id, "pid", c.p.PID(), "exit_code", code)
	s.mu.Lock()
	current := s.child == c
	wasTurn := false
	if current {
		s.child = nil
		wasTurn = s.turn
		s.turn, s.finishing = false, false
		s.state = 0
	}
	s.mu.Unlock()
	if current && !c.exp.Load() && !c.oauth.Load() && (wasTurn || code != 0) {
		msg := c.tailText()
		if msg == "" {
			msg = fmt.Sprintf("claude exited with status %d", code)
		}
		s.m.log.Warn("claude crashed", "session_id", s.id, "exit_code", code, "turn_active", wasTurn)
		s.emit(Event{Kind: EventCrashed, Text: msg})
	}
	if current && c.fault != "" {
		s.emit(Event{Kind: EventFault, Text: c.fault})
	}
}

// readStdout forwards claude's stdout, a line an event. A line longer than
// max_line_bytes is dropped alone (logged): the lines after it are read
// on, so the turn still reaches its result. So is a line that is not a
// JSON event (§6.3); but if the first line is not one, claude does not
// speak the protocol at all (not claude, not its stream-json) and its turn
// would never end: it is stopped, and its exit says why (an EventFault);
// the next turn starts it again, as after a crash.
func (s *Session) readStdout(c *child, out io.Reader) {
	defer s.stdoutClosed(c)
	br := bufio.NewReaderSize(out, 64<<10)
	var buf []byte
	spoke := false // a first line was read (or the fault said)
	for {
		buf = buf[:0]
		over := 0 // length of an oversize line, skipped
		frag, err := br.ReadSlice('\n')
		for {
			if over > 0 || len(buf)+len(frag) > s.m.cfg.MaxLine+1 { // +1: the newline
				over += len(buf) + len(frag)
				buf = buf[:0]
			} else {
				buf = append(buf, frag...)
			}
			if err != bufio.ErrBufferFull {
				break
			}
			frag, err = br.ReadSlice('\n')
		}
		if over > 0 {
			s.m.log.Error("claude wrote a line longer than max_line_bytes; dropped", "session_id", s.id, "bytes", over, "max", s.m.cfg.MaxLine)
		} else if line := bytes.TrimSpace(buf); len(line) > 0 {
			l, err := ParseLine(line)
			if err != nil || line[0] != '{' {
				s.m.log.Warn("non-JSON line on claude's stdout dropped", "session_id", s.id, "line", Redact(line))
				if !spoke {
					spoke = true // once
					c.fault = "claude's stdout is not JSON: " + faultQuote(line)
					c.expect()
					c.p.Stop()
				}
			} else {
				spoke = true
				s.emitObserved(Event{Kind: EventClaude, Type: l.Type, Raw: bytes.Clone(line)}, &l)
			}
		}
		if err != nil {
			return
		}
	}
}

// faultLine bounds how much of a line that is not JSON an EventFault
// quotes.
const faultLine = 80

// faultQuote is the start of line, quoted (at most faultLine runes).
func faultQuote(line []byte) string {
	r := []rune(string(line))
	if len(r) > faultLine {
		return strconv.Quote(string(r[:faultLine])) + "…"
	}
	return strconv.Quote(string(r))
}

// stdoutClosed handles the end of c's stdout. A claude that exits closes
// it on the way (its exit follows at once); one that runs on without it
// can never answer again, and a turn in flight would hang: after the
// interrupt grace it is stopped, unexpectedly, so its exit reports the
// crash (§9.1: EOF on stdout during a turn is claude_crashed) and the
// next turn respawns it.
func (s *Session) stdoutClosed(c *child) {
	select {
	case <-c.p.Done():
	case <-time.After(s.m.cfg.InterruptGrace):
		if !c.exp.Load() {
			s.m.log.Warn("claude closed its stdout but runs on; stopping it", "session_id", s.id, "pid", c.p.PID())
		}
		c.p.Stop()
	}
}

// maxStderrLine bounds a forwarded stderr line.
const maxStderrLine = 64 << 10

// oauthPatterns in claude's stderr mean its OAuth token expired.
var oauthPatterns = []string{"401", "OAuth token expired", "Please run claude auth", "Session authentication failed"}

func (s *Session) readStderr(c *child, errp io.Reader) {
	br := bufio.NewReaderSize(errp, 4096)
	for {
		frag, err := br.ReadSlice('\n')
		line := string(frag)
		for err == bufio.ErrBufferFull { // a long line: keep up to the bound
			frag, err = br.ReadSlice('\n')
			if len(line) < maxStderrLine {
				line += string(frag)
			}
		}
		line = strings.TrimRight(line, "\r\n")
		if len(line) > maxStderrLine {
			line = line[:maxStderrLine]
		}
		if line != "" || err == nil {
			s.stderrLine(c, line)
		}
		if err != nil {
			return
		}
	}
}

func (s *Session) stderrLine(c *child, line string) {
	c.addTail(line)
	s.m.log.Debug("claude stderr", "session_id", s.id, "line", Redact([]byte(line)))
	if !c.oauth.Load() {
		for _, p := range oauthPatterns {
			if strings.Contains(line, p) {
				c.oauth.Store(true)
				s.mu.Lock()
				s.oauth = true
				s.mu.Unlock()
				s.m.log.Warn("claude's OAuth token expired", "session_id", s.id)
				s.emit(Event{Kind: EventOAuthExpired, Text: "Run `claude auth` to re-authenticate."})
				break
			}
		}
	}
	now := time.Now()
	if now.Sub(c.winStart) >= s.m.cfg.StderrWindow {
		if c.dropped > 0 {
			s.emit(Event{Kind: EventStderr, Text: fmt.Sprintf("[blemeesd: %d stderr lines dropped by the rate limit]", c.dropped)})
		}
		c.winStart, c.winCount, c.dropped = now, 0, 0
	}
	if c.winCount >= s.m.cfg.StderrLines {
		c.dropped++
		s.mu.Lock()
		s.dropped++
		s.mu.Unlock()
		return
	}
	c.winCount++
	s.emit(Event{Kind: EventStderr, Text: line})
}
