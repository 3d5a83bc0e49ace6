package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// No work before main in the small executable: what runs often (the hook
// before each of an agent's tool calls, resolve, ledger log, every
// supervisor) pays for the package initialisation of all it links. The
// runtime's init trace counts what each package's initialisation
// allocates — deterministic, unlike its time — so this holds our packages
// to a few small tables each, and heimdall to linking none of the heavy
// libraries the dashboard and servers use.
func TestInitAllocations(t *testing.T) {
	const mod = "github.com/heimdall-tui/heimdall-tui/"
	type bound struct{ allocs, bytes int }
	limit := func(pkg string) (bound, bool) {
		switch {
		case pkg == "main" || strings.HasPrefix(pkg, mod):
			return bound{allocs: 32, bytes: 8 << 10}, true
		}
		return bound{}, false
	}

	cmd := exec.Command(smallPath, "resolve", "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("--help: %v\n%s", err, stderr.String())
	}
	line := regexp.MustCompile(`(?m)^init (\S+) @.* clock, (\d+) bytes, (\d+) allocs$`)
	seen := map[string]bool{}
	for _, m := range line.FindAllStringSubmatch(stderr.String(), -1) {
		pkg := m[1]
		b, ok := limit(pkg)
		if !ok {
			continue
		}
		seen[pkg] = true
		size, _ := strconv.Atoi(m[2])
		allocs, _ := strconv.Atoi(m[3])
		if allocs > b.allocs || size > b.bytes {
			t.Errorf("init %s: %d allocations, %d bytes; at most %d and %d: build it on first use (sync.OnceValue)",
				pkg, allocs, size, b.allocs, b.bytes)
		}
	}
	// The trace must have been read, or the checks above passed on
	// nothing: some of our packages have small tables.
	if len(seen) < 2 {
		t.Errorf("init trace lines for %v only, in:\n%s", seen, stderr.String())
	}
	// What the dashboard and the servers link, heimdall does not.
	for _, heavy := range []string{"net/http", "github.com/santhosh-tekuri/jsonschema/v6", "github.com/tiktoken-go/tokenizer",
		"github.com/modelcontextprotocol/go-sdk/mcp", "github.com/spf13/cobra", "text/template"} {
		if strings.Contains(stderr.String(), "init "+heavy+" @") {
			t.Errorf("heimdall links %s", heavy)
		}
	}
}
