package headless

import (
	"encoding/json"
	"fmt"
)

// EventKind says what an Event is.
type EventKind uint8

const (
	// EventClaude is a line of claude's stdout: Type is its "type", Raw the
	// line (a JSON object) verbatim.
	EventClaude EventKind = iota
	// EventStderr is a line of claude's stderr (Text), within the rate
	// limit; a line saying how many were dropped follows a window that
	// dropped some.
	EventStderr
	// EventCrashed: claude exited or closed its stdout unexpectedly (during
	// a turn, or with a failure status). Text is the tail of its stderr.
	EventCrashed
	// EventOAuthExpired: claude's stderr said its OAuth token expired.
	EventOAuthExpired
	// EventInterrupted answers Interrupt; WasIdle if no turn was in flight
	// (nothing was killed).
	EventInterrupted
	// EventReplayGap precedes a replay that misses events: those after
	// Since up to First (exclusive) are gone. It has no seq and is
	// delivered only to the sink replayed to.
	EventReplayGap
	// EventFault: claude does not speak the protocol: the first line of
	// its stdout is not a JSON event. It is stopped (a turn in flight
	// ends); Text says what it wrote.
	EventFault
)

var kindNames = [...]string{"claude", "stderr", "crashed", "oauth_expired", "interrupted", "replay_gap", "fault"}

func (k EventKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// MarshalText names the kind (the event log's "kind").
func (k EventKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *EventKind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = EventKind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown event kind %q", b)
}

// Event is one entry of a session's stream. Its JSON form is a line of the
// event log.
type Event struct {
	Seq     uint64          `json:"seq"`
	Session string          `json:"-"`
	Kind    EventKind       `json:"kind"`
	Type    string          `json:"type,omitempty"`
	Raw     json.RawMessage `json:"raw,omitempty"`
	Text    string          `json:"text,omitempty"`
	WasIdle bool            `json:"was_idle,omitempty"`
	// Since and First describe a replay gap.
	Since uint64 `json:"-"`
	First uint64 `json:"-"`
}

// ring keeps the last size events (consecutive seqs). It grows as events
// come, so an idle session costs little.
type ring struct {
	buf   []Event
	size  int
	start int // index of the oldest once full
	n     int
}

func newRing(size int) ring { return ring{size: size} }

func (r *ring) push(ev Event) {
	if r.n < r.size {
		r.buf = append(r.buf, ev)
		r.n++
		return
	}
	r.buf[r.start] = ev
	r.start = (r.start + 1) % r.size
}

// first is the oldest seq kept (0 if none).
func (r *ring) first() uint64 {
	if r.n == 0 {
		return 0
	}
	return r.buf[r.start].Seq
}

// after returns the events with seq > seen, oldest first.
func (r *ring) after(seen uint64) []Event {
	var out []Event
	for i := range r.n {
		ev := r.buf[(r.start+i)%len(r.buf)]
		if ev.Seq > seen {
			out = append(out, ev)
		}
	}
	return out
}
