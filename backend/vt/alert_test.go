package vt

import (
	"slices"
	"strings"
	"testing"
)

// Bells and notifications reach Alert, after the Write; a progress report
// (OSC 9;4) is not a notification; a BEL inside plain text that scrolls
// away unseen (the dry skip) still rings.
func TestAlerts(t *testing.T) {
	var got []Alert
	e := New(20, 4, Options{Alert: func(a Alert) { got = append(got, a) }})
	e.Write([]byte("a\ab\x1b]9;hello\a\x1b]777;notify;Build;done\x1b\\\x1b]9;4;1;50\a\x1b]99;i=1;hi there\x1b\\\x1b]0;title\a"))
	want := []Alert{{Bell: true}, {Text: "hello"}, {Text: "Build: done"}, {Text: "hi there"}}
	if !slices.Equal(got, want) {
		t.Fatalf("alerts %+v, want %+v", got, want)
	}
	got = nil
	flood := strings.Repeat("line of output\r\n", 500) + "\a" + strings.Repeat("more\r\n", 500)
	e.Write([]byte(flood))
	if !slices.Equal(got, []Alert{{Bell: true}}) {
		t.Fatalf("alerts in a flood %+v", got)
	}
}
