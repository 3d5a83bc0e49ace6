package diffview

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// rowKind is what a row of the diff shows.
type rowKind uint8

const (
	rowFile rowKind = iota // a file's header: its path and counts
	rowHunk                // a hunk's @@ line
	rowLine                // a line of a hunk
	rowNote                // a note on the line above it
)

type row struct {
	kind          rowKind
	file, hunk, l int
	note          int // rowNote: its index in Notes
}

// View is a parsed diff with a cursor on one of its rows, and the first
// row shown. The app keeps it; Render draws it.
type View struct {
	Title  string // what the diff is of ("claude-1 since it started")
	Files  []File
	Notes  []review.Note // shown under their lines (SetNotes)
	rows   []row
	cursor int
	top    int
	mark   int // the other end of a range of lines (-1: none)
}

// New parses diff into a View with the cursor on its first line.
func New(title, diff string) *View {
	v := &View{Title: title, Files: Parse(diff), mark: -1}
	v.layout()
	v.NextLine()
	return v
}

// layout lays the rows out: each file's header, its hunks' headers and
// lines, and under a line the notes on it.
func (v *View) layout() {
	v.rows = v.rows[:0]
	for fi, f := range v.Files {
		v.rows = append(v.rows, row{kind: rowFile, file: fi})
		for hi, h := range f.Hunks {
			v.rows = append(v.rows, row{kind: rowHunk, file: fi, hunk: hi})
			for li, l := range h.Lines {
				v.rows = append(v.rows, row{kind: rowLine, file: fi, hunk: hi, l: li})
				for ni, n := range v.Notes {
					if on(n, f, l) {
						v.rows = append(v.rows, row{kind: rowNote, file: fi, hunk: hi, l: li, note: ni})
					}
				}
			}
		}
	}
}

// on reports whether note n shows under line l of f: its (range's) last
// line.
func on(n review.Note, f File, l Line) bool {
	last := max(n.Line, n.End)
	if n.Old {
		return l.Kind == Removed && n.File == f.Old && last == l.Old
	}
	return l.Kind != Removed && n.File == f.New && last == l.New
}

// Mark starts a range of lines at the cursor (a note then covers the
// lines from it to the cursor, within one file), or drops the one started.
func (v *View) Mark() {
	if v.mark >= 0 || v.cursor >= len(v.rows) || v.rows[v.cursor].kind != rowLine {
		v.mark = -1
		return
	}
	v.mark = v.cursor
}

// Marked reports whether a range is started.
func (v *View) Marked() bool { return v.mark >= 0 }

// inRange reports whether row r is in the range from the mark to the
// cursor (the cursor's row alone without a mark).
func (v *View) inRange(r int) bool {
	if v.mark < 0 || v.rows[v.mark].file != v.rows[v.cursor].file {
		return r == v.cursor
	}
	return r >= min(v.mark, v.cursor) && r <= max(v.mark, v.cursor) && v.rows[r].kind == rowLine
}

// SetNotes shows notes under their lines, the cursor staying on its line.
func (v *View) SetNotes(notes []review.Note) {
	cur := row{}
	if v.cursor < len(v.rows) {
		cur = v.rows[v.cursor]
	}
	v.Notes = notes
	v.mark = -1
	v.layout()
	for i, r := range v.rows {
		if r.kind == cur.kind && r.file == cur.file && r.hunk == cur.hunk && r.l == cur.l {
			v.cursor = i
			return
		}
	}
	v.cursor = min(v.cursor, max(0, len(v.rows)-1))
}

// NoteHere is a note for the line under the cursor: the one kept there,
// or a new one (no Text), and whether there is a line under the cursor.
func (v *View) NoteHere() (review.Note, bool) {
	path, l, ok := v.At()
	if !ok {
		return review.Note{}, false
	}
	f := v.Files[v.rows[v.cursor].file]
	if v.mark >= 0 && v.mark != v.cursor && v.rows[v.mark].file == v.rows[v.cursor].file {
		return v.rangeNote(path, f), true
	}
	for _, n := range v.Notes {
		if on(n, f, l) {
			return n, true
		}
	}
	n := review.Note{File: path, Line: l.New, Quote: l.Text}
	if l.Kind == Removed {
		n.Line, n.Old = l.Old, true
	}
	return n, true
}

// maxQuote bounds the lines a range's note quotes.
const maxQuote = 20

// rangeNote is a new note on the lines from the mark to the cursor: by
// the new file's numbers, or the old one's when all of them were removed.
func (v *View) rangeNote(path string, f File) review.Note {
	var lines []Line
	for r := min(v.mark, v.cursor); r <= max(v.mark, v.cursor); r++ {
		if rw := v.rows[r]; rw.kind == rowLine {
			lines = append(lines, f.Hunks[rw.hunk].Lines[rw.l])
		}
	}
	n := review.Note{File: path, Old: true}
	var quote []string
	for _, l := range lines {
		if l.Kind != Removed {
			n.Old = false
		}
		if len(quote) < maxQuote {
			quote = append(quote, l.Text)
		}
	}
	for _, l := range lines {
		num := l.New
		if n.Old {
			num = l.Old
		} else if l.Kind == Removed {
			continue
		}
		if n.Line == 0 {
			n.Line = num
		}
		n.End = num
	}
	if n.End == n.Line {
		n.End = 0
	}
	n.Quote = strings.Join(quote, "\n")
	return n
}

// Empty reports whether the diff changes nothing.
func (v *View) Empty() bool { return len(v.Files) == 0 }

// Move moves the cursor by n lines of the hunks (negative: up), over the
// files', hunks' and notes' rows; at either end it stays.
func (v *View) Move(n int) {
	dir := 1
	if n < 0 {
		dir, n = -1, -n
	}
	for ; n > 0; n-- {
		next := -1
		for i := v.cursor + dir; i >= 0 && i < len(v.rows); i += dir {
			if v.rows[i].kind == rowLine {
				next = i
				break
			}
		}
		if next < 0 {
			return
		}
		v.cursor = next
	}
}

// NextLine moves the cursor to the next line of a hunk from where it is
// (staying if there is none).
func (v *View) NextLine() {
	for i := v.cursor; i < len(v.rows); i++ {
		if v.rows[i].kind == rowLine {
			v.cursor = i
			return
		}
	}
}

// Jump moves the cursor to the next (dir 1) or previous (-1) row of kind
// k: hunks with rowHunk, files with rowFile; then onto its first line.
func (v *View) jump(k rowKind, dir int) {
	for i := v.cursor + dir; i >= 0 && i < len(v.rows); i += dir {
		if v.rows[i].kind == k && !(dir < 0 && v.within(i)) {
			v.cursor = i
			v.NextLine()
			return
		}
	}
}

// within reports whether the cursor is inside the section row i heads
// (so that "previous" leaves it rather than landing on its head).
func (v *View) within(i int) bool {
	r, c := v.rows[i], v.rows[v.cursor]
	if r.kind == rowFile {
		return r.file == c.file
	}
	return r.file == c.file && r.hunk == c.hunk
}

func (v *View) NextHunk() { v.jump(rowHunk, 1) }
func (v *View) PrevHunk() { v.jump(rowHunk, -1) }
func (v *View) NextFile() { v.jump(rowFile, 1) }
func (v *View) PrevFile() { v.jump(rowFile, -1) }

// At is the line under the cursor: its file's path (the new one, or the
// old one for a deleted file), the line and whether there is one.
func (v *View) At() (string, Line, bool) {
	if v.cursor >= len(v.rows) || v.rows[v.cursor].kind != rowLine {
		return "", Line{}, false
	}
	r := v.rows[v.cursor]
	f := v.Files[r.file]
	path := f.New
	if path == "" {
		path = f.Old
	}
	return path, f.Hunks[r.hunk].Lines[r.l], true
}

// listWidth is the file list's width beside the hunks, at widths of at
// least wideAt; narrower, the hunks take the whole width.
const (
	listWidth = 34
	wideAt    = 100
)

// Render draws v in w×h: a title row; then, at wideAt cells and more,
// the files with their counts on the left and the hunks on the right,
// else the hunks alone (each file's header row names it with its
// counts). The cursor's row is highlighted and kept in view.
func Render(st *themes.Styles, v *View, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	adds, dels := 0, 0
	for _, f := range v.Files {
		adds += f.Adds
		dels += f.Dels
	}
	title := st.Title.Render("Diff") + " " + st.Base.Render(cellwidth.Sanitize(v.Title))
	if len(v.Files) > 0 {
		title += st.Muted.Render(fmt.Sprintf("  %d file%s ", len(v.Files), plural(len(v.Files)))) +
			st.Success.Render(fmt.Sprintf("+%d", adds)) + " " + st.Error.Render(fmt.Sprintf("-%d", dels))
	}
	if n := len(v.Notes); n > 0 {
		title += st.Warning.Render(fmt.Sprintf("  ✎ %d note%s", n, plural(n)))
	}
	out := []string{cellwidth.Fit(title, w, "…")}
	body := h - 1
	if body <= 0 {
		return strings.Join(out, "\n")
	}
	if v.Empty() {
		out = append(out, cellwidth.Fit(st.Muted.Render("No changes."), w, ""))
		for len(out) < h {
			out = append(out, cellwidth.Spaces(w))
		}
		return strings.Join(out, "\n")
	}
	dw := w
	var list []string
	if w >= wideAt {
		dw = w - listWidth - 1
		list = v.fileList(st, listWidth, body)
	}
	// Keep the cursor in view.
	if v.cursor < v.top {
		v.top = v.cursor
	}
	if v.cursor >= v.top+body {
		v.top = v.cursor - body + 1
	}
	v.top = max(0, min(v.top, len(v.rows)-body))
	sep := st.Subtle.Render("│")
	for i := 0; i < body; i++ {
		line := cellwidth.Spaces(dw)
		if r := v.top + i; r < len(v.rows) {
			line = v.renderRow(st, r, dw)
		}
		if list != nil {
			line = list[i] + sep + line
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// fileList is the files with their counts, the cursor's file marked, h
// rows of w cells.
func (v *View) fileList(st *themes.Styles, w, h int) []string {
	cur := -1
	if v.cursor < len(v.rows) {
		cur = v.rows[v.cursor].file
	}
	rows := make([]string, 0, h)
	first := max(0, min(cur-h/2, len(v.Files)-h))
	for i := first; i < len(v.Files) && len(rows) < h; i++ {
		f := v.Files[i]
		counts := st.Success.Render(fmt.Sprintf("+%d", f.Adds)) + " " + st.Error.Render(fmt.Sprintf("-%d", f.Dels))
		cw := cellwidth.Of(fmt.Sprintf("+%d -%d", f.Adds, f.Dels))
		name := cellwidth.Cut(cellwidth.Sanitize(f.Path()), w-cw-3, "…")
		s := cellwidth.PadRight(" "+name, w-cw-1) + counts + " "
		if i == cur {
			s = st.RowSelected.Render(cellwidth.Fit(" "+name, w-cw-1, "")) + counts + " "
		}
		rows = append(rows, cellwidth.Fit(s, w, ""))
	}
	for len(rows) < h {
		rows = append(rows, cellwidth.Spaces(w))
	}
	return rows
}

// renderRow draws row r in w cells.
func (v *View) renderRow(st *themes.Styles, r, w int) string {
	rw := v.rows[r]
	f := v.Files[rw.file]
	selected := v.inRange(r)
	switch rw.kind {
	case rowFile:
		s := st.Title.Render(cellwidth.Sanitize(f.Path())) + "  " +
			st.Success.Render(fmt.Sprintf("+%d", f.Adds)) + " " + st.Error.Render(fmt.Sprintf("-%d", f.Dels))
		if f.Binary {
			s += st.Muted.Render("  binary")
		}
		return cellwidth.Fit(s, w, "…")
	case rowHunk:
		return cellwidth.Fit(st.Info.Render(cellwidth.Sanitize(f.Hunks[rw.hunk].Header)), w, "…")
	case rowNote:
		text := strings.Join(strings.Fields(cellwidth.Sanitize(v.Notes[rw.note].Text)), " ")
		return cellwidth.Fit("      "+st.Warning.Render("✎ "+text), w, "…")
	}
	l := f.Hunks[rw.hunk].Lines[rw.l]
	num := l.New
	if l.Kind == Removed {
		num = l.Old
	}
	gutter := st.Subtle.Render(fmt.Sprintf("%4d ", num))
	sign := " "
	switch l.Kind {
	case Added:
		sign = st.Success.Render("+")
	case Removed:
		sign = st.Error.Render("-")
	}
	text := cellwidth.Sanitize(expandTabs(l.Text))
	code := st.Base.Render(text)
	if selected {
		code = st.RowSelected.Render(cellwidth.Fit(text, w-6, "…"))
	} else if !st.Monochrome {
		code = highlight(st, lexerFor(f), text)
	}
	return cellwidth.Fit(gutter+sign+code, w, "…")
}

// lexerFor is the language of f by its name (nil: plain text).
func lexerFor(f File) chroma.Lexer {
	name := f.New
	if name == "" {
		name = f.Old
	}
	return lexers.Match(name)
}

// highlight colours text (one line) by the tokens of lx, in the theme's
// colours: keywords in its accent, strings in its success colour,
// comments faint, numbers in its warning colour, function names in its
// primary colour.
func highlight(st *themes.Styles, lx chroma.Lexer, text string) string {
	if lx == nil {
		return st.Base.Render(text)
	}
	it, err := lx.Tokenise(nil, text)
	if err != nil {
		return st.Base.Render(text)
	}
	var b strings.Builder
	for t := it(); t != chroma.EOF; t = it() {
		v := strings.TrimRight(t.Value, "\n")
		if v == "" {
			continue
		}
		b.WriteString(tokenStyle(st, t.Type).Render(v))
	}
	return b.String()
}

func tokenStyle(st *themes.Styles, t chroma.TokenType) lipgloss.Style {
	fg := func(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	switch {
	case t.InCategory(chroma.Comment):
		return fg(st.P.FgSubtle)
	case t.InCategory(chroma.Keyword):
		return fg(st.P.Accent)
	case t.InSubCategory(chroma.LiteralString):
		return fg(st.P.Success)
	case t.InSubCategory(chroma.LiteralNumber):
		return fg(st.P.Warning)
	case t == chroma.NameFunction:
		return fg(st.P.Primary)
	}
	return st.Base
}

func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
