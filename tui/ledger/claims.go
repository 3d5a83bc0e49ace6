package ledger

import (
	"fmt"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/coord"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// ClaimsHeight is how many lines ClaimsView wants for n claims: a blank
// line, the title, the header and one line per claim.
func ClaimsHeight(n int) int { return n + 3 }

// ClaimsView draws the active claims (backend/coord) as exactly h lines of
// exactly w cells: owner HAID, task, surfaces and the time left at now.
func ClaimsView(st *themes.Styles, claims []coord.Claim, now time.Time, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	haidW, taskW, leftW := 8, 8, 6
	for _, c := range claims {
		haidW = max(haidW, min(40, len(c.HAID)))
		taskW = max(taskW, min(40, len(c.TaskRef)))
	}
	row := func(haid, task, left, surfaces string) string {
		return cell(haid, haidW, false) + " " + cell(task, taskW, false) + " " + cell(left, leftW, true) + " " + cellwidth.Sanitize(surfaces)
	}
	lines := []string{"", st.Title.Render(fmt.Sprintf("Claims (%d active)", len(claims))), st.Muted.Render(row("OWNER", "TASK", "LEFT", "SURFACES"))}
	for _, c := range claims {
		left := max(0, int(c.Expires().Sub(now)/time.Minute))
		lines = append(lines, row(c.HAID, c.TaskRef, fmt.Sprintf("%dm", left), strings.Join(c.ClaimedSurfaces, ", ")))
	}
	for i, l := range lines {
		lines[i] = cellwidth.Fit(l, w, "")
	}
	return pad(lines, w, h)
}

// DecisionsHeight is how many lines DecisionsView wants for n decisions.
func DecisionsHeight(n int) int { return n + 2 }

// DecisionsView draws the latest decisions of the coordination ledger
// (newest last, as decisions.md lists them) as exactly h lines of exactly
// w cells: when, who, what. When they do not fit, the newest are kept.
func DecisionsView(st *themes.Styles, ds []coord.Decision, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	if room := h - 2; room >= 0 && len(ds) > room {
		ds = ds[len(ds)-room:]
	}
	lines := []string{"", st.Title.Render(fmt.Sprintf("Decisions (latest %d)", len(ds)))}
	for _, d := range ds {
		lines = append(lines, cellwidth.Sanitize(d.At+"  "+d.HAID+"  "+d.Title))
	}
	for i, l := range lines {
		lines[i] = cellwidth.Fit(l, w, "…")
	}
	return pad(lines, w, h)
}
