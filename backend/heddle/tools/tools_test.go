package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle/tools"
)

func run(t *testing.T, r tools.Runner, name, args string) (string, error) {
	t.Helper()
	return r.Run(context.Background(), name, json.RawMessage(args))
}

func TestFileTools(t *testing.T) {
	r := tools.Runner{Dir: t.TempDir()}
	if _, err := run(t, r, "write_file", `{"path":"a/b.txt","content":"one two two\n"}`); err != nil {
		t.Fatal(err)
	}
	if s, err := run(t, r, "read_file", `{"file_path":"a/b.txt"}`); err != nil || s != "one two two\n" {
		t.Fatalf("%q %v", s, err)
	}
	if _, err := run(t, r, "edit_file", `{"path":"a/b.txt","old_string":"two","new_string":"2"}`); err == nil || !strings.Contains(err.Error(), "occurs 2 times") {
		t.Fatalf("ambiguous edit: %v", err)
	}
	if _, err := run(t, r, "edit_file", `{"path":"a/b.txt","old_string":"three","new_string":"3"}`); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("missing edit: %v", err)
	}
	if _, err := run(t, r, "edit_file", `{"path":"a/b.txt","old_string":"one","new_string":"1"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, r, "edit_file", `{"path":"a/b.txt","old_string":"two","new_string":"2","replace_all":true}`); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir, "a/b.txt")); string(b) != "1 2 2\n" {
		t.Fatalf("%q", b)
	}
	os.WriteFile(filepath.Join(r.Dir, "lines.txt"), []byte("l1\nl2\nl3\nl4\n"), 0o644)
	if s, _ := run(t, r, "read_file", `{"path":"lines.txt","offset":2,"limit":2}`); s != "l2\nl3\n" {
		t.Fatalf("offset/limit %q", s)
	}
	if _, err := run(t, r, "read_file", `{}`); err == nil {
		t.Fatal("read_file without a path")
	}
	if _, err := run(t, r, "read_file", `[1]`); err == nil {
		t.Fatal("arguments not an object")
	}
}

func TestGlobGrep(t *testing.T) {
	r := tools.Runner{Dir: t.TempDir()}
	for _, p := range []string{"main.go", "pkg/x/y.go", "pkg/x/y.txt", ".git/z.go"} {
		os.MkdirAll(filepath.Dir(filepath.Join(r.Dir, p)), 0o755)
		os.WriteFile(filepath.Join(r.Dir, p), []byte("package x\nfunc Hello() {}\n"), 0o644)
	}
	if s, err := run(t, r, "glob", `{"pattern":"**/*.go"}`); err != nil || s != "main.go\npkg/x/y.go" {
		t.Fatalf("%q %v", s, err)
	}
	if s, _ := run(t, r, "glob", `{"pattern":"*.go"}`); s != "main.go" {
		t.Fatalf("%q", s)
	}
	if s, _ := run(t, r, "glob", `{"pattern":"*.rs"}`); !strings.HasPrefix(s, "no files match") {
		t.Fatalf("%q", s)
	}
	if s, err := run(t, r, "grep", `{"pattern":"func H\\w+","include":"*.go"}`); err != nil || s != "main.go:2:func Hello() {}\npkg/x/y.go:2:func Hello() {}" {
		t.Fatalf("%q %v", s, err)
	}
	if _, err := run(t, r, "grep", `{"pattern":"("}`); err == nil {
		t.Fatal("bad regexp")
	}
}

func TestBash(t *testing.T) {
	r := tools.Runner{Dir: t.TempDir()}
	if s, err := run(t, r, "bash", `{"command":"pwd; echo err >&2"}`); err != nil || s != r.Dir+"\nerr\n" {
		t.Fatalf("%q %v", s, err)
	}
	if s, err := run(t, r, "bash", `{"command":"exit 3"}`); err != nil || !strings.Contains(s, "[exit status 3]") {
		t.Fatalf("%q %v", s, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Run(ctx, "bash", json.RawMessage(`{"command":"true"}`)); err != context.Canceled {
		t.Fatalf("cancelled: %v", err)
	}
	if _, err := run(t, r, "teleport", `{}`); err == nil {
		t.Fatal("unknown tool")
	}
	if _, err := tools.Specs([]string{"bash", "nope"}); err == nil {
		t.Fatal("unknown tool spec")
	}
}
