// Package grid renders several sessions' panes at once, each framed and
// titled with its name and state, at rects the layout package computed.
// It is a pure renderer built from pane.Render, pane.Frame and
// layout.Compose.
package grid

import (
	colorpkg "image/color"

	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
	"github.com/heimdall-tui/heimdall-tui/tui/pane"
)

// Pane is one session as the grid shows it.
type Pane struct {
	ID         string
	Title      string // shown in the border; "" = ID
	State      string // badge text ("Idle", "Thinking", ..., "Dead")
	NeedsInput bool
	Focused    bool // drawn with the focus border and the cursor
	Snap       *vt.Snapshot
	// Body, when set, renders the pane's content at the inner size
	// instead of Snap (a session without a screen: its transcript).
	Body func(w, h int) string
}

// View draws panes[i] framed at rects[i] and returns exactly h lines of
// exactly w cells. Rects are relative to the output's top-left corner
// (translate layout.Layout.Grid by -Body.X, -Body.Y); panes without a rect
// are not drawn, cells no rect covers are blank. Screens use the theme's
// ANSI palette where it sets one; without color their colours are
// dropped (NO_COLOR; use monochrome styles too).
func View(st *themes.Styles, panes []Pane, rects []layout.Rect, w, h int, color bool) string {
	n := min(len(panes), len(rects))
	var remap *[16]colorpkg.Color
	for _, c := range st.P.ANSI {
		if c != nil {
			remap = &st.P.ANSI
			break
		}
	}
	blocks := make([]layout.Block, 0, n)
	for i := range n {
		p, r := &panes[i], rects[i]
		if r.Empty() {
			continue
		}
		title := p.Title
		if title == "" {
			title = p.ID
		}
		var body string
		var cropped bool
		if p.Body != nil {
			body = p.Body(max(r.W-2, 0), max(r.H-2, 0))
		} else {
			body, cropped = pane.Render(p.Snap, max(r.W-2, 0), max(r.H-2, 0), pane.Options{Color: color, Cursor: p.Focused, ANSI: remap})
		}
		blocks = append(blocks, layout.Block{
			Rect:    r,
			Content: pane.Frame(st, pane.Border{Title: title, State: p.State, NeedsInput: p.NeedsInput, Focused: p.Focused, Cropped: cropped}, body, r.W, r.H),
		})
	}
	return layout.Compose(w, h, blocks...)
}
