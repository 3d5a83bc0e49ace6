package blemees

import (
	"encoding/json"
	"reflect"
	"testing"
)

// ClaudeFrame equals decoding the line, prefixing its type and setting
// session_id and seq, for every JSON object.
func FuzzClaudeFrame(f *testing.F) {
	for _, s := range []string{
		`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"text":"a\"}b"}},"session_id":"x"}`,
		` { "type" : "result" , "usage" : {"n": [1, 2.5e3, -0]}, "seq": 9, "z": null, "t": true } `,
		`{"a":"\u00e9\\","type":"system"}`, `{}`, `{"type":3}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var orig map[string]any
		if json.Unmarshal([]byte(in), &orig) != nil || orig == nil {
			return
		}
		out := ClaudeFrame("s\"1", 42, []byte(in))
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q → invalid %q: %v", in, out, err)
		}
		typ, ok := orig["type"].(string)
		if !ok || typ == "" {
			typ = "unknown"
		}
		orig["type"], orig["session_id"], orig["seq"] = "claude."+typ, "s\"1", 42.0
		if !reflect.DeepEqual(got, orig) {
			t.Fatalf("%q →\n%s\nwant %v", in, out, orig)
		}
	})
}

func TestParseOpenRefusals(t *testing.T) {
	for in, code := range map[string]string{
		`{"type":"blemeesd.open","session_id":"s","bare":false}`:               CodeUnsafeFlag,
		`{"type":"blemeesd.open","session_id":"s","output_format":"json"}`:     CodeInvalidMessage,
		`{"type":"blemeesd.open"}`:                                             CodeInvalidMessage,
		`{"type":"blemeesd.open","session_id":"s","agents":[1]}`:               CodeInvalidMessage,
		`{"type":"blemeesd.open","session_id":"s","last_seen_seq":-1}`:         CodeInvalidMessage,
		`{"type":"blemeesd.open","session_id":"s","add_dir":"not-a-list"}`:     CodeInvalidMessage,
		`{"type":"blemeesd.open","session_id":"s","max_budget_usd":-0.5}`:      CodeInvalidMessage,
		`{"type":"blemeesd.open","session_id":"s","permission_mode":"bypass"}`: CodeInvalidMessage,
	} {
		if _, err := ParseOpen([]byte(in)); err == nil || err.Code != code {
			t.Errorf("%s: %v, want %s", in, err, code)
		}
	}
	o, err := ParseOpen([]byte(`{"type":"blemeesd.open","session_id":"s","agents":"{\"a\":1}","json_schema":null,"tools":""}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Args(); !reflect.DeepEqual(got, []string{"--tools=", `--agents={"a":1}`}) {
		t.Fatalf("args %q", got)
	}
}
