package fleet

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// A transcript session's supervisor (an ACP agent's: `run --acp`) says
// HELLO with the transcript feature. It is followed on one connection:
// WATCH_STATE and WATCH_ENTRIES push its state and each new entry;
// prompts (SAY), answers (ANSWER) and cancels go on connections of their
// own or the followed one. Its transcript lives in its supervisor, so a
// dashboard that comes back gets all of it.

// maxTranscript bounds the entries a follower keeps.
const maxTranscript = 4000

type transcriptMember struct {
	id     string
	dialer Dialer
	r      Reporter
	log    *slog.Logger
	rec    supervisor.Record
	c      *frame.Client
	w      *connWriter
	done   chan struct{}

	mu      sync.Mutex
	info    session.Info
	entries []session.Entry
}

// followTranscript follows the transcript session served by d.
func (f *Fleet) followTranscript(id string, d Dialer, r Reporter, wait bool) (Member, error) {
	c, err := d.Dial(dialTimeout)
	if err != nil {
		return nil, err
	}
	x := &transcriptMember{id: id, dialer: d, r: r, log: f.log, c: c, done: make(chan struct{}),
		info: session.Info{ID: id, Kind: session.KindACP, Alive: true, Started: time.Now()}}
	if err := c.Send(frame.WatchState, nil); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.Send(frame.WatchEntries, frame.WatchEntriesPayload(0)); err != nil {
		c.Close()
		return nil, err
	}
	// The first STATE before the member is listed: a fleet's first
	// Sessions (the inbox command's) shows the session as it is.
	c.Conn().SetReadDeadline(time.Now().Add(dialTimeout))
	for {
		fr, err := c.Next()
		if err != nil {
			c.Close()
			return nil, err
		}
		if fr.Type == frame.StateEvent {
			x.applyState(fr.Payload)
			break
		}
		if fr.Type == frame.Entries {
			x.applyEntries(fr.Payload)
		}
	}
	c.Conn().SetReadDeadline(time.Time{})
	x.w = newConnWriter(c)
	if rec, ok := f.recordOf(id, x.info.PID, wait); ok { // the agent's pid, from its first STATE
		x.rec = rec
		x.info.Agent, x.info.Classifier, x.info.Argv, x.info.Dir = rec.Agent, rec.Classifier, slices.Clone(rec.Argv), rec.Dir
		x.info.Started, x.info.Owned, x.info.Conversation, x.info.PID = rec.Started, rec.Dashboard, rec.Conversation, rec.PID
	}
	// What a restart starts is read from x.info before the reader
	// writes to it.
	restartable, spec := len(x.info.Argv) > 0, specOf(id, x.info, x.rec)
	spec.ACP, spec.ACPFS, spec.Classifier = true, x.rec.ACPFS, ""
	go x.w.run()
	go x.read()
	if !restartable {
		return x, nil
	}
	return restartableTranscript{x, f, spec}, nil
}

// restartableTranscript is a transcript session whose command is known:
// Restart launches it again under its ID.
type restartableTranscript struct {
	*transcriptMember
	f    *Fleet
	spec Spec
}

func (x restartableTranscript) Restart(r Reporter) (Member, error) {
	return x.f.launch(x.spec.ID, x.spec, r)
}

// read applies what the supervisor pushes until the connection ends.
func (x *transcriptMember) read() {
	defer close(x.done)
	defer x.w.close()
	for {
		fr, err := x.c.Next()
		if err != nil {
			return
		}
		switch fr.Type {
		case frame.StateEvent:
			if x.applyState(fr.Payload) {
				x.r.Changed()
			}
		case frame.Entries:
			if last, ok := x.applyEntries(fr.Payload); ok {
				x.r.Dirty(last)
			}
		case frame.Exit:
			code, _ := frame.ParseExit(fr.Payload)
			x.r.Exited(int(code))
		}
	}
}

// applyState takes a STATE into the member's Info; false if it does not
// parse.
func (x *transcriptMember) applyState(p []byte) bool {
	var si frame.StateInfo
	if si.UnmarshalBinary(p) != nil {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if st, ok := session.ParseState(si.State); ok && (st != x.info.State || x.info.StateSince.IsZero()) {
		x.info.State, x.info.StateSince = st, time.Now().Add(-time.Duration(si.StateMs)*time.Millisecond)
	}
	x.info.NeedsInput, x.info.PID = si.NeedsInput, si.PID
	supervisor.ApplyAgentState(&x.info, si.AgentState)
	return true
}

// applyEntries appends an ENTRIES payload's entries; it returns the last
// one's seq.
func (x *transcriptMember) applyEntries(p []byte) (uint64, bool) {
	var es []frame.Entry
	if json.Unmarshal(p, &es) != nil || len(es) == 0 {
		return 0, false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range es {
		x.entries = append(x.entries, session.Entry{Seq: e.Seq, Time: time.UnixMilli(e.Time), Role: session.Role(e.Role), Text: e.Text})
	}
	if len(x.entries) > maxTranscript {
		x.entries = slices.Clone(x.entries[len(x.entries)-maxTranscript:])
	}
	x.info.LastOutput = time.Now()
	return x.entries[len(x.entries)-1].Seq, true
}

func (x *transcriptMember) Info() session.Info {
	x.mu.Lock()
	defer x.mu.Unlock()
	in := x.info
	in.Usage = slices.Clone(in.Usage)
	return in
}

func (x *transcriptMember) record() supervisor.Record { return x.rec }

// Transcript implements Transcripter.
func (x *transcriptMember) Transcript(after uint64) []session.Entry {
	x.mu.Lock()
	defer x.mu.Unlock()
	i, _ := slices.BinarySearchFunc(x.entries, after+1, func(e session.Entry, seq uint64) int {
		switch {
		case e.Seq < seq:
			return -1
		case e.Seq > seq:
			return 1
		}
		return 0
	})
	return slices.Clone(x.entries[i:])
}

// Send is a prompt: the input's text, one message (SAY: refused while a
// turn runs, with ErrBusy).
func (x *transcriptMember) Send(in session.Input) error {
	text := strings.TrimRight(string(in.Data), "\r\n")
	return x.Say(text)
}

// Say implements Sayer.
func (x *transcriptMember) Say(text string) error { return sayOver(x.dialer, text) }

// Interrupt implements Interrupter: CANCEL, the protocol's session/cancel.
func (x *transcriptMember) Interrupt() error { return x.w.send(frame.Cancel, nil) }

// Seen implements Seener.
func (x *transcriptMember) Seen() error { return x.w.send(frame.Seen, nil) }

// Stop ends the agent (KILL: SIGTERM, SIGKILL after the grace).
func (x *transcriptMember) Stop(force bool) error { return x.w.send(frame.Kill, nil) }

// Hangup disconnects: the session keeps running in its supervisor.
func (x *transcriptMember) Hangup() { x.c.Close() }

func (x *transcriptMember) Done() <-chan struct{} { return x.done }

// RunsOutside implements Outliver: the session is its supervisor's.
func (x *transcriptMember) RunsOutside() {}

// Answer implements Answerer: the protocol's reply to the agent's
// permission request, chosen by option.
func (x *transcriptMember) Answer(c answer.Choice, question string) (answer.Given, error) {
	return answerOver(x.dialer, c, question)
}

// Prompt implements Answerer: the permission request waiting.
func (x *transcriptMember) Prompt() (answer.Prompt, error) { return promptOver(x.dialer) }
