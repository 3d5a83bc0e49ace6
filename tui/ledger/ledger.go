// Package ledger renders the token-ledger view: each role's measured tokens
// against its v1 baseline, with the delta and a bar on one scale, the
// total, and the latest entries. It is a pure renderer of a
// planning.LedgerReport.
package ledger

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// EmptyHint is shown when the ledger has no entries and no baselines.
const EmptyHint = "no ledger entries yet — agents append with: heimdall-tui ledger log --role R --kind K --text …"

// Column widths (cells) of the role table; the role name takes up to
// maxRole, the bar what is left (dropped below minBar).
const (
	maxRole  = 20
	numW     = 9 // "1,234,567"
	entriesW = 7
	deltaW   = 6 // "-100%"
	minBar   = 8
)

// View draws the report as exactly h lines of exactly w cells. root names
// the planning directory in the title.
func View(st *themes.Styles, r planning.LedgerReport, root string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var lines []string
	add := func(s string) { lines = append(lines, cellwidth.Fit(s, w, "")) }
	add(st.Title.Render("Token ledger") + st.Muted.Render("  "+root))
	if len(r.Roles) == 0 && r.Entries == 0 {
		add("")
		for _, l := range cellwidth.Wrap(EmptyHint, w) {
			add(st.Muted.Render(l))
		}
		return pad(lines, w, h)
	}
	add("")

	roleW := 4
	for _, rr := range r.Roles {
		roleW = max(roleW, min(maxRole, ansi.StringWidth(rr.Role)))
	}
	// Columns dropped right to left as the width shrinks: bar, baseline,
	// entries.
	fixed := roleW + 1 + numW + 1 + deltaW
	showBase := w >= fixed+numW+1
	if showBase {
		fixed += numW + 1
	}
	showEntries := w >= fixed+entriesW+1
	if showEntries {
		fixed += entriesW + 1
	}
	barW := w - fixed - 2
	showBar := barW >= minBar

	head := []string{cell("ROLE", roleW, false)}
	if showEntries {
		head = append(head, cell("ENTRIES", entriesW, true))
	}
	head = append(head, cell("TOKENS", numW, true))
	if showBase {
		head = append(head, cell("BASELINE", numW, true))
	}
	head = append(head, cell("DELTA", deltaW, true))
	if showBar {
		head = append(head, " measured █ vs baseline │")
	}
	add(st.Muted.Render(strings.Join(head, " ")))

	scale := int64(1)
	for _, rr := range r.Roles {
		scale = max(scale, rr.Tokens, rr.Baseline)
	}
	for _, rr := range r.Roles {
		row := []string{st.Base.Render(cell(rr.Role, roleW, false))}
		if showEntries {
			row = append(row, st.Muted.Render(cell(strconv.Itoa(rr.Entries), entriesW, true)))
		}
		row = append(row, st.Base.Render(cell(group(rr.Tokens), numW, true)))
		if showBase {
			b := "-"
			if rr.HasBaseline {
				b = group(rr.Baseline)
			}
			row = append(row, st.Muted.Render(cell(b, numW, true)))
		}
		row = append(row, deltaCell(st, rr))
		if showBar {
			row = append(row, " "+bar(st, rr, scale, barW))
		}
		add(strings.Join(row, " "))
	}
	entries := "entries"
	if r.Entries == 1 {
		entries = "entry"
	}
	add(st.Muted.Render(fmt.Sprintf("total %s tokens in %d %s", group(r.Total), r.Entries, entries)))

	if room := h - len(lines) - 2; room > 0 && len(r.Latest) > 0 {
		add("")
		latest := r.Latest
		if len(latest) > room {
			latest = latest[len(latest)-room:] // newest last, oldest cut
		}
		title := st.Title.Render("Latest")
		if slices.ContainsFunc(latest, func(e planning.LedgerEntry) bool { return e.Usage != nil }) {
			title += st.Muted.Render("  (usage: the provider's count; the others by tokenizer)")
		}
		add(title)
		for _, e := range latest {
			row := st.Muted.Render(clock(e.TS)) + "  " + st.Base.Render(cell(e.Role, roleW, false)) + "  " +
				st.Muted.Render(cell(e.Kind, 14, false)) + " " + st.Base.Render(cell(group(e.Tokens), numW, true))
			if u := e.Usage; u != nil {
				row += "  " + st.Subtle.Render(fmt.Sprintf("usage in %s out %s cache %s", group(u.Input), group(u.Output), group(u.CacheRead+u.CacheCreation)))
			}
			if e.MsgID != "" {
				row += "  " + st.Subtle.Render(cellwidth.Sanitize(e.MsgID))
			}
			add(row)
		}
	}
	return pad(lines, w, h)
}

// deltaCell is the delta in per cent: a reduction in the success colour, an
// increase in the error colour, "-" without a baseline.
func deltaCell(st *themes.Styles, rr planning.RoleReport) string {
	if !rr.HasBaseline || rr.Baseline == 0 {
		return st.Muted.Render(cell("-", deltaW, true))
	}
	p := rr.Delta().Percent()
	s := cell(fmt.Sprintf("%+d%%", p), deltaW, true)
	switch {
	case p < 0:
		return st.Success.Render(s)
	case p > 0:
		return st.Error.Render(s)
	}
	return st.Muted.Render(s)
}

// bar is the role's tokens as a run of blocks and its baseline as a "│",
// both on the same scale (the largest tokens or baseline of any role).
func bar(st *themes.Styles, rr planning.RoleReport, scale int64, w int) string {
	filled := int((rr.Tokens*int64(w) + scale/2) / scale)
	mark := -1
	if rr.HasBaseline {
		mark = min(w-1, int((rr.Baseline*int64(w)+scale/2)/scale))
	}
	fill := st.Info
	if rr.HasBaseline && rr.Tokens > rr.Baseline {
		fill = st.Error
	}
	var b strings.Builder
	for i := range w {
		switch {
		case i == mark:
			b.WriteString(st.Warning.Render("│"))
		case i < filled:
			b.WriteString(fill.Render("█"))
		default:
			b.WriteString(st.Subtle.Render("·"))
		}
	}
	return b.String()
}

// clock is an RFC 3339 timestamp's time of day (UTC), or the raw text.
func clock(ts string) string {
	t, err := time.Parse(time.RFC3339, ts)
	if err != nil {
		return cell(ts, 8, false)
	}
	return t.UTC().Format("15:04:05")
}

// group writes n with thousands separators.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// cell is s cut or padded to exactly w cells, right-aligned with right.
func cell(s string, w int, right bool) string {
	s = cellwidth.Cut(cellwidth.Sanitize(s), w, "…") // roles, kinds: written by agents
	if right {
		return cellwidth.PadLeft(s, w)
	}
	return cellwidth.PadRight(s, w)
}

// pad returns exactly h lines (cut or padded with blank lines).
func pad(lines []string, w, h int) string {
	if len(lines) > h {
		lines = lines[:h]
	}
	blank := strings.Repeat(" ", w)
	for len(lines) < h {
		lines = append(lines, blank)
	}
	return strings.Join(lines, "\n")
}
