package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Imports flow one way (docs/ARCHITECTURE.md): cmd → tui → backend → wire.
// Nothing under backend/ or wire/ imports Bubble Tea or tui/; wire imports
// no backend package; themes imports no tui package; the tui never imports
// wire/ (it sees sessions through backend/session's domain types), and
// backend/session imports no wire package either. proc, unixsock, notify and
// frame use only the standard library and x/sys.
func TestImportDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "../../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/heimdall-tui/heimdall-tui/"
	rules := []struct {
		from      string
		forbidden []string
	}{
		// Bubble Tea is tui/bubbletea.
		{mod + "backend/", []string{mod + "tui/", "charm.land/bubbles", mod + "cmd/"}},
		{mod + "wire/", []string{mod + "tui/", mod + "backend/", "charm.land/", mod + "cmd/"}},
		{mod + "themes", []string{mod + "tui/", mod + "backend/"}},
		{mod + "tui/", []string{mod + "cmd/", mod + "wire/"}},
		{mod + "backend/session", []string{mod + "wire/"}},
	}
	checked := 0
	for _, line := range strings.Split(string(out), "\n") {
		pkg, imports, ok := strings.Cut(line, ": ")
		if !ok || !strings.HasPrefix(pkg, mod) {
			continue
		}
		checked++
		for _, r := range rules {
			if !strings.HasPrefix(pkg, r.from) {
				continue
			}
			for _, imp := range strings.Fields(imports) {
				for _, bad := range r.forbidden {
					if strings.HasPrefix(imp, bad) {
						t.Errorf("%s imports %s", pkg, imp)
					}
				}
			}
		}
	}
	// Some packages use only the standard library and x/sys (ARCHITECTURE):
	// every import of theirs has no dot in its first element, or is x/sys.
	leaves := []string{mod + "backend/proc", mod + "wire/unixsock", mod + "backend/notify", mod + "wire/frame",
		mod + "backend/heddle/llm", mod + "backend/heddle/tools"}
	for _, line := range strings.Split(string(out), "\n") {
		pkg, imports, ok := strings.Cut(line, ": ")
		if !ok || !slices.Contains(leaves, pkg) {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			first, _, _ := strings.Cut(imp, "/")
			if strings.Contains(first, ".") && !strings.HasPrefix(imp, "golang.org/x/sys/") {
				t.Errorf("%s imports %s: only the standard library and x/sys", pkg, imp)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d packages of the module listed:\n%s", checked, out)
	}
}
