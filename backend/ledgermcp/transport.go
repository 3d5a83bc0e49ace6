package ledgermcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMessage bounds one inbound message.
const maxMessage = 16 << 20

// Transport is MCP over a byte stream that reads both newline-delimited
// JSON and LSP-style "Content-Length:" framed messages, mixed in one
// stream, and writes line-delimited JSON. The SDK's own stdio transport
// reads lines only.
type Transport struct {
	Reader io.Reader
	Writer io.Writer
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	return &conn{r: bufio.NewReaderSize(t.Reader, 64<<10), w: t.Writer, closed: make(chan struct{}), idle: make(chan struct{}),
		calls: map[jsonrpc.ID]bool{}, answered: make(chan struct{})}, nil
}

type conn struct {
	r      *bufio.Reader
	rmu    sync.Mutex
	w      io.Writer
	wmu    sync.Mutex
	once   sync.Once
	closed chan struct{}

	// pending counts the calls read but not yet answered: at the end of
	// the input Read waits for them, as the SDK drops the responses of
	// calls still running when its read loop ends.
	pmu     sync.Mutex
	pending int
	idle    chan struct{} // closed and replaced when pending drops to 0

	// calls are the tool calls read but not yet answered, true for those
	// of tools that change the ledger (guarded by pmu). The SDK answers
	// calls concurrently; to keep a connection's ledger calls in order, a
	// write is not handed on until the calls before it are answered, and
	// nothing after it is read until it is: a read sees every write sent
	// before it, and a write no read sent before it. Reads may overlap
	// one another.
	calls    map[jsonrpc.ID]bool
	answered chan struct{} // closed and replaced when a call is answered
}

func (c *conn) SessionID() string { return "" }

func (c *conn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// Read returns the next message. A message that does not parse is
// answered with a JSON-RPC parse error (-32700) and skipped.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.await(func(write bool) bool { return write }) // no write pending
	for {
		select {
		case <-c.closed:
			return nil, io.EOF
		default:
		}
		data, err := c.next()
		if err != nil {
			c.drain()
			return nil, err
		}
		if len(data) == 0 {
			continue
		}
		msg, derr := jsonrpc.DecodeMessage(data)
		if derr == nil {
			if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
				if r.Method == "tools/call" {
					write := writesLedger(r.Params)
					if write {
						c.await(func(bool) bool { return true }) // every call before it answered
					}
					c.pmu.Lock()
					c.calls[r.ID] = write
					c.pmu.Unlock()
				}
				c.pmu.Lock()
				c.pending++
				c.pmu.Unlock()
				if r.Method == "initialize" {
					r.Params = withDefaultRevision(r.Params)
				}
			}
			return msg, nil
		}
		c.writeRaw([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%s}}`,
			jsonrpc.CodeParseError, strconv.Quote("parse error: "+derr.Error()))))
	}
}

// drain waits until every call read has been answered (or the connection
// is closed).
func (c *conn) drain() {
	for {
		c.pmu.Lock()
		n, idle := c.pending, c.idle
		c.pmu.Unlock()
		if n <= 0 {
			return
		}
		select {
		case <-idle:
		case <-c.closed:
			return
		}
	}
}

// await waits until no call pending is one that blocks (blocks(write)),
// or the connection is closed.
func (c *conn) await(blocks func(write bool) bool) {
	for {
		c.pmu.Lock()
		wait := false
		for _, w := range c.calls {
			if blocks(w) {
				wait = true
				break
			}
		}
		answered := c.answered
		c.pmu.Unlock()
		if !wait {
			return
		}
		select {
		case <-answered:
		case <-c.closed:
			return
		}
	}
}

// writesLedger reports whether a tools/call's params name a tool that
// changes the ledger (writingTools); unparsable params count as one.
func writesLedger(params json.RawMessage) bool {
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(params, &p) != nil {
		return true
	}
	return writingTools[p.Name]
}

// done counts a response written to call id.
func (c *conn) done(id jsonrpc.ID) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if _, ok := c.calls[id]; ok {
		delete(c.calls, id)
		close(c.answered)
		c.answered = make(chan struct{})
	}
	if c.pending--; c.pending <= 0 {
		c.pending = 0
		close(c.idle)
		c.idle = make(chan struct{})
	}
}

// maxHeaderLine and maxHeaders bound a Content-Length header block: its
// lines are short ("Content-Length: N", "Content-Type: …").
const (
	maxHeaderLine = 4 << 10
	maxHeaders    = 32
)

// readLine reads a line of at most limit bytes (with its newline); a
// longer one is an error, read no further than limit.
func (c *conn) readLine(limit int) ([]byte, error) {
	line, err := c.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(line) > limit {
			return nil, fmt.Errorf("line longer than %d bytes", limit)
		}
		return line, err
	}
	buf := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(buf) > limit {
			return nil, fmt.Errorf("line longer than %d bytes", limit)
		}
		line, err = c.r.ReadSlice('\n')
		buf = append(buf, line...)
	}
	if len(buf) > limit {
		return nil, fmt.Errorf("line longer than %d bytes", limit)
	}
	return buf, err
}

// next reads one frame: a Content-Length header block and its body, or a
// line. Blank lines are skipped (returned empty).
func (c *conn) next() ([]byte, error) {
	line, err := c.readLine(maxMessage + 1)
	if err != nil && !(errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) > 0) {
		return nil, err
	}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if name, _, ok := strings.Cut(string(trimmed), ":"); trimmed[0] == '{' || trimmed[0] == '[' || !ok || strings.ContainsAny(name, " \t\"{") {
		// JSON, or a line that is no header: Read answers a parse error.
		return append([]byte(nil), trimmed...), nil
	}
	if len(trimmed) > maxHeaderLine {
		return nil, fmt.Errorf("header line longer than %d bytes", maxHeaderLine)
	}
	// A header block: Name: value lines up to an empty line.
	length := -1
	for n := 0; ; n++ {
		if n == maxHeaders {
			return nil, fmt.Errorf("more than %d header lines", maxHeaders)
		}
		name, value, ok := strings.Cut(string(trimmed), ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, perr := strconv.Atoi(strings.TrimSpace(value))
			if perr != nil || n < 0 || n > maxMessage {
				return nil, fmt.Errorf("bad Content-Length %q", strings.TrimSpace(value))
			}
			length = n
		} else if !ok {
			return nil, fmt.Errorf("unexpected input %q", trimmed)
		}
		l, err := c.readLine(maxHeaderLine)
		if err != nil {
			return nil, fmt.Errorf("header: %w", err)
		}
		if trimmed = bytes.TrimSpace(l); len(trimmed) == 0 {
			break
		}
	}
	if length < 0 {
		return nil, errors.New("header block without Content-Length")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// Write writes msg as one line. A response to initialize gets an explicit
// capabilities.tools.listChanged:false, which the SDK omits (omitempty).
func (c *conn) Write(_ context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && bytes.Contains(r.Result, []byte(`"serverInfo"`)) {
		r.Result = withListChanged(r.Result)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeRaw(data)
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.done(r.ID)
	}
	return err
}

func (c *conn) writeRaw(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// defaultRevision is the MCP revision the ledger's contract names
// (T-4: "protocol revision 2024-11-05"). A client that does not say which
// revision it speaks gets this one, not the SDK's newest.
const defaultRevision = "2024-11-05"

// withDefaultRevision sets protocolVersion in initialize's params where
// it is absent or empty; params it cannot read are left to the SDK.
func withDefaultRevision(params json.RawMessage) json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(params) > 0 && string(params) != "null" && json.Unmarshal(params, &m) != nil {
		return params
	}
	var v string
	if json.Unmarshal(m["protocolVersion"], &v) == nil && v != "" {
		return params
	}
	m["protocolVersion"], _ = json.Marshal(defaultRevision)
	out, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return out
}

// withListChanged sets capabilities.tools.listChanged to false in an
// initialize result where it is absent.
func withListChanged(result json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(result, &m) != nil {
		return result
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(m["capabilities"], &caps) != nil || caps["tools"] == nil {
		return result
	}
	var tools map[string]any
	if json.Unmarshal(caps["tools"], &tools) != nil {
		return result
	}
	if _, ok := tools["listChanged"]; ok {
		return result
	}
	tools["listChanged"] = false
	caps["tools"], _ = json.Marshal(tools)
	m["capabilities"], _ = json.Marshal(caps)
	out, err := json.Marshal(m)
	if err != nil {
		return result
	}
	return out
}
