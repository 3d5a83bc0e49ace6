package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle/client"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle/heddletest"
	wire "github.com/heimdall-tui/heimdall-tui/wire/heddle"
)

func TestMain(m *testing.M) {
	heddletest.RunIfWorker()
	os.Exit(m.Run())
}

// recorder is a Handler that keeps what it got, in order.
type recorder struct {
	mu      sync.Mutex
	got     []any // wire.Event, wire.Result, garbage strings
	changed chan struct{}
	exit    chan error
}

func newRecorder() *recorder {
	return &recorder{changed: make(chan struct{}, 1), exit: make(chan error, 1)}
}

func (r *recorder) add(v any) {
	r.mu.Lock()
	r.got = append(r.got, v)
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) handler() client.Handler {
	return client.Handler{
		Event:   func(e wire.Event) { r.add(e) },
		Result:  func(res wire.Result) { r.add(res) },
		Garbage: func(line string, err error) { r.add("garbage: " + line) },
		Exit:    func(code int, err error) { r.exit <- err },
	}
}

// waitFor waits until cond holds on what was got (bounded: a hang is a
// failure, not a timing assertion).
func (r *recorder) waitFor(t *testing.T, what string, cond func([]any) bool) []any {
	t.Helper()
	deadline := time.After(heddletest.Wait)
	for {
		r.mu.Lock()
		got := append([]any(nil), r.got...)
		r.mu.Unlock()
		if cond(got) {
			return got
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("waiting for %s; got %#v", what, got)
		}
	}
}

func resultFor(id string) func([]any) bool {
	return func(got []any) bool {
		for _, g := range got {
			if res, ok := g.(wire.Result); ok && res.ID == id {
				return true
			}
		}
		return false
	}
}

// start starts this test binary as a worker with env.
func start(t *testing.T, r *recorder, env ...string) *client.Client {
	t.Helper()
	c, err := client.Start(client.Options{Argv: []string{os.Args[0], "-test.run=^$"}, Dir: t.TempDir(), Env: env, Grace: time.Second}, r.handler())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		<-c.Done()
	})
	return c
}

func prompt(s string) *string { return &s }

// The client against a recorded heddle worker: init (a newer minor
// version is compatible, unknown fields ignored), every event type in
// order (an unknown one passed on as wire.Unknown), the result, status,
// cancel, a provider error, shutdown and exit 0.
func TestClientTranscript(t *testing.T) {
	r := newRecorder()
	c := start(t, r, heddletest.EnvScript+"=client.txt")
	ctx, cancel := context.WithTimeout(context.Background(), heddletest.Wait)
	defer cancel()
	ok, err := c.Init(ctx, wire.InitConfig{Model: "anthropic/claude-sonnet-4", SystemPrompt: prompt("You are a coding assistant."),
		Tools: []string{"read_file", "bash"}, MaxIterations: 10, TaskID: "task-abc", WorkerID: "worker-1"})
	if err != nil || ok.SessionID != "550e8400-e29b-41d4-a716-446655440000" || ok.ProtocolVersion != "0.2.3" {
		t.Fatalf("%+v %v", ok, err)
	}
	id, err := c.Send("Read src/index.ts and explain it.")
	if err != nil || id != "2" {
		t.Fatalf("%q %v", id, err)
	}
	got := r.waitFor(t, "the result of send 2", resultFor("2"))
	var kinds []string
	for _, g := range got {
		switch g := g.(type) {
		case wire.Event:
			if g.SendID != "2" || g.TaskID != "task-abc" || g.WorkerID != "worker-1" {
				t.Fatalf("event %+v", g)
			}
			switch p := g.Event.(type) {
			case wire.Unknown:
				kinds = append(kinds, "unknown:"+p.Event)
			default:
				kinds = append(kinds, typeName(p))
			}
		case wire.Result:
			if g.Status != "ok" || *g.Response != "The file exports a module." || g.Usage.TotalTokens != 2500 || g.Iterations != 2 ||
				len(g.ToolCallsMade) != 1 || *g.TotalLatencyMS != 1250 {
				t.Fatalf("result %+v", g)
			}
		default:
			t.Fatalf("unexpected %v", g)
		}
	}
	want := "Heartbeat ContentDelta ContentDelta ToolStart ToolEnd UsageEvent PermissionRequest PermissionDenied ContextPrune ContextCompact ContextHandoff unknown:telepathy PlanComplete ErrorEvent ContentDelta UsageEvent"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("events\n %s\nwant\n %s", strings.Join(kinds, " "), want)
	}
	st, err := c.Status(ctx)
	if err != nil || st.MessagesCount != 12 || st.Active || st.Model != "anthropic/claude-sonnet-4" {
		t.Fatalf("%+v %v", st, err)
	}
	id, _ = c.Send("And the tests?")
	r.waitFor(t, "a delta of send 4", func(got []any) bool {
		e, ok := got[len(got)-1].(wire.Event)
		return ok && e.SendID == id
	})
	if _, err := c.Cancel(id); err != nil {
		t.Fatal(err)
	}
	got = r.waitFor(t, "the cancelled result", resultFor(id))
	if res := got[len(got)-1].(wire.Result); res.Error == nil || res.Error.Code != wire.CodeCancelled || res.Iterations != 0 || len(res.ToolCallsMade) != 0 {
		t.Fatalf("%+v", res)
	}
	id, _ = c.Send("Try again")
	got = r.waitFor(t, "the provider error", resultFor(id))
	if res := got[len(got)-1].(wire.Result); res.Error == nil || res.Error.Code != wire.CodeProviderError || !res.Error.Retryable {
		t.Fatalf("%+v", res)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-r.exit; err != nil {
		t.Fatalf("exit %v", err)
	}
	if _, err := c.Send("too late"); !errors.Is(err, client.ErrExited) {
		t.Fatalf("send after exit: %v", err)
	}
}

// typeName is a payload's type without its package.
func typeName(v any) string { return strings.TrimPrefix(fmt.Sprintf("%T", v), "heddle.") }

// A worker of another major version: Init fails and says so.
func TestClientVersionMismatch(t *testing.T) {
	r := newRecorder()
	c := start(t, r, heddletest.EnvScript+"=mismatch.txt")
	ctx, cancel := context.WithTimeout(context.Background(), heddletest.Wait)
	defer cancel()
	_, err := c.Init(ctx, wire.InitConfig{Model: "m"})
	var e *wire.ErrorEnvelope
	if !errors.As(err, &e) || e.Code != wire.CodeVersionMismatch {
		t.Fatalf("%v", err)
	}
}

// A worker that writes garbage and dies: the line is reported, the exit
// says its status and stderr, and nothing blocks.
func TestClientGarbageAndDeath(t *testing.T) {
	r := newRecorder()
	c := start(t, r, heddletest.EnvGarble+"=1")
	ctx, cancel := context.WithTimeout(context.Background(), heddletest.Wait)
	defer cancel()
	if _, err := c.Init(ctx, wire.InitConfig{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	c.Send("hello")
	err := <-r.exit
	if !errors.Is(err, client.ErrExited) || !strings.Contains(err.Error(), "status 3") || !strings.Contains(err.Error(), "out of cheese") {
		t.Fatalf("exit %v", err)
	}
	r.waitFor(t, "the garbage", func(got []any) bool {
		return len(got) == 1 && strings.HasPrefix(got[0].(string), "garbage: Traceback")
	})
	if _, err := c.Status(ctx); !errors.Is(err, client.ErrExited) {
		t.Fatalf("status after death: %v", err)
	}
}

// Our client against our worker (this binary as heddle-headless) and the
// streaming mock: init, a tool call and an answer, status, shutdown.
func TestClientAgainstWorker(t *testing.T) {
	m := heddletest.New(t, heddletest.Tool("c1", "glob", `{"pattern":"*"}`, 10, 2), heddletest.Answer(20, 4, "No ", "files."))
	r := newRecorder()
	c := start(t, r, heddletest.EnvWorker+"=1", "HEDDLE_BASE_URL="+m.URL, "OPENROUTER_API_KEY=k", "HEDDLE_HOME="+t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), heddletest.Wait)
	defer cancel()
	ok, err := c.Init(ctx, wire.InitConfig{Model: "m", SystemPrompt: prompt("s"), Tools: []string{"glob"}, WorkerID: "w"})
	if err != nil || ok.ProtocolVersion != wire.Version {
		t.Fatalf("%+v %v", ok, err)
	}
	id, _ := c.Send("list")
	got := r.waitFor(t, "the result", resultFor(id))
	res := got[len(got)-1].(wire.Result)
	if res.Status != "ok" || *res.Response != "No files." || res.Usage.TotalTokens != 36 || res.WorkerID != "w" || res.SessionID != ok.SessionID {
		t.Fatalf("%+v", res)
	}
	st, err := c.Status(ctx)
	if err != nil || st.MessagesCount != 5 {
		t.Fatalf("%+v %v", st, err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-r.exit; err != nil {
		t.Fatal(err)
	}
}

// A worker that has gone (it closed its input, then exited: one that could
// not start) makes Init fail with how it exited and its stderr, not with
// the broken pipe the write met.
func TestClientWorkerGoneBeforeInit(t *testing.T) {
	r := newRecorder()
	c, err := client.Start(client.Options{Argv: []string{"bash", "-c", "exec 0<&-; echo stdin closed; echo 'cannot start: no key' >&2; exit 7"}}, r.handler())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.Close(); <-c.Done() }()
	r.waitFor(t, "the worker's line", func(got []any) bool { return len(got) == 1 }) // its input is closed now
	ctx, cancel := context.WithTimeout(context.Background(), heddletest.Wait)
	defer cancel()
	_, err = c.Init(ctx, wire.InitConfig{Model: "m"})
	if !errors.Is(err, client.ErrExited) || !strings.Contains(err.Error(), "status 7: cannot start: no key") {
		t.Fatalf("init: %v", err)
	}
	<-c.Done()
	if _, err := c.Send("hello"); !errors.Is(err, client.ErrExited) || !strings.Contains(err.Error(), "status 7") {
		t.Fatalf("send after exit: %v", err)
	}
}
