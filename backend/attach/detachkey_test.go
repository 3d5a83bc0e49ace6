package attach

import (
	"strings"
	"testing"
)

func TestParseDetachKey(t *testing.T) {
	good := map[string]byte{
		`ctrl-\`: 0x1c, `ctrl+\`: 0x1c, `ctrl-]`: 0x1d, `C-a`: 0x01, `^\`: 0x1c,
		`CTRL-Q`: 0x11, `0x1c`: 0x1c, `ctrl-@`: 0x00, `ctrl-_`: 0x1f, ` ctrl-^ `: 0x1e,
	}
	for in, want := range good {
		got, err := ParseDetachKey(in)
		if err != nil || got != want {
			t.Errorf("ParseDetachKey(%q) = %#x, %v; want %#x", in, got, err, want)
		}
	}
	bad := map[string]string{
		"ctrl-b": "tmux", "ctrl-c": "interrupt", "ctrl-m": "enter", "ctrl-[": "escape",
		"0x41": "not a control key", "0xzz": "hex", "x": "control key", "ctrl-": "control key",
		"ctrl-ab": "control key", "ctrl-1": "no control key", "": "control key",
	}
	for in, want := range bad {
		_, err := ParseDetachKey(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDetachKey(%q) = %v; want error containing %q", in, err, want)
		}
	}
}
