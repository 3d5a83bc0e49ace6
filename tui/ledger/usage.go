package ledger

import (
	"fmt"
	"maps"
	"slices"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
)

// SessionUsage is one session's tokens as its agent reported them.
type SessionUsage struct {
	ID    string
	Usage session.Usage
}

// UsageHeight is how many lines UsageView wants for n sessions with
// usage and d days.
func UsageHeight(n, d int) int {
	if n == 0 {
		return 0
	}
	return 3 + n + 2 + min(d, maxDays)
}

// maxDays bounds the days UsageView lists (the latest).
const maxDays = 7

// UsageView draws the tokens the agents reported as exactly h lines of
// exactly w cells: a row per session (today, in all, by kind, and the
// cost where the config prices its models), then a row per day over
// every session, newest first; the title says today's total against the
// daily budget when there is one. today is the local date usage rows
// are kept under.
func UsageView(st *themes.Styles, us []SessionUsage, today string, budget int64, prices config.Usage, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var lines []string
	add := func(s string) { lines = append(lines, cellwidth.Fit(s, w, "")) }
	var all session.Usage
	for _, u := range us {
		all = append(all, u.Usage...)
	}
	title := st.Title.Render("Agent tokens") + st.Muted.Render("  today "+group(all.Day(today).Total()))
	if budget > 0 {
		title += st.Muted.Render(" of " + group(budget) + " a day")
		if all.Day(today).Total() >= budget {
			title += " " + st.Error.Render("budget spent")
		}
	}
	add(title)
	idW := len("2026-12-07") // the days' column too
	for _, u := range us {
		idW = max(idW, min(maxRole, len(u.ID)))
	}
	costOf := func(u session.Usage) string {
		if c, ok := prices.Cost(u); ok && len(prices.Prices) > 0 {
			if c > 0 && c < 0.01 {
				return "<0.01"
			}
			return fmt.Sprintf("%.2f", c)
		}
		return "-"
	}
	cols := func(name, today, total string, t []string, cost string) string {
		row := cell(name, idW, false) + " " + cell(today, numW, true) + " " + cell(total, numW, true)
		if w >= idW+2*numW+2+4*(numW+1) {
			for _, x := range t {
				row += " " + cell(x, numW, true)
			}
		}
		if w >= idW+2*numW+2+4*(numW+1)+numW+1 {
			row += " " + cell(cost, numW, true)
		}
		return row
	}
	add(st.Muted.Render(cols("SESSION", "TODAY", "TOTAL", []string{"INPUT", "OUTPUT", "CACHE W", "CACHE R"}, "COST")))
	for _, u := range us {
		t := u.Usage.Total()
		add(st.Base.Render(cols(u.ID, group(u.Usage.Day(today).Total()), group(t.Total()),
			[]string{group(t.Input), group(t.Output), group(t.CacheWrite), group(t.CacheRead)}, costOf(u.Usage))))
	}
	days := map[string]bool{}
	for _, r := range all {
		days[r.Day] = true
	}
	list := slices.Sorted(maps.Keys(days))
	slices.Reverse(list)
	if len(list) > maxDays {
		list = list[:maxDays]
	}
	add("")
	add(st.Muted.Render(cols("DAY", "", "TOKENS", []string{"INPUT", "OUTPUT", "CACHE W", "CACHE R"}, "COST")))
	for _, d := range list {
		var day session.Usage
		for _, r := range all {
			if r.Day == d {
				day = append(day, r)
			}
		}
		t := day.Total()
		add(st.Base.Render(cols(d, "", group(t.Total()),
			[]string{group(t.Input), group(t.Output), group(t.CacheWrite), group(t.CacheRead)}, costOf(day))))
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return pad(lines, w, h)
}
