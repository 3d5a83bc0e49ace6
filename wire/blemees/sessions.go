package blemees

// heimdall's extension: a client may follow a daemon's sessions — which
// are open now, then each one opened and closed — instead of polling
// list_sessions per directory (which also lists Claude Code's stored
// transcripts, and only of one directory). It is off the blemees/1 wire:
// its frames are namespaced heimdall.*, and a client that does not send
// heimdall.follow_sessions sees none of them. A daemon without it answers
// unknown_message.
//
//	→ {"type":"heimdall.follow_sessions","id":"r1"}
//	← {"type":"heimdall.sessions","id":"r1","sessions":[LiveSession…]}
//	← {"type":"heimdall.session_opened","session":LiveSession}
//	← {"type":"heimdall.session_closed","session_id":"…"}
//
// The reply comes before any push; a session open when the reply was made
// is in it, one opened later is pushed, and every close after it is
// pushed. A session reattached (open with resume) is not opened again.
// Closed means the daemon has forgotten it (blemeesd.close, or reaped
// after its idle timeout); it is not pushed when the daemon shuts down
// (its connections end). The subscription ends with the connection.

// SessionsFeed is a Backend that serves heimdall's extension.
type SessionsFeed interface {
	// FollowSessions subscribes c to SessionOpenedFrame and
	// SessionClosedFrame pushes until it detaches, and calls reply with
	// the sessions open now; reply queues the heimdall.sessions frame
	// before any push can be queued.
	FollowSessions(c Client, reply func([]LiveSession))
}

// LiveSession is a session the daemon runs, as the extension's frames
// carry it.
type LiveSession struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Model     string `json:"model,omitempty"`
	// Attached: a connection owns it (else its owner has gone and it is
	// detached, §5.9).
	Attached bool   `json:"attached"`
	LastSeq  uint64 `json:"last_seq"`
}

// Extension frame types.
const (
	TypeFollowSessions = "heimdall.follow_sessions"
	TypeSessions       = "heimdall.sessions"
	TypeSessionOpened  = "heimdall.session_opened"
	TypeSessionClosed  = "heimdall.session_closed"
)

func sessionsFrame(id string, rows []LiveSession) []byte {
	if rows == nil {
		rows = []LiveSession{}
	}
	return encode(struct {
		Type     string        `json:"type"`
		ID       string        `json:"id,omitempty"`
		Sessions []LiveSession `json:"sessions"`
	}{TypeSessions, id, rows})
}

// SessionOpenedFrame is heimdall.session_opened.
func SessionOpenedFrame(s LiveSession) []byte {
	return encode(struct {
		Type    string      `json:"type"`
		Session LiveSession `json:"session"`
	}{TypeSessionOpened, s})
}

// SessionClosedFrame is heimdall.session_closed.
func SessionClosedFrame(session string) []byte {
	return encode(struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
	}{TypeSessionClosed, session})
}
