package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle/heddletest"
)

// The dashboard drives `heimdall-tui heddle-headless` against the
// streaming mock, through tmux as a person would: `:spawn heddle`, a send
// whose tool call and answer show in the pane, a slow send whose deltas
// stream into the title and which the interrupt key cancels, and the
// sends' usage in the ledger view.
func TestDashboardHeddle(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	m := heddletest.New(t,
		heddletest.Tool("c1", "glob", `{"pattern":"*.txt"}`, 100, 20),
		heddletest.Answer(120, 30, "Found ", "notes.txt here."),
		heddletest.Reply{Chunks: []string{heddletest.Text("halfway there")}, Hold: hold, HoldAfter: 1})
	e := newPlanEnv(t)
	if err := os.MkdirAll(e.root, 0o700); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("hi"), 0o644)
	d := newDash(t, "HEIMDALL_PLANNING_DIR="+e.root, "OPENROUTER_API_KEY=sk-test", "HEDDLE_HOME="+t.TempDir())
	cfg := dashConfig + fmt.Sprintf("[heddle]\nenabled = true\nmodel = \"test/model\"\nbase_url = %q\n", m.URL)
	if err := os.WriteFile(d.cfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d.sendLine("cd " + shellQuote(work))
	d.open()
	d.waitFor("no sessions")

	d.command("spawn heddle hd")
	d.waitFor("started hd")
	d.waitFor("heddle worker started · test/model")
	d.sendTo("hd", "find the notes")
	d.waitFor("glob {\"pattern\":\"*.txt\"}")
	d.waitFor("→ notes.txt")
	d.waitFor("Found notes.txt here.")

	d.sendTo("hd", "take your time")
	d.waitScreen("the delta streaming in the title", func(s string) bool {
		return strings.Contains(s, "Streaming") && strings.Contains(s, "halfway there")
	})
	d.sendKeys("I")
	d.waitFor("cancelled")

	d.sendKeys("L")
	d.waitFor("Token ledger")
	d.waitScreen("the sends' usage in the ledger", func(s string) bool {
		return strings.Contains(s, "hd") && strings.Contains(s, "270")
	})
	d.sendKeys("Escape")
	d.waitScreen("the ledger closed", func(s string) bool { return !strings.Contains(s, "Token ledger") })
	d.sendKeys("q") // the worker runs inside the dashboard: quitting closes it
	d.waitFor("1 session the dashboard runs itself")
	d.sendKeys("y")
	d.waitDisplay("#{alternate_on}", "0")
	d.waitPrompt("hm$")
}

// heddle-headless honours HEDDLE_PROTOCOL_VERSION and HEDDLE_HOME (the
// session's conversation under sessions/) and refuses a malformed
// HEDDLE_HEARTBEAT_INTERVAL; shutdown ends it with status 0.
func TestHeddleHeadlessEnv(t *testing.T) {
	cmd := exec.Command(binPath, "heddle-headless")
	cmd.Env = append(os.Environ(), "HEDDLE_HEARTBEAT_INTERVAL=soon")
	r := runCmd(t, cmd)
	if r.code != 2 || !strings.Contains(r.stderr, "HEDDLE_HEARTBEAT_INTERVAL") {
		t.Fatalf("%s", r)
	}
	home := t.TempDir()
	cmd = exec.Command(binPath, "heddle-headless")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "HEDDLE_PROTOCOL_VERSION=0.2.9", "HEDDLE_HOME="+home)
	cmd.Stdin = strings.NewReader(`{"type":"init","id":"1","config":{"model":"m","system_prompt":"s","tools":[]}}` + "\n" + `{"type":"shutdown","id":"2"}` + "\n")
	r = runCmd(t, cmd)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.Contains(lines[0], `"protocol_version":"0.2.9"`) || lines[1] != `{"type":"shutdown_ok","id":"2"}` {
		t.Fatalf("%s", r)
	}
	var ok struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(lines[0]), &ok)
	if b, err := os.ReadFile(filepath.Join(home, "sessions", ok.SessionID+".jsonl")); ok.SessionID == "" || err != nil || !strings.Contains(string(b), `"role":"system"`) {
		t.Fatalf("HEDDLE_HOME: %q %v", b, err)
	}
}

// `heddle run` drives heddle-headless: the answer on stdout, the tool
// call and usage on stderr; --json prints the worker's lines; a provider
// error exits 1 with its code.
func TestHeddleRun(t *testing.T) {
	m := heddletest.New(t,
		heddletest.Tool("c1", "bash", `{"command":"echo hi"}`, 10, 2),
		heddletest.Answer(20, 5, "It ", "said hi."),
		heddletest.Answer(1, 1, "second"),
		heddletest.ServerError("Upstream exploded"))
	run := func(args ...string) result {
		cmd := exec.Command(binPath, append([]string{"heddle", "run", "--model", "test/model", "--dir", t.TempDir()}, args...)...)
		cmd.Env = append(os.Environ(), "HEDDLE_BASE_URL="+m.URL, "HEDDLE_HOME="+t.TempDir())
		return runCmd(t, cmd)
	}
	r := run("say hi")
	if r.code != 0 || r.stdout != "It said hi.\n" || !strings.Contains(r.stderr, `› bash {"command":"echo hi"}`) || !strings.Contains(r.stderr, "‹ hi") ||
		!strings.Contains(r.stderr, "tokens 30 in + 7 out = 37") {
		t.Fatalf("%s", r)
	}
	r = run("--json", "--status", "again")
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	var types []string
	for sc.Scan() {
		var v struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		types = append(types, v.Type)
	}
	if r.code != 0 || strings.Join(types, " ") != "event event result status_ok" || !strings.Contains(r.stdout, `"messages_count":3`) {
		t.Fatalf("%s", r)
	}
	r = run("fail")
	if r.code != 1 || !strings.Contains(r.stderr, "! provider_error (retryable): Upstream exploded") {
		t.Fatalf("%s", r)
	}
	cmd := exec.Command(binPath, "heddle", "run", "hi")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
	if r := runCmd(t, cmd); r.code != 2 || !strings.Contains(r.stderr, "no model") {
		t.Fatalf("%s", r)
	}
}

// `heddle run` against workers that break: one that writes garbage, an
// event of an unknown type (--json passes it on as written) and dies; one
// that cannot start; one that exits mid-send; one of an incompatible
// version. Each is a clear error and exit 1, never a crash.
func TestHeddleRunBrokenWorkers(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	initOK := `read line; echo '{"type":"init_ok","id":"1","session_id":"s-1","protocol_version":"%s","capabilities":[]}'` + "\n"
	garbage := script("garbage", fmt.Sprintf(initOK, "0.2.0")+`read line
echo '{"type":"event","event":{"event":"telepathy","confidence":0.9},"event_seq":0,"send_id":"2"}'
echo '{"type":"event","event":{"event":"content_delta","text":"partial"},"event_seq":1,"send_id":"2"}'
echo 'Traceback (most recent call last): the worker fell over'
echo 'fatal: out of cheese' >&2
exit 3
`)
	dies := script("dies", "echo 'cannot start: no key' >&2\nexit 7\n")
	killed := script("killed", fmt.Sprintf(initOK, "0.2.0")+"read line\nkill -9 $$\n")
	newer := script("newer", fmt.Sprintf(initOK, "0.3.0")+"read line\n")
	run := func(worker string, args ...string) result {
		cmd := exec.Command(binPath, append([]string{"heddle", "run", "--model", "m", "--worker", worker}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
		return runCmd(t, cmd)
	}
	crashed := func(r result) bool {
		return strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ")
	}

	r := run(garbage, "--json", "hello")
	want := `{"type":"event","event":{"event":"telepathy","confidence":0.9},"event_seq":0,"send_id":"2"}` + "\n" +
		`{"type":"event","event":{"event":"content_delta","text":"partial"},"event_seq":1,"send_id":"2"}` + "\n"
	if r.code != 1 || crashed(r) || r.stdout != want ||
		!strings.Contains(r.stderr, `the worker wrote a line that is not the protocol: "Traceback (most recent call last): the worker fell over"`) ||
		!strings.Contains(r.stderr, "heddle worker exited with status 3: fatal: out of cheese") {
		t.Fatalf("garbage: %s", r)
	}
	r = run(dies, "hello")
	if r.code != 1 || crashed(r) || !strings.Contains(r.stderr, "heddle worker exited with status 7: cannot start: no key") {
		t.Fatalf("dies: %s", r)
	}
	r = run(killed, "hello")
	if r.code != 1 || crashed(r) || !strings.Contains(r.stderr, "heddle worker exited with status 137") {
		t.Fatalf("killed: %s", r)
	}
	r = run(newer, "hello")
	if r.code != 1 || crashed(r) || !strings.Contains(r.stderr, "heddle worker speaks protocol 0.3.0, we speak 0.2.0 (the major versions must match, and below 1.0.0 the minor ones too)") {
		t.Fatalf("newer: %s", r)
	}
}
