package detachkey

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

func TestForward(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     string
		detached bool
	}{
		{"detach key mid-read", "ab\x1ccd", "ab", true},
		{"detach key first", "\x1cab", "", true},
		{"end of input", "abc", "abc", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got strings.Builder
			det := Forward(strings.NewReader(c.in), func(p []byte) error { got.Write(p); return nil }, 0x1c)
			if det != c.detached || got.String() != c.want {
				t.Errorf("Forward = %v, wrote %q; want %v, %q", det, got.String(), c.detached, c.want)
			}
		})
	}
	// One byte per read: the keys before the detach key still go, none after.
	var got strings.Builder
	if !Forward(iotest.OneByteReader(strings.NewReader("xy\x1cz")), func(p []byte) error { got.Write(p); return nil }, 0x1c) || got.String() != "xy" {
		t.Errorf("one byte per read: wrote %q", got.String())
	}
	// A failing write ends it.
	if Forward(strings.NewReader("abc"), func([]byte) error { return errors.New("gone") }, 0x1c) {
		t.Error("Forward reported a detach after a failed write")
	}
}
