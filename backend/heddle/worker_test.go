package heddle_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle/heddletest"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle/llm"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
)

// worker is a Worker served on pipes.
type worker struct {
	t    *testing.T
	in   *io.PipeWriter
	out  <-chan heddletest.Msg
	done chan error
	dir  string
	home string
}

func startWorker(t *testing.T, m *heddletest.Mock, tune func(*heddle.Config)) *worker {
	t.Helper()
	dir, home := t.TempDir(), t.TempDir()
	cfg := heddle.Config{LLM: &llm.Client{BaseURL: m.URL, APIKey: "sk-test"}, Dir: dir, Home: home}
	if tune != nil {
		tune(&cfg)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &worker{t: t, in: inW, out: heddletest.Lines(t, outR), done: make(chan error, 1), dir: dir, home: home}
	go func() {
		err := heddle.New(cfg).Serve(inR, outW)
		outW.Close()
		w.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-w.done:
		case <-time.After(heddletest.Wait):
			t.Error("the worker did not end at EOF")
		}
	})
	return w
}

func (w *worker) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

func (w *worker) next() heddletest.Msg { w.t.Helper(); return heddletest.Next(w.t, w.out) }

// expect is the next line, which must be of type typ.
func (w *worker) expect(typ string) heddletest.Msg {
	w.t.Helper()
	m := w.next()
	if m.Str("type") != typ {
		w.t.Fatalf("want %s, got %s", typ, m.Raw)
	}
	return m
}

const initLine = `{"type":"init","id":"1","protocol_version":"0.2.0","config":{"model":"test/model","system_prompt":"You are a test.","tools":["read_file","write_file","edit_file","glob","grep","bash"],"max_iterations":5}}`

func (w *worker) init() string {
	w.t.Helper()
	w.send(initLine)
	return w.expect("init_ok").Str("session_id")
}

// wantError checks a result's error envelope.
func wantError(t *testing.T, m heddletest.Msg, id, code, msg string, retryable bool) {
	t.Helper()
	e := m.Obj("error")
	if m.Str("type") != "result" || m.Str("id") != id || m.Str("status") != "error" || e == nil || e["code"] != code || e["retryable"] != retryable ||
		(msg != "" && e["message"] != msg) {
		t.Fatalf("want result %s error %s %q retryable=%v, got %s", id, code, msg, retryable, m.Raw)
	}
}

// Requests before init are refused with the spec's message; a line that
// is not JSON too, and the worker reads on.
func TestBeforeInitAndInvalidJSON(t *testing.T) {
	w := startWorker(t, heddletest.New(t), nil)
	for i, line := range []string{`{"type":"status","id":"s"}`, `{"type":"send","id":"s","message":"hi"}`,
		`{"type":"cancel","id":"s","target_id":"x"}`, `{"type":"shutdown","id":"s"}`} {
		w.send(line)
		wantError(t, w.expect("result"), "s", "protocol_error", "Not initialized. Send 'init' first.", false)
		_ = i
	}
	w.send(`this is not json`)
	m := w.expect("result")
	wantError(t, m, "", "protocol_error", "Invalid JSON", false)
	if tc, ok := m.M["tool_calls_made"].([]any); !ok || len(tc) != 0 {
		t.Fatalf("tool_calls_made %s", m.Raw)
	}
	w.send(`{"type":"frobnicate","id":"f"}`)
	wantError(t, w.expect("result"), "f", "protocol_error", "Unknown request type: frobnicate", false)
	w.send(`{"type":"init","id":"i","config":{"system_prompt":"x","tools":[]}}`)
	wantError(t, w.expect("result"), "i", "protocol_error", "Missing required field: config.model", false)
	w.send(`{"type":"init","id":"i","config":{"model":"m","system_prompt":"x","tools":["teleport"]}}`)
	wantError(t, w.expect("result"), "i", "protocol_error", "", false)
	if sid := w.init(); sid == "" {
		t.Fatal("no session after the bad lines")
	}
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// init → init_ok (a UUID, the version); status → status_ok; shutdown →
// shutdown_ok and Serve returns nil; HEDDLE_HOME keeps the session.
func TestInitStatusShutdown(t *testing.T) {
	w := startWorker(t, heddletest.New(t), nil)
	w.send(initLine)
	ok := w.expect("init_ok")
	sid := ok.Str("session_id")
	if ok.Str("id") != "1" || !uuidRE.MatchString(sid) || ok.Str("protocol_version") != "0.2.0" || ok.M["error"] != nil {
		t.Fatalf("init_ok %s", ok.Raw)
	}
	w.send(`{"type":"status","id":"3"}`)
	st := w.expect("status_ok")
	if st.Str("id") != "3" || st.Str("model") != "test/model" || st.Num("messages_count") != 1 || st.Str("session_id") != sid || st.M["active"] != false {
		t.Fatalf("status_ok %s", st.Raw)
	}
	w.send(`{"type":"init","id":"again","config":{"model":"m","system_prompt":"x","tools":[]}}`)
	wantError(t, w.expect("result"), "again", "protocol_error", "Already initialized", false)
	w.send(`{"type":"shutdown","id":"5"}`)
	if m := w.expect("shutdown_ok"); m.Str("id") != "5" {
		t.Fatalf("shutdown_ok %s", m.Raw)
	}
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil
	b, err := os.ReadFile(filepath.Join(w.home, "sessions", sid+".jsonl"))
	if err != nil || !strings.Contains(string(b), `"role":"system","content":"You are a test."`) {
		t.Fatalf("history %q %v", b, err)
	}
}

// A client of another version: init_ok with the error envelope and no
// session; a compatible one (same major, and for 0.x the same minor) is
// served; the advertised version is the configured one.
func TestVersion(t *testing.T) {
	w := startWorker(t, heddletest.New(t), nil)
	w.send(`{"type":"init","id":"1","protocol_version":"0.1.0","config":{"model":"m","system_prompt":"x","tools":[]}}`)
	m := w.expect("init_ok")
	e := m.Obj("error")
	if m.Str("session_id") != "" || m.Str("protocol_version") != "0.2.0" || e["code"] != "protocol_version_mismatch" ||
		e["message"] != "Client requested 0.1.0, server is 0.2.0" || e["retryable"] != false {
		t.Fatalf("mismatch %s", m.Raw)
	}
	w.send(`{"type":"status","id":"2"}`) // still not initialized
	wantError(t, w.expect("result"), "2", "protocol_error", "Not initialized. Send 'init' first.", false)
	w.send(`{"type":"init","id":"3","protocol_version":"0.2.7","config":{"model":"m","system_prompt":"x","tools":[]}}`)
	if m := w.expect("init_ok"); m.Str("session_id") == "" || m.M["error"] != nil {
		t.Fatalf("compatible %s", m.Raw)
	}

	w2 := startWorker(t, heddletest.New(t), func(c *heddle.Config) { c.Version = "1.4.0" })
	w2.send(`{"type":"init","id":"1","protocol_version":"1.0.0","config":{"model":"m","system_prompt":"x","tools":[]}}`)
	if m := w2.expect("init_ok"); m.Str("protocol_version") != "1.4.0" || m.M["error"] != nil {
		t.Fatalf("1.0.0 on 1.4.0: %s", m.Raw)
	}
}

// events reads a send's events up to its result.
func (w *worker) events() (evs []heddletest.Msg, result heddletest.Msg) {
	w.t.Helper()
	// Bounded as a whole: heartbeats keep each next within its wait.
	deadline := time.Now().Add(2 * heddletest.Wait)
	for {
		if time.Now().After(deadline) {
			w.t.Fatalf("no result within %v; events: %d", 2*heddletest.Wait, len(evs))
		}
		m := w.next()
		switch m.Str("type") {
		case "event":
			evs = append(evs, m)
		case "result":
			return evs, m
		default:
			w.t.Fatalf("during a send: %s", m.Raw)
		}
	}
}

// names is the events' payload names, with their seq and send_id checked.
func names(t *testing.T, evs []heddletest.Msg, sendID string) string {
	t.Helper()
	var out []string
	for i, e := range evs {
		if e.Num("event_seq") != float64(i) || e.Str("send_id") != sendID {
			t.Fatalf("event %d: %s", i, e.Raw)
		}
		out = append(out, e.Obj("event")["event"].(string))
	}
	return strings.Join(out, " ")
}

// A plain answer: a content_delta per chunk, usage, then the result; the
// request is streamed, with the key as a Bearer token, the model, the
// system prompt and the enabled tools.
func TestPlainAnswer(t *testing.T) {
	m := heddletest.New(t, heddletest.Answer(12, 3, "Hel", "lo"))
	w := startWorker(t, m, nil)
	w.init()
	w.send(`{"type":"send","id":"2","message":"Say hello"}`)
	evs, res := w.events()
	if got := names(t, evs, "2"); got != "content_delta content_delta usage" {
		t.Fatalf("events %s", got)
	}
	if evs[0].Obj("event")["text"] != "Hel" || evs[1].Obj("event")["text"] != "lo" {
		t.Fatalf("deltas %s %s", evs[0].Raw, evs[1].Raw)
	}
	if u := evs[2].Obj("event"); u["prompt_tokens"] != 12.0 || u["completion_tokens"] != 3.0 || u["total_tokens"] != 15.0 {
		t.Fatalf("usage %s", evs[2].Raw)
	}
	// The session id, without task_id or worker_id too (heddle's own
	// worker sends it always; clients key on it).
	for _, e := range append(evs, res) {
		if e.Str("session_id") == "" || e.Str("session_id") != res.Str("session_id") {
			t.Fatalf("no session_id: %s", e.Raw)
		}
		if _, ok := e.M["task_id"]; ok {
			t.Fatalf("a task_id init did not give: %s", e.Raw)
		}
	}
	u := res.Obj("usage")
	if res.Str("id") != "2" || res.Str("status") != "ok" || res.Str("response") != "Hello" || res.Num("iterations") != 1 ||
		u["total_tokens"] != 15.0 || len(res.M["tool_calls_made"].([]any)) != 0 {
		t.Fatalf("result %s", res.Raw)
	}
	for _, k := range []string{"model_latency_ms", "tool_latency_ms", "total_latency_ms"} {
		if res.Num(k) < 0 {
			t.Fatalf("no %s: %s", k, res.Raw)
		}
	}
	q := <-m.Received
	var tools []string
	for _, tl := range q.Body.Tools {
		tools = append(tools, tl.Function.Name)
	}
	if q.Auth != "Bearer sk-test" || !q.Body.Stream || q.Body.Model != "test/model" || len(q.Body.Messages) != 2 ||
		!strings.Contains(string(q.Body.Messages[0]), "You are a test.") || strings.Join(tools, ",") != "read_file,write_file,edit_file,glob,grep,bash" {
		t.Fatalf("request %+v", q)
	}
	w.send(`{"type":"status","id":"3"}`)
	if st := w.expect("status_ok"); st.Num("messages_count") != 3 || st.M["active"] != false {
		t.Fatalf("status %s", st.Raw)
	}
}

const corrInit = `{"type":"init","id":"1","config":{"model":"m","system_prompt":"s","tools":["read_file","bash","glob"],"task_id":"task-abc","worker_id":"worker-1"}}`

// A tool call split across chunks: tool_start with the arguments,
// tool_end with the preview, the result fed back, the answer; usage summed
// over both calls; task_id/worker_id and the session on every event and
// the result.
func TestToolCall(t *testing.T) {
	m := heddletest.New(t,
		heddletest.Tool("call_1", "read_file", `{"file_path":"notes.txt"}`, 100, 10),
		heddletest.Answer(200, 20, "It says hi."))
	w := startWorker(t, m, nil)
	os.WriteFile(filepath.Join(w.dir, "notes.txt"), []byte("hi there"), 0o644)
	w.send(corrInit)
	sid := w.expect("init_ok").Str("session_id")
	w.send(`{"type":"send","id":"s1","message":"read notes.txt"}`)
	evs, res := w.events()
	// The first reply's usage comes with its last chunk, before the tool runs.
	if got := names(t, evs, "s1"); got != "usage tool_start tool_end content_delta usage" {
		t.Fatalf("events %s", got)
	}
	for _, e := range append(evs, res) {
		if e.Str("session_id") != sid || e.Str("task_id") != "task-abc" || e.Str("worker_id") != "worker-1" {
			t.Fatalf("correlation: %s", e.Raw)
		}
	}
	var start, end map[string]any
	for _, e := range evs {
		switch p := e.Obj("event"); p["event"] {
		case "tool_start":
			start = p
		case "tool_end":
			end = p
		}
	}
	if start["name"] != "read_file" || start["args"].(map[string]any)["file_path"] != "notes.txt" || end["name"] != "read_file" || end["result_preview"] != "hi there" {
		t.Fatalf("tool events %v %v", start, end)
	}
	tc := res.M["tool_calls_made"].([]any)
	if res.Str("status") != "ok" || res.Str("response") != "It says hi." || res.Num("iterations") != 2 || len(tc) != 1 ||
		tc[0].(map[string]any)["name"] != "read_file" || res.Obj("usage")["total_tokens"] != 330.0 {
		t.Fatalf("result %s", res.Raw)
	}
	<-m.Received
	q := <-m.Received
	last := string(q.Body.Messages[len(q.Body.Messages)-1])
	if !strings.Contains(last, `"role":"tool"`) || !strings.Contains(last, "hi there") || !strings.Contains(last, "call_1") {
		t.Fatalf("tool result sent back: %s", last)
	}
}

// A tool that fails: its error is the preview and a tool_error event,
// the model gets it and the loop goes on.
func TestToolError(t *testing.T) {
	m := heddletest.New(t, heddletest.Tool("c", "read_file", `{"path":"missing.txt"}`, 1, 1), heddletest.Answer(1, 1, "no file"))
	w := startWorker(t, m, nil)
	w.init()
	w.send(`{"type":"send","id":"2","message":"x"}`)
	evs, res := w.events()
	var sawErr bool
	for _, e := range evs {
		p := e.Obj("event")
		if p["event"] == "tool_end" && !strings.HasPrefix(p["result_preview"].(string), "Error: read_file:") {
			t.Fatalf("tool_end %s", e.Raw)
		}
		if p["event"] == "error" {
			sawErr = p["code"] == "tool_error" && p["retryable"] == false
		}
	}
	if !sawErr || res.Str("status") != "ok" || res.Str("response") != "no file" {
		t.Fatalf("events %v result %s", evs, res.Raw)
	}
}

// HTTP 500: an error event (provider_error, retryable, openrouter, the
// body as details), then a result with the error; no retry.
func TestProviderError(t *testing.T) {
	m := heddletest.New(t, heddletest.ServerError("Upstream exploded"), heddletest.Answer(1, 1, "unused"))
	w := startWorker(t, m, nil)
	w.init()
	w.send(`{"type":"send","id":"2","message":"x"}`)
	evs, res := w.events()
	if got := names(t, evs, "2"); got != "error" {
		t.Fatalf("events %s", got)
	}
	p := evs[0].Obj("event")
	d, _ := p["details"].(map[string]any)
	if p["code"] != "provider_error" || p["message"] != "Upstream exploded" || p["retryable"] != true || p["provider"] != "openrouter" ||
		d == nil || d["error"].(map[string]any)["message"] != "Upstream exploded" {
		t.Fatalf("error event %s", evs[0].Raw)
	}
	wantError(t, res, "2", "provider_error", "Upstream exploded", true)
	<-m.Received
	select {
	case q := <-m.Received:
		t.Fatalf("retried: %+v", q)
	default:
	}
}

// A cancel before any output: no event at all, only the cancelled result
// with nothing made; the session takes the next send.
func TestCancelBeforeOutput(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	m := heddletest.New(t, heddletest.Reply{Chunks: []string{heddletest.Text("late")}, Hold: hold}, heddletest.Answer(1, 1, "next"))
	w := startWorker(t, m, nil)
	w.init()
	w.send(`{"type":"send","id":"2","message":"x"}`)
	<-m.Received
	w.send(`{"type":"status","id":"st"}`)
	if st := w.expect("status_ok"); st.M["active"] != true {
		t.Fatalf("status during a send %s", st.Raw)
	}
	w.send(`{"type":"cancel","id":"4","target_id":"nope"}`)
	wantError(t, w.expect("result"), "4", "protocol_error", `No active send with id "nope"`, false)
	w.send(`{"type":"cancel","id":"4","target_id":"2"}`)
	res := w.expect("result") // no event before it
	wantError(t, res, "2", "cancelled", "cancelled", false)
	if len(res.M["tool_calls_made"].([]any)) != 0 || res.Num("iterations") != 0 {
		t.Fatalf("cancelled result %s", res.Raw)
	}
	w.send(`{"type":"send","id":"5","message":"again"}`)
	evs, res := w.events()
	if names(t, evs, "5") != "content_delta usage" || res.Str("response") != "next" {
		t.Fatalf("after a cancel: %s", res.Raw)
	}
}

// A cancel after the stream opened with its empty role-only chunk is
// still a cancel before any output: no event, iterations 0.
func TestCancelAfterRoleChunk(t *testing.T) {
	ep := heddletest.NewStepped()
	w := startWorker(t, heddletest.New(t), func(c *heddle.Config) {
		c.LLM = &llm.Client{BaseURL: "http://endpoint.test/v1", HTTP: &http.Client{Transport: ep}}
	})
	w.init()
	w.send(`{"type":"send","id":"2","message":"x"}`)
	st := <-ep.Streams
	st.Chunk(t, heddletest.Role()) // handled by the worker when Chunk returns
	w.send(`{"type":"cancel","id":"3","target_id":"2"}`)
	res := w.expect("result") // no event before it
	wantError(t, res, "2", "cancelled", "cancelled", false)
	if len(res.M["tool_calls_made"].([]any)) != 0 || res.Num("iterations") != 0 {
		t.Fatalf("cancelled result %s", res.Raw)
	}
}

// A cancel during bash kills the command's process group.
func TestCancelBash(t *testing.T) {
	pidFile := filepath.Join(proctest.ShortDir(t), "pid")
	cmd, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("sleep 300 & echo $! > %s; wait", pidFile)})
	m := heddletest.New(t, heddletest.Tool("c", "bash", string(cmd), 1, 1))
	w := startWorker(t, m, nil)
	w.init()
	w.send(`{"type":"send","id":"2","message":"x"}`)
	for {
		if e := w.expect("event"); e.Obj("event")["event"] == "tool_start" {
			break
		}
	}
	var pid int
	proctest.WaitFor(t, "the command's pid", heddletest.Wait, func() bool {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	w.send(`{"type":"cancel","id":"3","target_id":"2"}`)
	res := w.expect("result")
	wantError(t, res, "2", "cancelled", "cancelled", false)
	if tc := res.M["tool_calls_made"].([]any); len(tc) != 1 || res.Num("iterations") != 1 {
		t.Fatalf("result %s", res.Raw)
	}
	proctest.WaitFor(t, "sleep killed", heddletest.Wait, func() bool { return proc.Gone(pid) })
}

// Heartbeats during a send share the event counter and count from the
// send's start; none comes after the result.
func TestHeartbeat(t *testing.T) {
	hold := make(chan struct{})
	m := heddletest.New(t, heddletest.Reply{Chunks: []string{heddletest.Text("done"), heddletest.Finish("stop")}, Hold: hold})
	w := startWorker(t, m, func(c *heddle.Config) { c.Heartbeat = 5 * time.Millisecond })
	w.init()
	w.send(`{"type":"send","id":"2","message":"x"}`)
	var evs []heddletest.Msg
	for len(evs) < 2 {
		e := w.expect("event")
		if e.Obj("event")["event"] != "heartbeat" {
			t.Fatalf("before the stream: %s", e.Raw)
		}
		evs = append(evs, e)
	}
	close(hold)
	rest, res := w.events()
	evs = append(evs, rest...)
	names(t, evs, "2") // seq 0, 1, 2… across heartbeats and deltas
	last := -1.0
	for _, e := range evs {
		if p := e.Obj("event"); p["event"] == "heartbeat" {
			d := p["duration_ms"].(float64)
			if d < last {
				t.Fatalf("duration_ms went back: %v", evs)
			}
			last = d
		}
	}
	if res.Str("response") != "done" {
		t.Fatalf("result %s", res.Raw)
	}
	w.send(`{"type":"shutdown","id":"9"}`)
	w.expect("shutdown_ok") // nothing in between: no heartbeat after the result
}

// The same tool call again and again: loop_detected (an error event and
// the result), after DoomRepeats runs.
func TestDoomLoop(t *testing.T) {
	m := heddletest.New(t)
	for i := 0; i < 3; i++ {
		m.Push(heddletest.Tool(fmt.Sprint("c", i), "glob", `{"pattern":"*.go"}`, 1, 1))
	}
	w := startWorker(t, m, nil)
	w.init()
	w.send(`{"type":"send","id":"2","message":"x"}`)
	evs, res := w.events()
	if evs[len(evs)-1].Obj("event")["code"] != "loop_detected" {
		t.Fatalf("last event %s", evs[len(evs)-1].Raw)
	}
	wantError(t, res, "2", "loop_detected", "", false)
	if tc := res.M["tool_calls_made"].([]any); len(tc) != heddle.DoomRepeats || res.Num("iterations") != 3 {
		t.Fatalf("result %s", res.Raw)
	}
}

// max_iterations bounds the model calls; a second send while one is
// running waits for it; cancel acts at once, on a waiting send (which never
// starts) as on the running one; shutdown after them.
func TestMaxIterationsAndBusy(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	m := heddletest.New(t, heddletest.Tool("c", "glob", `{"pattern":"*"}`, 1, 1),
		heddletest.Reply{Chunks: []string{heddletest.Text("x")}, Hold: hold})
	w := startWorker(t, m, nil)
	w.send(`{"type":"init","id":"1","config":{"model":"m","system_prompt":"s","tools":["glob"],"max_iterations":1}}`)
	w.expect("init_ok")
	w.send(`{"type":"send","id":"2","message":"x"}`)
	evs, res := w.events()
	if names(t, evs, "2") != "usage tool_start tool_end" || res.Str("status") != "ok" || res.Num("iterations") != 1 {
		t.Fatalf("max_iterations 1: %s", res.Raw)
	}
	w.send(`{"type":"send","id":"3","message":"y"}`)
	<-m.Received
	<-m.Received
	w.send(`{"type":"send","id":"4","message":"z"}`)
	w.send(`{"type":"status","id":"s"}`)
	if st := w.expect("status_ok"); st.M["active"] != true {
		t.Fatalf("status during a send: %s", st.Raw)
	}
	w.send(`{"type":"cancel","id":"c4","target_id":"4"}`)
	wantError(t, w.expect("result"), "4", "cancelled", "cancelled", false)
	w.send(`{"type":"cancel","id":"c3","target_id":"3"}`)
	wantError(t, w.expect("result"), "3", "cancelled", "cancelled", false)
	w.send(`{"type":"shutdown","id":"5"}`)
	w.expect("shutdown_ok")
	if len(m.Received) != 0 {
		t.Fatal("the cancelled waiting send called the model")
	}
}

// Fields a request has that this version does not know are ignored (a
// later minor version's), in the request and in init's config.
func TestUnknownRequestFields(t *testing.T) {
	w := startWorker(t, heddletest.New(t, heddletest.Answer(1, 1, "ok")), nil)
	w.send(`{"type":"init","id":"1","protocol_version":"0.2.0","approval_mode":"suggest","config":{"model":"m","system_prompt":"s","tools":[],"weak_model":"w","max_iterations":3}}`)
	if m := w.expect("init_ok"); m.M["error"] != nil || m.Str("session_id") == "" {
		t.Fatalf("init with unknown fields: %s", m.Raw)
	}
	w.send(`{"type":"send","id":"2","message":"hi","attachments":[],"priority":1}`)
	if _, res := w.events(); res.Str("status") != "ok" || res.Str("response") != "ok" {
		t.Fatalf("send with unknown fields: %s", res.Raw)
	}
	w.send(`{"type":"status","id":"3","verbose":true}`)
	w.expect("status_ok")
}

// The end of the input lets a send in flight finish: its result is
// written, then Serve returns nil.
func TestEOFFinishesSend(t *testing.T) {
	hold := make(chan struct{})
	m := heddletest.New(t, heddletest.Reply{Chunks: []string{heddletest.Text("done")}, Hold: hold})
	w := startWorker(t, m, nil)
	w.init()
	w.send(`{"type":"send","id":"2","message":"x"}`)
	<-m.Received
	w.in.Close()
	close(hold)
	if _, res := w.events(); res.Str("status") != "ok" || res.Str("response") != "done" {
		t.Fatalf("result %s", res.Raw)
	}
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil
}

// Without max_iterations in init a send makes at most
// DefaultMaxIterations (25) model calls; it ends ok with what it has.
func TestDefaultMaxIterations(t *testing.T) {
	m := heddletest.New(t)
	for i := 0; i <= heddle.DefaultMaxIterations; i++ { // one more than allowed
		m.Push(heddletest.Tool(fmt.Sprint("c", i), "glob", fmt.Sprintf(`{"pattern":"%d.txt"}`, i), 1, 1))
	}
	w := startWorker(t, m, nil)
	w.send(`{"type":"init","id":"1","config":{"model":"m","system_prompt":"s","tools":["glob"]}}`)
	w.expect("init_ok")
	w.send(`{"type":"send","id":"2","message":"x"}`)
	_, res := w.events()
	if res.Str("status") != "ok" || res.Num("iterations") != 25 || len(res.M["tool_calls_made"].([]any)) != 25 || res.Obj("usage")["total_tokens"] != 50.0 {
		t.Fatalf("result %s", res.Raw)
	}
	if n := len(m.Received); n != 25 {
		t.Fatalf("%d model calls", n)
	}
}

// normalize is a message with the values that differ from run to run
// (a session id, latencies) replaced.
func normalize(t *testing.T, line string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	if s, ok := m["session_id"].(string); ok && s != "" {
		m["session_id"] = "S"
	}
	for _, k := range []string{"model_latency_ms", "tool_latency_ms", "total_latency_ms"} {
		if _, ok := m[k]; ok {
			m[k] = 0.0
		}
	}
	return m
}

// The worker against a recorded transcript: each request in turn, and
// exactly the recorded lines back (up to session ids and latencies).
func TestWorkerTranscript(t *testing.T) {
	steps, err := heddletest.Transcript("worker.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := heddletest.New(t,
		heddletest.Tool("call_1", "read_file", `{"file_path":"src/index.ts"}`, 1500, 200),
		heddletest.Answer(500, 300, "The file exports ", "a constant."),
		heddletest.ServerError("Rate limited"))
	w := startWorker(t, m, nil)
	os.MkdirAll(filepath.Join(w.dir, "src"), 0o755)
	os.WriteFile(filepath.Join(w.dir, "src/index.ts"), []byte("export const x = 1;\n"), 0o644)
	for _, s := range steps {
		if s.In {
			w.send(s.Line)
			continue
		}
		got := w.next()
		if g, want := normalize(t, got.Raw), normalize(t, s.Line); !reflect.DeepEqual(g, want) {
			t.Fatalf("got  %s\nwant %s", got.Raw, s.Line)
		}
	}
}

// A script written in one piece runs in order, as heddle's own golden
// replays expect: init_ok, the send's events and result, then shutdown_ok
// and the end (or, at the end of the input, just the end); every event
// and the result carry the session id init gave.
func TestScriptInOneWrite(t *testing.T) {
	for _, tc := range []struct {
		name, tail string
		shutdown   bool
	}{{"shutdown", `{"type":"shutdown","id":"3"}` + "\n", true}, {"eof", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			m := heddletest.New(t, heddletest.Answer(5, 2, "Hel", "lo"))
			w := startWorker(t, m, nil)
			script := `{"type":"init","id":"1","config":{"model":"m","system_prompt":"s","tools":[]}}` + "\n" +
				`{"type":"send","id":"2","message":"hi"}` + "\n" + tc.tail
			if _, err := io.WriteString(w.in, script); err != nil {
				t.Fatal(err)
			}
			if !tc.shutdown {
				w.in.Close()
			}
			sid := w.expect("init_ok").Str("session_id")
			evs, res := w.events()
			if got := names(t, evs, "2"); got != "content_delta content_delta usage" || res.Str("status") != "ok" || res.Str("response") != "Hello" {
				t.Fatalf("the send: %s, %s", got, res.Raw)
			}
			for _, e := range append(evs, res) {
				if e.Str("session_id") != sid || sid == "" {
					t.Fatalf("session id %q: %s", sid, e.Raw)
				}
			}
			if tc.shutdown {
				w.expect("shutdown_ok")
			}
			select {
			case err := <-w.done:
				if err != nil {
					t.Fatal(err)
				}
				w.done <- nil
			case <-time.After(heddletest.Wait):
				t.Fatal("Serve did not return")
			}
			if m, ok := <-w.out; ok {
				t.Fatalf("after the end: %s", m.Raw)
			}
		})
	}
}
