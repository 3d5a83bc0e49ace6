package frame

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyStdlib enforces the layering rule for wire/frame: any client
// can vendor it, so it depends on nothing but the standard library.
func TestImportsOnlyStdlib(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/heimdall-tui/heimdall-tui/wire/frame" {
			t.Errorf("wire/frame depends on non-standard package %s", p)
		}
	}
}
