package layout

import (
	"strconv"
	"strings"

	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"

	"github.com/charmbracelet/x/ansi"
)

// Block is content to paint at a rect: lines separated by "\n", possibly
// ANSI-styled. Lines shorter than the rect are padded with spaces, longer
// ones cut; missing lines are blank, extra lines dropped.
type Block struct {
	Rect
	Content string
}

// Compose paints blocks onto a w×h canvas, later blocks over earlier ones,
// and returns exactly h lines (joined by "\n") of exactly w cells each.
// Cells no block covers are spaces; parts of blocks outside the canvas are
// clipped. Styles never leak: every styled piece is followed by an SGR
// reset. A wide character cut by a block edge becomes spaces.
//
// Compose joins rows of strings rather than parsing content into cells, so
// it costs about one pass over the content: cheap enough for a grid of
// sixteen panes every frame.
func Compose(w, h int, blocks ...Block) string {
	if w <= 0 || h <= 0 {
		return strings.Repeat("\n", max(h-1, 0))
	}
	type prepared struct {
		r      Rect
		lines  []string
		widths []int // display width of each line, -1 until measured
	}
	ps := make([]prepared, len(blocks))
	for i, b := range blocks {
		ps[i].r = b.Rect
		if b.Empty() {
			continue
		}
		lines := strings.Split(b.Content, "\n")
		if len(lines) > b.H {
			lines = lines[:b.H]
		}
		ps[i].lines = lines
		ps[i].widths = make([]int, len(lines))
		for j := range ps[i].widths {
			ps[i].widths[j] = -1
		}
	}
	owner := make([]int, w)
	var sb strings.Builder
	sb.Grow(w*h + h)
	for y := range h {
		if y > 0 {
			sb.WriteByte('\n')
		}
		for x := range owner {
			owner[x] = -1
		}
		for i := range ps {
			r := ps[i].r
			if r.Empty() || y < r.Y || y >= r.Y+r.H {
				continue
			}
			for x := max(r.X, 0); x < min(r.X+r.W, w); x++ {
				owner[x] = i
			}
		}
		for x0 := 0; x0 < w; {
			o := owner[x0]
			x1 := x0 + 1
			for x1 < w && owner[x1] == o {
				x1++
			}
			run := x1 - x0
			if o < 0 {
				cellwidth.WriteSpaces(&sb, run)
				x0 = x1
				continue
			}
			p := &ps[o]
			ly := y - p.r.Y
			if ly >= len(p.lines) || p.lines[ly] == "" {
				cellwidth.WriteSpaces(&sb, run)
				x0 = x1
				continue
			}
			line := p.lines[ly]
			if p.widths[ly] < 0 {
				p.widths[ly] = cellwidth.Of(line)
			}
			lw := p.widths[ly]
			left, right := x0-p.r.X, x1-p.r.X
			seg, sw := cut(line, lw, left, right)
			if sw > run { // defensive: never overflow the run
				seg, sw = cellwidth.CutN(seg, run, "")
			}
			sb.WriteString(seg)
			if strings.IndexByte(seg, '\x1b') >= 0 && !strings.HasSuffix(seg, "\x1b[m") && !strings.HasSuffix(seg, "\x1b[0m") {
				sb.WriteString("\x1b[m")
			}
			cellwidth.WriteSpaces(&sb, run-sw)
			x0 = x1
		}
	}
	return sb.String()
}

// cut returns the cells [left, right) of line (lw cells wide) and their
// width. A wide character straddling the left edge becomes spaces; one
// straddling the right edge is dropped (the caller pads), so the result
// is never wider than right-left. ansi.Cut alone would keep a straddling
// wide character and overflow by a cell.
func cut(line string, lw, left, right int) (string, int) {
	if left <= 0 && right >= lw {
		return line, lw
	}
	seg, prefix := line, 0
	if left > 0 {
		seg = ansi.TruncateLeft(line, left, "")
		if extra := cellwidth.Of(seg) - (lw - left); extra > 0 {
			prefix = extra
			seg = ansi.TruncateLeft(line, left+extra, "")
		}
	}
	if right < lw {
		seg = ansi.Truncate(seg, right-left-prefix, "")
	}
	if prefix > 0 {
		seg = cellwidth.Spaces(prefix) + seg
	}
	return seg, cellwidth.Of(seg)
}

// TooSmallNotice is what to show on a screen below MinWidth×MinHeight:
// exactly h lines of exactly w cells, the message centred and cut to fit.
func TooSmallNotice(w, h int) string {
	if w <= 0 || h <= 0 {
		return strings.Repeat("\n", max(h-1, 0))
	}
	msg := []string{
		"terminal too small",
		"need " + strconv.Itoa(MinWidth) + "×" + strconv.Itoa(MinHeight),
	}
	top := max(0, (h-len(msg))/2)
	var sb strings.Builder
	for y := range h {
		if y > 0 {
			sb.WriteByte('\n')
		}
		i := y - top
		if i < 0 || i >= len(msg) {
			cellwidth.WriteSpaces(&sb, w)
			continue
		}
		s := ansi.Truncate(msg[i], w, "")
		sw := ansi.StringWidth(s)
		pad := (w - sw) / 2
		cellwidth.WriteSpaces(&sb, pad)
		sb.WriteString(s)
		cellwidth.WriteSpaces(&sb, w-sw-pad)
	}
	return sb.String()
}
