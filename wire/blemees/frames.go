// Package blemees speaks blemees/1, the protocol of blemeesd (the headless
// Claude Code daemon; spec: ../shared/seeds/blemeesd-daemon-spec.txt, frame
// schemas: testdata/schemas, the contract): newline-delimited JSON frames
// over a Unix socket, namespaced blemeesd.* (session lifecycle and daemon
// operations) and claude.* (the conversation, in both directions).
//
// Server is a wire/unixsock Handler. It sees sessions only through
// Backend, which backend/blemeesd implements over a headless.Manager; the
// frames a Backend pushes to a Client (events, replays, takeovers) are
// built with this package's encoders (ClaudeFrame, StderrFrame, ...).
package blemees

import (
	"encoding/json"
	"strconv"
)

// Protocol is the protocol version this package speaks.
const Protocol = "blemees/1"

// Error codes (§5.10).
const (
	CodeProtocolMismatch = "protocol_mismatch" // fatal
	CodeInvalidMessage   = "invalid_message"
	CodeUnknownMessage   = "unknown_message"
	CodeUnsafeFlag       = "unsafe_flag"
	CodeSessionUnknown   = "session_unknown"
	CodeSessionExists    = "session_exists"
	CodeSessionBusy      = "session_busy"
	CodeSpawnFailed      = "spawn_failed"
	CodeClaudeCrashed    = "claude_crashed"
	CodeOAuthExpired     = "oauth_expired"
	CodeOversizeMessage  = "oversize_message" // fatal
	CodeSlowConsumer     = "slow_consumer"    // fatal
	CodeDaemonShutdown   = "daemon_shutdown"  // fatal
	CodeInternal         = "internal"
)

// Error is a request's failure as a blemeesd.error frame says it. Backend
// methods return one to choose the code; any other error is "internal".
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with code.
func Errorf(code, message string) *Error { return &Error{Code: code, Message: message} }

// errorFrame is blemeesd.error.
type errorFrame struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Seq       uint64 `json:"seq,omitempty"`
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Every frame type here marshals; a failure is a bug.
		panic("blemees: encode: " + err.Error())
	}
	return b
}

// ErrorFrame is a blemeesd.error frame (id, session and seq left out when
// zero).
func ErrorFrame(id, session string, seq uint64, code, message string) []byte {
	return encode(errorFrame{"blemeesd.error", id, session, code, message, seq})
}

// StderrFrame is a blemeesd.stderr frame: a line of the session's claude's
// stderr.
func StderrFrame(session string, seq uint64, line string) []byte {
	return encode(struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		Line      string `json:"line"`
		Seq       uint64 `json:"seq"`
	}{"blemeesd.stderr", session, line, seq})
}

// InterruptedFrame answers blemeesd.interrupt.
func InterruptedFrame(session string, seq uint64, wasIdle bool) []byte {
	return encode(struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		WasIdle   bool   `json:"was_idle"`
		Seq       uint64 `json:"seq,omitempty"`
	}{"blemeesd.interrupted", session, wasIdle, seq})
}

// ReplayGapFrame precedes a replay missing the frames after since up to
// first (exclusive).
func ReplayGapFrame(session string, since, first uint64) []byte {
	return encode(struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		Since     uint64 `json:"since_seq"`
		First     uint64 `json:"first_available_seq"`
	}{"blemeesd.replay_gap", session, since, first})
}

// SessionTakenFrame tells an owner that the client with pid byPID (0:
// unknown, left out) took its session over.
func SessionTakenFrame(session string, byPID int) []byte {
	f := struct {
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		ByPeerPID *int   `json:"by_peer_pid,omitempty"`
	}{Type: "blemeesd.session_taken", SessionID: session}
	if byPID > 0 {
		f.ByPeerPID = &byPID
	}
	return encode(f)
}

// ClaudeFrame forwards raw, a line of claude's stdout (a JSON object with a
// "type"), as the frame clients get: its type prefixed with "claude.",
// "session_id" and "seq" set (replacing claude's own session_id), every
// other member passed through byte for byte in its order. raw must be a
// valid JSON object (the session parsed it); if it is not, or it has no
// non-empty string "type", the frame has type "claude.unknown".
func ClaudeFrame(session string, seq uint64, raw []byte) []byte {
	out := make([]byte, 0, len(raw)+len(session)+48)
	out = append(out, `{"type":"claude.`...)
	typ := "unknown"
	members, ok := topMembers(raw)
	for _, m := range members {
		if string(m.key) == `"type"` {
			if s, err := strconv.Unquote(string(m.val)); err == nil && len(m.val) > 2 {
				typ = s
			}
		}
	}
	out = appendJSONStringBody(out, typ)
	out = append(out, '"')
	if ok {
		for _, m := range members {
			switch string(m.key) {
			case `"type"`, `"session_id"`, `"seq"`:
				continue
			}
			out = append(out, ',')
			out = append(out, m.key...)
			out = append(out, ':')
			out = append(out, m.val...)
		}
	}
	out = append(out, `,"session_id":"`...)
	out = appendJSONStringBody(out, session)
	out = append(out, `","seq":`...)
	out = strconv.AppendUint(out, seq, 10)
	return append(out, '}')
}

// appendJSONStringBody appends s escaped as inside a JSON string.
func appendJSONStringBody(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b[1:len(b)-1]...)
}

type member struct{ key, val []byte }

// topMembers splits a JSON object into its members' raw keys and values.
// It trusts that b is valid JSON; ok is false if b is not an object.
func topMembers(b []byte) (ms []member, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return ms, false
		}
		if b[i] == '}' {
			return ms, true
		}
		if b[i] == ',' {
			i++
			continue
		}
		ks := i
		i = skipValue(b, i)
		key := b[ks:i]
		i = skipWS(b, i)
		if i >= len(b) || b[i] != ':' {
			return ms, false
		}
		i = skipWS(b, i+1)
		vs := i
		i = skipValue(b, i)
		if i > len(b) || vs == i {
			return ms, false
		}
		ms = append(ms, member{key, b[vs:i]})
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the JSON value starting at i.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(b)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	default: // number, true, false, null
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		return i
	}
}
