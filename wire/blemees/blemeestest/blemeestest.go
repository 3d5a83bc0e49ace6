// Package blemeestest is a blemees/1 test client that checks every frame
// it reads against the protocol's outbound JSON schemas (schemas/, a copy of
// the published blemeesd-schemas, the contract), compiled once.
package blemeestest

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/heimdall-tui/heimdall-tui/wire/jsonl"
)

//go:embed schemas/*.json schemas/inbound/*.json schemas/outbound/*.json
var schemaFS embed.FS

var compiled struct {
	once     sync.Once
	outbound map[string]*jsonschema.Schema // by frame type; "claude.*" for events
	inbound  map[string]*jsonschema.Schema
	err      error
}

func compile() {
	c := jsonschema.NewCompiler()
	ids := map[string]string{} // file → $id
	err := fs.WalkDir(schemaFS, "schemas", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		b, err := schemaFS.ReadFile(p)
		if err != nil {
			return err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		ids[p] = id
		return c.AddResource(id, doc)
	})
	if err != nil {
		compiled.err = err
		return
	}
	compiled.outbound = map[string]*jsonschema.Schema{}
	compiled.inbound = map[string]*jsonschema.Schema{}
	for p, id := range ids {
		dir, name := path.Split(p)
		typ := strings.TrimSuffix(name, ".json")
		var into map[string]*jsonschema.Schema
		switch path.Base(dir) {
		case "outbound":
			into = compiled.outbound
			if typ == "claude.event" {
				typ = "claude.*"
			}
		case "inbound":
			into = compiled.inbound
		default:
			continue
		}
		s, err := c.Compile(id)
		if err != nil {
			compiled.err = fmt.Errorf("compile %s: %w", p, err)
			return
		}
		into[typ] = s
	}
}

// ValidateOutbound checks a frame the daemon sent against its type's
// schema.
func ValidateOutbound(line []byte) error { return validate(line, false) }

// ValidateInbound checks a frame a client sends.
func ValidateInbound(line []byte) error { return validate(line, true) }

func validate(line []byte, in bool) error {
	compiled.once.Do(compile)
	if compiled.err != nil {
		return compiled.err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object")
	}
	typ, _ := obj["type"].(string)
	set := compiled.outbound
	if in {
		set = compiled.inbound
	}
	s := set[typ]
	if s == nil && strings.HasPrefix(typ, "claude.") && !in {
		s = set["claude.*"]
	}
	if s == nil {
		return fmt.Errorf("no schema for frame type %q", typ)
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("%s: %v", typ, err)
	}
	return nil
}

// Frame is a decoded frame.
type Frame map[string]any

// Type is the frame's type.
func (f Frame) Type() string { s, _ := f["type"].(string); return s }

// Str is a string member ("" if absent).
func (f Frame) Str(k string) string { s, _ := f[k].(string); return s }

// Int is a number member (-1 if absent).
func (f Frame) Int(k string) int64 {
	if n, ok := f[k].(float64); ok {
		return int64(n)
	}
	return -1
}

// Bool is a boolean member.
func (f Frame) Bool(k string) bool { b, _ := f[k].(bool); return b }

// Conn is a test client connection. Every frame read is validated; a frame
// that fails fails the test.
type Conn struct {
	t    testing.TB
	NC   net.Conn
	r    *jsonl.Reader
	Wait time.Duration // bound of each read (10 s)
	// Lines are the raw frames read so far (not kept with NoCheck).
	Lines [][]byte
	// NoCheck skips the schema check and keeps no lines (benchmarks).
	NoCheck bool
	// CheckSent validates every frame sent against the inbound schemas
	// too: a flow written as a real client's sends only frames the
	// contract allows (error-path tests leave it off).
	CheckSent bool
}

// Dial connects to the daemon at path (no hello).
func Dial(t testing.TB, path string) *Conn {
	t.Helper()
	nc, err := net.Dial("unix", path)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { nc.Close() })
	return &Conn{t: t, NC: nc, r: jsonl.NewReader(nc, 64<<20), Wait: 10 * time.Second}
}

// Connect dials and shakes hands.
func Connect(t testing.TB, path string) *Conn {
	t.Helper()
	c := Dial(t, path)
	c.Send(map[string]any{"type": "blemeesd.hello", "client": "blemeestest/1", "protocol": "blemees/1"})
	if f := c.Next(); f.Type() != "blemeesd.hello_ack" {
		t.Fatalf("hello: got %v", f)
	}
	return c
}

// Send writes v as a frame.
func (c *Conn) Send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.SendRaw(string(b))
}

// SendRaw writes a line (a newline is added).
func (c *Conn) SendRaw(line string) {
	c.t.Helper()
	if c.CheckSent {
		if err := ValidateInbound([]byte(line)); err != nil {
			c.t.Errorf("sent frame fails its schema: %v\n%s", err, line)
		}
	}
	c.NC.SetWriteDeadline(time.Now().Add(c.Wait))
	if _, err := c.NC.Write([]byte(line + "\n")); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// Read reads the next frame, validated; err is the read's error (io.EOF
// when the daemon closed the connection).
func (c *Conn) Read() (Frame, error) {
	c.t.Helper()
	c.NC.SetReadDeadline(time.Now().Add(c.Wait))
	line, err := c.r.ReadLine()
	if err != nil {
		return nil, err
	}
	if !c.NoCheck {
		c.Lines = append(c.Lines, bytes.Clone(line))
		if err := ValidateOutbound(line); err != nil {
			c.t.Errorf("frame fails its schema: %v\n%s", err, line)
		}
	}
	var f Frame
	if err := json.Unmarshal(line, &f); err != nil {
		c.t.Fatalf("frame %q: %v", line, err)
	}
	return f, nil
}

// Next reads the next frame; any read error fails the test.
func (c *Conn) Next() Frame {
	c.t.Helper()
	f, err := c.Read()
	if err != nil {
		c.t.Fatalf("read: %v (after %d frames)", err, len(c.Lines))
	}
	return f
}

// Until reads frames up to and including the first of type typ (and, if
// given, whose session_id is session).
func (c *Conn) Until(typ string, session ...string) []Frame {
	c.t.Helper()
	var fs []Frame
	for {
		f := c.Next()
		fs = append(fs, f)
		if f.Type() == typ && (len(session) == 0 || f.Str("session_id") == session[0]) {
			return fs
		}
	}
}

// Request sends v and reads frames until one of type reply (or an error
// frame) arrives; it returns that frame.
func (c *Conn) Request(v any, reply string) Frame {
	c.t.Helper()
	c.Send(v)
	for {
		f := c.Next()
		if f.Type() == reply || f.Type() == "blemeesd.error" && f.Int("seq") < 0 {
			return f
		}
	}
}
