// Package diffview draws what an agent changed: a unified diff (git diff's
// output) parsed into files, hunks and lines, shown as the files with
// their counts and then the hunks, with the code coloured by its language.
// It is a pure renderer over a View (the parsed diff, the cursor and the
// scroll) that the app keeps and moves.
package diffview

import (
	"strconv"
	"strings"
)

// LineKind is a diff line's kind.
type LineKind byte

const (
	Context LineKind = ' '
	Added   LineKind = '+'
	Removed LineKind = '-'
)

// Line is one line of a hunk: its text (without the sign) and its numbers
// in the old and new file (0 where it has none).
type Line struct {
	Kind     LineKind
	Text     string
	Old, New int
}

// Hunk is one @@ section.
type Hunk struct {
	Header string // the @@ line
	Lines  []Line
}

// File is one file's part of the diff.
type File struct {
	Old, New   string // paths ("" for /dev/null)
	Binary     bool
	Adds, Dels int
	Hunks      []Hunk
}

// Path is the file's name as the user knows it now (the old one if it
// was deleted; "old → new" if renamed).
func (f File) Path() string {
	switch {
	case f.New == "":
		return f.Old
	case f.Old != "" && f.Old != f.New:
		return f.Old + " → " + f.New
	}
	return f.New
}

// Parse reads git diff's output. What it does not know is skipped.
func Parse(diff string) []File {
	var files []File
	var f *File
	var h *Hunk
	oldN, newN := 0, 0
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			files = append(files, File{})
			f, h = &files[len(files)-1], nil
			a, b := gitPaths(strings.TrimPrefix(l, "diff --git "))
			f.Old, f.New = a, b
		case f == nil:
		case h == nil && strings.HasPrefix(l, "--- "):
			f.Old = side(strings.TrimPrefix(l, "--- "), "a/")
		case h == nil && strings.HasPrefix(l, "+++ "):
			f.New = side(strings.TrimPrefix(l, "+++ "), "b/")
		case h == nil && strings.HasPrefix(l, "rename from "):
			f.Old = strings.TrimPrefix(l, "rename from ")
		case h == nil && strings.HasPrefix(l, "rename to "):
			f.New = strings.TrimPrefix(l, "rename to ")
		case h == nil && strings.HasPrefix(l, "new file mode"):
			f.Old = ""
		case h == nil && strings.HasPrefix(l, "deleted file mode"):
			f.New = ""
		case strings.HasPrefix(l, "Binary files "):
			f.Binary = true
		case strings.HasPrefix(l, "@@"):
			f.Hunks = append(f.Hunks, Hunk{Header: l})
			h = &f.Hunks[len(f.Hunks)-1]
			oldN, newN = hunkStarts(l)
		case h == nil || l == "":
		case l[0] == '+':
			h.Lines = append(h.Lines, Line{Kind: Added, Text: l[1:], New: newN})
			newN++
			f.Adds++
		case l[0] == '-':
			h.Lines = append(h.Lines, Line{Kind: Removed, Text: l[1:], Old: oldN})
			oldN++
			f.Dels++
		case l[0] == ' ':
			h.Lines = append(h.Lines, Line{Kind: Context, Text: l[1:], Old: oldN, New: newN})
			oldN++
			newN++
		}
	}
	return files
}

// gitPaths splits "a/X b/Y" (unquoted names without " b/" in them; the
// ---/+++ lines that follow correct the rest).
func gitPaths(s string) (string, string) {
	i := strings.Index(s, " b/")
	if i < 0 {
		return "", ""
	}
	return strings.TrimPrefix(s[:i], "a/"), s[i+3:]
}

// side is a ---/+++ line's path without its prefix ("" for /dev/null).
func side(s, prefix string) string {
	s, _, _ = strings.Cut(s, "\t")
	if s == "/dev/null" {
		return ""
	}
	if u, err := strconv.Unquote(s); err == nil {
		s = u
	}
	return strings.TrimPrefix(s, prefix)
}

// hunkStarts reads "@@ -a,b +c,d @@" into a and c.
func hunkStarts(l string) (int, int) {
	var o, n int
	for _, f := range strings.Fields(l) {
		switch {
		case strings.HasPrefix(f, "-") && o == 0:
			o = atoi(f[1:])
		case strings.HasPrefix(f, "+") && n == 0:
			n = atoi(f[1:])
		}
	}
	return o, n
}

func atoi(s string) int {
	s, _, _ = strings.Cut(s, ",")
	n, _ := strconv.Atoi(s)
	return n
}
