// Package frame is the codec for the Heimdall binary frame protocol spoken on
// every session's Unix socket (see PROTOCOL.md next to this file).
//
// Layout of one frame, by byte offset:
//
//	0      type     u8
//	1..4   length   u32, big-endian, payload length (0 is valid)
//	5..    payload  length bytes
//
// On connect the server writes one unframed mode byte (ModeBinary) before any
// frame. Inbound frames whose length exceeds MaxPayload are refused with an
// *OversizeError; the reader does not try to skip them, because a peer that
// sends one is either broken or hostile, and the caller closes the connection.
//
// The package has no dependencies beyond the standard library so that any
// client (tests, the CLI, other tools) can use it.
package frame

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// HeaderSize is the size of a frame header: type (1) + length (4).
const HeaderSize = 5

// MaxPayload is the largest payload a Reader accepts (1 MiB). Larger frames
// yield *OversizeError.
const MaxPayload = 1 << 20

// Mode bytes, written raw (unframed) by the server right after accept.
const (
	ModeBinary byte = 0x00 // binary framing, the only mode implemented
	ModeText   byte = 0x01 // reserved for a future text/debug mode
)

// Type identifies a frame's kind. Client→server types are below 0x80,
// server→client types have the high bit set.
type Type uint8

// The eight message types of the protocol.
const (
	Input      Type = 0x01 // raw bytes for the pty master
	Subscribe  Type = 0x02 // empty: switch the connection to subscriber mode
	Status     Type = 0x03 // empty: request a StatusResp
	Resize     Type = 0x04 // [cols u16 BE][rows u16 BE]
	Kill       Type = 0x05 // empty: terminate the session's process group
	Output     Type = 0x81 // raw pty output bytes
	StatusResp Type = 0x82 // 15-byte status payload, see StatusInfo
	Exit       Type = 0x83 // [code i32 BE]
)

// Extensions of this implementation (see PROTOCOL.md). A server that does
// not know them ignores them, as the protocol requires, so clients bound
// their wait for the reply.
const (
	Screen          Type = 0x40 // [flags u8]?: request a ScreenResp; flag 0x01: with SGR colours
	Attach          Type = 0x41 // empty: this connection is an interactive terminal
	Hangup          Type = 0x42 // empty: hang the session up as a closing terminal does
	SubscribeScreen Type = 0x43 // empty: Subscribe, starting with a repaint of the screen instead of the scrollback
	Hook            Type = 0x44 // [source u8][JSON]: an agent's own report (HookClaude, HookCodex)
	Seen            Type = 0x45 // empty: a user has seen the session (it is no longer done)
	WatchState      Type = 0x46 // empty: send a State now and after every change
	Terminal        Type = 0x47 // [detach key u8], with the terminal's fds (SCM_RIGHTS): the server takes the terminal
	WatchScreen     Type = 0x48 // empty: send one Paint once the screen differs from the last one sent
	Hello           Type = 0x49 // [request id u32]?: request a HelloResp (the server's protocol and features)
	Answer          Type = 0x4A // JSON AnswerRequest: answer the dialog on the screen; an AnswerResp replies
	Prompt          Type = 0x4B // empty: request a PromptResp (the dialog on the screen, as ANSWER reads it)
	View            Type = 0x4C // [on u8]: a user looks at the session on this connection's client (1) or no longer (0)
	Say             Type = 0x4D // JSON SayRequest: type a whole prompt into the agent once it waits at its prompt; a SayResp replies
	Limit           Type = 0x4E // JSON LimitRequest: park the session, or schedule a continue after its usage limit; a LimitResp replies
	Cancel          Type = 0x4F // empty: cancel the turn under way (a transcript session's: ACP session/cancel)
	WatchEntries    Type = 0x50 // [after u64 BE]: send the transcript's entries after seq after, then each new one (Entries)
	ScreenResp      Type = 0xC0 // JSON ScreenInfo
	StateEvent      Type = 0xC6 // JSON StateInfo
	TerminalState   Type = 0xC7 // [TerminalTaken, or why the server has no (more) terminal u8]
	Paint           Type = 0xC8 // [cols u16 BE][rows u16 BE][flags u8: 0x01 more][seq u64 BE][repaint bytes]: the screen, see PaintHeader
	HelloResp       Type = 0xC9 // JSON HelloInfo
	AnswerResp      Type = 0xCA // JSON AnswerResult
	PromptResp      Type = 0xCB // JSON PromptInfo
	SayResp         Type = 0xCD // JSON SayResult
	LimitResp       Type = 0xCE // JSON LimitResult
	Entries         Type = 0xD0 // JSON []Entry: transcript entries, oldest first
)

// TERMINAL_STATE payloads: the first reply to TERMINAL is TerminalTaken or
// TerminalRefused; after TerminalTaken, one more ends the hand-over with
// its reason (unless the session's EXIT or the connection's end does).
const (
	TerminalTaken    byte = 0x00 // the server reads keys from the terminal and writes output to it
	TerminalRefused  byte = 0x01 // not taken (no usable fds, another uid): go on over the socket
	TerminalDetached byte = 0x02 // the detach key was typed
	TerminalSlow     byte = 0x03 // the terminal fell behind the output by more than the server's bound
	TerminalFailed   byte = 0x04 // reading or writing the terminal failed
)

// Hook sources: the byte before a HOOK frame's JSON.
const (
	HookClaude byte = 0x01 // a Claude Code hook's payload (its stdin)
	HookCodex  byte = 0x02 // the argument codex gives its notify program
)

// ScreenANSI is the Screen request flag asking for colours (SGR sequences).
const ScreenANSI = 0x01

var extNames = map[Type]string{Screen: "SCREEN", ScreenResp: "SCREEN_RESP", Attach: "ATTACH",
	Hangup: "HANGUP", SubscribeScreen: "SUBSCRIBE_SCREEN", Hook: "HOOK", Seen: "SEEN",
	WatchState: "WATCH_STATE", StateEvent: "STATE", Terminal: "TERMINAL", TerminalState: "TERMINAL_STATE",
	WatchScreen: "WATCH_SCREEN", Paint: "PAINT", Hello: "HELLO", HelloResp: "HELLO_RESP",
	Answer: "ANSWER", AnswerResp: "ANSWER_RESP", Prompt: "PROMPT", PromptResp: "PROMPT_RESP", View: "VIEW",
	Say: "SAY", SayResp: "SAY_RESP", Limit: "LIMIT", LimitResp: "LIMIT_RESP",
	Cancel: "CANCEL", WatchEntries: "WATCH_ENTRIES", Entries: "ENTRIES"}

var typeNames = map[Type]string{
	Input: "INPUT", Subscribe: "SUBSCRIBE", Status: "STATUS", Resize: "RESIZE",
	Kill: "KILL", Output: "OUTPUT", StatusResp: "STATUS_RESP", Exit: "EXIT",
}

// String returns the protocol name of t ("INPUT", "STATUS_RESP", …) or
// "Type(0xNN)" for a type the protocol does not define.
func (t Type) String() string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	if n, ok := extNames[t]; ok {
		return n
	}
	return fmt.Sprintf("Type(0x%02x)", uint8(t))
}

// Known reports whether t is one of the eight protocol types.
func (t Type) Known() bool { _, ok := typeNames[t]; return ok }

// Extension reports whether t is one of this implementation's extensions.
func (t Type) Extension() bool { _, ok := extNames[t]; return ok }

// Frame is one decoded frame.
type Frame struct {
	Type    Type
	Payload []byte
}

// OversizeError is returned by Reader.Next when a frame header announces a
// payload larger than the reader's limit. The stream is no longer in sync and
// must be closed.
type OversizeError struct {
	Type   Type
	Length uint32
	Max    uint32
}

func (e *OversizeError) Error() string {
	return fmt.Sprintf("frame: %s payload of %d bytes exceeds limit of %d", e.Type, e.Length, e.Max)
}

// ErrBadMode is returned by ReadMode when the server's mode byte is not ModeBinary.
var ErrBadMode = errors.New("frame: unsupported mode byte")

// ReadMode reads the unframed mode byte a server writes on connect and
// checks that it is ModeBinary.
func ReadMode(r io.Reader) error {
	var b [1]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return fmt.Errorf("read mode byte: %w", err)
	}
	if b[0] != ModeBinary {
		return fmt.Errorf("%w 0x%02x", ErrBadMode, b[0])
	}
	return nil
}

// AppendFrame appends the encoding of one frame to dst and returns it.
func AppendFrame(dst []byte, t Type, payload []byte) []byte {
	dst = append(dst, byte(t), 0, 0, 0, 0)
	binary.BigEndian.PutUint32(dst[len(dst)-4:], uint32(len(payload)))
	return append(dst, payload...)
}

// Header returns the 5-byte header of a frame of type t carrying n payload bytes.
func Header(t Type, n int) [HeaderSize]byte {
	var h [HeaderSize]byte
	h[0] = byte(t)
	binary.BigEndian.PutUint32(h[1:], uint32(n))
	return h
}

// Write writes one frame to w in a single Write call, so concurrent writers
// that serialise their calls never interleave frames.
// A payload whose length does not fit the u32 length field is refused rather
// than silently truncated into a corrupt frame.
func Write(w io.Writer, t Type, payload []byte) error {
	if uint64(len(payload)) > math.MaxUint32 {
		return fmt.Errorf("frame: %s payload of %d bytes does not fit the u32 length field", t, len(payload))
	}
	_, err := w.Write(AppendFrame(make([]byte, 0, HeaderSize+len(payload)), t, payload))
	return err
}

// Reader decodes frames from a byte stream. It is not safe for concurrent use.
type Reader struct {
	r   *bufio.Reader
	max uint32
	hdr [HeaderSize]byte
	buf []byte // NextShared's payload buffer
}

// NewReader returns a Reader over r that refuses payloads above MaxPayload.
// It buffers 64 KiB, for streams of OUTPUT frames.
func NewReader(r io.Reader) *Reader { return NewReaderSize(r, 64<<10) }

// NewReaderSize is NewReader with a read buffer of size bytes. A server
// reading small client frames needs little; payloads larger than the buffer
// are read straight into place.
func NewReaderSize(r io.Reader, size int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, size), max: MaxPayload}
}

// SetMaxPayload changes the payload limit (used by clients that trust their
// server, and by tests).
func (r *Reader) SetMaxPayload(n uint32) { r.max = n }

// Buffered returns how many bytes of the stream the Reader has read ahead.
// A caller may go on reading the stream some other way only when it is 0:
// those bytes are not in the stream any more.
func (r *Reader) Buffered() int { return r.r.Buffered() }

// Next reads one frame. The payload is freshly allocated and owned by the
// caller. At a clean end of stream it returns io.EOF; a stream that ends
// inside a frame returns io.ErrUnexpectedEOF; an oversize frame returns
// *OversizeError without consuming its payload.
func (r *Reader) Next() (Frame, error) { return r.next(false) }

// NextShared is Next with a payload that is only valid until the next call
// on r: the Reader reuses one buffer, so a stream of OUTPUT frames that the
// caller copies on (to a terminal, an emulator) costs no allocation.
func (r *Reader) NextShared() (Frame, error) { return r.next(true) }

func (r *Reader) next(shared bool) (Frame, error) {
	if _, err := io.ReadFull(r.r, r.hdr[:]); err != nil {
		return Frame{}, err
	}
	t := Type(r.hdr[0])
	n := binary.BigEndian.Uint32(r.hdr[1:])
	if n > r.max {
		return Frame{}, &OversizeError{Type: t, Length: n, Max: r.max}
	}
	f := Frame{Type: t}
	if n > 0 {
		if !shared {
			f.Payload = make([]byte, n)
		} else {
			if uint32(cap(r.buf)) < n {
				r.buf = make([]byte, max(n, 16<<10))
			}
			f.Payload = r.buf[:n]
		}
		if _, err := io.ReadFull(r.r, f.Payload); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Frame{}, err
		}
	}
	return f, nil
}
