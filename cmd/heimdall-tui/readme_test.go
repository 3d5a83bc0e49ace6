package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// The README's configuration example is a working config: it loads without
// warnings, and its theme, keys and detach key are what the dashboard
// accepts (the checks dashboard() makes before taking the terminal).
func TestReadmeConfigExample(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "## Configuration")
	_, block, ok2 := strings.Cut(after, "```toml\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("no ```toml block under ## Configuration in README.md")
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, warnings, err := config.Load(path, true)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("README config: %v %q", err, warnings)
	}
	if _, err := themes.ByName(cfg.Theme); err != nil {
		t.Error(err)
	}
	km := keys.Default()
	if err := km.Apply(cfg.Keys); err != nil {
		t.Errorf("README [keys]: %v", err)
	}
	if _, err := attach.ParseDetachKey(cfg.DetachKey); err != nil {
		t.Errorf("README detach_key: %v", err)
	}
	if len(cfg.Agents) == 0 {
		t.Error("README config shows no [[agent]]")
	}
}
