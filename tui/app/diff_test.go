package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/themes"
)

const stubDiff = `diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1,2 +1,3 @@
 one
 two
+three (the agent)
diff --git a/b.go b/b.go
--- a/b.go
+++ b/b.go
@@ -1,3 +1,3 @@
 func B() int {
-	return 1
+	return 2
 }
`

// D on the selected session takes its diff off the event loop and shows
// it; ] and } walk hunks and files; esc goes back; an error is reported.
func TestDiffPage(t *testing.T) {
	b := newStub()
	b.diff = stubDiff
	m := newModel(t, b, 120, 35, themes.Dark())
	press(m, "D")
	wantCalls(t, b, "diff claude-1")
	v := plain(m)
	if m.page != pageDiff || !strings.Contains(v, "Diff claude-1 since it started  2 files +2 -1") ||
		!strings.Contains(v, "+three (the agent)") || !strings.Contains(v, " b.go ") {
		t.Fatalf("diff page:\n%s", v)
	}
	press(m, "}")
	if p, l, _ := m.diff.At(); p != "b.go" || l.Text != "func B() int {" {
		t.Fatalf("} went to %q %+v", p, l)
	}
	press(m, "esc")
	if m.page != pageSessions {
		t.Fatal("esc did not close the diff")
	}
	b.failed = errors.New("diff claude-1: no baseline")
	press(m, "D")
	if m.page != pageSessions || !strings.Contains(plain(m), "no baseline") {
		t.Fatalf("a failed diff:\n%s", plain(m))
	}
}
