package webterm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/wire/wsterm"
)

// info is the fleet's view of session id.
func info(t *testing.T, f Fleet, id string) session.Info {
	t.Helper()
	for _, in := range f.Sessions() {
		if in.ID == id {
			return in
		}
	}
	t.Fatalf("no session %q in the fleet", id)
	return session.Info{}
}

// A browser starts a session: it is the fleet's (the dashboard lists it),
// 80×24 until resized, its first output is the screen (no snapshot), it
// gets typed input, and its exit code reaches the client.
func TestStartTypeExit(t *testing.T) {
	f := newFleet(t)
	_, hs := testServer(t, Options{Fleet: f})
	id := "3f1c2a9e-1111-4a4a-9b9b-000000000001"
	v := dial(t, hs, "/ws/"+id+"?assistant=custom", nil)
	first := v.next()
	if first.typ != websocket.MessageBinary || len(first.data) == 0 || first.data[0] == wsterm.MarkerChunk {
		t.Fatalf("first message of a new session: %v % x", first.typ, first.data)
	}
	st := v.status(nil)
	want := wsterm.Status{Type: "status", Viewers: 1, Cols: 80, Rows: 24, Assistant: "Custom", UUIDShort: "3f1c2", YoloSupported: false}
	if st != want {
		t.Fatalf("status %+v, want %+v", st, want)
	}
	in := info(t, f, id)
	if in.Agent != "custom" || in.Cols != 80 || in.Rows != 24 || !in.Alive || !slices.Equal(in.Argv, []string{"sh"}) {
		t.Fatalf("fleet's session %+v", in)
	}
	v.input("echo \"$TERM\" hi-$((6*7))\r")
	v.untilOutput("xterm-256color hi-42")
	v.input("exit 3\r")
	exit := v.untilJSON(wsterm.TypeExit, nil)
	if exit["exitCode"] != float64(3) {
		t.Fatalf("exit %v", exit)
	}
	// The viewer's connection closes after the exit (a viewer joining as
	// the session ends takes this path too).
	v.closedAfterExit()
	// Joining it now: the exit again, and the connection closes.
	w := dial(t, hs, "/ws/"+id, nil)
	if j := w.untilJSON(wsterm.TypeExit, nil); j["exitCode"] != float64(3) {
		t.Fatalf("exit on joining an ended session: %v", j)
	}
	w.closedAfterExit()
}

// closedAfterExit fails unless the server closes v's connection normally
// within 10 s (its exit has been read).
func (v *viewer) closedAfterExit() {
	v.t.Helper()
	select {
	case err := <-v.err:
		if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			v.t.Fatalf("ended session's connection: %v", err)
		}
	case <-time.After(10 * time.Second):
		v.t.Fatal("ended session's connection still open 10 s after its exit")
	}
}

// startSized starts session id (custom) from a viewer whose terminal is
// rows×cols, once the server says that is the size.
func startSized(t *testing.T, hs *httptest.Server, id string, rows, cols int) *viewer {
	t.Helper()
	v := dial(t, hs, "/ws/"+id+"?assistant=custom", nil)
	v.status(nil)
	v.resize(uint16(rows), uint16(cols))
	v.status(func(st wsterm.Status) bool { return st.Cols == cols && st.Rows == rows })
	return v
}

// Two viewers share a session: the second gets a snapshot, both get the
// viewer count, the pty takes the smallest size, input from either goes
// in, output and exit go to both.
func TestTwoViewers(t *testing.T) {
	f := newFleet(t)
	_, hs := testServer(t, Options{Fleet: f})
	id := "twoviewers-0001"
	a := startSized(t, hs, id, 30, 100)
	a.input("printf 'before-%s\\n' join\r")
	a.untilOutput("before-join")

	b := dial(t, hs, "/ws/"+id+"?assistant=ignored-when-joining", nil)
	first := b.next()
	if first.typ != websocket.MessageBinary || first.data[0] != wsterm.MarkerChunk {
		t.Fatalf("a joining viewer's first message is not a snapshot chunk: % x", first.data[:min(8, len(first.data))])
	}
	for b.snap == nil {
		b.next()
	}
	if !strings.HasPrefix(string(b.snap), "\x1bc") || !strings.Contains(string(b.snap), "before-join") {
		t.Fatalf("snapshot %q", b.snap)
	}
	if st := b.status(nil); st.Viewers != 2 || st.Cols != 100 || st.Rows != 30 {
		t.Fatalf("b's status %+v", st)
	}
	a.status(func(st wsterm.Status) bool { return st.Viewers == 2 })

	b.resize(20, 90)
	for _, v := range []*viewer{a, b} {
		v.status(func(st wsterm.Status) bool { return st.Cols == 90 && st.Rows == 20 && st.Viewers == 2 })
	}
	b.input("stty size\r")
	a.untilOutput("20 90")
	if in := info(t, f, id); in.Cols != 90 || in.Rows != 20 {
		t.Fatalf("pty size %dx%d, want the minimum 90x20", in.Cols, in.Rows)
	}
	a.resize(25, 120) // b's 90 columns and a's 25 rows
	a.input("stty size\r")
	b.untilOutput("20 90") // b typed it before: seen
	a.status(func(st wsterm.Status) bool { return st.Cols == 90 && st.Rows == 20 })

	b.c.Close(websocket.StatusNormalClosure, "bye")
	a.status(func(st wsterm.Status) bool { return st.Viewers == 1 && st.Cols == 120 && st.Rows == 25 })
	a.input("stty size\r")
	a.untilOutput("25 120")

	c := dial(t, hs, "/ws/"+id, nil)
	c.status(func(st wsterm.Status) bool { return st.Viewers == 2 })
	a.input("exit 0\r")
	for _, v := range []*viewer{a, c} {
		if j := v.untilJSON(wsterm.TypeExit, nil); j["exitCode"] != float64(0) {
			t.Fatalf("exit %v", j)
		}
	}
}

// The pty is the minimum over the viewers even after something else
// resized it (the dashboard fits a session to its pane): the next viewer's
// resize puts it back, though the minimum is what this server set before.
func TestResizeAfterAnotherResize(t *testing.T) {
	f := newFleet(t)
	_, hs := testServer(t, Options{Fleet: f})
	id := "resize-again-0001"
	a := startSized(t, hs, id, 30, 100)
	size := func(cols, rows int) func() bool {
		return func() bool { in := info(t, f, id); return in.Cols == cols && in.Rows == rows }
	}
	proctest.WaitFor(t, "the pty at 100x30", wait, size(100, 30))
	if err := f.Resize(id, 150, 40); err != nil { // the dashboard, say
		t.Fatal(err)
	}
	proctest.WaitFor(t, "the pty at 150x40", wait, size(150, 40))

	b := dial(t, hs, "/ws/"+id, nil)
	b.status(func(st wsterm.Status) bool { return st.Viewers == 2 })
	b.resize(35, 120) // the minimum is still a's 100x30
	b.status(func(st wsterm.Status) bool { return st.Cols == 100 && st.Rows == 30 })
	b.input("stty size\r")
	b.untilOutput("30 100")
	proctest.WaitFor(t, "the pty back at 100x30", wait, size(100, 30))

	// The same after every viewer left and one comes back (a page
	// reconnecting) with the size it had.
	a.c.Close(websocket.StatusNormalClosure, "")
	b.c.Close(websocket.StatusNormalClosure, "")
	if err := f.Resize(id, 150, 40); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "the pty at 150x40 again", wait, size(150, 40))
	c := dial(t, hs, "/ws/"+id, nil)
	c.status(nil)
	c.resize(30, 100)
	c.input("clear; stty size\r")
	c.untilOutput("30 100")
}

// Frames too short to be a resize or an upload are keystrokes: a lone
// 0x00 (Ctrl-@), 0x01 (Ctrl-A) or 0x02 (Ctrl-B) reaches the pty.
func TestControlKeysAreInput(t *testing.T) {
	_, hs := testServer(t, Options{})
	v := dial(t, hs, "/ws/ctlkeys-0001?assistant=custom", nil)
	v.status(nil)
	v.input("stty -echo; od -An -tx1 -N4; stty echo\r")
	v.sync(1) // the command line went first; the pty keeps the rest for od
	for _, b := range []byte{0, 1, 2} {
		v.send(websocket.MessageBinary, []byte{b})
	}
	v.input("\n")
	v.untilOutput(" 00 01 02 0a")
}

// ping, chat, rename, bad JSON and unknown types.
func TestTextMessages(t *testing.T) {
	_, hs := testServer(t, Options{})
	id := "textmsgs-0001"
	a := dial(t, hs, "/ws/"+id+"?assistant=custom", nil)
	a.status(nil)
	b := dial(t, hs, "/ws/"+id, nil)
	b.status(func(st wsterm.Status) bool { return st.Viewers == 2 })
	a.status(func(st wsterm.Status) bool { return st.Viewers == 2 })

	a.sendText(`{"type":"ping","data":{"ts":1703318400000}}`)
	pong := a.untilJSON(wsterm.TypePong, nil)
	if d, _ := pong["data"].(map[string]any); d["ts"] != float64(1703318400000) {
		t.Fatalf("pong %v", pong)
	}
	a.sendText(`{"type":"ping"}`)
	if pong := a.untilJSON(wsterm.TypePong, nil); len(pong) != 1 {
		t.Fatalf("pong to a ping without data: %v", pong)
	}

	before := time.Now().UTC().Truncate(time.Second)
	a.sendText(`{"type":"chat","userName":"Alice","text":"Hello everyone!"}`)
	for _, v := range []*viewer{a, b} {
		j := v.untilJSON(wsterm.TypeChat, nil)
		ts, err := time.Parse(time.RFC3339, j["timestamp"].(string))
		if j["userName"] != "Alice" || j["text"] != "Hello everyone!" || err != nil || ts.Before(before) {
			t.Fatalf("chat %v (%v)", j, err)
		}
	}
	// Ignored, and the connection stays open: empty chat fields, bad
	// JSON, unknown types, invalid names.
	for i, bad := range []string{
		`{"type":"chat","userName":"","text":"x"}`, `{"type":"chat","userName":"Bob","text":""}`, `{"type":"chat"}`,
		`{not json`, `[1,2]`, `"ping"`, `{"type":"whatever","name":"x"}`, `{"type":5}`,
		`{"type":"rename_session","name":"` + strings.Repeat("x", 33) + `"}`,
		`{"type":"rename_session","name":"../etc"}`, `{"type":"rename_session","name":"<b>hi</b>"}`,
		`{"type":"toggle_yolo"}`, // custom has no YOLO mode
		`{"type":"chat","userName":"Bob","text":"` + strings.Repeat("x", textLimit) + `"}`,
	} {
		a.sendText(bad)
		if got := a.sync(i); len(got) > 0 {
			t.Fatalf("%s: answered with %v", bad, got)
		}
	}
	if got := b.sync(100); slices.Contains(got, wsterm.TypeChat) || slices.Contains(got, wsterm.TypeStatus) {
		t.Fatalf("b got %v for ignored messages", got)
	}

	a.sendText(`{"type":"rename_session","name":"  my-feature_2 "}`)
	for _, v := range []*viewer{a, b} {
		v.status(func(st wsterm.Status) bool { return st.SessionName == "my-feature_2" })
	}
	resp, err := http.Get(hs.URL + "/api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	var list ListJSON
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Sessions) != 1 || list.Sessions[0].Name != "my-feature_2" || list.Sessions[0].Viewers != 2 ||
		list.Sessions[0].Assistant != "Custom" || !list.Sessions[0].Alive || list.UploadLimit != DefaultUploadLimit {
		t.Fatalf("session list %+v", list)
	}
	if !slices.ContainsFunc(list.Assistants, func(a AssistantJSON) bool { return a.Key == "custom" && a.Name == "Custom" }) ||
		!slices.ContainsFunc(list.Assistants, func(a AssistantJSON) bool { return a.Key == "claude" && a.Name == "Claude" }) {
		t.Fatalf("assistants %+v", list.Assistants)
	}
	a.sendText(`{"type":"rename_session","name":""}`)
	b.status(func(st wsterm.Status) bool { return st.SessionName == "" })
}

// Uploads land under the session's directory, never outside it, whatever
// the name; the path is typed into the session; bad uploads get a reason.
func TestUpload(t *testing.T) {
	dir := t.TempDir()
	_, hs := testServer(t, Options{Dir: dir, UploadLimit: 1 << 20})
	id := "upload-0001"
	v := dial(t, hs, "/ws/"+id+"?assistant=custom", nil)
	v.status(nil)
	up := func(name string, data []byte) map[string]any {
		t.Helper()
		b, err := wsterm.AppendUpload(nil, name, data)
		if err != nil {
			t.Fatal(err)
		}
		v.send(websocket.MessageBinary, b)
		return v.untilJSON(wsterm.TypeFileUpload, nil)
	}
	uploads := filepath.Join(dir, UploadDir)
	j := up("notes.txt", []byte("hello upload"))
	if j["success"] != true || j["filename"] != "notes.txt" || j["error"] != nil {
		t.Fatalf("upload reply %v", j)
	}
	if b, err := os.ReadFile(filepath.Join(uploads, "notes.txt")); err != nil || string(b) != "hello upload" {
		t.Fatalf("saved %q %v", b, err)
	}
	v.untilOutput(filepath.Join(uploads, "notes.txt")) // typed into the pty (echoed)
	// A name with a space and parentheses is typed as one shell word.
	v.input("\x15cat ") // Ctrl-U: the line discipline drops the typed path
	if j := up("my notes (1).txt", []byte("spaced-upload-read")); j["filename"] != "my notes (1).txt" {
		t.Fatalf("a name with spaces: %v", j)
	}
	v.untilOutput(`my\ notes\ \(1\).txt`)
	v.input("\r")
	v.untilOutput("spaced-upload-read")
	if j := up("notes.txt", []byte("second")); j["filename"] != "notes-2.txt" {
		t.Fatalf("a second notes.txt: %v", j)
	}
	for _, c := range [][2]string{
		{"../../../etc/passwd", "passwd"},
		{"..", "upload"},
		{"/abs/path/x.bin", "x.bin"},
		{`..\..\windows\evil.txt`, "evil.txt"},
		{".hidden", "hidden"},
		{"a\x00b\x1b[31m.txt", "a_b__31m.txt"},
		{"", "upload-2"},
	} {
		name, want := c[0], c[1]
		j := up(name, []byte(name))
		if j["success"] != true || j["filename"] != want {
			t.Fatalf("%q: %v, want %s", name, j, want)
		}
		if _, err := os.Stat(filepath.Join(uploads, want)); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
	}
	// Nothing was written outside the upload directory.
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && !strings.HasPrefix(p, uploads+"/") {
			t.Errorf("written outside the uploads: %s", p)
		}
		return nil
	})
	if j := up("big.bin", make([]byte, 1<<20+1)); j["success"] != false || !strings.Contains(j["error"].(string), "too large") {
		t.Fatalf("oversize upload: %v", j)
	}
	if _, err := os.Stat(filepath.Join(uploads, "big.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("oversize upload saved: %v", err)
	}
	v.send(websocket.MessageBinary, []byte{1, 0, 50, 'x'}) // name past the end
	if j := v.untilJSON(wsterm.TypeFileUpload, nil); j["success"] != false {
		t.Fatalf("malformed upload: %v", j)
	}
	// A symlink planted where the uploads go cannot lead outside.
	outside := t.TempDir()
	os.RemoveAll(uploads)
	if err := os.Symlink(outside, uploads); err != nil {
		t.Fatal(err)
	}
	if j := up("escape.txt", []byte("x")); j["success"] != false {
		t.Fatalf("upload through a symlink: %v", j)
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Fatalf("written through the symlink: %v", ents)
	}
	v.sync(1) // still connected
}

// The read limit is sized from the upload limit: the largest upload frame
// (a 65535-byte name and UploadLimit bytes) is read; a longer frame closes
// the connection (1009, message too big).
func TestReadLimit(t *testing.T) {
	dir := t.TempDir()
	_, hs := testServer(t, Options{Dir: dir, UploadLimit: 4096})
	v := dial(t, hs, "/ws/readlimit-0001?assistant=custom", nil)
	v.status(nil)
	name := strings.Repeat("n", 0xFFFF)
	b, err := wsterm.AppendUpload(nil, name, make([]byte, 4096))
	if err != nil {
		t.Fatal(err)
	}
	v.send(websocket.MessageBinary, b)
	if j := v.untilJSON(wsterm.TypeFileUpload, nil); j["success"] != true || j["filename"] != strings.Repeat("n", maxNameBytes) {
		t.Fatalf("the largest upload: %v", j)
	}
	v.send(websocket.MessageBinary, append(b, 0))
	for {
		select {
		case _, ok := <-v.msgs:
			if ok {
				continue
			}
		case <-time.After(wait):
			t.Fatal("a frame over the read limit did not close the connection")
		}
		break
	}
	if err := <-v.err; websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("closed with %v, want 1009", err)
	}
}

func TestSanitizeName(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf": "report.pdf", "../x": "x", "a/b/c.txt": "c.txt", "...": "upload", " .x": "x",
		"日本語.txt": "日本語.txt", "x\u202ey.txt": "x_y.txt", "a;rm -rf.sh": "a_rm -rf.sh",
		strings.Repeat("é", 300): strings.Repeat("é", 100),
	} {
		if got := SanitizeName(in); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}

// A WebSocket from a page of another origin is refused before anything
// starts; an allowed origin and non-browser clients are not.
func TestOrigin(t *testing.T) {
	f := newFleet(t)
	_, hs := testServer(t, Options{Fleet: f, Origins: []string{"trusted.example"}})
	h := http.Header{"Origin": {"http://evil.example"}}
	_, resp, err := tryDial(t, hs, "/ws/origin-0001?assistant=custom", h)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %v %v", err, resp)
	}
	if len(f.Sessions()) != 0 {
		t.Fatalf("a refused request started %v", f.Sessions())
	}
	v := dial(t, hs, "/ws/origin-0001?assistant=custom", http.Header{"Origin": {"http://trusted.example"}})
	v.status(nil)
	w := dial(t, hs, "/ws/origin-0001", http.Header{"Origin": {hs.URL}}) // the page's own
	w.status(nil)
}

func TestUnknownAssistant(t *testing.T) {
	f := newFleet(t)
	_, hs := testServer(t, Options{Fleet: f})
	_, resp, err := tryDial(t, hs, "/ws/nope-0001?assistant=nonesuch", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unknown assistant: %v %v", err, resp)
	}
	if len(f.Sessions()) != 0 {
		t.Fatalf("started %v", f.Sessions())
	}
}

// With a token, every request needs it (?token=, then the cookie).
func TestToken(t *testing.T) {
	_, hs := testServer(t, Options{Token: "s3cret"})
	get := func(path string, cookies ...*http.Cookie) *http.Response {
		req, _ := http.NewRequest("GET", hs.URL+path, nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for _, p := range []string{"/", "/api/sessions", "/static/app.js", "/?token=wrong"} {
		if r := get(p); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s without the token: %d", p, r.StatusCode)
		}
	}
	r := get("/?token=s3cret")
	if r.StatusCode != http.StatusOK || len(r.Cookies()) != 1 || !r.Cookies()[0].HttpOnly {
		t.Fatalf("with the token: %d %v", r.StatusCode, r.Cookies())
	}
	if r := get("/api/sessions", r.Cookies()[0]); r.StatusCode != http.StatusOK {
		t.Fatalf("with the cookie: %d", r.StatusCode)
	}
	if _, resp, err := tryDial(t, hs, "/ws/tok-0001?assistant=custom", nil); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("ws without the token: %v", err)
	}
	v := dial(t, hs, "/ws/tok-0001?assistant=custom", http.Header{"Cookie": {tokenCookie + "=s3cret"}})
	v.status(nil)
}

// fakeListener has a non-loopback address, bound nowhere.
type fakeListener struct{ net.Listener }

func (fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 1977} }

func TestTokenRequiredOffLoopback(t *testing.T) {
	s, err := New(Options{Fleet: newFleet(t)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(fakeListener{l}); !errors.Is(err, ErrTokenRequired) {
		t.Fatalf("serve off loopback without a token: %v", err)
	}
	for addr, want := range map[string]bool{"127.0.0.1:1977": true, "[::1]:80": true, "localhost:1": true, "127.8.9.1:2": true,
		":1977": false, "0.0.0.0:1977": false, "192.168.1.2:1977": false, "[::]:1": false, "example.com:1": false, "nonsense": false} {
		if Loopback(addr) != want {
			t.Errorf("Loopback(%q) = %v", addr, !want)
		}
	}
	if len(NewToken()) != 32 || NewToken() == NewToken() {
		t.Fatal("tokens")
	}
}

// A client that does not read is disconnected once its queue is full; the
// session and the other viewer go on.
func TestSlowClientDropped(t *testing.T) {
	_, hs := testServer(t, Options{QueueLimit: 256 << 10, WriteTimeout: 3 * time.Second})
	id := "slow-0001"
	fast := dial(t, hs, "/ws/"+id+"?assistant=custom", nil)
	fast.status(nil)
	// The slow one reads nothing at all: its reader is not started.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	slow, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws/"+id, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.CloseNow()
	fast.status(func(st wsterm.Status) bool { return st.Viewers == 2 })
	// Far more than the socket buffers and the queue hold.
	fast.input("head -c 60000000 /dev/zero | tr '\\0' x; echo; echo flood-done\r")
	fast.status(func(st wsterm.Status) bool { return st.Viewers == 1 }) // the slow one was dropped
	fast.untilOutput("flood-done")
	slow.SetReadLimit(-1)
	for {
		_, _, err := slow.Read(ctx)
		if err != nil {
			if s := websocket.CloseStatus(err); s != websocket.StatusTryAgainLater && s != -1 {
				t.Fatalf("slow client closed with %v", err)
			}
			break
		}
	}
}

// toggle_yolo restarts the agent with its YOLO command, then with its
// resume command; viewers follow the new program and get no exit.
func TestToggleYolo(t *testing.T) {
	f := yoloFleet{newFleet(t)}
	_, hs := testServer(t, Options{Fleet: f})
	id := "yolo-0001"
	v := dial(t, hs, "/ws/"+id+"?assistant=yoloer", nil)
	if st := v.status(nil); !st.YoloSupported || st.YoloMode || st.Assistant != "yoloer" {
		t.Fatalf("status %+v", st)
	}
	v.untilOutput("mode=normal")
	v.sendText(`{"type":"toggle_yolo"}`)
	v.status(func(st wsterm.Status) bool { return st.YoloMode })
	v.untilOutput("[Switching YOLO mode ON, restarting agent...]")
	v.untilOutput("mode=yolo,env=auto")
	if got := v.sync(1); slices.Contains(got, wsterm.TypeExit) {
		t.Fatalf("exit sent for a replaced agent: %v", got)
	}
	v.sendText(`{"type":"toggle_yolo"}`)
	v.status(func(st wsterm.Status) bool { return !st.YoloMode })
	v.untilOutput("[Switching YOLO mode OFF, restarting agent...]")
	v.untilOutput("mode=resumed")
	if in := info(t, f, id); !in.Alive || in.Agent != "yoloer" {
		t.Fatalf("after the toggles %+v", in)
	}
	v.input("exit 5\r")
	if j := v.untilJSON(wsterm.TypeExit, nil); j["exitCode"] != float64(5) {
		t.Fatalf("exit %v", j)
	}
}

// yoloFleet is a real fleet with one more preset, an agent with a YOLO
// mode made of shells.
type yoloFleet struct{ *fleet.Fleet }

func (f yoloFleet) Presets() []fleet.Preset {
	return append(f.Fleet.Presets(), fleet.Preset{Name: "yoloer", Found: true,
		Argv:    []string{"sh", "-c", "echo mode=normal; exec sh"},
		Yolo:    []string{"sh", "-c", `echo mode=yolo,env=$YOLO_ENV; exec sh`},
		YoloEnv: []string{"YOLO_ENV=auto"},
		Resume:  []string{"sh", "-c", "echo mode=resumed; exec sh"}})
}

// Shutdown disconnects the viewers (going away); the sessions run on.
func TestShutdownLeavesSessions(t *testing.T) {
	f := newFleet(t)
	s, hs := testServer(t, Options{Fleet: f})
	v := dial(t, hs, "/ws/shut-0001?assistant=custom", nil)
	v.status(nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-v.err; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("viewer closed with %v", err)
	}
	proctest.WaitFor(t, "still listed alive", wait, func() bool { return info(t, f, "shut-0001").Alive })
	if _, resp, err := tryDial(t, hs, "/ws/shut-0001", nil); err == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after shutdown: %v", err)
	}
}

// The page and its vendored files are served.
func TestPage(t *testing.T) {
	_, hs := testServer(t, Options{})
	for path, want := range map[string]string{"/": "<title>heimdall-tui</title>", "/static/app.js": "DecompressionStream",
		"/static/vendor/xterm.js": "Terminal", "/static/vendor/addon-fit.js": "FitAddon", "/static/vendor/xterm.css": ".xterm"} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Fatalf("%s: %d, %d bytes", path, resp.StatusCode, len(b))
		}
	}
	if resp, _ := http.Get(hs.URL + "/nothing"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("/nothing: %d", resp.StatusCode)
	}
}
