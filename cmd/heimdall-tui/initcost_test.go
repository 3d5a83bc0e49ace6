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

// No work before main (docs/ARCHITECTURE.md): every subcommand, `hook`
// before each of an agent's tool calls among them, pays for the package
// initialisation of the whole binary. The runtime's init trace counts what
// each package's initialisation allocates — deterministic, unlike its
// time — so this holds our packages to a few small tables each, and the
// patched JSON-schema library (backend/third_party/jsonschema) to not compiling its
// metaschemas (upstream allocates 1.7 MB in 21,000 allocations there).
func TestInitAllocations(t *testing.T) {
	const mod = "github.com/heimdall-tui/heimdall-tui/"
	type bound struct{ allocs, bytes int }
	limit := func(pkg string) (bound, bool) {
		switch {
		case pkg == "main" || strings.HasPrefix(pkg, mod):
			return bound{allocs: 32, bytes: 8 << 10}, true
		case pkg == "github.com/santhosh-tekuri/jsonschema/v6":
			return bound{allocs: 512, bytes: 64 << 10}, true
		}
		return bound{}, false
	}

	cmd := exec.Command(binPath, "--help")
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
	// nothing: the library's map literals always leave it a line, and some
	// of our packages have small tables.
	if !seen["github.com/santhosh-tekuri/jsonschema/v6"] || len(seen) < 2 {
		t.Errorf("init trace lines for %v only, in:\n%s", seen, stderr.String())
	}
}
