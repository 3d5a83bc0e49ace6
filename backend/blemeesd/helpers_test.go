package blemeesd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/headless/headlesstest"
	"github.com/heimdall-tui/heimdall-tui/wire/blemees/blemeestest"
)

func TestMain(m *testing.M) { os.Exit(headlesstest.Main(m)) }

// env is one test's daemon world: a short temp dir holding the socket, a
// fake $HOME and the fake claude's log.
type env struct {
	t      testing.TB
	dir    string
	home   string
	sock   string
	fake   string // the fake claude's log
	cfg    Config
	d      *Daemon
	served chan error
	down   bool
}

func newEnv(t *testing.T, mod ...func(*Config)) *env { return newEnvTB(t, mod...) }

func newEnvTB(t testing.TB, mod ...func(*Config)) *env {
	t.Helper()
	dir, err := os.MkdirTemp("", "bd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &env{t: t, dir: dir, home: filepath.Join(dir, "home"), sock: filepath.Join(dir, "s.sock"), fake: filepath.Join(dir, "fake.log")}
	os.Mkdir(e.home, 0o700)
	t.Setenv("HOME", e.home)
	t.Setenv("FAKE_CLAUDE_LOG", e.fake)
	cfg := Default()
	cfg.SocketPath = e.sock
	cfg.ClaudeBin = headlesstest.FakeClaude(t)
	for _, f := range mod {
		f(&cfg)
	}
	e.cfg = cfg
	e.start()
	return e
}

// start starts a daemon with e.cfg (again after stop).
func (e *env) start() {
	e.t.Helper()
	if err := e.cfg.Validate(); err != nil {
		e.t.Fatal(err)
	}
	v := "2.1.118"
	e.d = New(e.cfg, nil, &v)
	e.d.Manager.Config() // defaults
	if err := e.d.Listen(); err != nil {
		e.t.Fatal(err)
	}
	e.served, e.down = make(chan error, 1), false
	d := e.d
	go func() { e.served <- d.Serve() }()
	e.t.Cleanup(e.stop)
}

func (e *env) stop() {
	if e.down {
		return
	}
	e.down = true
	e.d.Shutdown()
	select {
	case err := <-e.served:
		if err != nil {
			e.t.Errorf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		e.t.Error("Serve did not return after Shutdown")
	}
}

func (e *env) connect() *blemeestest.Conn { return blemeestest.Connect(e.t, e.sock) }

// fakeLog is what the fake claude recorded: one map per line.
func (e *env) fakeLog() []map[string]any {
	b, _ := os.ReadFile(e.fake)
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// starts are the argv of each start of the fake.
func (e *env) starts() [][]string {
	var out [][]string
	for _, m := range e.fakeLog() {
		if m["event"] != "start" {
			continue
		}
		var argv []string
		for _, a := range m["argv"].([]any) {
			argv = append(argv, a.(string))
		}
		out = append(out, argv)
	}
	return out
}

func open(id string, fields ...any) map[string]any {
	m := map[string]any{"type": "blemeesd.open", "id": "req_" + id, "session_id": id}
	for i := 0; i+1 < len(fields); i += 2 {
		m[fields[i].(string)] = fields[i+1]
	}
	return m
}

func user(id, text string) map[string]any {
	return map[string]any{"type": "claude.user", "session_id": id, "message": map[string]any{"role": "user", "content": text}}
}

// openSession opens id and waits for its claude.system init.
func openSession(t *testing.T, c *blemeestest.Conn, id string, fields ...any) blemeestest.Frame {
	t.Helper()
	f := c.Request(open(id, fields...), "blemeesd.opened")
	if f.Type() != "blemeesd.opened" {
		t.Fatalf("open %s: %v", id, f)
	}
	c.Until("claude.system", id)
	return f
}

// turnText sends text and returns the text of the deltas up to the result.
func turnText(t *testing.T, c *blemeestest.Conn, id, text string) (string, []blemeestest.Frame) {
	t.Helper()
	c.Send(user(id, text))
	fs := c.Until("claude.result", id)
	return deltas(fs), fs
}

func deltas(fs []blemeestest.Frame) string {
	var b strings.Builder
	for _, f := range fs {
		if f.Type() != "claude.stream_event" {
			continue
		}
		ev, _ := f["event"].(map[string]any)
		d, _ := ev["delta"].(map[string]any)
		if d["type"] == "text_delta" {
			b.WriteString(d["text"].(string))
		}
	}
	return b.String()
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
