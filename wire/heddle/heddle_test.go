package heddle_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/wire/heddle"
)

// Every event payload the protocol lists decodes to its type (the spec's
// own examples), with unknown fields ignored; an unknown event is Unknown.
func TestDecodeEvent(t *testing.T) {
	cases := []struct {
		raw  string
		want any
	}{
		{`{"event":"content_delta","text":"Here's what","extra":1}`, heddle.ContentDelta{Event: "content_delta", Text: "Here's what"}},
		{`{"event":"tool_start","name":"read_file","args":{"file_path":"src/index.ts"}}`, heddle.ToolStart{Event: "tool_start", Name: "read_file", Args: json.RawMessage(`{"file_path":"src/index.ts"}`)}},
		{`{"event":"tool_end","name":"read_file","result_preview":"import { ... } (truncated)"}`, heddle.ToolEnd{Event: "tool_end", Name: "read_file", ResultPreview: "import { ... } (truncated)"}},
		{`{"event":"usage","prompt_tokens":1500,"completion_tokens":200,"total_tokens":1700}`, heddle.UsageEvent{Event: "usage", Usage: heddle.Usage{1500, 200, 1700}}},
		{`{"event":"error","code":"provider_error","message":"Rate limited","retryable":true,"provider":"openrouter","details":null}`, heddle.ErrorEvent{Event: "error", Code: "provider_error", Message: "Rate limited", Retryable: true, Provider: "openrouter", Details: json.RawMessage("null")}},
		{`{"event":"permission_request","name":"bash","reason":"bash (execute) requires approval in suggest mode"}`, heddle.PermissionRequest{Event: "permission_request", Name: "bash", Reason: "bash (execute) requires approval in suggest mode"}},
		{`{"event":"permission_denied","name":"bash","reason":"User denied"}`, heddle.PermissionDenied{Event: "permission_denied", Name: "bash", Reason: "User denied"}},
		{`{"event":"plan_complete","plan":"1. Read"}`, heddle.PlanComplete{Event: "plan_complete", Plan: "1. Read"}},
		{`{"event":"context_prune","messages_pruned":5,"tokens_before":45000,"tokens_after":28000}`, heddle.ContextPrune{Event: "context_prune", MessagesPruned: 5, TokensBefore: 45000, TokensAfter: 28000}},
		{`{"event":"context_compact"}`, heddle.ContextCompact{Event: "context_compact"}},
		{`{"event":"context_handoff"}`, heddle.ContextHandoff{Event: "context_handoff"}},
		{`{"event":"heartbeat","duration_ms":5200}`, heddle.Heartbeat{Event: "heartbeat", DurationMS: 5200}},
		{`{"event":"telepathy","x":1}`, heddle.Unknown{Event: "telepathy", Raw: json.RawMessage(`{"event":"telepathy","x":1}`)}},
	}
	for _, c := range cases {
		got, err := heddle.DecodeEvent(json.RawMessage(c.raw))
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %#v %v", c.raw, got, err)
		}
	}
	for _, bad := range []string{`{}`, `[]`, `{"event":"heartbeat","duration_ms":"soon"}`} {
		if _, err := heddle.DecodeEvent(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// Messages written by Writer read back with Reader; a line that is not
// JSON is an error and the reader goes on; numeric ids are taken as text.
func TestCodec(t *testing.T) {
	var buf bytes.Buffer
	w := heddle.NewWriter(&buf)
	msg := "Read <src/index.ts> & explain"
	w.Write(heddle.Request{Type: heddle.TypeSend, ID: "2", Message: &msg})
	buf.WriteString("not json\n")
	w.Write(heddle.Event{Type: heddle.TypeEvent, Event: heddle.Heartbeat{Event: heddle.EvHeartbeat, DurationMS: 0}, EventSeq: 0, SendID: "2",
		Correlation: heddle.Correlation{TaskID: "t"}})
	buf.WriteString(`{"type":"status","id":7}` + "\n")
	if strings.Contains(buf.String(), `\u003c`) {
		t.Fatalf("HTML escaped: %s", buf.String())
	}
	r := heddle.NewReader(&buf)
	l, err := r.Next()
	q, _ := heddle.DecodeRequest(l)
	if err != nil || q.Type != "send" || q.ID != "2" || *q.Message != msg {
		t.Fatalf("%+v %v", q, err)
	}
	if _, err := r.Next(); !errors.Is(err, heddle.ErrInvalidJSON) {
		t.Fatalf("not json: %v", err)
	}
	l, _ = r.Next()
	ev, err := heddle.DecodeEventMsg(l)
	if err != nil || ev.SendID != "2" || ev.TaskID != "t" || ev.Event != (heddle.Heartbeat{Event: "heartbeat", DurationMS: 0}) ||
		!strings.Contains(string(l.Raw), `"duration_ms":0`) || !strings.Contains(string(l.Raw), `"event_seq":0`) {
		t.Fatalf("%+v %v %s", ev, err, l.Raw)
	}
	l, _ = r.Next()
	if q, err := heddle.DecodeRequest(l); err != nil || q.ID != "7" || q.Type != "status" {
		t.Fatalf("%+v %v", q, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatal(err)
	}
}

// An event of a type this version does not know encodes back as the
// worker wrote it (heddle run --json passes events on).
func TestUnknownEventRoundTrip(t *testing.T) {
	line := `{"type":"event","event":{"event":"telepathy","confidence":0.9},"event_seq":3,"send_id":"2"}`
	ev, err := heddle.DecodeEventMsg(heddle.Line{Type: "event", Raw: json.RawMessage(line)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ev.Event.(heddle.Unknown); !ok {
		t.Fatalf("%#v", ev.Event)
	}
	if b, _ := json.Marshal(ev); string(b) != line {
		t.Fatalf("%s\nwant %s", b, line)
	}
}

// A result always has tool_calls_made (never null) and iterations.
func TestResultShape(t *testing.T) {
	b, _ := json.Marshal(heddle.Result{Type: "result", ID: "2", Status: "error", ToolCallsMade: []heddle.ToolCall{},
		Error: &heddle.ErrorEnvelope{Code: heddle.CodeCancelled, Message: "cancelled"}})
	want := `{"type":"result","id":"2","status":"error","tool_calls_made":[],"iterations":0,"error":{"code":"cancelled","message":"cancelled","retryable":false}}`
	if string(b) != want {
		t.Fatalf("%s\nwant %s", b, want)
	}
}

func TestVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		ok   bool
	}{
		{"0.2.0", "0.2.0", true}, {"0.2.9", "0.2.0", true}, {"0.1.0", "0.2.0", false}, {"1.0.0", "1.7.3", true},
		{"2.0.0", "1.0.0", false}, {"0.0.3", "0.0.3", true}, {"0.0.3", "0.0.4", false}, {"0.2.0-beta.1", "0.2.0", true}, {"two", "0.2.0", false}, {"0.2", "0.2.0", false},
	} {
		e := heddle.Incompatible(c.a, c.b)
		if (e == nil) != c.ok {
			t.Errorf("%s vs %s: %v", c.a, c.b, e)
		}
		if e != nil && (e.Code != heddle.CodeVersionMismatch || e.Message != "Client requested "+c.a+", server is "+c.b || e.Retryable) {
			t.Errorf("%+v", e)
		}
	}
}

func FuzzReader(f *testing.F) {
	f.Add(`{"type":"event","event":{"event":"content_delta","text":"x"},"event_seq":0,"send_id":"1"}` + "\n")
	f.Add("{\"type\":\"init\",\"id\":1,\"config\":{\"tools\":null}}\n\n[]\n")
	f.Fuzz(func(t *testing.T, in string) {
		r := heddle.NewReader(strings.NewReader(in))
		for {
			l, err := r.Next()
			if errors.Is(err, heddle.ErrInvalidJSON) {
				continue
			}
			if err != nil {
				return
			}
			heddle.DecodeRequest(l)
			heddle.DecodeEventMsg(l)
		}
	})
}
