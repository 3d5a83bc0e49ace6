package wsterm

import (
	"encoding/json"
	"fmt"
	"time"
)

// Message types of text frames (JSON objects with a "type" member).
const (
	TypePing       = "ping"           // client → server; answered with pong
	TypePong       = "pong"           // server → client, echoing the ping's data
	TypeChat       = "chat"           // client → server → every client
	TypeRename     = "rename_session" // client → server
	TypeToggleYolo = "toggle_yolo"    // client → server
	TypeStatus     = "status"         // server → clients
	TypeFileUpload = "file_upload"    // server → the uploading client
	TypeExit       = "exit"           // server → clients
)

// Request is a client's text frame: the members of every message type
// the server takes. Members a type does not use are ignored.
type Request struct {
	Type     string          `json:"type"`
	Data     json.RawMessage `json:"data,omitempty"`     // ping
	UserName string          `json:"userName,omitempty"` // chat
	Text     string          `json:"text,omitempty"`     // chat
	Name     string          `json:"name,omitempty"`     // rename_session
}

// ParseRequest decodes a client's text frame. Invalid JSON, or JSON that is
// not an object, is an error; an unknown type is not (the caller ignores
// it).
func ParseRequest(b []byte) (Request, error) {
	var r Request
	if err := json.Unmarshal(b, &r); err != nil {
		return Request{}, fmt.Errorf("wsterm: bad message: %w", err)
	}
	return r, nil
}

// Pong answers a ping. Data is the ping's, omitted when the ping had none.
type Pong struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

// NewPong answers a ping carrying data.
func NewPong(data json.RawMessage) Pong { return Pong{Type: TypePong, Data: data} }

// Chat is a chat message as broadcast to every client of a session.
type Chat struct {
	Type      string `json:"type"`
	UserName  string `json:"userName"`
	Text      string `json:"text"`
	Timestamp string `json:"timestamp"` // RFC 3339, UTC
}

// NewChat is the broadcast of a chat message sent at t.
func NewChat(userName, text string, t time.Time) Chat {
	return Chat{Type: TypeChat, UserName: userName, Text: text, Timestamp: t.UTC().Format(time.RFC3339)}
}

// Status describes a session to its clients: sent when a client joins or
// leaves, the terminal is resized, the session is renamed or YOLO mode
// changes.
type Status struct {
	Type          string `json:"type"`
	Viewers       int    `json:"viewers"`     // clients connected to the session
	Cols          int    `json:"cols"`        // the terminal's size
	Rows          int    `json:"rows"`        //
	Assistant     string `json:"assistant"`   // display name ("Claude")
	SessionName   string `json:"sessionName"` // "" if unnamed
	UUIDShort     string `json:"uuidShort"`   // the first 5 characters of the session id
	YoloMode      bool   `json:"yoloMode"`
	YoloSupported bool   `json:"yoloSupported"`
}

// ShortID is the uuidShort of a session id: its first 5 bytes (all of a
// shorter one).
func ShortID(id string) string {
	if len(id) >= 5 {
		return id[:5]
	}
	return id
}

// FileUpload answers an upload frame. Error is null on success.
type FileUpload struct {
	Type     string  `json:"type"`
	Success  bool    `json:"success"`
	Filename string  `json:"filename,omitempty"`
	Error    *string `json:"error"`
}

// UploadOK reports a saved upload.
func UploadOK(filename string) FileUpload {
	return FileUpload{Type: TypeFileUpload, Success: true, Filename: filename}
}

// UploadFailed reports an upload that was not saved, and why.
func UploadFailed(filename, reason string) FileUpload {
	return FileUpload{Type: TypeFileUpload, Filename: filename, Error: &reason}
}

// Exit tells the clients the session's process has ended, with its exit
// code (128+signal when a signal killed it).
type Exit struct {
	Type     string `json:"type"`
	ExitCode int    `json:"exitCode"`
}

// NewExit reports an exit with code.
func NewExit(code int) Exit { return Exit{Type: TypeExit, ExitCode: code} }
