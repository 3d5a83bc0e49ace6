// Package inbox draws the dashboard's inbox: what wants the user across
// every session (backend/inbox), newest first — a row per item with its
// age, kind, session and reason — and, under it, the answers the selected
// item takes. It is a pure renderer: the app keeps the items and the
// selection and draws the selected session's pane beside it.
package inbox

import (
	"fmt"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// EmptyHint is what an empty inbox says.
const EmptyHint = "Nothing waits for you. Sessions that need input, fail or finish a turn you have not seen show here."

// kindMark is an item kind's mark and word.
func kindMark(st *themes.Styles, k inbox.Kind) string {
	switch k {
	case inbox.Input:
		return st.Warning.Render("! input")
	case inbox.Error:
		return st.Error.Render("✗ error")
	}
	return st.Success.Render("✓ done ")
}

// maxDetail bounds the rows the selected item's reason takes in full.
const maxDetail = 6

// View draws items (sel is the selected one's index) in w×h: a title row,
// then a row per item, scrolled to keep the selection in view, then, where
// there is room, the selected item's reason in full. hint, if not "", is
// the last row (the answer keys).
func View(st *themes.Styles, items []inbox.Item, sel int, now time.Time, hint string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var lines []string
	add := func(s string) { lines = append(lines, cellwidth.Fit(s, w, "")) }
	title := st.Title.Render("Inbox")
	if n := len(items); n > 0 {
		title += st.Muted.Render(fmt.Sprintf("  %d waiting", n))
	}
	add(title)
	rows := h - 1
	if hint != "" {
		rows--
	}
	if len(items) == 0 {
		add("")
		for _, l := range cellwidth.Wrap(EmptyHint, w) {
			add(st.Muted.Render(l))
		}
	} else {
		idW := 4
		for _, it := range items {
			idW = max(idW, min(24, cellwidth.Of(it.Session)))
		}
		top := max(0, min(sel-rows+1, len(items)-rows))
		for i := top; i < len(items) && i < top+rows; i++ {
			it := items[i]
			marker := "  "
			if i == sel {
				marker = st.Key.Render("▶ ")
			}
			row := marker + cellwidth.PadLeft(it.Age(now), 3) + "  " + kindMark(st, it.Kind) + "  " +
				cellwidth.PadRight(cellwidth.Cut(it.Session, idW, "…"), idW) + "  "
			reason := it.Reason
			if reason == "" && it.Kind == inbox.Done {
				reason = "finished its turn"
			}
			rest := max(0, w-cellwidth.Of(row))
			text := cellwidth.Cut(reason, rest, "…")
			if i == sel {
				text = st.Base.Render(text)
			} else {
				text = st.Muted.Render(text)
			}
			add(row + text)
		}
	}
	// The selected item's reason in full, where there is room for it.
	if sel >= 0 && sel < len(items) && items[sel].Reason != "" {
		wrapped := cellwidth.Wrap(items[sel].Reason, max(1, w-2))
		if len(wrapped) > maxDetail {
			wrapped = wrapped[:maxDetail]
		}
		if room := rows - len(lines) + 1; room >= len(wrapped)+1 {
			add("")
			for _, l := range wrapped {
				add("  " + st.Base.Render(l))
			}
		}
	}
	for len(lines) < h-1 || (hint == "" && len(lines) < h) {
		lines = append(lines, "")
	}
	if hint != "" {
		add(cellwidth.Cut(hint, w, "…"))
	}
	for i, l := range lines {
		lines[i] = cellwidth.PadRight(l, w)
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}
