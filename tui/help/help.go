// Package help renders the dashboard's key help from a keys.KeyMap: the
// full help screen (every binding, grouped by context) and the one-line
// footer (the most useful bindings of the focused context). Both are pure
// functions of the styles, the key map, the context and the size, so what
// they show is always what the keys do.
package help

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// sep separates footer items; colGap separates help columns.
const (
	sep    = " · "
	colGap = 3
)

// item is one "key desc" pair; off when its action is unavailable now.
type item struct {
	key, desc string
	off       bool
}

func (it item) width() int { return ansi.StringWidth(it.key) + 1 + ansi.StringWidth(it.desc) }

func (it item) render(st *themes.Styles) string {
	if it.off {
		return st.Subtle.Render(it.key) + " " + st.Subtle.Render(it.desc)
	}
	return st.Key.Render(it.key) + " " + st.Desc.Render(it.desc)
}

// Footer is one line exactly w cells wide: the bindings of ctx (and of the
// contexts it falls through to) marked Short, in order, as "key desc" pairs
// separated by " · ", ending with the help key ("? help") whenever ctx can
// reach help and it fits. Pairs that do not fit are dropped from the end;
// only the first key of each binding is shown.
func Footer(st *themes.Styles, km keys.KeyMap, ctx keys.Context, w int) string {
	return FooterUnavailable(st, km, ctx, w, nil)
}

// FooterUnavailable is Footer with the bindings whose action unavailable
// reports (an action the selected session cannot take now) shown faint,
// in st.Subtle, in their places: the text is Footer's, only their style
// differs. A nil unavailable is Footer.
func FooterUnavailable(st *themes.Styles, km keys.KeyMap, ctx keys.Context, w int, unavailable func(keys.Action) bool) string {
	if w <= 0 {
		return ""
	}
	var items []item
	for _, c := range ctx.Chain() {
		for _, b := range km.Bindings(c) {
			if !b.Short || !b.Enabled() || b.Action == keys.Help {
				continue
			}
			off := unavailable != nil && unavailable(b.Action)
			ks := b.Keys()
			if !keys.DigitRun(ks) {
				ks = ks[:1] // the first key stands for the others
			}
			items = append(items, item{keys.KeyHelp(ks), b.Desc(), off})
		}
	}
	var tail *item
	if hk := km.KeysOf(ctx, keys.Help); hk != nil && ctx != keys.CtxHelp {
		tail = &item{key: keys.KeyHelp(hk[:1]), desc: "help"}
	}
	sepW := ansi.StringWidth(sep)
	fits := func(its []item, tail *item) bool {
		n := 0
		all := its
		if tail != nil {
			all = append(append([]item(nil), its...), *tail)
		}
		for i, it := range all {
			if i > 0 {
				n += sepW
			}
			n += it.width()
		}
		return n <= w
	}
	if tail != nil && !fits(nil, tail) {
		tail = nil
	}
	k := 0
	for k < len(items) && fits(items[:k+1], tail) {
		k++
	}
	shown := items[:k]
	if tail != nil {
		shown = append(append([]item(nil), shown...), *tail)
	}
	if len(shown) == 0 && len(items) > 0 {
		shown = items[:1] // nothing fits whole: truncate the first
	}
	parts := make([]string, len(shown))
	for i, it := range shown {
		parts[i] = it.render(st)
	}
	line := strings.Join(parts, st.Subtle.Render(sep))
	return cellwidth.Fit(line, w, "…")
}

// line is one row of the help screen before styling.
type line struct {
	title bool   // a section heading
	key   string // "" for a heading or a blank
	desc  string
}

// block is one context's section.
type block []line

// Full is the help screen: every binding grouped by context, the contexts
// ctx looks keys up in first (ctx, then what it falls through to), then the
// others, then the detach key. Sections are laid out in as many columns as
// fit w, a section kept whole in one column when the height allows. The
// result has at most h lines, each exactly w cells wide; when everything
// does not fit the last line is "…".
func Full(st *themes.Styles, km keys.KeyMap, ctx keys.Context, w, h int) string {
	out, _ := FullAt(st, km, ctx, w, h, 0)
	return out
}

// Marker is what a mark before a session's name in the list means, for
// the help's legend.
type Marker struct{ Mark, Desc string }

// FullAt is Full for a help that may be scrolled: when the bindings do not
// fit h lines in the columns w allows, they are laid out in those columns
// at the height they need, and h-1 lines of them from line top are shown
// above a last line saying how to see the rest. It returns the help and
// the largest top that shows something new (0 when everything fits).
func FullAt(st *themes.Styles, km keys.KeyMap, ctx keys.Context, w, h, top int, markers ...Marker) (string, int) {
	if w <= 0 || h <= 0 {
		return "", 0
	}
	order := ctx.Chain()
	for _, c := range keys.Contexts() {
		if !contains(order, c) {
			order = append(order, c)
		}
	}
	var blocks []block
	keyW, descW := 0, 0
	for _, c := range order {
		b := block{{title: true, desc: c.Title()}}
		for _, bd := range km.Bindings(c) {
			if !bd.Enabled() {
				continue
			}
			b = append(b, line{key: bd.Help().Key, desc: bd.Desc()})
		}
		if len(b) > 1 {
			blocks = append(blocks, b)
		}
	}
	blocks = append(blocks, block{
		{title: true, desc: "Attached"},
		{key: keys.DetachName(km.Detach), desc: "back to the dashboard"},
	})
	if len(markers) > 0 {
		b := block{{title: true, desc: "Marks in the list"}}
		for _, mk := range markers {
			b = append(b, line{key: mk.Mark, desc: mk.Desc})
		}
		blocks = append(blocks, b)
	}
	titleW := 0
	for _, b := range blocks {
		for _, l := range b {
			if l.title {
				titleW = max(titleW, ansi.StringWidth(l.desc))
				continue
			}
			keyW = max(keyW, ansi.StringWidth(l.key))
			descW = max(descW, ansi.StringWidth(l.desc))
		}
	}
	colW := max(titleW, keyW+2+descW)
	ncols := max(1, (w+colGap)/(colW+colGap))
	if ncols > 1 {
		// Spread spare width between columns rather than leaving it at the right.
		colW = (w - (ncols-1)*colGap) / ncols
	} else {
		colW = w
	}
	cols := arrange(blocks, ncols, h)
	if overflows(cols) {
		cols = arrange(blocks, ncols, linesOf(blocks)) // all of it, scrolled below
	}

	render := func(l line) string {
		switch {
		case l.title:
			return st.Title.Render(l.desc)
		case l.key == "":
			return ""
		}
		return st.Key.Render(cellwidth.PadRight(l.key, keyW)) + "  " + st.Desc.Render(l.desc)
	}
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c))
	}
	out := make([]string, rows)
	gap := strings.Repeat(" ", colGap)
	for r := range rows {
		var sb strings.Builder
		for i, c := range cols {
			if i > 0 {
				sb.WriteString(gap)
			}
			cell := ""
			if r < len(c) {
				cell = render(c[r])
			}
			sb.WriteString(cellwidth.Fit(cell, colW, "…"))
		}
		out[r] = cellwidth.Fit(sb.String(), w, "…")
	}
	if len(out) <= h {
		return strings.Join(out, "\n"), 0
	}
	if h == 1 {
		return cellwidth.Fit(st.Muted.Render("… (the help needs more lines)"), w, "…"), 0
	}
	last := len(out) - (h - 1)
	top = min(max(top, 0), last)
	shown := append([]string(nil), out[top:top+h-1]...)
	more := "↓ j, pgdown: more"
	switch {
	case top == last:
		more = "↑ k, pgup: back"
	case top > 0:
		more = "↑↓ j k, pgup pgdown: more"
	}
	more += fmt.Sprintf(" (%d–%d of %d lines)", top+1, top+h-1, len(out))
	shown = append(shown, cellwidth.Fit(st.Muted.Render(more), w, "…"))
	return strings.Join(shown, "\n"), last
}

// overflows reports whether arrange had to cut the help short.
func overflows(cols [][]line) bool {
	if len(cols) == 0 {
		return false
	}
	last := cols[len(cols)-1]
	return len(last) > 0 && last[len(last)-1].key == "…" && !last[len(last)-1].title
}

// linesOf is the lines of all blocks with a blank line between each two:
// a height at which they fit in one column.
func linesOf(blocks []block) int {
	n := 0
	for i, b := range blocks {
		if i > 0 {
			n++
		}
		n += len(b)
	}
	return n
}

// arrange places blocks into at most ncols columns of at most h lines,
// blank lines between blocks. It uses the smallest height at which every
// block fits whole; if none does, it flows lines column by column, cutting
// blocks, and if even that overflows, the last line becomes "…".
func arrange(blocks []block, ncols, h int) [][]line {
	tallest := 0
	for _, b := range blocks {
		tallest = max(tallest, len(b))
	}
	for height := tallest; height <= h; height++ {
		if cols, ok := pack(blocks, ncols, height); ok {
			return cols
		}
	}
	// Flow line by line.
	var all []line
	for i, b := range blocks {
		if i > 0 {
			all = append(all, line{})
		}
		all = append(all, b...)
	}
	var cols [][]line
	for len(all) > 0 && len(cols) < ncols {
		n := min(h, len(all))
		col := all[:n]
		all = all[n:]
		// A column should not start with a blank line.
		for len(all) > 0 && all[0].key == "" && !all[0].title {
			all = all[1:]
		}
		cols = append(cols, col)
	}
	if len(all) > 0 {
		last := cols[len(cols)-1]
		last = append(last[:len(last)-1:len(last)-1], line{key: "…"})
		cols[len(cols)-1] = last
	}
	return cols
}

// pack fits whole blocks into ncols columns of height lines.
func pack(blocks []block, ncols, height int) ([][]line, bool) {
	cols := [][]line{nil}
	for _, b := range blocks {
		cur := cols[len(cols)-1]
		need := len(b)
		if len(cur) > 0 {
			need++ // blank line before
		}
		if len(cur)+need > height {
			if len(cols) == ncols {
				return nil, false
			}
			cols = append(cols, nil)
			cur = nil
			need = len(b)
		}
		if len(cur) > 0 {
			cur = append(cur, line{})
		}
		cols[len(cols)-1] = append(cur, b...)
	}
	return cols, true
}

func contains(cs []keys.Context, c keys.Context) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}
