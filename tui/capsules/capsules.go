// Package capsules is the dashboard's capsule browser: the capsule ids on
// one side, the hydrated dependency closure of the selected one (what a
// brief referencing it would contain) on the other. It does no I/O: it asks
// for a capsule with Show and is given the text with SetShown.
package capsules

import (
	"strconv"
	"strings"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
)

// Action is what the browser asks the app to do.
type Action interface{ action() }

// Close leaves the browser.
type Close struct{}

// Show asks for the hydrated closure of ID.
type Show struct{ ID string }

func (Close) action() {}
func (Show) action()  {}

// Browser is the capsule browser's state.
type Browser struct {
	km     keys.KeyMap
	ids    []string
	sel    int
	offset int

	shownID string
	text    []string
	err     error
	scroll  int
}

// New returns an empty browser using km's capsule bindings.
func New(km keys.KeyMap) *Browser { return &Browser{km: km} }

// SetList shows ids, keeping the selection on the same id when present.
func (b *Browser) SetList(ids []string) {
	cur := b.Selected()
	b.ids = ids
	b.sel = max(0, min(b.sel, len(ids)-1))
	for i, id := range ids {
		if id == cur {
			b.sel = i
		}
	}
}

// Selected is the selected capsule id ("" when there are none).
func (b *Browser) Selected() string {
	if b.sel < len(b.ids) {
		return b.ids[b.sel]
	}
	return ""
}

// SetShown gives the closure text of id (or the error hydrating it). A
// result for an id no longer selected (lookups may finish out of order)
// is dropped.
func (b *Browser) SetShown(id, text string, err error) {
	if id != b.Selected() {
		return
	}
	if id != b.shownID {
		b.scroll = 0
	}
	b.shownID, b.err = id, err
	b.text = strings.Split(strings.TrimRight(text, "\n"), "\n")
}

// Update handles a key.
func (b *Browser) Update(msg tea.Msg) Action {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	act, _ := b.km.Lookup(keys.CtxCapsules, k)
	prev := b.sel
	switch act {
	case keys.Back:
		return Close{}
	case keys.Accept:
		// Asked again even when shown: the capsule may have changed on disk.
		if id := b.Selected(); id != "" {
			return Show{ID: id}
		}
		return nil
	case keys.Up:
		b.sel = max(0, b.sel-1)
	case keys.Down:
		b.sel = max(0, min(len(b.ids)-1, b.sel+1))
	case keys.PageUp:
		b.scroll = max(0, b.scroll-10)
	case keys.PageDown:
		b.scroll = max(0, min(len(b.text)-1, b.scroll+10))
	}
	if b.sel != prev {
		return Show{ID: b.Selected()}
	}
	return nil
}

// View draws the browser as exactly h lines of exactly w cells: the list
// left of the closure at 80 columns and more, above it below that.
func (b *Browser) View(st *themes.Styles, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var list, body []string
	listW, listH := w, h
	side := w >= 80
	if side {
		listW = min(32, w/3)
	} else {
		listH = min(h, max(3, h/3))
	}
	list = append(list, st.Title.Render("Capsules")+st.Muted.Render(" "+strconv.Itoa(len(b.ids))))
	if len(b.ids) == 0 {
		list = append(list, st.Muted.Render("none yet — heimdall-capsule write ID --what …"))
	}
	rows := max(1, listH-1)
	b.offset = layout.VisibleRange(len(b.ids), b.sel, b.offset, rows)
	for i := b.offset; i < len(b.ids) && i < b.offset+rows; i++ {
		row := cellwidth.Fit(" "+cellwidth.Sanitize(b.ids[i]), listW, "…")
		if i == b.sel {
			row = st.RowSelected.Render(row)
		}
		list = append(list, row)
	}

	bodyW, bodyH := w, h-listH
	if side {
		bodyW, bodyH = w-listW-1, h
	}
	switch {
	case b.shownID == "":
		body = append(body, st.Muted.Render("select a capsule to see its dependency closure"))
	case b.err != nil:
		body = append(body, st.Title.Render(cellwidth.Sanitize(b.shownID)), st.Error.Render(cellwidth.Sanitize(b.err.Error())))
	default:
		body = append(body, st.Title.Render("closure of "+cellwidth.Sanitize(b.shownID))+st.Muted.Render(" (dependencies first, as a brief hydrates it)"))
		for _, l := range b.text[min(b.scroll, len(b.text)):] {
			body = append(body, st.Base.Render(cellwidth.Sanitize(l)))
		}
	}
	list, body = block(list, listW, listH), block(body, bodyW, bodyH)
	out := make([]string, 0, h)
	if side {
		sep := st.Subtle.Render("│")
		for i := range h {
			out = append(out, list[i]+sep+body[i])
		}
	} else {
		out = append(append(out, list...), body...)
	}
	return strings.Join(out, "\n")
}

// block cuts or pads lines to exactly h lines of exactly w cells.
func block(lines []string, w, h int) []string {
	out := make([]string, max(0, h))
	for i := range out {
		if i < len(lines) {
			out[i] = cellwidth.Fit(lines[i], w, "…")
		} else {
			out[i] = strings.Repeat(" ", max(0, w))
		}
	}
	return out
}
