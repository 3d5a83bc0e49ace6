package main

// End-to-end tests of ledger-mcp: the go-sdk client speaking to the real
// binary over its stdin/stdout, and raw bytes (both framings mixed, ping,
// notifications, bad arguments, unknown method, EOF).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient connects the go-sdk client named name to `ledger-mcp` in e.
func mcpClient(t testing.TB, e *planEnv, name string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binPath, "ledger-mcp")
	cmd.Dir = e.wd
	cmd.Env = append(os.Environ(), "HEIMDALL_PLANNING_DIR="+e.root)
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "0.1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its structured payload and isError.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text map[string]any
	if len(res.Content) != 1 {
		t.Fatalf("%s: content %v", name, res.Content)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok || json.Unmarshal([]byte(tc.Text), &text) != nil {
		t.Fatalf("%s: content[0] is not JSON text: %#v", name, res.Content[0])
	}
	b, _ := json.Marshal(res.StructuredContent)
	var sc map[string]any
	json.Unmarshal(b, &sc)
	if tb, _ := json.Marshal(text); !bytes.Equal(tb, b) {
		t.Errorf("%s: text %s and structuredContent %s differ", name, tb, b)
	}
	return sc, res.IsError
}

func TestLedgerMCPClient(t *testing.T) {
	e, root := newCoordEnv(t)
	cursor, copilot := root+"/cursor", root+"/copilot"
	cs := mcpClient(t, e, "cursor")
	ir := cs.InitializeResult()
	if ir.ServerInfo.Name != "heimdall-ledger-mcp" || ir.ServerInfo.Version != "1.0.0" || ir.Capabilities.Tools == nil {
		t.Fatalf("initialize: %+v", ir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		b, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(b), `"client_identity"`) {
			t.Errorf("%s: no client_identity in %s", tl.Name, b)
		}
	}
	slices.Sort(names)
	if want := []string{"append_decision", "make_claim", "raise_conflict_pr", "read_capsules", "read_claims", "release_claim"}; !slices.Equal(names, want) {
		t.Errorf("tools %v", names)
	}

	// The round trip: claim as cursor, see it in `claim list`.
	r, isErr := call(t, cs, "make_claim", map[string]any{"surfaces": []string{"src/a/**"}, "task": "T-9"})
	if isErr || r["client_haid"] != cursor {
		t.Fatalf("make_claim: %v", r)
	}
	lr := e.run("", "claim", "list")
	if lr.code != 0 || !strings.Contains(lr.stdout, "T-9 ["+cursor+"]") {
		t.Errorf("claim list after make_claim: %s", lr)
	}
	// A second identity collides, naming the holder.
	r, isErr = call(t, cs, "make_claim", map[string]any{"surfaces": []string{"src/**"}, "task": "T-10", "client_identity": "copilot"})
	if !isErr || r["client_haid"] != copilot || !strings.Contains(fmt.Sprint(r["error"]), "claimed by "+cursor) {
		t.Errorf("colliding make_claim: %v %v", isErr, r)
	}
	r, _ = call(t, cs, "read_claims", nil)
	if r["count"] != float64(1) {
		t.Errorf("read_claims: %v", r)
	}
	// Bad arguments are tool errors.
	for _, args := range []map[string]any{{"task": "x"}, {"surfaces": "src", "task": "x"}, {"surfaces": []string{"a"}, "task": "x", "bogus": 1}} {
		if r, isErr := call(t, cs, "make_claim", args); !isErr || !strings.HasPrefix(fmt.Sprint(r["error"]), "bad arguments: ") {
			t.Errorf("make_claim %v: %v %v", args, isErr, r)
		}
	}
	r, isErr = call(t, cs, "release_claim", nil)
	if isErr || r["released"] != true || r["haid"] != cursor {
		t.Errorf("release_claim: %v", r)
	}
	e.want(0, "[]\n", "claim", "list", "--json")

	// Decisions, conflicts and capsules.
	r, isErr = call(t, cs, "append_decision", map[string]any{"title": "Use flock", "body": "One lock for the gate."})
	if isErr {
		t.Fatalf("append_decision: %v", r)
	}
	r, isErr = call(t, cs, "raise_conflict_pr", map[string]any{"id": "C 1", "title": "take src", "surfaces": []string{"src/**"}, "displaced_haid": copilot})
	pr := fmt.Sprint(r["path"])
	if isErr || filepath.Base(pr) != time.Now().UTC().Format("2006-01-02")+"-c-1.md" {
		t.Fatalf("raise_conflict_pr: %v", r)
	}
	if b, err := os.ReadFile(pr); err != nil || !strings.Contains(string(b), "raised_by: "+cursor) {
		t.Errorf("conflict PR: %v\n%s", err, b)
	}
	dec, _ := os.ReadFile(filepath.Join(e.root, "ledger", "decisions.md"))
	if !strings.Contains(string(dec), "— Use flock\n- by: "+cursor+"\n\nOne lock for the gate.\n") || !strings.Contains(string(dec), "(conflicts/"+filepath.Base(pr)+")") {
		t.Errorf("decisions.md:\n%s", dec)
	}
	os.MkdirAll(filepath.Join(e.root, "ledger", "completed"), 0o755)
	os.WriteFile(filepath.Join(e.root, "ledger", "completed", "T-1.md"), []byte("done\n"), 0o644)
	r, _ = call(t, cs, "read_capsules", map[string]any{"id": "T-1"})
	if r["count"] != float64(1) || !strings.Contains(fmt.Sprint(r["capsules"]), "body:done") {
		t.Errorf("read_capsules: %v", r)
	}
	lr = e.run("", "haid", "list")
	if !strings.Contains(lr.stdout, cursor+"\tcursor\tactive") || !strings.Contains(lr.stdout, copilot+"\tcopilot\tactive") {
		t.Errorf("registry: %s", lr)
	}
}

// TestLedgerMCPRaw drives the server with raw bytes: line-delimited and
// Content-Length framed messages mixed, a notification, ping, a bad
// argument, an unknown method, garbage, then EOF.
func TestLedgerMCPRaw(t *testing.T) {
	e, root := newCoordEnv(t)
	framed := func(s string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s) }
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"cursor","version":"1"}}}` + "\n" +
		framed(`{"jsonrpc":"2.0","method":"notifications/initialized"}`) +
		"\n" + framed(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) +
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}` + "\n" +
		framed(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"make_claim","arguments":{"surfaces":["src/a/**"],"task":"T-9"}}}`) +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"make_claim","arguments":{"surfaces":["src/b"]}}}` + "\n" +
		`{"jsonrpc":"2.0","id":6,"method":"no/such"}` + "\n" +
		"garbage\n"
	r := e.run(in, "ledger-mcp")
	if r.code != 0 {
		t.Fatalf("exit: %s", r)
	}
	got := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("not a protocol line on stdout: %q", l)
		}
		got[fmt.Sprint(m["id"])] = m
	}
	if len(got) != 7 {
		t.Errorf("%d responses, want 7 (6 calls and a parse error; none for the notification):\n%s", len(got), r.stdout)
	}
	js := func(id string) string { b, _ := json.Marshal(got[id]); return string(b) }
	for id, want := range map[string]string{
		"1":     `"result":{"capabilities":{"tools":{"listChanged":false}},"protocolVersion":"2024-11-05","serverInfo":{"name":"heimdall-ledger-mcp","version":"1.0.0"}}`,
		"2":     `"result":{}`,
		"3":     `"name":"raise_conflict_pr"`,
		"4":     `T-9 [` + root + `/cursor]`,
		"5":     `"isError":true`,
		"6":     `"code":-32601`,
		"<nil>": `"code":-32700`,
	} {
		if !strings.Contains(js(id), want) {
			t.Errorf("response %s: %s\nwant it to contain %s", id, js(id), want)
		}
	}
	if !strings.Contains(js("5"), `bad arguments: \"task\" is required`) {
		t.Errorf("bad arguments: %s", js("5"))
	}

	// A newer client is answered with a revision both support.
	r = e.run(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01","clientInfo":{"name":"x"}}}`+"\n", "ledger-mcp")
	if r.code != 0 || !strings.Contains(r.stdout, `"protocolVersion":"2025-11-25"`) {
		t.Errorf("newer client: %s", r)
	}
	// Empty input: exit 0, nothing written.
	e.want(0, "", "ledger-mcp")
	// As heimdall-ledger-mcp.
	link := filepath.Join(t.TempDir(), "heimdall-ledger-mcp")
	os.Symlink(binPath, link)
	if r := e.runProg(link, `{"jsonrpc":"2.0","id":9,"method":"ping"}`+"\n"); r.code != 0 || r.stdout != `{"jsonrpc":"2.0","id":9,"result":{}}`+"\n" {
		t.Errorf("heimdall-ledger-mcp ping: %s", r)
	}
}

// BenchmarkLedgerMCPCall is the tool-call latency against the binary over
// real stdio pipes, per tool: p50 and p99 of the calls. Run it with
//
//	go test -run '^$' -bench LedgerMCPCall -benchtime 1000x ./cmd/heimdall-tui/
func BenchmarkLedgerMCPCall(b *testing.B) {
	wd := b.TempDir()
	cs := mcpClient(b, &planEnv{root: filepath.Join(wd, ".planning"), wd: wd}, "bench")
	ctx := context.Background()
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"read_claims", nil},
		{"make_claim", map[string]any{"surfaces": []string{"src/**"}, "task": "T"}},
		{"append_decision", map[string]any{"title": "t", "body": "b"}},
	} {
		b.Run(tc.tool, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
				lat = append(lat, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("%s: %v %v", tc.tool, err, res)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50_µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99_µs")
		})
	}
}
