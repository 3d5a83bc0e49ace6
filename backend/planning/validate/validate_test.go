package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

func TestValidateMessages(t *testing.T) {
	v, err := New()
	must(t, err)
	valid := []string{
		`{"type":"task_result","from":"coder","msg_id":"m1","task":"3.2","status":"pass","criteria":[1,2],"commit":"a2ef507"}`,
		`{"type":"task_claim","from":"coder","msg_id":"m2","task":"3.2","symbols":["F12","C3"],"capsules":["w2"]}`,
		`{"type":"task_claim","from":"coder","msg_id":"m2","task":"3.2"}`,
		`{"type":"task_result","from":"coder","msg_id":"m3","task":"3.2","status":"partial","capsule":"w3"}`,
		`{"type":"gate_report","from":"sentinel","msg_id":"g1","gate_id":"lob","status":"fail","report_ref":"/x/report.json","wave":2}`,
		`{"type":"escalation","from":"coder","msg_id":"e1","reason":"spec contradicts C3","severity":"blocker","refs":["C3"]}`,
		`{"type":"question","from":"coder","msg_id":"q1","question":"which port?","refs":["dev_port"]}`,
		`{"type":"checkpoint","from":"orch","msg_id":"c1","wave":3,"state":"in_progress","capsules":["w1"]}`,
		`{"type":"checkpoint","from":"orch","msg_id":"c1","wave":"3b","state":"complete"}`,
	}
	for _, m := range valid {
		if res := v.Validate([]byte(m)); !res.Valid || len(res.Errors) != 0 {
			t.Errorf("%s: %+v, want valid", m, res)
		}
	}
	invalid := map[string]string{
		`{"type":"task_result","from":"coder","msg_id":"m1","task":"3.2","status":"done"}`:                             "/status: value must be one of 'pass', 'fail', 'partial'",
		`{"type":"task_result","from":"coder","msg_id":"m1","task":"3.2","status":"pass","criteria":["1"]}`:            "/criteria/0: got string, want integer",
		`{"type":"task_result","from":"coder","msg_id":"m1","status":"pass"}`:                                          "/: missing property 'task'",
		`{"type":"task_claim","from":"coder","msg_id":"m1"}`:                                                           "/: missing property 'task'",
		`{"type":"task_claim","from":"coder","msg_id":"m1","task":"1","symbols":"F12"}`:                                "/symbols: got string, want array",
		`{"type":"gate_report","from":"s","msg_id":"g1","gate_id":"lob","status":"partial"}`:                           "/status: value must be one of 'pass', 'fail'",
		`{"type":"gate_report","from":"s","msg_id":"g1","status":"pass"}`:                                              "/: missing property 'gate_id'",
		`{"type":"gate_report","from":"s","msg_id":"g1","gate_id":"x","status":"pass","report_ref":"{\"metrics\":1}"}`: "/report_ref: ",
		`{"type":"escalation","from":"c","msg_id":"e1","reason":"r","severity":"high"}`:                                "/severity: value must be one of 'blocker', 'warning', 'info'",
		`{"type":"escalation","from":"c","msg_id":"e1","severity":"info"}`:                                             "/: missing property 'reason'",
		`{"type":"question","from":"c","msg_id":"q1"}`:                                                                 "/: missing property 'question'",
		`{"type":"question","from":"c","msg_id":"q1","question":"?","refs":[1]}`:                                       "/refs/0: got number, want string",
		`{"type":"checkpoint","from":"c","msg_id":"c1","wave":1,"state":"done"}`:                                       "/state: value must be one of 'started', 'in_progress', 'complete', 'blocked'",
		`{"type":"checkpoint","from":"c","msg_id":"c1","state":"started"}`:                                             "/: missing property 'wave'",
		`{"type":"chat","from":"c","msg_id":"x"}`:                                                                      "/type: value must be one of",
		`{"type":"question","question":"?","msg_id":"x"}`:                                                              "/: missing property 'from'",
		`{"type":"question","question":"?","from":"c","msg_id":""}`:                                                    "/msg_id: ",
		`["not","an","object"]`: "/: got array, want object",
		`{"type":"task_result"`: "malformed JSON",
		``:                      "malformed JSON",
	}
	for m, want := range invalid {
		res := v.Validate([]byte(m))
		if res.Valid || !strings.Contains(strings.Join(res.Errors, "\n"), want) {
			t.Errorf("%s: %+v, want invalid with %q", m, res, want)
		}
	}
	// The printed form.
	res := v.Validate([]byte(valid[0]))
	if got := string(Marshal(res)); got != `{"valid":true,"errors":[]}` {
		t.Errorf("printed = %s", got)
	}
	if res.MsgID != "m1" {
		t.Errorf("MsgID = %q", res.MsgID)
	}
}

func TestSchemaFile(t *testing.T) {
	var doc map[string]any
	must(t, json.Unmarshal(planning.MessageSchema(), &doc))
	if doc["$id"] != planning.SchemaID || !strings.Contains(planning.SchemaID, planning.ProtocolVersion) {
		t.Errorf("$id = %v", doc["$id"])
	}
	if doc["$schema"] != "http://json-schema.org/draft-07/schema#" {
		t.Errorf("$schema = %v", doc["$schema"])
	}
	enum := doc["properties"].(map[string]any)["type"].(map[string]any)["enum"].([]any)
	if fmt.Sprint(enum) != fmt.Sprint(planning.MessageTypes) {
		t.Errorf("type enum %v, want %v", enum, planning.MessageTypes)
	}
}

// The validator enforces the installed schema, not a copy of it.
func TestValidatorUsesInstalledSchema(t *testing.T) {
	s := newStore(t)
	v, err := Load(s)
	must(t, err)
	if v.Source() != "embedded" {
		t.Errorf("without init: source %q", v.Source())
	}
	must(t, s.Init())
	v, err = Load(s)
	must(t, err)
	if v.Source() != s.SchemaPath() {
		t.Errorf("after init: source %q", v.Source())
	}
	msg := []byte(`{"type":"question","from":"c","msg_id":"q1","question":"?"}`)
	if !v.Validate(msg).Valid {
		t.Fatal("question invalid under the installed schema")
	}
	// Tighten the installed schema: the validator follows it.
	var doc map[string]any
	must(t, json.Unmarshal(planning.MessageSchema(), &doc))
	doc["properties"].(map[string]any)["from"] = map[string]any{"enum": []any{"orchestrator"}}
	b, _ := json.Marshal(doc)
	must(t, os.WriteFile(s.SchemaPath(), b, 0o644))
	v, err = Load(s)
	must(t, err)
	if v.Validate(msg).Valid {
		t.Error("the validator ignored the installed schema")
	}
	// A 2.0.x schema under another URL is accepted.
	other := strings.Replace(string(planning.MessageSchema()), planning.SchemaID, "https://example.org/heimdall/v2.0.3/messages.json", 1)
	must(t, os.WriteFile(s.SchemaPath(), []byte(other), 0o644))
	if v, err := Load(s); err != nil || !v.Validate(msg).Valid {
		t.Errorf("2.0.3 schema: %v", err)
	}
	// A schema of another version, or a broken one, is an error naming it.
	for _, bad := range []string{strings.Replace(string(planning.MessageSchema()), "2.0.0", "3.0.0", 1), strings.Replace(string(planning.MessageSchema()), "2.0.0", "12.0.0", 1), "{", `{"$id":"` + planning.SchemaID + `","type":12}`} {
		must(t, os.WriteFile(s.SchemaPath(), []byte(bad), 0o644))
		_, err := Load(s)
		if err == nil || !strings.Contains(err.Error(), s.SchemaPath()) || !(errors.Is(err, planning.ErrVersion) || errors.Is(err, planning.ErrCorrupt)) {
			t.Errorf("schema %.40q: %v", bad, err)
		}
	}
}

func TestValidateMessageLogs(t *testing.T) {
	s := newStore(t)
	v, _ := New()
	_, err := Message(s, v, []byte(`{"type":"question","from":"c","msg_id":"m1","question":"?"}`))
	must(t, err)
	_, err = Message(s, v, []byte(`{"type":"question","from":"c","msg_id":"m2"}`))
	must(t, err)
	lines, _ := s.Tail(2)
	if len(lines) != 2 || untimed(lines[0]) != "validate\taccept\tm1" || !strings.HasPrefix(untimed(lines[1]), "validate\treject\tm2 /: missing property 'question'") {
		t.Errorf("log = %q", lines)
	}
}

func TestGateToMessage(t *testing.T) {
	s := newStore(t)
	v, _ := New()
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	body := `{"gate_id":"exchange-lob","status":"pass","wave":3,"summary":"SECRET-BODY","metrics":{"bloat_ratio":0.12,"secret_metric":42}}`
	must(t, os.WriteFile(report, []byte(body), 0o644))
	wd, _ := os.Getwd()
	must(t, os.Chdir(dir))
	defer os.Chdir(wd)
	out, err := Gate(s, v, "report.json", "sentinel-bloat", "g1")
	must(t, err)
	want := `{"type":"gate_report","from":"sentinel-bloat","msg_id":"g1","gate_id":"exchange-lob","status":"pass","wave":3,"report_ref":"` + report + `"}`
	if string(out) != want {
		t.Errorf("message =\n%s\nwant\n%s", out, want)
	}
	for _, leak := range []string{"SECRET", "metrics", "bloat_ratio"} {
		if strings.Contains(string(out), leak) {
			t.Errorf("message inlines %q", leak)
		}
	}
	if res := v.Validate(out); !res.Valid {
		t.Errorf("not schema-valid: %v", res.Errors)
	}
	// Without a wave.
	must(t, os.WriteFile(report, []byte(`{"gate_id":"g","status":"fail"}`), 0o644))
	out, err = Gate(s, v, report, "s", "g2")
	must(t, err)
	if strings.Contains(string(out), "wave") {
		t.Errorf("message without wave: %s", out)
	}
	// A status the schema does not allow, a missing gate_id, a non-object.
	for _, bad := range []string{`{"gate_id":"g","status":"flaky"}`, `{"status":"pass"}`, `[1]`, `not json`} {
		must(t, os.WriteFile(report, []byte(bad), 0o644))
		if _, err := Gate(s, v, report, "s", "g3"); !errors.Is(err, planning.ErrInvalid) || !strings.Contains(err.Error(), report) {
			t.Errorf("report %s: %v, want ErrInvalid naming it", bad, err)
		}
	}
	if _, err := Gate(s, v, filepath.Join(dir, "missing.json"), "s", "g4"); err == nil || errors.Is(err, planning.ErrInvalid) {
		t.Errorf("missing report: %v, want an I/O error", err)
	}
}

func newStore(t *testing.T) *planning.Store {
	t.Helper()
	return planning.Open(filepath.Join(t.TempDir(), ".planning"))
}

// untimed is a protocol.log line without its timestamp.
func untimed(line string) string {
	_, rest, _ := strings.Cut(line, "\t")
	return rest
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
