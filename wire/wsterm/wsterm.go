// Package wsterm is the WebSocket terminal protocol's wire format (see
// PROTOCOL.md beside this file): the binary frames a browser terminal
// sends (resize, upload, input) and receives (raw output, gzip snapshot
// chunks), and the JSON control messages of text frames. It holds wire
// types only: the server (backend/webterm) maps them to the fleet's at its
// edge. Standard library only.
package wsterm

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Binary frame markers: the first byte of a client's binary frame (resize,
// upload) or of a server's snapshot chunk. Any other client frame is
// terminal input.
const (
	MarkerResize byte = 0x00 // [0x00][rows u16 BE][cols u16 BE]
	MarkerUpload byte = 0x01 // [0x01][name_len u16 BE][name][data]
	MarkerChunk  byte = 0x02 // [0x02][index][total][gzip data] (server → client)
)

// MaxChunks is the most chunks a snapshot may take: index and total are one
// byte each, total ≥ 1.
const MaxChunks = 255

// DefaultChunkSize is the payload of one snapshot chunk: small messages,
// for iOS Safari's sake; a snapshot larger than MaxChunks of them uses
// bigger chunks instead (Chunks).
const DefaultChunkSize = 8 << 10

// Kind says what a client's binary frame is.
type Kind uint8

const (
	Input  Kind = iota // keystrokes and pasted text, for the pty
	Resize             // the client's terminal size
	Upload             // a file to save in the session's directory
)

func (k Kind) String() string {
	switch k {
	case Input:
		return "input"
	case Resize:
		return "resize"
	case Upload:
		return "upload"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Frame is a decoded client binary frame. Its slices alias the frame.
type Frame struct {
	Kind       Kind
	Rows, Cols uint16 // Resize
	Name       []byte // Upload: the file name as the client sent it (unsanitised)
	Data       []byte // Input: the bytes; Upload: the file's content
}

// ErrUpload is wrapped by ParseBinary's error for an upload frame whose
// name length runs past the frame's end.
var ErrUpload = errors.New("wsterm: malformed upload frame")

// ParseBinary decodes a client binary frame as the protocol's reference
// server does: a frame of at least 5 bytes starting 0x00 is a resize, one
// of at least 3 bytes starting 0x01 is an upload, anything else — a lone
// 0x00 (Ctrl-@) or 0x01 (Ctrl-A) keystroke too — is input. An upload whose
// name runs past the frame is an error wrapping ErrUpload (with the frame
// discarded, nothing else is lost). Bytes after a resize's 4 are ignored.
func ParseBinary(b []byte) (Frame, error) {
	switch {
	case len(b) >= 5 && b[0] == MarkerResize:
		return Frame{Kind: Resize, Rows: binary.BigEndian.Uint16(b[1:]), Cols: binary.BigEndian.Uint16(b[3:])}, nil
	case len(b) >= 3 && b[0] == MarkerUpload:
		n := int(binary.BigEndian.Uint16(b[1:]))
		if 3+n > len(b) {
			return Frame{Kind: Upload}, fmt.Errorf("%w: name of %d bytes in a frame of %d", ErrUpload, n, len(b))
		}
		return Frame{Kind: Upload, Name: b[3 : 3+n], Data: b[3+n:]}, nil
	}
	return Frame{Kind: Input, Data: b}, nil
}

// AppendResize appends a resize frame to dst.
func AppendResize(dst []byte, rows, cols uint16) []byte {
	dst = append(dst, MarkerResize)
	dst = binary.BigEndian.AppendUint16(dst, rows)
	return binary.BigEndian.AppendUint16(dst, cols)
}

// AppendUpload appends an upload frame to dst. A name longer than 65535
// bytes cannot be encoded: an error.
func AppendUpload(dst []byte, name string, data []byte) ([]byte, error) {
	if len(name) > 0xFFFF {
		return dst, fmt.Errorf("wsterm: upload name of %d bytes (at most 65535)", len(name))
	}
	dst = append(dst, MarkerUpload)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(name)))
	dst = append(dst, name...)
	return append(dst, data...), nil
}

// Gzip compresses a snapshot (the ANSI bytes that draw a screen).
func Gzip(ansi []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(ansi) // a bytes.Buffer does not fail
	w.Close()
	return b.Bytes()
}

// Chunks splits data (a gzip'd snapshot) into the chunk frames
// [0x02][index][total][part], each part at most chunkSize bytes
// (DefaultChunkSize if ≤ 0) — or larger, when that many would be more than
// MaxChunks: the total never exceeds 255. Empty data is one chunk with an
// empty part.
func Chunks(data []byte, chunkSize int) [][]byte {
	if chunkSize <= 0 {
		chunkSize = DefaultChunkSize
	}
	if need := (len(data) + MaxChunks - 1) / MaxChunks; need > chunkSize {
		chunkSize = need
	}
	total := max(1, (len(data)+chunkSize-1)/chunkSize)
	out := make([][]byte, 0, total)
	for i := range total {
		part := data[i*chunkSize : min(len(data), (i+1)*chunkSize)]
		c := make([]byte, 0, 3+len(part))
		c = append(c, MarkerChunk, byte(i), byte(total))
		out = append(out, append(c, part...))
	}
	return out
}

// Assembler puts a snapshot back together from its chunks, as a client
// does. The zero value is ready.
type Assembler struct {
	total int
	parts [][]byte
	got   int
}

// ErrChunk is wrapped by Assembler.Add's errors: a frame that is not a
// chunk, an index out of range or seen twice, a total that changed.
var ErrChunk = errors.New("wsterm: bad snapshot chunk")

// Add takes one chunk frame. Once every chunk has come it returns the
// snapshot, decompressed, and done; the Assembler is then ready for the
// next snapshot.
func (a *Assembler) Add(frame []byte) (snapshot []byte, done bool, err error) {
	if len(frame) < 3 || frame[0] != MarkerChunk {
		return nil, false, fmt.Errorf("%w: not a chunk frame", ErrChunk)
	}
	i, total := int(frame[1]), int(frame[2])
	switch {
	case total == 0 || i >= total:
		return nil, false, fmt.Errorf("%w: chunk %d of %d", ErrChunk, i, total)
	case a.total == 0:
		a.total, a.parts = total, make([][]byte, total)
	case a.total != total:
		return nil, false, fmt.Errorf("%w: total %d, then %d", ErrChunk, a.total, total)
	}
	if a.parts[i] != nil {
		return nil, false, fmt.Errorf("%w: chunk %d twice", ErrChunk, i)
	}
	a.parts[i] = append([]byte{}, frame[3:]...)
	a.got++
	if a.got < a.total {
		return nil, false, nil
	}
	gz := bytes.Join(a.parts, nil)
	*a = Assembler{}
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, true, fmt.Errorf("wsterm: snapshot: %w", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, true, fmt.Errorf("wsterm: snapshot: %w", err)
	}
	return out, true, nil
}

// MaxNameLen is the longest session name rename_session accepts.
const MaxNameLen = 32

// SessionName validates a rename_session name: trimmed of surrounding
// space, at most MaxNameLen characters, each a letter, digit, space, '-' or
// '_' (ASCII). An empty result is valid: the session is then unnamed.
func SessionName(name string) (string, bool) {
	name = strings.TrimSpace(name)
	if len(name) > MaxNameLen {
		return "", false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ' ' || r == '-' || r == '_') {
			return "", false
		}
	}
	return name, true
}
