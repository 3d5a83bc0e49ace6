package webterm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/wsterm"
)

// supervisorBin is the heimdall-tui binary the tests' fleets start their
// sessions' supervisors with, and fakeClaudeBin the fake Claude Code of
// cmd/heimdall-tui's tests and fakeACPBin its fake ACP agent, built once
// by TestMain.
var supervisorBin, fakeClaudeBin, fakeACPBin string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "webtermbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	proctest.PrivateState(tmp)
	if supervisorBin, err = proctest.BuildHeimdall(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		return 1
	}
	fakeClaudeBin = filepath.Join(tmp, "fakeclaude")
	if out, err := exec.Command("go", "build", "-o", fakeClaudeBin, "github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/testdata/fakeclaude").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "TestMain: build the fake claude: %v\n%s", err, out)
		return 1
	}
	fakeACPBin = filepath.Join(tmp, "fakeacp")
	if out, err := exec.Command("go", "build", "-o", fakeACPBin, "github.com/heimdall-tui/heimdall-tui/cmd/heimdall-tui/testdata/fakeacp").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "TestMain: build the fake ACP agent: %v\n%s", err, out)
		return 1
	}
	os.Setenv("XDG_CONFIG_HOME", tmp) // no user config reaches the supervisors
	os.Setenv("HEIMDALL_PLANNING_DIR", tmp)
	proc.EnableSubreaper(nil)
	return m.Run()
}

// wait bounds every wait of a test for a message.
const wait = 15 * time.Second

// newFleet opens a real fleet on a short temp socket dir whose sessions'
// supervisors are supervisorBin; cleanup stops its sessions and closes it.
func newFleet(t *testing.T) *fleet.Fleet {
	t.Helper()
	dir := proctest.ShortDir(t)
	cfgPath := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfgPath, []byte("kill_grace = \"1s\"\nclassifier = \"simple\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.KillGrace, cfg.Classifier = time.Second, "simple"
	f, err := fleet.New(fleet.Options{Dir: dir, Config: cfg, Supervisor: []string{supervisorBin, "--socket-dir", dir, "--config", cfgPath}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := f.StopOwned(ctx); err != nil {
			t.Errorf("stop the test's sessions: %v", err)
		}
		f.Close()
		killLeftovers(dir)
	})
	return f
}

// killLeftovers SIGKILLs what a failed test left running in dir.
func killLeftovers(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, de := range ents {
		id, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok {
			continue
		}
		if rec, err := supervisor.ReadRecord(dir, id); err == nil && rec.Ended == nil && !proc.Gone(rec.Supervisor) {
			proc.KillGroup(rec.PID, syscall.SIGKILL)
			syscall.Kill(rec.Supervisor, syscall.SIGKILL)
		}
	}
}

// testServer serves a Server for opts (Fleet defaulting to a new fleet,
// Custom to sh, Dir to a temp dir) on a loopback httptest server.
func testServer(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	if opts.Fleet == nil {
		opts.Fleet = newFleet(t)
	}
	if opts.Custom == nil {
		opts.Custom = []string{"sh"}
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.Token == "" && !opts.NoToken {
		opts.Token = testToken
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Start()
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return s, hs
}

// viewer is a test's WebSocket client: it reads every message on a
// goroutine of its own, into out (binary) and texts.
type viewer struct {
	t    *testing.T
	c    *websocket.Conn
	msgs chan viewerMsg
	err  chan error // the read's end
	out  strings.Builder
	asm  wsterm.Assembler
	snap []byte // the last snapshot
}

type viewerMsg struct {
	typ  websocket.MessageType
	data []byte
}

// dial opens /ws/id?assistant=… on hs.
func dial(t *testing.T, hs *httptest.Server, path string, h http.Header) *viewer {
	t.Helper()
	v, resp, err := tryDial(t, hs, path, h)
	if err != nil {
		t.Fatalf("dial %s: %v (%v)", path, err, resp)
	}
	return v
}

// testToken is testServer's token; dial and get pass it unless the
// request says how it authenticates (an Authorization or Cookie header).
const testToken = "test-token-0123456789abcdef"

// authed adds testToken to h unless h authenticates otherwise.
func authed(h http.Header) http.Header {
	if h == nil {
		h = http.Header{}
	}
	if h.Values("Authorization") == nil && h.Values("Cookie") == nil {
		h = h.Clone()
		h.Set("Authorization", "Bearer "+testToken)
	}
	return h
}

// get GETs hs's path with testToken.
func get(t *testing.T, hs *httptest.Server, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", hs.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = authed(nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func tryDial(t *testing.T, hs *httptest.Server, path string, h http.Header) (*viewer, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	h = authed(h)
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+path, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, resp, err
	}
	c.SetReadLimit(64 << 20)
	v := &viewer{t: t, c: c, msgs: make(chan viewerMsg, 1<<16), err: make(chan error, 1)}
	go func() {
		for {
			typ, b, err := c.Read(context.Background())
			if err != nil {
				v.err <- err
				close(v.msgs)
				return
			}
			v.msgs <- viewerMsg{typ, b}
		}
	}()
	t.Cleanup(func() { c.CloseNow() })
	return v, resp, nil
}

// next returns the next message, failing the test after wait.
func (v *viewer) next() viewerMsg {
	v.t.Helper()
	select {
	case m, ok := <-v.msgs:
		if !ok {
			v.t.Fatalf("connection ended: %v", <-v.err)
		}
		if m.typ == websocket.MessageBinary {
			if len(m.data) >= 3 && m.data[0] == wsterm.MarkerChunk && v.out.Len() == 0 {
				snap, done, err := v.asm.Add(m.data)
				if err != nil {
					v.t.Fatal(err)
				}
				if done {
					v.snap = snap
				}
			} else {
				v.out.Write(m.data)
			}
		}
		return m
	case <-time.After(wait):
		v.t.Fatalf("no message in %s (output so far %q)", wait, v.out.String())
	}
	return viewerMsg{}
}

// nextJSON returns the next text message, decoded.
func (v *viewer) nextJSON() map[string]any {
	v.t.Helper()
	for {
		m := v.next()
		if m.typ != websocket.MessageText {
			continue
		}
		var j map[string]any
		if err := json.Unmarshal(m.data, &j); err != nil {
			v.t.Fatalf("server sent bad JSON %q", m.data)
		}
		return j
	}
}

// untilJSON reads until a text message of type typ for which ok holds,
// and returns it decoded into a map.
func (v *viewer) untilJSON(typ string, ok func(map[string]any) bool) map[string]any {
	v.t.Helper()
	for {
		if j := v.nextJSON(); j["type"] == typ && (ok == nil || ok(j)) {
			return j
		}
	}
}

// untilOutput reads until the terminal output holds s (searching only
// what came since the last look, and the len(s)-1 bytes before).
func (v *viewer) untilOutput(s string) {
	v.t.Helper()
	from := 0
	for {
		out := v.out.String()
		if strings.Contains(out[from:], s) {
			return
		}
		from = max(0, len(out)-len(s)+1)
		v.next()
	}
}

func (v *viewer) sendText(s string) {
	v.t.Helper()
	v.send(websocket.MessageText, []byte(s))
}

func (v *viewer) send(typ websocket.MessageType, b []byte) {
	v.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := v.c.Write(ctx, typ, b); err != nil {
		v.t.Fatal(err)
	}
}

func (v *viewer) input(s string) { v.send(websocket.MessageBinary, []byte(s)) }

func (v *viewer) resize(rows, cols uint16) {
	v.send(websocket.MessageBinary, wsterm.AppendResize(nil, rows, cols))
}

// status reads until a status for which ok holds.
func (v *viewer) status(ok func(st wsterm.Status) bool) wsterm.Status {
	v.t.Helper()
	var st wsterm.Status
	v.untilJSON(wsterm.TypeStatus, func(j map[string]any) bool {
		b, _ := json.Marshal(j)
		json.Unmarshal(b, &st)
		return ok == nil || ok(st)
	})
	return st
}

// sync sends a ping with a marker and waits for its pong: every message
// this viewer sent before has been handled. It returns the types of the
// text messages that came before the pong.
func (v *viewer) sync(marker int) []string {
	v.t.Helper()
	v.sendText(fmt.Sprintf(`{"type":"ping","data":{"ts":%d}}`, marker))
	var types []string
	for {
		j := v.nextJSON()
		if d, _ := j["data"].(map[string]any); j["type"] == wsterm.TypePong && d != nil && d["ts"] == float64(marker) {
			return types
		}
		types = append(types, fmt.Sprint(j["type"]))
	}
}

// waitInfo waits until session id of f meets cond.
func waitInfo(t *testing.T, f Fleet, id, what string, cond func(session.Info) bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		for _, in := range f.Sessions() {
			if in.ID == id && cond(in) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never: %s", id, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
