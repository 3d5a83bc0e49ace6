package fleet_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle/heddletest"
	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/session/sessiontest"
)

// heddleFleet is a fleet with heddle workers started by cmd with env.
func heddleFleet(t *testing.T, cmd []string, env ...string) (*fleet.Fleet, *fleet.Heddle, chan fleet.HeddleUsage) {
	t.Helper()
	f := openFleet(t)
	turns := make(chan fleet.HeddleUsage, 8)
	h := fleet.NewHeddle(f, fleet.HeddleConfig{Command: cmd, Env: env, Model: "test/model",
		OnTurn: func(id string, u fleet.HeddleUsage) { turns <- u }})
	return f, h, turns
}

func waitState(t *testing.T, f *fleet.Fleet, id string, st session.State) {
	t.Helper()
	proctest.WaitFor(t, id+" "+st.String(), 10*time.Second, func() bool { return infoOf(t, f, id).State == st })
}

// A heddle-headless worker against the streaming mock: listed with its
// kind and caps; a send's tool call and streamed answer in the
// transcript, the state back to Idle, usage to OnTurn; a slow send shows
// "working for" from heartbeats and is interrupted (cancel); Kill shuts it
// down (Dead).
func TestHeddleMember(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	m := heddletest.New(t,
		heddletest.Tool("c1", "glob", `{"pattern":"*.md"}`, 10, 2),
		heddletest.Answer(20, 4, "Found ", "nothing."),
		heddletest.Reply{Chunks: []string{heddletest.Text("never")}, Hold: hold})
	f, h, turns := heddleFleet(t, []string{fleet.HeimdallBin(), "heddle-headless"},
		"HEDDLE_BASE_URL="+m.URL, "OPENROUTER_API_KEY=k", "HEDDLE_HOME="+t.TempDir(), "HEDDLE_HEARTBEAT_INTERVAL=20")
	r := sessiontest.Record(t, f)
	dir := t.TempDir()
	id, err := h.Open(fleet.HeadlessSpec{ID: "hd-1", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Added, id, 0)
	in := infoOf(t, f, id)
	if in.Kind != session.KindHeddle || in.Caps != session.CapTranscript|session.CapInterrupt || !in.Alive || in.Agent != "heddle" ||
		in.Dir != dir || in.State != session.Idle || !strings.HasPrefix(in.Title, "test/model") || !in.Owned || in.PID == 0 {
		t.Fatalf("info %+v", in)
	}
	waitTranscript(t, f, id, "system: heddle worker started · test/model · protocol 0.2.0 · session ")
	_, err = f.Endpoint(id)
	wantRefused(t, err, "attach hd-1: a heddle worker session has no terminal")

	if err := f.Send(id, session.Input{Data: []byte("find docs")}); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "user: find docs\ntool: glob {\"pattern\":\"*.md\"}\ntool: → no files match *.md\nassistant: Found nothing.\n")
	select {
	case u := <-turns:
		if u.Total != 36 || u.Prompt != 30 {
			t.Fatalf("usage %+v", u)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no OnTurn")
	}
	waitState(t, f, id, session.Idle)

	if err := f.Send(id, session.Input{Data: []byte("slow")}); err != nil {
		t.Fatal(err)
	}
	proctest.WaitFor(t, "Thinking, working for", 10*time.Second, func() bool {
		in := infoOf(t, f, id)
		return in.State == session.Thinking && strings.Contains(in.Title, "working for")
	})
	if err := f.Send(id, session.Input{Data: []byte("another")}); err == nil || !strings.Contains(err.Error(), "interrupt it first") {
		t.Fatalf("a second send: %v", err)
	}
	// status while it answers: the system prompt, the first exchange
	// (user, tool call, tool result, answer) and this message.
	if err := f.Send(id, session.Input{Data: []byte(fleet.StatusCommand + "\n")}); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "system: status: test/model · 6 messages · session ")
	if err := f.Interrupt(id); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, " · answering\nsystem: cancelled\n")
	waitState(t, f, id, session.Idle)

	if err := f.Kill(id, false); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, id, 0)
	if in := infoOf(t, f, id); in.Alive || in.State != session.Dead || in.ExitCode != 0 {
		t.Fatalf("after Kill: %+v", in)
	}
	waitTranscript(t, f, id, "system: the worker shut down\n")
}

// A recorded heddle worker (every event type, an unknown one, fields of a
// later version) through the member: the transcript the pane shows, the
// usage of the result, a cancel, a provider error reported as Failed.
func TestHeddleTranscript(t *testing.T) {
	f, h, turns := heddleFleet(t, []string{os.Args[0], "-test.run=^$"}, heddletest.EnvScript+"=member.txt")
	r := sessiontest.Record(t, f)
	id, err := h.Open(fleet.HeadlessSpec{ID: "rec", Model: "anthropic/claude-sonnet-4", SystemPrompt: "You are a coding assistant."})
	if err != nil {
		t.Fatal(err)
	}
	f.Send(id, session.Input{Data: []byte("Read src/index.ts and explain it.")})
	want := "user: Read src/index.ts and explain it.\n" +
		"assistant: Let me look.\n" +
		"tool: read_file {\"file_path\":\"src/index.ts\"}\n" +
		"tool: → import { ... } (truncated)\n" +
		"system: permission requested: bash — bash (execute) requires approval in suggest mode\n" +
		"system: permission denied: bash — User denied\n" +
		"system: context pruned: 5 messages, 45000 → 28000 tokens\n" +
		"system: context compacted\n" +
		"system: context handed off\n" +
		"assistant: plan:\n1. Read the file\n2. Identify the bug\n3. Fix it\n" +
		"system: error tool_error (not retryable): bash: denied\n" +
		"assistant: The file exports a module.\n"
	waitTranscript(t, f, id, want)
	if u := <-turns; u.Total != 2500 {
		t.Fatalf("usage %+v", u)
	}
	waitState(t, f, id, session.Idle)
	f.Send(id, session.Input{Data: []byte("And the tests?")})
	proctest.WaitFor(t, "streaming", 10*time.Second, func() bool {
		in := infoOf(t, f, id)
		return in.State == session.Streaming && strings.HasSuffix(in.Title, "· Looking")
	})
	if err := f.Interrupt(id); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "user: And the tests?\nassistant: Looking\nsystem: cancelled\n")
	waitState(t, f, id, session.Idle)
	f.Send(id, session.Input{Data: []byte("Try again")})
	waitTranscript(t, f, id, "user: Try again\nsystem: error provider_error (retryable, openrouter): Rate limited\nsystem: error provider_error (retryable): Rate limited\n")
	r.Wait(t, session.Failed, id, 0)
	if in := infoOf(t, f, id); !strings.HasSuffix(in.Title, "· send failed") {
		t.Fatalf("title %q", in.Title)
	}
	if err := f.Kill(id, false); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, id, 0)
	if in := infoOf(t, f, id); in.ExitCode != 0 {
		t.Fatalf("the scripted worker failed (%d): %s", in.ExitCode, roles(f.Transcript(id, 0)))
	}
}

// A worker that writes garbage and dies: both are errors in the pane
// (Failed), the member is Dead with the exit status; one that cannot
// start, or speaks another major version, is refused at Open.
func TestHeddleBrokenWorkers(t *testing.T) {
	f, h, _ := heddleFleet(t, []string{os.Args[0], "-test.run=^$"}, heddletest.EnvGarble+"=1")
	r := sessiontest.Record(t, f)
	id, err := h.Open(fleet.HeadlessSpec{ID: "bad"})
	if err != nil {
		t.Fatal(err)
	}
	f.Send(id, session.Input{Data: []byte("hello")})
	r.Wait(t, session.Exited, id, 0)
	waitTranscript(t, f, id, "system: the worker wrote a line that is not the protocol: Traceback (most recent call last): the worker fell over\n")
	waitTranscript(t, f, id, "system: the worker died: heddle worker exited with status 3: fatal: out of cheese\n")
	if in := infoOf(t, f, id); in.State != session.Dead || in.ExitCode != 3 || r.Count(session.Failed, id) != 2 {
		t.Fatalf("%+v %s", in, r)
	}

	_, h2, _ := heddleFleet(t, []string{"/nonexistent/heddle"})
	if _, err := h2.Open(fleet.HeadlessSpec{}); err == nil || !strings.Contains(err.Error(), "/nonexistent/heddle") {
		t.Fatalf("missing command: %v", err)
	}
	_, h3, _ := heddleFleet(t, []string{os.Args[0], "-test.run=^$"}, heddletest.EnvScript+"=mismatch.txt")
	if _, err := h3.Open(fleet.HeadlessSpec{}); err == nil || !strings.Contains(err.Error(), "protocol_version_mismatch") {
		t.Fatalf("another major version: %v", err)
	}
}

// A cancel that comes too late (the worker refuses it: its send had
// ended) is a notice, not an error; a result without deltas enters its
// response.
func TestHeddleLateCancel(t *testing.T) {
	f, h, _ := heddleFleet(t, []string{os.Args[0], "-test.run=^$"}, heddletest.EnvScript+"=late-cancel.txt")
	r := sessiontest.Record(t, f)
	id, err := h.Open(fleet.HeadlessSpec{ID: "late"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Send(id, session.Input{Data: []byte("quick")}); err != nil {
		t.Fatal(err)
	}
	if err := f.Interrupt(id); err != nil {
		t.Fatal(err)
	}
	waitTranscript(t, f, id, "user: quick\nassistant: done\nsystem: nothing to cancel: the answer was complete\n")
	if err := f.Kill(id, false); err != nil {
		t.Fatal(err)
	}
	r.Wait(t, session.Exited, id, 0)
	if n := r.Count(session.Failed, id); n != 0 || infoOf(t, f, id).ExitCode != 0 {
		t.Fatalf("%d failures, %s", n, roles(f.Transcript(id, 0)))
	}
}
