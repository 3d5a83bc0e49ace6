package blemeesd

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Housekeeping removes only session files older than the retention, and
// only regular files; 0 days removes nothing; the config file opts in.
func TestHousekeep(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, ".claude", "projects", "-work-app")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	write := func(name string, age time.Duration) string {
		p := filepath.Join(proj, name)
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, now.Add(-age), now.Add(-age))
		return p
	}
	old := write("old.jsonl", 8*24*time.Hour)
	recent := write("recent.jsonl", 6*24*time.Hour)
	other := write("notes.txt", 30*24*time.Hour)
	link := filepath.Join(proj, "link.jsonl")
	os.Symlink(old, link)
	os.Chtimes(link, now.Add(-30*24*time.Hour), now.Add(-30*24*time.Hour))

	if n, err := Housekeep(home, 0, now); n != 0 || err != nil {
		t.Fatalf("0 days removed %d (%v)", n, err)
	}
	n, err := Housekeep(home, 7, now)
	if err != nil || n != 1 {
		t.Fatalf("removed %d (%v), want 1", n, err)
	}
	for p, want := range map[string]bool{old: false, recent: true, other: true, link: true} {
		if _, err := os.Lstat(p); (err == nil) != want {
			t.Errorf("%s exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}

	cfgFile := filepath.Join(t.TempDir(), "config.toml")
	for body, want := range map[string]bool{"": false, "session_retention_days = 3\n": true} {
		os.WriteFile(cfgFile, []byte(body), 0o600)
		c := Default()
		if _, err := c.LoadFile(cfgFile, true); err != nil || c.Housekeeping != want {
			t.Fatalf("config %q: Housekeeping %v (%v), want %v", body, c.Housekeeping, err, want)
		}
	}
}
