package usage

import (
	"testing"
	"time"
)

func TestReadLimit(t *testing.T) {
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Skip("no tz data:", err)
	}
	utc := func(s string) time.Time {
		at, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	now := utc("2026-12-07T14:10:00Z")
	for _, c := range []struct {
		text    string
		limited bool
		reset   time.Time
		auto    bool
	}{
		{"You've hit your limit · resets 3pm (UTC)", true, utc("2026-12-07T15:00:00Z"), false},
		{"You've hit your limit · resets 6am (UTC)", true, utc("2026-12-08T06:00:00Z"), false},
		{"You've hit your session limit · resets 4:20pm (Asia/Tbilisi)", true, utc("2026-12-08T12:20:00Z"), false},
		{"You've hit your weekly limit · resets 3am (Europe/London)", true, time.Date(2026, 12, 8, 3, 0, 0, 0, london), false},
		{"5-hour limit reached ∙ resets 3pm", true, utc("2026-12-07T15:00:00Z"), false},
		{"Claude usage limit reached. Your limit will reset at 12am (America/New_York).", true, utc("2026-12-08T05:00:00Z"), false},
		{"You've hit your weekly limit · resets Dec 9, 5pm (UTC)", true, utc("2026-12-09T17:00:00Z"), false},
		{"You've hit your limit · resets Jan 2 at 1am (UTC)", true, utc("2027-01-02T01:00:00Z"), false},
		{"You're out of extra usage · resets 11:30am (Asia/Colombo) · continuing automatically", true, utc("2026-12-08T06:00:00Z"), true},
		{"You've hit your limit", true, time.Time{}, false},
		{"resets 3pm", false, time.Time{}, false},
		{"rate limits are fine", false, time.Time{}, false},
		{"You've hit your limit · resets 13pm (UTC)", true, time.Time{}, false},
		{"You've hit your limit · resets 3pm (Not/AZone)", true, utc("2026-12-07T15:00:00Z"), false},
	} {
		l, ok := ReadLimit(c.text, now)
		if ok != c.limited || !l.Reset.Equal(c.reset) || l.Auto != c.auto {
			t.Errorf("%q: %v %v %v, want %v %v %v", c.text, ok, l.Reset, l.Auto, c.limited, c.reset, c.auto)
		}
	}
}
