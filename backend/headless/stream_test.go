package headless

import (
	"reflect"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// The interpreter of Claude's stream-json: state, transcript items and a
// turn's failure, from a line of claude's stdout or a frame.
func TestParseLine(t *testing.T) {
	for _, c := range []struct {
		line    string
		state   session.State
		stated  bool
		items   []Item
		failure string
	}{
		{line: `{"type":"claude.stream_event","event":{"type":"content_block_start","content_block":{"type":"tool_use"}}}`, state: session.ToolUse, stated: true},
		{line: `{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"thinking_delta"}}}`, state: session.Thinking, stated: true},
		{line: `{"type":"stream_event","event":{"type":"content_block_stop"}}`},
		{line: `{"type":"user","isReplay":true,"message":{"role":"user","content":"hi"}}`, items: []Item{{Kind: ItemUser, Text: "hi"}}},
		{line: `{"type":"user","isReplay":true,"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}`, items: []Item{{Kind: ItemUser, Text: "a\nb"}}},
		// Not a replay: a string user message is not taken for the user's turn.
		{line: `{"type":"user","message":{"role":"user","content":"summary"}}`},
		{line: `{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"x"}],"is_error":true}]}}`,
			items: []Item{{Kind: ItemToolResult, Text: "x", IsErr: true}}},
		{line: `{"type":"assistant","message":{"content":[{"type":"text","text":"ok"},{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}`,
			items: []Item{{Kind: ItemText, Text: "ok"}, {Kind: ItemTool, Text: "Bash", Input: []byte(`{"command":"ls"}`)}}},
		{line: `{"type":"result","subtype":"error_max_turns","is_error":true,"result":"too long"}`, state: session.Idle, stated: true, failure: "turn failed: error_max_turns: too long"},
		{line: `{"type":"result","subtype":"success","permission_denials":[{"tool_name":"Write"}]}`, state: session.Idle, stated: true, failure: "permission denied: Write"},
	} {
		l, err := ParseLine([]byte(c.line))
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		st, ok := l.State()
		msg, _ := l.Failure()
		if st != c.state || ok != c.stated || !reflect.DeepEqual(l.Items(), c.items) || msg != c.failure {
			t.Errorf("%s: state %v %v, items %+v, failure %q", c.line, st, ok, l.Items(), msg)
		}
	}
	for _, bad := range []string{`[1]`, `{"no_type":1}`, `not json`} {
		if _, err := ParseLine([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
