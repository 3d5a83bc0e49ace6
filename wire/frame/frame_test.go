package frame

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var allTypes = []struct {
	t    Type
	code byte
	name string
}{
	{Input, 0x01, "INPUT"},
	{Subscribe, 0x02, "SUBSCRIBE"},
	{Status, 0x03, "STATUS"},
	{Resize, 0x04, "RESIZE"},
	{Kill, 0x05, "KILL"},
	{Output, 0x81, "OUTPUT"},
	{StatusResp, 0x82, "STATUS_RESP"},
	{Exit, 0x83, "EXIT"},
}

func TestTypeValuesAndNames(t *testing.T) {
	for _, c := range allTypes {
		if byte(c.t) != c.code {
			t.Errorf("%s = 0x%02x, want 0x%02x", c.name, byte(c.t), c.code)
		}
		if got := c.t.String(); got != c.name {
			t.Errorf("Type(0x%02x).String() = %q, want %q", c.code, got, c.name)
		}
		if !c.t.Known() {
			t.Errorf("%s.Known() = false", c.name)
		}
	}
	if got := Type(0x7f).String(); got != "Type(0x7f)" {
		t.Errorf("Type(0x7f).String() = %q", got)
	}
	if got := Type(0x00).String(); got != "Type(0x00)" {
		t.Errorf("Type(0x00).String() = %q", got)
	}
	known := 0
	for i := 0; i < 256; i++ {
		if Type(i).Known() {
			known++
		}
	}
	if known != 8 {
		t.Errorf("%d types are Known, want 8", known)
	}
	for _, u := range []Type{0x00, 0x06, 0x7f, 0x80, 0x84, 0xff} {
		if u.Known() {
			t.Errorf("%s.Known() = true", u)
		}
	}
}

func TestHeaderLayout(t *testing.T) {
	h := Header(Output, 0x01020304)
	want := [HeaderSize]byte{0x81, 0x01, 0x02, 0x03, 0x04}
	if h != want {
		t.Fatalf("Header = % x, want % x", h, want)
	}
	got := AppendFrame([]byte{0xAA}, Exit, []byte{9, 8})
	if want := []byte{0xAA, 0x83, 0, 0, 0, 2, 9, 8}; !bytes.Equal(got, want) {
		t.Fatalf("AppendFrame = % x, want % x", got, want)
	}
	var buf bytes.Buffer
	if err := Write(&buf, Status, nil); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0x03, 0, 0, 0, 0}; !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("Write(STATUS) = % x, want % x", buf.Bytes(), want)
	}
}

// countingWriter records each Write call so we can check that a frame goes
// out in exactly one call.
type countingWriter struct {
	bytes.Buffer
	calls int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.calls++
	return w.Buffer.Write(p)
}

func TestWriteSingleCall(t *testing.T) {
	var w countingWriter
	if err := Write(&w, Output, bytes.Repeat([]byte{'x'}, 4096)); err != nil {
		t.Fatal(err)
	}
	if w.calls != 1 {
		t.Fatalf("Write made %d Write calls, want 1", w.calls)
	}
	if w.Len() != HeaderSize+4096 {
		t.Fatalf("wrote %d bytes, want %d", w.Len(), HeaderSize+4096)
	}
}

func TestRoundTripAllTypes(t *testing.T) {
	max := bytes.Repeat([]byte{0x5a}, MaxPayload)
	max[0], max[MaxPayload-1] = 0x01, 0xfe
	payloads := [][]byte{nil, {}, {0x00}, []byte("hello, world"), max}

	type want struct {
		t Type
		p []byte
	}
	var stream []byte
	var wants []want
	var viaWrite bytes.Buffer
	for _, c := range allTypes {
		for _, p := range payloads {
			stream = AppendFrame(stream, c.t, p)
			if err := Write(&viaWrite, c.t, p); err != nil {
				t.Fatal(err)
			}
			wants = append(wants, want{c.t, p})
		}
	}
	if !bytes.Equal(stream, viaWrite.Bytes()) {
		t.Fatal("Write and AppendFrame encode differently")
	}

	for name, src := range map[string]io.Reader{
		"bytes":     bytes.NewReader(stream),
		"one-byte":  &oneByteReader{stream},
		"via-write": &viaWrite,
	} {
		t.Run(name, func(t *testing.T) {
			r := NewReader(src)
			for i, w := range wants {
				f, err := r.Next()
				if err != nil {
					t.Fatalf("frame %d (%s, %d bytes): %v", i, w.t, len(w.p), err)
				}
				if f.Type != w.t {
					t.Fatalf("frame %d: type %s, want %s", i, f.Type, w.t)
				}
				if len(f.Payload) != len(w.p) || !bytes.Equal(f.Payload, w.p) {
					t.Fatalf("frame %d (%s): payload of %d bytes differs from the %d sent", i, w.t, len(f.Payload), len(w.p))
				}
			}
			if f, err := r.Next(); err != io.EOF {
				t.Fatalf("after last frame: %v, %v; want io.EOF", f, err)
			}
		})
	}
}

// oneByteReader returns at most one byte per Read, exercising short reads.
type oneByteReader struct{ b []byte }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.b[0]
	r.b = r.b[1:]
	return 1, nil
}

func TestPayloadIsOwnedByCaller(t *testing.T) {
	var stream []byte
	stream = AppendFrame(stream, Output, []byte("first"))
	stream = AppendFrame(stream, Output, []byte("second"))
	r := NewReader(bytes.NewReader(stream))
	f1, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if string(f1.Payload) != "first" {
		t.Fatalf("first payload changed to %q after the next read", f1.Payload)
	}
}

// trackingReader reports how many bytes were read from it.
type trackingReader struct {
	r io.Reader
	n int
}

func (t *trackingReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.n += n
	return n, err
}

func TestOversize(t *testing.T) {
	hdr := Header(Input, MaxPayload+1)
	// The payload is never sent: a reader that tried to read it would get
	// io.ErrUnexpectedEOF instead of *OversizeError.
	r := NewReader(bytes.NewReader(hdr[:]))
	_, err := r.Next()
	var oe *OversizeError
	if !errors.As(err, &oe) {
		t.Fatalf("Next = %v, want *OversizeError", err)
	}
	if oe.Type != Input || oe.Length != MaxPayload+1 || oe.Max != MaxPayload {
		t.Fatalf("OversizeError = %+v", *oe)
	}
	if msg := oe.Error(); msg != "frame: INPUT payload of 1048577 bytes exceeds limit of 1048576" {
		t.Fatalf("Error() = %q", msg)
	}

	// With a payload actually following, the reader must not consume it:
	// the bytes after the header are still there for whoever looks next.
	var stream []byte
	big := Header(Output, 0xFFFFFFFF)
	stream = append(stream, big[:]...)
	stream = append(stream, bytes.Repeat([]byte{0xEE}, 200<<10)...)
	tr := &trackingReader{r: bytes.NewReader(stream)}
	r = NewReader(tr)
	if _, err := r.Next(); !errors.As(err, &oe) {
		t.Fatalf("Next = %v, want *OversizeError", err)
	}
	if oe.Length != 0xFFFFFFFF {
		t.Fatalf("Length = %d", oe.Length)
	}
	// The reader buffers at most 64 KiB; it must not have gone on to drain
	// the 200 KiB body.
	if tr.n > 64<<10 {
		t.Fatalf("reader consumed %d bytes of an oversize frame", tr.n)
	}
}

func TestSetMaxPayload(t *testing.T) {
	var stream []byte
	stream = AppendFrame(stream, Output, make([]byte, 16))
	stream = AppendFrame(stream, Output, make([]byte, 17))
	r := NewReader(bytes.NewReader(stream))
	r.SetMaxPayload(16)
	if f, err := r.Next(); err != nil || len(f.Payload) != 16 {
		t.Fatalf("frame at the limit: %d bytes, %v", len(f.Payload), err)
	}
	var oe *OversizeError
	if _, err := r.Next(); !errors.As(err, &oe) || oe.Max != 16 || oe.Length != 17 {
		t.Fatalf("frame over the limit: %v", err)
	}
}

func TestTruncation(t *testing.T) {
	full := AppendFrame(nil, Output, []byte("0123456789"))
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty stream", nil, io.EOF},
		{"1 header byte", full[:1], io.ErrUnexpectedEOF},
		{"4 header bytes", full[:4], io.ErrUnexpectedEOF},
		{"header only", full[:HeaderSize], io.ErrUnexpectedEOF},
		{"half payload", full[:HeaderSize+5], io.ErrUnexpectedEOF},
		{"one byte short", full[:len(full)-1], io.ErrUnexpectedEOF},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(bytes.NewReader(c.in))
			f, err := r.Next()
			if err != c.want {
				t.Fatalf("Next = %v, %v; want %v", f, err, c.want)
			}
			if f.Payload != nil {
				t.Fatalf("payload returned with error: %q", f.Payload)
			}
		})
	}
	// A clean EOF after a complete frame.
	r := NewReader(bytes.NewReader(full))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after complete frame: %v, want io.EOF", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestReadErrorPassesThrough(t *testing.T) {
	boom := errors.New("boom")
	if _, err := NewReader(errReader{boom}).Next(); !errors.Is(err, boom) {
		t.Fatalf("Next = %v, want %v", err, boom)
	}
}

func TestReadMode(t *testing.T) {
	if err := ReadMode(bytes.NewReader([]byte{0x00})); err != nil {
		t.Fatalf("ReadMode(0x00) = %v", err)
	}
	r := bytes.NewReader([]byte{0x00, 0x81})
	if err := ReadMode(r); err != nil {
		t.Fatal(err)
	}
	if r.Len() != 1 {
		t.Fatalf("ReadMode consumed %d bytes, want 1", 2-r.Len())
	}
	for _, b := range []byte{ModeText, 0x02, 0xff} {
		err := ReadMode(bytes.NewReader([]byte{b}))
		if !errors.Is(err, ErrBadMode) {
			t.Fatalf("ReadMode(0x%02x) = %v, want ErrBadMode", b, err)
		}
	}
	if err := ReadMode(bytes.NewReader(nil)); !errors.Is(err, io.EOF) || errors.Is(err, ErrBadMode) {
		t.Fatalf("ReadMode(empty) = %v, want wrapped io.EOF", err)
	}
}

func TestStatusMarshalLayout(t *testing.T) {
	s := StatusInfo{
		PID:     0x01020304,
		IdleMS:  0x05060708,
		Alive:   true,
		State:   StateToolUse,
		StateMS: 0x0A0B0C0D,
	}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0x01, 0x02, 0x03, 0x04, // 0  pid
		0x05, 0x06, 0x07, 0x08, // 4  idle_ms
		0x01,                   // 8  alive
		0x03,                   // 9  state
		0x0A, 0x0B, 0x0C, 0x0D, // 10 state_ms
		0x00, // 14 reserved
	}
	if len(b) != 15 || StatusSize != 15 {
		t.Fatalf("len = %d (StatusSize %d), want 15", len(b), StatusSize)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("MarshalBinary =\n% x\nwant\n% x", b, want)
	}

	dead := StatusInfo{PID: 7, State: StateDead}
	b, _ = dead.MarshalBinary()
	if b[8] != 0 || b[9] != 0xFF || b[14] != 0 {
		t.Fatalf("dead status bytes % x", b)
	}

	var got StatusInfo
	if err := got.UnmarshalBinary(want); err != nil {
		t.Fatal(err)
	}
	if got != s {
		t.Fatalf("UnmarshalBinary = %+v, want %+v", got, s)
	}
	// Any non-zero alive byte means alive; the reserved byte is ignored.
	odd := append([]byte(nil), want...)
	odd[8], odd[14] = 0x7f, 0xAB
	if err := got.UnmarshalBinary(odd); err != nil || !got.Alive || got != s {
		t.Fatalf("UnmarshalBinary(odd) = %+v, %v", got, err)
	}
}

func TestStatusUnmarshalLength(t *testing.T) {
	for _, n := range []int{0, 1, 14, 16, 30} {
		s := StatusInfo{PID: 42}
		if err := s.UnmarshalBinary(make([]byte, n)); err == nil {
			t.Errorf("UnmarshalBinary(%d bytes) succeeded", n)
		}
		if s.PID != 42 {
			t.Errorf("UnmarshalBinary(%d bytes) modified the receiver", n)
		}
	}
}

func TestStateString(t *testing.T) {
	cases := map[State]string{
		0x00: "Idle", 0x01: "Thinking", 0x02: "Streaming", 0x03: "ToolUse",
		0x04: "Active", 0xFF: "Dead", 0x05: "State(0x05)", 0x80: "State(0x80)",
	}
	for s, want := range cases {
		if got := s.String(); got != want {
			t.Errorf("State(0x%02x).String() = %q, want %q", uint8(s), got, want)
		}
	}
	if StateIdle != 0 || StateThinking != 1 || StateStreaming != 2 ||
		StateToolUse != 3 || StateActive != 4 || StateDead != 0xFF {
		t.Error("state byte values differ from the protocol")
	}
}

func TestResizePayload(t *testing.T) {
	b := ResizePayload(0x0102, 0x0304)
	if want := []byte{0x01, 0x02, 0x03, 0x04}; !bytes.Equal(b, want) {
		t.Fatalf("ResizePayload = % x, want % x", b, want)
	}
	for _, c := range [][2]uint16{{80, 24}, {0, 0}, {65535, 65535}, {300, 1}} {
		cols, rows, err := ParseResize(ResizePayload(c[0], c[1]))
		if err != nil || cols != c[0] || rows != c[1] {
			t.Fatalf("ParseResize(ResizePayload(%d,%d)) = %d, %d, %v", c[0], c[1], cols, rows, err)
		}
	}
	for _, n := range []int{0, 3, 5, 8} {
		if _, _, err := ParseResize(make([]byte, n)); err == nil {
			t.Errorf("ParseResize(%d bytes) succeeded", n)
		}
	}
}

func TestExitPayload(t *testing.T) {
	cases := []struct {
		code int32
		wire []byte
	}{
		{0, []byte{0, 0, 0, 0}},
		{1, []byte{0, 0, 0, 1}},
		{128 + 15, []byte{0, 0, 0, 143}},
		{-1, []byte{0xff, 0xff, 0xff, 0xff}},
		{-2, []byte{0xff, 0xff, 0xff, 0xfe}},
		{-2147483648, []byte{0x80, 0, 0, 0}},
		{2147483647, []byte{0x7f, 0xff, 0xff, 0xff}},
	}
	for _, c := range cases {
		b := ExitPayload(c.code)
		if !bytes.Equal(b, c.wire) {
			t.Errorf("ExitPayload(%d) = % x, want % x", c.code, b, c.wire)
		}
		got, err := ParseExit(c.wire)
		if err != nil || got != c.code {
			t.Errorf("ParseExit(% x) = %d, %v; want %d", c.wire, got, err, c.code)
		}
	}
	for _, n := range []int{0, 3, 5} {
		if _, err := ParseExit(make([]byte, n)); err == nil {
			t.Errorf("ParseExit(%d bytes) succeeded", n)
		}
	}
}

// fakeServer accepts one connection on l, writes mode, and answers every
// STATUS with an OUTPUT frame (which Client.Status must skip) followed by a
// STATUS_RESP for st. Other frame types are recorded on got.
func fakeServer(t *testing.T, l net.Listener, mode byte, st StatusInfo, got chan<- Frame) {
	t.Helper()
	go func() {
		defer close(got)
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if _, err := c.Write([]byte{mode}); err != nil {
			return
		}
		r := NewReader(c)
		for {
			f, err := r.Next()
			if err != nil {
				return
			}
			got <- f
			if f.Type != Status {
				continue
			}
			b, _ := st.MarshalBinary()
			if Write(c, Output, []byte("noise")) != nil || Write(c, StatusResp, b) != nil {
				return
			}
		}
	}()
}

func listenUnix(t *testing.T) (net.Listener, string) {
	t.Helper()
	// t.TempDir paths can exceed the 108-byte sun_path limit.
	dir, err := os.MkdirTemp("", "hf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

func TestClientStatus(t *testing.T) {
	l, path := listenUnix(t)
	want := StatusInfo{PID: 4242, IdleMS: 1500, Alive: true, State: StateStreaming, StateMS: 99}
	got := make(chan Frame, 16)
	fakeServer(t, l, ModeBinary, want, got)

	c, err := Dial(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Conn().SetDeadline(time.Now().Add(10 * time.Second))

	for i := 0; i < 2; i++ {
		st, err := c.Status()
		if err != nil {
			t.Fatalf("Status #%d: %v", i, err)
		}
		if st != want {
			t.Fatalf("Status #%d = %+v, want %+v", i, st, want)
		}
	}
	if err := c.Resize(132, 43); err != nil {
		t.Fatal(err)
	}
	if err := c.Input([]byte("ls\r")); err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe(); err != nil {
		t.Fatal(err)
	}
	c.Close()

	var frames []Frame
	for f := range got {
		frames = append(frames, f)
	}
	wantTypes := []Type{Status, Status, Resize, Input, Kill, Subscribe}
	if len(frames) != len(wantTypes) {
		t.Fatalf("server saw %d frames, want %d: %v", len(frames), len(wantTypes), frames)
	}
	for i, wt := range wantTypes {
		if frames[i].Type != wt {
			t.Errorf("frame %d: %s, want %s", i, frames[i].Type, wt)
		}
	}
	if cols, rows, err := ParseResize(frames[2].Payload); err != nil || cols != 132 || rows != 43 {
		t.Errorf("RESIZE payload %d×%d, %v", cols, rows, err)
	}
	if string(frames[3].Payload) != "ls\r" {
		t.Errorf("INPUT payload %q", frames[3].Payload)
	}
	for _, i := range []int{0, 1, 4, 5} {
		if len(frames[i].Payload) != 0 {
			t.Errorf("%s carried a %d-byte payload", frames[i].Type, len(frames[i].Payload))
		}
	}
}

func TestClientBadMode(t *testing.T) {
	l, path := listenUnix(t)
	got := make(chan Frame, 1)
	fakeServer(t, l, ModeText, StatusInfo{}, got)
	c, err := Dial(path, 5*time.Second)
	if err == nil {
		c.Close()
		t.Fatal("Dial accepted mode 0x01")
	}
	if !errors.Is(err, ErrBadMode) {
		t.Fatalf("Dial = %v, want ErrBadMode", err)
	}
}

func TestClientModeTimeout(t *testing.T) {
	l, path := listenUnix(t)
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			accepted <- c // never writes the mode byte
		}
	}()
	start := time.Now()
	_, err := Dial(path, 100*time.Millisecond)
	if err == nil {
		t.Fatal("Dial succeeded without a mode byte")
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Dial = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Dial took %v", d)
	}
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(time.Second):
	}
}

// A client keeps the 1 MiB limit: a server (or a foreign process on the
// socket) announcing a huge frame gets *OversizeError instead of making the
// client allocate the announced size.
func TestClientRefusesOversize(t *testing.T) {
	l, path := listenUnix(t)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		h := Header(Output, 1<<30)
		c.Write(append([]byte{ModeBinary}, h[:]...))
		io.Copy(io.Discard, c)
	}()
	c, err := Dial(path, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Conn().SetDeadline(time.Now().Add(10 * time.Second))
	var oe *OversizeError
	if _, err := c.Next(); !errors.As(err, &oe) || oe.Max != MaxPayload {
		t.Fatalf("Next = %v, want *OversizeError with Max %d", err, MaxPayload)
	}
}

func TestClientOverPipe(t *testing.T) {
	cs, ss := net.Pipe()
	defer ss.Close()
	want := StatusInfo{PID: 1, Alive: false, State: StateDead, StateMS: 5}
	go func() {
		ss.Write([]byte{ModeBinary})
		r := NewReader(ss)
		f, err := r.Next()
		if err != nil || f.Type != Status {
			ss.Close()
			return
		}
		b, _ := want.MarshalBinary()
		Write(ss, StatusResp, b)
	}()
	if err := ReadMode(cs); err != nil {
		t.Fatal(err)
	}
	c := &Client{conn: cs, r: NewReader(cs)}
	defer c.Close()
	cs.SetDeadline(time.Now().Add(10 * time.Second))
	st, err := c.Status()
	if err != nil || st != want {
		t.Fatalf("Status = %+v, %v; want %+v", st, err, want)
	}
}

func TestClientStatusBadReply(t *testing.T) {
	cs, ss := net.Pipe()
	defer ss.Close()
	go func() {
		NewReader(ss).Next()
		Write(ss, StatusResp, make([]byte, 14))
	}()
	c := &Client{conn: cs, r: NewReader(cs)}
	defer c.Close()
	cs.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Status(); err == nil {
		t.Fatal("Status accepted a 14-byte STATUS_RESP")
	}
}

// ---- fuzzing ----

const fuzzMax = 4096

func FuzzReader(f *testing.F) {
	st, _ := StatusInfo{PID: 99, Alive: true, State: StateThinking}.MarshalBinary()
	seeds := [][]byte{
		nil,
		{0x03, 0, 0, 0, 0},
		AppendFrame(nil, Output, []byte("hello")),
		AppendFrame(AppendFrame(nil, StatusResp, st), Exit, ExitPayload(-1)),
		AppendFrame(AppendFrame(nil, Resize, ResizePayload(80, 24)), Kill, nil),
		AppendFrame(nil, Input, make([]byte, fuzzMax)),       // exactly at the limit
		AppendFrame(nil, Output, make([]byte, fuzzMax+1)),    // one over
		{0x81, 0xff, 0xff, 0xff, 0xff},                       // huge length
		{0x81, 0, 0, 0},                                      // truncated header
		{0x81, 0, 0, 0, 9, 'a', 'b'},                         // truncated payload
		{0x7f, 0, 0, 0, 1, 0},                                // unknown type
		append(AppendFrame(nil, Subscribe, nil), 0x02, 0x00), // trailing partial
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in))
		r.SetMaxPayload(fuzzMax)
		var re []byte
		for {
			fr, err := r.Next()
			if err != nil {
				var oe *OversizeError
				switch {
				case err == io.EOF:
					if !bytes.Equal(re, in) {
						t.Fatalf("clean EOF but re-encoding (%d bytes) != input (%d bytes)", len(re), len(in))
					}
				case err == io.ErrUnexpectedEOF:
					rest := len(in) - len(re)
					if !bytes.Equal(re, in[:len(re)]) || rest <= 0 {
						t.Fatalf("ErrUnexpectedEOF with %d unconsumed bytes", rest)
					}
					if rest >= HeaderSize {
						n := binary.BigEndian.Uint32(in[len(re)+1:])
						if uint64(rest-HeaderSize) >= uint64(n) {
							t.Fatalf("ErrUnexpectedEOF but the frame (%d bytes) was complete", n)
						}
					}
				case errors.As(err, &oe):
					if oe.Length <= fuzzMax || oe.Max != fuzzMax {
						t.Fatalf("bad OversizeError %+v", *oe)
					}
					h := Header(oe.Type, int(oe.Length))
					if !bytes.Equal(append(re, h[:]...), in[:min(len(in), len(re)+HeaderSize)]) {
						t.Fatalf("OversizeError does not describe the next header")
					}
				default:
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(fr.Payload) > fuzzMax {
				t.Fatalf("payload of %d bytes exceeds limit %d", len(fr.Payload), fuzzMax)
			}
			re = AppendFrame(re, fr.Type, fr.Payload)
			if len(re) > len(in) || !bytes.Equal(re, in[:len(re)]) {
				t.Fatalf("re-encoded frames differ from the consumed input")
			}
		}
	})
}

func FuzzStatus(f *testing.F) {
	b, _ := StatusInfo{PID: 0x01020304, IdleMS: 5, Alive: true, State: StateDead, StateMS: 7}.MarshalBinary()
	f.Add(b)
	f.Add(make([]byte, StatusSize))
	f.Add(bytes.Repeat([]byte{0xff}, StatusSize))
	f.Add(make([]byte, 14))
	f.Add(make([]byte, 16))
	f.Fuzz(func(t *testing.T, in []byte) {
		var s StatusInfo
		err := s.UnmarshalBinary(in)
		if len(in) != StatusSize {
			if err == nil {
				t.Fatalf("accepted %d bytes", len(in))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		// Re-encoding normalises alive to 0/1 and zeroes the reserved byte;
		// every other byte must come back unchanged.
		want := append([]byte(nil), in...)
		if want[8] != 0 {
			want[8] = 1
		}
		want[14] = 0
		if !bytes.Equal(out, want) {
			t.Fatalf("Marshal(Unmarshal(% x)) = % x, want % x", in, out, want)
		}
		var s2 StatusInfo
		if err := s2.UnmarshalBinary(out); err != nil || s2 != s {
			t.Fatalf("second round trip %+v, %v; want %+v", s2, err, s)
		}
	})
}

// ---- benchmarks ----

func BenchmarkWriteRead(b *testing.B) {
	payload := bytes.Repeat([]byte("x"), 4096)
	var buf bytes.Buffer
	r := NewReader(&buf)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(&buf, Output, payload); err != nil {
			b.Fatal(err)
		}
		f, err := r.Next()
		if err != nil {
			b.Fatal(err)
		}
		if len(f.Payload) != len(payload) {
			b.Fatal("short payload")
		}
	}
}

func BenchmarkStatusMarshal(b *testing.B) {
	s := StatusInfo{PID: 1, IdleMS: 2, Alive: true, State: StateActive, StateMS: 3}
	b.ReportAllocs()
	for b.Loop() {
		p, _ := s.MarshalBinary()
		if err := s.UnmarshalBinary(p); err != nil {
			b.Fatal(err)
		}
	}
}

// TestProtocolExample keeps the hex dumps in PROTOCOL.md honest.
func TestProtocolExample(t *testing.T) {
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := AppendFrame(nil, Status, nil); !bytes.Equal(got, unhex("03 00 00 00 00")) {
		t.Errorf("STATUS = % x", got)
	}
	st, _ := StatusInfo{PID: 4242, IdleMS: 1500, Alive: true, State: StateStreaming, StateMS: 99}.MarshalBinary()
	want := unhex("82 00 00 00 0f  00 00 10 92  00 00 05 dc  01  02  00 00 00 63  00")
	if got := AppendFrame(nil, StatusResp, st); !bytes.Equal(got, want) {
		t.Errorf("STATUS_RESP = % x\nwant          % x", got, want)
	}
	if got := AppendFrame(nil, Resize, ResizePayload(80, 24)); !bytes.Equal(got, unhex("04 00 00 00 04 00 50 00 18")) {
		t.Errorf("RESIZE = % x", got)
	}
	if got := AppendFrame(nil, Exit, ExitPayload(128+15)); !bytes.Equal(got, unhex("83 00 00 00 04 00 00 00 8f")) {
		t.Errorf("EXIT = % x", got)
	}
}

// NextShared returns the same frames as Next, reusing one payload buffer.
func TestNextShared(t *testing.T) {
	var buf bytes.Buffer
	Write(&buf, Output, []byte("first"))
	Write(&buf, Status, nil)
	Write(&buf, Output, bytes.Repeat([]byte("y"), 40<<10)) // larger than the initial buffer
	Write(&buf, Output, []byte("last"))
	r := NewReader(&buf)
	f1, err := r.NextShared()
	if err != nil || f1.Type != Output || string(f1.Payload) != "first" {
		t.Fatalf("frame 1: %v %q %v", f1.Type, f1.Payload, err)
	}
	if f, err := r.NextShared(); err != nil || f.Type != Status || f.Payload != nil {
		t.Fatalf("frame 2: %v %q %v", f.Type, f.Payload, err)
	}
	if f, err := r.NextShared(); err != nil || len(f.Payload) != 40<<10 || f.Payload[0] != 'y' {
		t.Fatalf("frame 3: %v len %d %v", f.Type, len(f.Payload), err)
	}
	f4, err := r.NextShared()
	if err != nil || string(f4.Payload) != "last" {
		t.Fatalf("frame 4: %q %v", f4.Payload, err)
	}
	if _, err := r.NextShared(); err != io.EOF {
		t.Fatalf("end: %v, want io.EOF", err)
	}

	// Steady state costs no allocation: that is what NextShared is for.
	var stream bytes.Buffer
	for i := 0; i < 200; i++ {
		Write(&stream, Output, bytes.Repeat([]byte("z"), 4000))
	}
	r = NewReader(bytes.NewReader(stream.Bytes()))
	r.NextShared() // first call allocates the buffer
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := r.NextShared(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("NextShared allocates %.1f times per frame", allocs)
	}
}

// The extensions: names and values, not counted among the protocol's
// types; SCREEN_RESP's JSON payload round-trips.
func TestExtensions(t *testing.T) {
	if Screen.String() != "SCREEN" || ScreenResp.String() != "SCREEN_RESP" || Attach.String() != "ATTACH" ||
		SubscribeScreen.String() != "SUBSCRIBE_SCREEN" {
		t.Fatalf("names %q %q %q %q", Screen, ScreenResp, Attach, SubscribeScreen)
	}
	for _, x := range []Type{Screen, ScreenResp, Attach, SubscribeScreen} {
		if x.Known() || !x.Extension() {
			t.Fatalf("%s: extension types must not count as protocol types", x)
		}
	}
	if Input.Extension() || byte(SubscribeScreen) != 0x43 {
		t.Fatal("protocol types are not extensions; SUBSCRIBE_SCREEN is 0x43")
	}
	in := ScreenInfo{Cols: 80, Rows: 24, CursorX: 3, CursorY: 4, CursorVisible: true, Title: "✳ t", NeedsInput: true, Screen: "a\nb"}
	b, err := in.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out ScreenInfo
	if err := out.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip: %+v %v", out, err)
	}
	if err := out.UnmarshalBinary([]byte("{")); err == nil {
		t.Fatal("bad JSON accepted")
	}
}

// PAINT's header: its layout on the wire, the round trip, and a payload
// too short for it.
func TestPaintPayload(t *testing.T) {
	if WatchScreen.String() != "WATCH_SCREEN" || Paint.String() != "PAINT" || byte(WatchScreen) != 0x48 || byte(Paint) != 0xC8 {
		t.Fatalf("names and values: %s %#x %s %#x", WatchScreen, byte(WatchScreen), Paint, byte(Paint))
	}
	h := PaintHeader{Cols: 0x0102, Rows: 0x0304, More: true, Seq: 0x05060708090a0b0c}
	b := AppendPaint([]byte("x"), h, []byte("\x1bcab"))
	want := []byte{'x', 1, 2, 3, 4, 1, 5, 6, 7, 8, 9, 10, 11, 12, 0x1b, 'c', 'a', 'b'}
	if !bytes.Equal(b, want) {
		t.Fatalf("AppendPaint = % x, want % x", b, want)
	}
	got, rest, err := ParsePaint(b[1:])
	if err != nil || got != h || string(rest) != "\x1bcab" {
		t.Fatalf("ParsePaint = %+v %q %v", got, rest, err)
	}
	last, rest, err := ParsePaint(AppendPaint(nil, PaintHeader{Cols: 80, Rows: 24}, nil))
	if err != nil || last.More || last.Cols != 80 || len(rest) != 0 {
		t.Fatalf("ParsePaint of the last piece = %+v %q %v", last, rest, err)
	}
	if _, _, err := ParsePaint(make([]byte, PaintHeaderLen-1)); err == nil {
		t.Fatal("a payload shorter than the header parsed")
	}
}

// ParsePaint takes any payload of at least PaintHeaderLen bytes and refuses
// shorter ones; re-encoding what it returns gives the payload back, with
// the flags it does not know cleared.
func FuzzParsePaint(f *testing.F) {
	f.Add(AppendPaint(nil, PaintHeader{Cols: 80, Rows: 24, More: true, Seq: 7}, []byte("\x1bchi")))
	f.Add(AppendPaint(nil, PaintHeader{Cols: 0xffff, Rows: 0xffff, Seq: math.MaxUint64}, nil))
	f.Add(bytes.Repeat([]byte{0xff}, PaintHeaderLen+3)) // unknown flags
	f.Add(make([]byte, PaintHeaderLen-1))
	f.Fuzz(func(t *testing.T, in []byte) {
		h, rest, err := ParsePaint(in)
		if len(in) < PaintHeaderLen {
			if err == nil {
				t.Fatalf("accepted %d bytes", len(in))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(rest) != len(in)-PaintHeaderLen || len(rest) > 0 && &rest[0] != &in[PaintHeaderLen] {
			t.Fatal("the repaint is not the rest of the payload")
		}
		want := bytes.Clone(in)
		want[4] &= 1
		if got := AppendPaint(nil, h, rest); !bytes.Equal(got, want) {
			t.Fatalf("re-encoded % x, want % x", got, want)
		}
	})
}
