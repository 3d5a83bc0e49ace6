package usage

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// What Claude Code says when a usage limit stops it, on its screen and in
// its StopFailure hook's error_details: "You've hit your limit · resets
// 3pm (Europe/London)", "You've hit your weekly limit · resets Dec 9,
// 5pm (UTC)", "5-hour limit reached ∙ resets 3pm", "Claude usage limit
// reached. Your limit will reset at 12am (America/New_York)." (words from
// public reports of its releases; kept as data here).
// They are compiled on first use: no work in package init.
var words = sync.OnceValue(func() (w struct{ limit, reset, auto *regexp.Regexp }) {
	w.limit = regexp.MustCompile(`(?i)(hit your (?:\w+ )?limit|limit reached|usage limit|out of (?:extra )?usage)`)
	w.reset = regexp.MustCompile(`(?i)resets?\s+(?:at\s+)?(?:([A-Z][a-z]{2})[a-z]*\s+(\d{1,2}),?\s+(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*([ap]m)(?:\s*\(([A-Za-z_]+(?:/[A-Za-z_+\-]+)*)\))?`)
	w.auto = regexp.MustCompile(`(?i)\b(?:continu|resum)\w*\s+automatically\b`)
	return w
})

// Limit is a usage limit as an agent reported it.
type Limit struct {
	// Reset is when the limit resets (zero: it did not say).
	Reset time.Time
	// Auto: the agent says it continues by itself at the reset.
	Auto bool
}

// ReadLimit reads a usage limit out of text (a screen, a hook's
// error_details): whether text says one stopped the agent, and when it
// resets, resolved as the first such time after now (a time of day with
// no date is today's, or tomorrow's once past).
func ReadLimit(text string, now time.Time) (Limit, bool) {
	if !words().limit.MatchString(text) {
		return Limit{}, false
	}
	return Limit{Reset: ParseReset(text, now), Auto: words().auto.MatchString(text)}, true
}

// ParseReset is the reset time text names ("resets 4:20pm (Asia/Tbilisi)",
// "reset at 12am", "resets Dec 9, 5pm (UTC)"), the first such time after
// now in the zone named (else now's); zero if text names none.
func ParseReset(text string, now time.Time) time.Time {
	m := words().reset.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}
	}
	loc := now.Location()
	if m[6] != "" {
		if l, err := time.LoadLocation(m[6]); err == nil {
			loc = l
		}
	}
	hour, _ := strconv.Atoi(m[3])
	minute, _ := strconv.Atoi(m[4])
	if hour < 1 || hour > 12 || minute > 59 {
		return time.Time{}
	}
	hour %= 12
	if strings.EqualFold(m[5], "pm") {
		hour += 12
	}
	n := now.In(loc)
	year, month, day := n.Date()
	dated := m[1] != ""
	if dated {
		mon, err := time.Parse("Jan", m[1][:1]+strings.ToLower(m[1][1:]))
		d, _ := strconv.Atoi(m[2])
		if err != nil || d < 1 || d > 31 {
			return time.Time{}
		}
		month, day = mon.Month(), d
	}
	at := time.Date(year, month, day, hour, minute, 0, 0, loc)
	switch {
	case !at.After(now) && dated:
		at = at.AddDate(1, 0, 0) // "Jan 2" said in December
	case !at.After(now):
		at = at.AddDate(0, 0, 1)
	}
	return at
}
