package dialog

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDoc = flag.Bool("update-doc", false, "rewrite docs/COMMANDS.md")

// commandsDoc is docs/COMMANDS.md: the ':' commands, from the table the
// command line parses with.
func commandsDoc() string {
	var b strings.Builder
	b.WriteString("# Command line\n\n" +
		"`:` in the dashboard opens its command line; tab completes commands, presets and\n" +
		"session names. Every key is in [KEYS.md](KEYS.md).\n\n" +
		"<!-- Generated from tui/dialog (Commands) by `go test ./tui/dialog -update-doc`; edit the command table, not this text. -->\n\n" +
		"| Command | Does |\n|---|---|\n")
	for _, c := range Commands() {
		b.WriteString("| `:" + strings.ReplaceAll(c.Usage, "|", `\|`) + "` | " + c.About + " |\n") // a bare | would end the cell
	}
	return b.String()
}

// TestCommandsDocUpToDate fails when docs/COMMANDS.md differs from the
// command table; -update-doc rewrites it.
func TestCommandsDocUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "COMMANDS.md")
	want := commandsDoc()
	if *updateDoc {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("docs/COMMANDS.md is stale (%v): run go test ./tui/dialog -update-doc", err)
	}
}
