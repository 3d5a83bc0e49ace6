package coord

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

func TestSlugify(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"alice", "alice"},
		{"Alice.Smith", "alice-smith"},
		{"  J. R. R.  ", "j-r-r"},
		{"dev_box_01", "dev-box-01"},
		{"Claude Code", "claude-code"},
		{"--x--", "x"},
		{"", "unknown"},
		{"ÄÖÜ", "unknown"},
		{"abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwx"},
		{"abcdefghijklmnopqrstuvw-yz", "abcdefghijklmnopqrstuvw"},
	} {
		if got := Slugify(tc.in); got != tc.want {
			t.Errorf("Slugify(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHAID(t *testing.T) {
	id := Identity{Human: "Alice.Smith", Machine: "Dev Box", RepoRoot: "/src/repo"}
	// sha256("alice-smith\x1fdev-box\x1f/src/repo")[:4]
	got := id.HAID()
	if !regexp.MustCompile(`^haid:alice-smith\.dev-box-[0-9a-f]{4}$`).MatchString(got) {
		t.Fatalf("HAID = %q", got)
	}
	other := Identity{Human: "Alice.Smith", Machine: "Dev Box", RepoRoot: "/src/other"}
	if other.HAID() == got {
		t.Errorf("the repo root does not change the hash: %q", got)
	}
	if got, want := Spawn(id.HAID(), "Cursor"), id.HAID()+"/cursor"; got != want {
		t.Errorf("Spawn = %q, want %q", got, want)
	}
	if got, want := Spawn(id.HAID()+"/x", "copilot"), id.HAID()+"/copilot"; got != want {
		t.Errorf("Spawn of a spawned HAID = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		in          string
		human, role string
		ok          bool
	}{
		{"haid:alice.box-1a2b", "alice", "", true},
		{"haid:alice.box-1a2b/cursor", "alice", "cursor", true},
		{"alice.box-1a2b", "", "", false},
		{"haid:alice", "", "", false},
		{"haid:a.b-c/d/e", "", "", false},
	} {
		h, r, err := ParseHAID(tc.in)
		if (err == nil) != tc.ok || h != tc.human || r != tc.role {
			t.Errorf("ParseHAID(%q) = %q, %q, %v", tc.in, h, r, err)
		}
	}
}

func TestOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"src/**", "src/a/b.go", true},
		{"src/**", "src", true},
		{"src/**", "docs/x.md", false},
		{"src/a/**", "src/b/**", false},
		{"src/a", "src/a/b.go", true}, // a directory covers its files
		{"src/a/b.go", "src/a/b.go", true},
		{"src/a/b.go", "src/a/c.go", false},
		{"src/ab", "src/a", false}, // no string prefixes
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/a/b.go", false},
		{"src/*", "src/a/b.go", true},   // src/a may be a directory
		{"src/a.d/", "src/a.d/x", true}, // a trailing / marks a directory
		{"src/a.d", "src/a.d/x", false}, // else a dotted name is a file
		{"**/x.md", "src/a", true},      // src/a/x.md
		{"src/*.go", "src/a.md", false},
		{"src/*.go", "src/a*", true},
		{"src/a*.go", "src/*b.go", true},
		{"src/a*", "src/b*", false},
		{"*/x.md", "docs/x.md", true},
		{"*/x.md", "docs/y.md", false},
		{"**/x.md", "a/b/c/x.md", true},
		{"**/x.md", "a/b/c/y.md", false},
		{"**", "anything/at/all", true},
		{"a/**/z", "a/b/c/z", true},
		{"a/**/z", "a/b/c/y", true}, // a/b/c/y/z: y may be a directory
		{"a/**/z.go", "a/b/c/y.go", false},
		{"a/**/z", "a/**/y.go", true}, // a/z/y.go
		{"src/?.go", "src/a.go", true},
		{"src/?.go", "src/ab.go", false},
		{"src/[ab].go", "src/c.go", true}, // classes are taken as any character: conservative
		{"./src//a/", "src/a/b", true},
		{".", "src/a.go", true}, // the whole repository
		{"docs/x.md", "docs/x.md.bak", false},
	} {
		if got := Overlap(tc.a, tc.b); got != tc.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := Overlap(tc.b, tc.a); got != tc.want {
			t.Errorf("Overlap(%q, %q) = %v, want %v (reversed)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestClaims(t *testing.T) {
	root := t.TempDir()
	l := Open(root)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	a, b := "haid:alice.box-1a2b/cursor", "haid:bob.box-3c4d"

	if _, err := l.Claim(a, []string{"src/a/**", " docs/x.md"}, "T-1", 10); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "ledger", "claims", "haid_alice.box-1a2b_cursor.json")); err != nil {
		t.Fatal(err)
	}
	_, err := l.Claim(b, []string{"lib/**", "src/**"}, "T-2", 10)
	var ce *ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || ce.Holder.HAID != a || ce.Surface != "src/**" || ce.Held != "src/a/**" {
		t.Fatalf("overlapping claim: %v", err)
	}
	if _, err := l.Claim(b, []string{"src/b/**"}, "T-2", 10); err != nil {
		t.Fatalf("disjoint claim: %v", err)
	}
	// A HAID's own claim does not block it: the new one replaces it.
	if c, err := l.Claim(a, []string{"src/a/**"}, "T-3", 10); err != nil || c.TaskRef != "T-3" {
		t.Fatalf("reclaim: %+v %v", c, err)
	}
	if cs, _ := l.Claims(); len(cs) != 2 {
		t.Fatalf("claims: %+v", cs)
	}
	for _, bad := range [][]string{nil, {" "}} {
		if _, err := l.Claim(b, bad, "T", 1); !errors.Is(err, ErrInvalid) {
			t.Errorf("surfaces %q: %v", bad, err)
		}
	}
	if _, err := l.Claim("bob", []string{"x"}, "T", 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad HAID: %v", err)
	}

	// Expiry: after 10 minutes without heartbeat the gate ignores a claim.
	now = now.Add(5 * time.Minute)
	if _, err := l.Heartbeat(b); err != nil {
		t.Fatal(err)
	}
	now = now.Add(6 * time.Minute) // a expired, b renewed 6 minutes ago
	cs, _ := l.Claims()
	if len(cs) != 1 || cs[0].HAID != b {
		t.Fatalf("active after expiry: %+v", cs)
	}
	if _, err := l.Claim(b, []string{"src/**"}, "T-4", 10); err != nil {
		t.Fatalf("claim over an expired one: %v", err)
	}
	gone, err := l.GC()
	if err != nil || len(gone) != 1 || gone[0].HAID != a {
		t.Fatalf("gc: %+v %v", gone, err)
	}
	if _, err := l.Heartbeat(a); err == nil {
		t.Errorf("heartbeat of a collected claim succeeded")
	}
	if had, err := l.Release(b); !had || err != nil {
		t.Fatalf("release: %v %v", had, err)
	}
	if had, err := l.Release(b); had || err != nil {
		t.Fatalf("second release: %v %v", had, err)
	}
}

func TestRegistry(t *testing.T) {
	l := Open(t.TempDir())
	h := "haid:alice.box-1a2b/cursor"
	if _, err := l.Register(h, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Register("haid:alice.box-1a2b", "lead"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Register("nope", ""); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad HAID: %v", err)
	}
	ag, err := l.Agents()
	if err != nil || len(ag) != 2 || ag[0].Role != "lead" || ag[1].Role != "cursor" || ag[1].Status != "active" || ag[1].Human != "alice" {
		t.Fatalf("agents: %+v %v", ag, err)
	}
}

// Decisions reads back what AppendDecision and RaiseConflict append,
// oldest first, the last n when asked; a missing file has none.
func TestDecisionsReadBack(t *testing.T) {
	l := Open(t.TempDir())
	if ds, err := l.Decisions(0); err != nil || len(ds) != 0 {
		t.Fatalf("no file: %v %v", ds, err)
	}
	h := "haid:ann.box-1a2b/cursor"
	for _, title := range []string{"use tables", "split\nthe parser", "ship it"} {
		if _, err := l.AppendDecision(h, title, "because\nreasons"); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := l.Decisions(2)
	if err != nil || len(ds) != 2 {
		t.Fatalf("last 2: %+v %v", ds, err)
	}
	if d := ds[0]; d.Title != "split the parser" || d.HAID != h || d.Body != "because\nreasons" || d.At == "" {
		t.Fatalf("decision %+v", d)
	}
	if all, _ := l.Decisions(0); len(all) != 3 || all[2].Title != "ship it" {
		t.Fatalf("all %+v", all)
	}
}
