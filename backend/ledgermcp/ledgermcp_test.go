package ledgermcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/heimdall-tui/heimdall-tui/backend/coord"
)

const root = "haid:alice.box-1a2b"

// serve runs the server on in, returning what it wrote when in ends.
func serve(t *testing.T, in string) string {
	t.Helper()
	var out strings.Builder
	srv := New(coord.Open(t.TempDir()), root).MCP(nil)
	if err := srv.Run(context.Background(), &Transport{Reader: strings.NewReader(in), Writer: &out}); err != nil && err != io.EOF {
		t.Logf("run: %v", err)
	}
	return out.String()
}

func TestFraming(t *testing.T) {
	framed := func(s, hdr string) string {
		return fmt.Sprintf("%s: %d\r\nContent-Type: application/json\r\n\r\n%s", hdr, len(s), s)
	}
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer
	in := "\n\n" + `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","clientInfo":{"name":"cursor"}}}` + "\n" +
		framed(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "content-length") +
		framed(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Content-Length") +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"append_decision","arguments":{"title":"t","body":"` + long + `"}}}` + "\n" +
		"not json at all\n" +
		`{"jsonrpc":"2.0","id":4,"method":"ping"}` // no final newline: EOF ends it
	out := serve(t, in)
	var ids []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		msg, err := jsonrpc.DecodeMessage([]byte(l))
		if err != nil {
			if !strings.Contains(l, `"code":-32700`) {
				t.Errorf("line %.200q: %v", l, err)
			}
			ids = append(ids, "parse-error")
			continue
		}
		r := msg.(*jsonrpc.Response)
		if r.Error != nil {
			t.Errorf("response %v: %v", r.ID, r.Error)
		}
		ids = append(ids, fmt.Sprint(r.ID.Raw()))
	}
	slices.Sort(ids)
	if want := []string{"1", "2", "3", "4", "parse-error"}; !slices.Equal(ids, want) {
		t.Errorf("responses %v, want %v\n%.500s", ids, want, out)
	}
}

// The revision in initialize's answer: the client's when we support it
// (the SDK's negotiation), the contract's 2024-11-05 when it names none.
func TestInitializeRevision(t *testing.T) {
	for _, tc := range []struct{ params, want string }{
		{`{"clientInfo":{"name":"cursor"}}`, "2024-11-05"},
		{`{"protocolVersion":"","clientInfo":{"name":"cursor"}}`, "2024-11-05"},
		{`{"protocolVersion":"2024-11-05","clientInfo":{"name":"cursor"}}`, "2024-11-05"},
		{`{"protocolVersion":"2025-06-18","clientInfo":{"name":"copilot"}}`, "2025-06-18"},
	} {
		out := serve(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+tc.params+"}\n")
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || r.Result.ProtocolVersion != tc.want {
			t.Errorf("%s: protocolVersion %q, want %q (%v)\n%s", tc.params, r.Result.ProtocolVersion, tc.want, err, out)
		}
	}
}

func TestBadHeader(t *testing.T) {
	// A header block without a usable length ends the session (the stream
	// cannot be resynchronised); what came before is answered.
	for _, in := range []string{"Content-Length: x\r\n\r\n{}", "X-Other: 1\r\n\r\n{}"} {
		out := serve(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+in)
		if out != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
			t.Errorf("%q: %q", in, out)
		}
	}
}

// endless is a reader of one byte forever, counting what was read.
type endless struct {
	b    byte
	read int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	e.read += len(p)
	return len(p), nil
}

// A header line that never ends, or header lines without end, end the
// session once past a header's bound: neither is read further nor held.
func TestEndlessHeader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		head  string
		rest  func() (io.Reader, *endless)
		limit int // what may be read of the endless part: a line's bound and a read buffer
	}{
		{"second line", "Content-Length: 2\r\nX-Long: ", func() (io.Reader, *endless) { e := &endless{b: 'a'}; return e, e }, 128 << 10},
		// The first line may be a JSON message's.
		{"content-length", "Content-Length: ", func() (io.Reader, *endless) { e := &endless{b: '9'}; return e, e }, maxMessage + 128<<10},
		{"many lines", "Content-Length: 2\r\n", func() (io.Reader, *endless) { e := &endless{b: '\n'}; return e, e }, 128 << 10},
	} {
		rest, e := tc.rest()
		if tc.name == "many lines" {
			rest = io.MultiReader(strings.NewReader(strings.Repeat("X-A: 1\r\n", 1000)), rest) // never the blank line
		}
		var out strings.Builder
		srv := New(coord.Open(t.TempDir()), root).MCP(nil)
		in := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+tc.head), rest)
		err := srv.Run(context.Background(), &Transport{Reader: in, Writer: &out})
		if err == nil || out.String() != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
			t.Errorf("%s: %v %q", tc.name, err, out.String())
		}
		if e.read > tc.limit {
			t.Errorf("%s: read %d bytes of it", tc.name, e.read)
		}
	}
}

func TestDecode(t *testing.T) {
	var a makeClaimArgs
	for _, tc := range []struct{ in, err string }{
		{`{"surfaces":["a"],"task":"t"}`, ""},
		{`null`, `bad arguments: "surfaces" is required`},
		{`{"surfaces":[],"task":"t"}`, `bad arguments: "surfaces" is required`},
		{`{"surfaces":["a"],"task":""}`, `bad arguments: "task" is required`},
		{`{"surfaces":"a","task":"t"}`, `bad arguments: "surfaces" must be an array of strings, not string`},
		{`{"surfaces":["a"],"task":"t","ttl_minutes":"x"}`, `bad arguments: "ttl_minutes" must be an integer, not string`},
		{`{"surfaces":["a"],"task":"t","extra":1}`, `bad arguments: unknown field "extra"`},
		{`[1]`, `bad arguments: arguments must be a JSON object`},
	} {
		err := decode([]byte(tc.in), &a, "surfaces", "task")
		if got := fmt.Sprint(err); (tc.err == "" && err != nil) || (tc.err != "" && got != tc.err) {
			t.Errorf("decode(%s) = %v, want %q", tc.in, err, tc.err)
		}
	}
}

// On one connection a read sees the writes sent before it, though the
// calls are written together and answered concurrently: make_claim,
// read_claims, release_claim, read_claims, 200 times in one write.
func TestReadsSeeEarlierWrites(t *testing.T) {
	const rounds = 200
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","clientInfo":{"name":"t"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	call := func(id int, tool, args string) {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", id, tool, args)
	}
	for i := range rounds {
		call(4*i+1, "make_claim", fmt.Sprintf(`{"surfaces":["src/r%d/**"],"task":"T-%d"}`, i, i))
		call(4*i+2, "read_claims", `{}`)
		call(4*i+3, "release_claim", `{}`)
		call(4*i+4, "read_claims", `{}`)
	}
	out := serve(t, in.String())
	counts := map[int]int{} // read id → claims it saw
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			ID     int `json:"id"`
			Result struct {
				StructuredContent struct {
					Count *int `json:"count"`
				} `json:"structuredContent"`
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if r.Result.IsError {
			t.Fatalf("call %d failed: %s", r.ID, line)
		}
		if r.Result.StructuredContent.Count != nil {
			counts[r.ID] = *r.Result.StructuredContent.Count
		}
	}
	for i := range rounds {
		if c, ok := counts[4*i+2]; !ok || c != 1 {
			t.Fatalf("round %d: the read after make_claim saw %d claims (answered: %v)", i, c, ok)
		}
		if c, ok := counts[4*i+4]; !ok || c != 0 {
			t.Fatalf("round %d: the read after release_claim saw %d claims (answered: %v)", i, c, ok)
		}
	}
}

// A read-only tool creates nothing: the ledger's directory stays as it
// was (no registry, no lock file); a write registers the caller.
func TestReadCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","clientInfo":{"name":"t"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_claims","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_capsules","arguments":{}}}` + "\n"
	var out strings.Builder
	srv := New(coord.Open(dir), root).MCP(nil)
	srv.Run(context.Background(), &Transport{Reader: strings.NewReader(in), Writer: &out})
	if !strings.Contains(out.String(), `"id":3,"result"`) {
		t.Fatalf("answers: %s", out.String())
	}
	var made []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && p != dir {
			made = append(made, p)
		}
		return nil
	})
	if len(made) != 0 {
		t.Fatalf("reads made %v", made)
	}
}
