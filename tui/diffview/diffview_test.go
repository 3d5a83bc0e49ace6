package diffview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/themes"
)

const sample = `diff --git a/a.txt b/a.txt
index 4c5fd91..8d3b4c1 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,4 @@
 one
 two (the user's)
 three
+four (the agent)
diff --git a/b.go b/b.go
index 1111111..2222222 100644
--- a/b.go
+++ b/b.go
@@ -1,5 +1,6 @@
 package b
 
+// B says how many.
 func B() int {
-	return 1
+	return 2 // "two"
 }
diff --git a/c.txt b/c.txt
new file mode 100644
index 0000000..3e75765
--- /dev/null
+++ b/c.txt
@@ -0,0 +1 @@
+new
diff --git a/old.md b/old.md
deleted file mode 100644
index 5626abf..0000000
--- a/old.md
+++ /dev/null
@@ -1 +0,0 @@
-gone
`

func TestParse(t *testing.T) {
	fs := Parse(sample)
	if len(fs) != 4 {
		t.Fatalf("%d files", len(fs))
	}
	got := []string{}
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s +%d -%d %d", f.Path(), f.Adds, f.Dels, len(f.Hunks)))
	}
	if want := "a.txt +1 -0 1|b.go +2 -1 1|c.txt +1 -0 1|old.md +0 -1 1"; strings.Join(got, "|") != want {
		t.Fatalf("files %q, want %q", strings.Join(got, "|"), want)
	}
	l := fs[1].Hunks[0].Lines
	if l[2].Kind != Added || l[2].New != 3 || l[4].Kind != Removed || l[4].Old != 4 || l[5].New != 5 {
		t.Fatalf("b.go's lines %+v", l)
	}
	if fs[2].Old != "" || fs[3].New != "" {
		t.Fatalf("new and deleted: %+v %+v", fs[2], fs[3])
	}
}

// The cursor walks lines (over the files' and hunks' rows), hunks and
// files; At names the line under it.
func TestCursor(t *testing.T) {
	v := New("s1", sample)
	if p, l, ok := v.At(); !ok || p != "a.txt" || l.Text != "one" || l.New != 1 {
		t.Fatalf("first: %q %+v %v", p, l, ok)
	}
	v.NextFile()
	if p, l, _ := v.At(); p != "b.go" || l.Text != "package b" {
		t.Fatalf("next file: %q %+v", p, l)
	}
	v.Move(4)
	if _, l, _ := v.At(); l.Kind != Removed || l.Old != 4 {
		t.Fatalf("moved to %+v", l)
	}
	v.PrevFile()
	if p, _, _ := v.At(); p != "a.txt" {
		t.Fatalf("previous file from b.go: %q", p)
	}
	v.NextFile()
	v.NextFile()
	v.NextFile()
	if p, l, _ := v.At(); p != "old.md" || l.Kind != Removed {
		t.Fatalf("last file: %q %+v", p, l)
	}
	v.NextFile() // none after: stays
	if p, _, _ := v.At(); p != "old.md" {
		t.Fatalf("past the last: %q", p)
	}
	v.Move(-1) // from old.md's one line to c.txt's, over two headers
	if p, l, ok := v.At(); !ok || p != "c.txt" || l.Text != "new" {
		t.Fatalf("up over the headers: %q %+v %v", p, l, ok)
	}
}

func TestGolden(t *testing.T) {
	notes := []review.Note{{File: "a.txt", Line: 4, Quote: "four (the agent)", Text: "Why four?"},
		{File: "b.go", Line: 4, Old: true, Quote: "\treturn 1", Text: "Keep 1 for now."}}
	for _, c := range []struct {
		name, diff string
		moves      int
		notes      []review.Note
	}{{"changes", sample, 7, nil}, {"empty", "", 0, nil}, {"notes", sample, 7, notes}} {
		for _, size := range [][2]int{{120, 35}, {60, 20}} {
			t.Run(fmt.Sprintf("%s/%dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				v := New("claude-1 since it started", c.diff)
				v.SetNotes(c.notes)
				v.Move(c.moves)
				out := Render(themes.Build(themes.Dark(), false), v, size[0], size[1])
				if n := strings.Count(out, "\n") + 1; n != size[1] {
					t.Fatalf("%d lines, want %d", n, size[1])
				}
				for i, l := range strings.Split(out, "\n") {
					if w := ansi.StringWidth(l); w != size[0] {
						t.Fatalf("line %d is %d cells wide, want %d: %q", i, w, size[0], l)
					}
				}
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// Notes show under their lines; the cursor passes over them and stays on
// its line when they change; NoteHere is the line's note or a new one.
func TestNotes(t *testing.T) {
	v := New("s1", sample)
	v.NextFile()
	v.Move(4) // b.go's removed "return 1"
	n, ok := v.NoteHere()
	if !ok || n.File != "b.go" || n.Line != 4 || !n.Old || n.Quote != "\treturn 1" || n.Text != "" {
		t.Fatalf("new note %+v", n)
	}
	n.Text = "Keep it."
	v.SetNotes([]review.Note{n})
	if m, _ := v.NoteHere(); m != n {
		t.Fatalf("the kept note %+v", m)
	}
	out := ansi.Strip(Render(themes.Build(themes.Dark(), false), v, 60, 20))
	if !strings.Contains(out, "✎ 1 note") || !strings.Contains(out, "✎ Keep it.") {
		t.Fatalf("notes not shown:\n%s", out)
	}
	v.Move(1) // over the note's row, onto "return 2"
	if _, l, ok := v.At(); !ok || l.Kind != Added {
		t.Fatalf("after the note: %+v %v", l, ok)
	}
	// A range: from "// B says how many." to "return 2" (a removed line
	// between), numbered by the new file, shown under its last line.
	v.Move(-3) // over the note's row
	v.Mark()
	v.Move(3)
	r, _ := v.NoteHere()
	if r.File != "b.go" || r.Line != 3 || r.End != 5 || r.Old || r.Quote != "// B says how many.\nfunc B() int {\n\treturn 1\n\treturn 2 // \"two\"" {
		t.Fatalf("range note %+v", r)
	}
	r.Text = "All of this."
	v.SetNotes([]review.Note{n, r})
	out = ansi.Strip(Render(themes.Build(themes.Dark(), false), v, 60, 20))
	if !strings.Contains(out, "return 2 // \"two\"\n      ✎ All of this.") && !strings.Contains(out, "✎ All of this.") {
		t.Fatalf("range note not shown:\n%s", out)
	}
}

// A long diff scrolls to keep the cursor in view.
func TestScroll(t *testing.T) {
	var b strings.Builder
	b.WriteString("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1,50 @@\n")
	for i := range 50 {
		fmt.Fprintf(&b, "+line %d\n", i+1)
	}
	v := New("s", b.String())
	v.Move(45)
	out := ansi.Strip(Render(themes.Build(themes.Dark(), false), v, 60, 10))
	if !strings.Contains(out, "line 46") || strings.Contains(out, "line 2\n") {
		t.Fatalf("scrolled:\n%s", out)
	}
}
