package webterm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	resp := get(t, hs, "/api/sessions")
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

// routes are a request of each kind the server answers.
var routes = []string{"/", "/api/sessions", "/api/inbox", "/api/push", "/sw.js", "/static/app.js", "/static/vendor/xterm.css", "/nothing", "/ws/route-0001?assistant=custom"}

// rawGet sends GET path to hs with header h exactly (Host from h's "Host"
// too): a WebSocket handshake's headers for /ws/ paths.
func rawGet(t *testing.T, hs *httptest.Server, path string, h http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", hs.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(path, "/ws/") {
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if host := h.Get("Host"); host != "" {
		req.Host = host
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // no redirects followed, no cookie jar
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// Every request needs the token, on every route, HTTP and WebSocket: as
// ?token= (a page's first request gets it as a cookie named for the port,
// HttpOnly and SameSite=Strict, and a redirect that drops it from the
// URL), as a bearer header, or as that cookie.
func TestToken(t *testing.T) {
	f := newFleet(t)
	_, hs := testServer(t, Options{Fleet: f, Token: "s3cret-s3cret-s3cret"})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(hs.URL, "http://"))
	for _, p := range routes {
		for _, h := range []http.Header{{}, {"Authorization": {"Bearer wrong"}}, {"Cookie": {"heimdall_web_" + port + "=wrong"}},
			{"Cookie": {"heimdall_web_1=s3cret-s3cret-s3cret"}}} {
			if r := rawGet(t, hs, p, h); r.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%s with %v: %d", p, h, r.StatusCode)
			}
		}
		if r := rawGet(t, hs, p+"?token=wrong", nil); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s?token=wrong: %d", p, r.StatusCode)
		}
	}
	if len(f.Sessions()) != 0 {
		t.Fatalf("a refused request started %v", f.Sessions())
	}
	r := rawGet(t, hs, "/?token=s3cret-s3cret-s3cret&x=1", nil)
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/?x=1" || len(r.Cookies()) != 1 {
		t.Fatalf("with the token: %d %q %v", r.StatusCode, r.Header.Get("Location"), r.Cookies())
	}
	c := r.Cookies()[0]
	if c.Name != "heimdall_web_"+port || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Value != "s3cret-s3cret-s3cret" ||
		c.MaxAge != int(cookieLife/time.Second) {
		t.Fatalf("cookie %+v", c)
	}
	// The page visited by cookie keeps it another cookieLife; the API does
	// not reset it.
	if r := rawGet(t, hs, "/", http.Header{"Cookie": {c.Name + "=" + c.Value}}); r.StatusCode != http.StatusOK ||
		len(r.Cookies()) != 1 || r.Cookies()[0].MaxAge != c.MaxAge || r.Cookies()[0].Value != c.Value {
		t.Fatalf("the page by cookie: %d %v", r.StatusCode, r.Cookies())
	}
	if r := rawGet(t, hs, "/api/sessions", http.Header{"Cookie": {c.Name + "=" + c.Value}}); len(r.Cookies()) != 0 {
		t.Fatalf("the API set %v", r.Cookies())
	}
	for _, h := range []http.Header{{"Cookie": {c.Name + "=" + c.Value}}, {"Authorization": {"Bearer s3cret-s3cret-s3cret"}}} {
		if r := rawGet(t, hs, "/api/sessions", h); r.StatusCode != http.StatusOK {
			t.Fatalf("with %v: %d", h, r.StatusCode)
		}
	}
	v := dial(t, hs, "/ws/tok-0001?assistant=custom", http.Header{"Cookie": {c.Name + "=" + c.Value}})
	v.status(nil)
	w := dial(t, hs, "/ws/tok-0001?token=s3cret-s3cret-s3cret", http.Header{"Authorization": {""}})
	w.status(nil)
}

// A DNS rebinding page (its name now resolving to loopback: a foreign
// Host, and an Origin that matches it) is refused on every route before
// any handler runs, token or not; the server's own names are served.
func TestHostRebinding(t *testing.T) {
	for _, opts := range []Options{{}, {NoToken: true}, {Hosts: []string{"*.corp.example"}}} {
		f := newFleet(t)
		opts.Fleet = f
		_, hs := testServer(t, opts)
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(hs.URL, "http://"))
		for _, p := range routes {
			for _, host := range []string{"rebind.evil.example:" + port, "evil.example", "192.168.1.20:" + port, "localhost.evil.example"} {
				h := http.Header{"Host": {host}, "Origin": {"http://" + host}}
				if r := rawGet(t, hs, p, h); r.StatusCode != http.StatusForbidden {
					t.Fatalf("%v: %s with Host %s: %d", opts.Hosts, p, host, r.StatusCode)
				}
			}
		}
		if len(f.Sessions()) != 0 {
			t.Fatalf("a rebinding request started %v", f.Sessions())
		}
		hosts := []string{"localhost:" + port, "LOCALHOST", "app.localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}
		if opts.Hosts != nil {
			hosts = append(hosts, "dev.corp.example:"+port)
		}
		for _, host := range hosts {
			if r := rawGet(t, hs, "/api/sessions", authed(http.Header{"Host": {host}})); r.StatusCode != http.StatusOK {
				t.Fatalf("%v: Host %s: %d", opts.Hosts, host, r.StatusCode)
			}
		}
	}
}

// fakeListener has a non-loopback address, bound nowhere.
type fakeListener struct{ net.Listener }

func (fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 1977} }

// New needs a token unless told NoToken; Serve refuses NoToken off
// loopback; once off loopback, IP literals are names of the server.
func TestTokenRequired(t *testing.T) {
	if _, err := New(Options{Fleet: newFleet(t)}); !errors.Is(err, ErrTokenRequired) {
		t.Fatalf("New without a token: %v", err)
	}
	s, err := New(Options{Fleet: newFleet(t), NoToken: true})
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
	if s.hostOK("192.168.1.20") || !s.hostOK("127.0.0.2:80") {
		t.Fatal("a loopback server's IP names")
	}
	pub, err := New(Options{Fleet: newFleet(t), Token: "t", Addr: "0.0.0.0:1977", Hosts: []string{"box"}})
	if err != nil {
		t.Fatal(err)
	}
	if !pub.hostOK("192.168.1.20:1977") || !pub.hostOK("[fe80::1]:1") || !pub.hostOK("BOX:1977") || pub.hostOK("evil.example") {
		t.Fatal("a public server's names")
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

// LoadToken makes a token file of the user's alone once, gives the same
// token after, and refuses a file others may read.
func TestLoadToken(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state", "web-token")
	tok, err := LoadToken(p)
	if err != nil || len(tok) != 32 {
		t.Fatalf("%q %v", tok, err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", fi, err)
	}
	if again, err := LoadToken(p); again != tok || err != nil {
		t.Fatalf("again: %q %v", again, err)
	}
	os.Chmod(p, 0o640)
	if _, err := LoadToken(p); err == nil {
		t.Fatal("a file others may read was used")
	}
	os.WriteFile(p, []byte("short\n"), 0o600)
	os.Chmod(p, 0o600)
	if _, err := LoadToken(p); err == nil {
		t.Fatal("a short token was used")
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
	slow, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws/"+id, &websocket.DialOptions{HTTPHeader: authed(nil)})
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

// Many clients that do not read cannot hold more than the server's
// budget together, though each stays under its own limit; the client that
// reads gets its output all along.
func TestSlowClientsBudget(t *testing.T) {
	const budget = 1 << 20
	s, hs := testServer(t, Options{QueueBudget: budget, WriteTimeout: 2 * time.Second})
	id := "budget-0001"
	fast := dial(t, hs, "/ws/"+id+"?assistant=custom", nil)
	fast.status(nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	const slowOnes = 8
	for i := range slowOnes {
		slow, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws/"+id, &websocket.DialOptions{HTTPHeader: authed(nil)})
		if err != nil {
			t.Fatal(err)
		}
		defer slow.CloseNow()
		fast.status(func(st wsterm.Status) bool { return st.Viewers == i+2 })
	}
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if q := s.queued.Load(); q > peak.Load() {
				peak.Store(q)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	fast.input("head -c 30000000 /dev/zero | tr '\\0' x; echo; echo flood-done\r")
	fast.untilOutput("flood-done")
	fast.status(func(st wsterm.Status) bool { return st.Viewers == 1 }) // every slow one dropped
	close(stop)
	<-sampled
	// Over the budget a client behind gets no more output, and one more
	// message (a status, a chunk) may land before it is dropped.
	if p := peak.Load(); p > 2*budget+slowOnes*(64<<10) {
		t.Fatalf("%d bytes queued at the peak, budget %d", p, budget)
	}
	proctest.WaitFor(t, "the dropped clients' queues given back", wait, func() bool { return s.queued.Load() == 0 })
}

// At most MaxClients terminals at once: one more is refused, with why.
func TestMaxClients(t *testing.T) {
	_, hs := testServer(t, Options{MaxClients: 2})
	a := dial(t, hs, "/ws/max-0001?assistant=custom", nil)
	a.status(nil)
	b := dial(t, hs, "/ws/max-0001", nil)
	b.status(nil)
	if _, resp, err := tryDial(t, hs, "/ws/max-0001", nil); err == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a third: %v %v", resp, err)
	}
	b.c.Close(websocket.StatusNormalClosure, "")
	proctest.WaitFor(t, "a place again", wait, func() bool {
		v, _, err := tryDial(t, hs, "/ws/max-0001", nil)
		if err == nil {
			v.c.CloseNow()
		}
		return err == nil
	})
}

// Uploads are read as they arrive: several large ones at once hold a
// copy buffer each, not their data; one cut off leaves no file.
func TestUploadsStream(t *testing.T) {
	dir := t.TempDir()
	const size, n = 16 << 20, 6
	s, hs := testServer(t, Options{Dir: dir, UploadLimit: size})
	id := "stream-0001"
	v := dial(t, hs, "/ws/"+id+"?assistant=custom", nil)
	v.status(nil)
	allocs := func() uint64 {
		sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	var ws []*viewer
	for range n {
		ws = append(ws, dial(t, hs, "/ws/"+id, nil))
	}
	piece := bytes.Repeat([]byte("u"), 64<<10)
	before := allocs()
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			mw, err := w.c.Writer(ctx, websocket.MessageBinary)
			if err != nil {
				t.Error(err)
				return
			}
			head, _ := wsterm.AppendUpload(nil, fmt.Sprintf("big-%d.bin", i), nil)
			mw.Write(head)
			for sent := 0; sent < size; sent += len(piece) {
				if _, err := mw.Write(piece); err != nil {
					t.Error(err)
					return
				}
			}
			mw.Close()
			if j := w.untilJSON(wsterm.TypeFileUpload, nil); j["success"] != true {
				t.Errorf("upload %d: %v", i, j)
			}
		})
	}
	wg.Wait()
	allocated := allocs() - before
	for i := range n {
		if fi, err := os.Stat(filepath.Join(dir, UploadDir, fmt.Sprintf("big-%d.bin", i))); err != nil || fi.Size() != size {
			t.Fatalf("upload %d: %v %v", i, fi, err)
		}
	}
	// What the process allocated (the test's clients too) while the
	// uploads went: a message read whole would be its size at least.
	if allocated > size {
		t.Fatalf("%d MiB allocated during %d uploads of %d MiB", allocated>>20, n, size>>20)
	}
	// Cut off mid-upload: nothing left behind, hidden or not.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cut := dial(t, hs, "/ws/"+id, nil)
	mw, err := cut.c.Writer(ctx, websocket.MessageBinary)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := wsterm.AppendUpload(nil, "cut.bin", nil)
	mw.Write(head)
	mw.Write(piece)
	cut.c.CloseNow()
	proctest.WaitFor(t, "the cut upload's viewer gone", wait, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.active == n+1
	})
	ents, _ := os.ReadDir(filepath.Join(dir, UploadDir))
	if len(ents) != n {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("after a cut upload: %v", names)
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
		resp := get(t, hs, path)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Fatalf("%s: %d, %d bytes", path, resp.StatusCode, len(b))
		}
	}
	if resp := get(t, hs, "/nothing"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("/nothing: %d", resp.StatusCode)
	}
}

// POST /api/sessions starts a session named as the dashboard names its
// own (custom-1, custom-2); another origin, or an unknown assistant, is
// refused and starts nothing.
func TestCreateSession(t *testing.T) {
	f := newFleet(t)
	_, hs := testServer(t, Options{Fleet: f})
	post := func(query string, h http.Header) (*http.Response, string) {
		req, _ := http.NewRequest("POST", hs.URL+"/api/sessions"+query, nil)
		req.Header = authed(h)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	for i, want := range []string{"custom-1", "custom-2"} {
		resp, body := post("?assistant=custom", nil)
		var got struct{ ID string }
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &got) != nil || got.ID != want {
			t.Fatalf("start %d: %d %s", i, resp.StatusCode, body)
		}
		if !info(t, f, want).Alive {
			t.Fatalf("%s not running", want)
		}
	}
	if resp, _ := post("?assistant=custom", http.Header{"Origin": {"http://evil.example"}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("another origin: %d", resp.StatusCode)
	}
	if resp, _ := post("?assistant=nonesuch", nil); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("an unknown assistant: %d", resp.StatusCode)
	}
	if n := len(f.Sessions()); n != 2 {
		t.Fatalf("%d sessions, want 2", n)
	}
}
