package attach

import (
	"fmt"
	"strconv"
	"strings"
)

// detachRefused are control keys that cannot be the detach key, and why:
// each is something users send to agents all the time, or never reaches us.
var detachRefused = map[byte]string{
	0x02: "it is the tmux prefix",
	0x03: "agents need it to interrupt",
	0x04: "shells need it for end-of-file",
	0x08: "terminals send it for backspace",
	0x09: "it is tab",
	0x0a: "it is line feed (enter)",
	0x0d: "it is carriage return (enter)",
	0x1a: "shells need it to suspend",
	0x1b: "it is escape, which starts every escape sequence",
}

// ParseDetachKey parses a detach key name into the byte the terminal sends:
// "ctrl-\\", "ctrl+]", "C-a", "^\\" (caret notation) or a hex byte "0x1c".
// Letters are case-insensitive. Only control keys (0x00–0x1f) are allowed,
// minus those in detachRefused (ctrl-b, ctrl-c, ctrl-d, ctrl-h, ctrl-i,
// ctrl-j, ctrl-m, ctrl-z, ctrl-[), which users need to send to the session.
func ParseDetachKey(name string) (byte, error) {
	s := strings.TrimSpace(name)
	var b byte
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "0x"):
		v, err := strconv.ParseUint(s[2:], 16, 8)
		if err != nil {
			return 0, fmt.Errorf("detach key %q: bad hex byte: %w", name, err)
		}
		b = byte(v)
	default:
		var rest string
		for _, p := range []string{"ctrl-", "ctrl+", "c-", "^"} {
			if strings.HasPrefix(lower, p) {
				rest = s[len(p):]
				break
			}
		}
		if len(rest) != 1 {
			return 0, fmt.Errorf("detach key %q: want a control key such as \"ctrl-\\\\\" or \"ctrl-]\"", name)
		}
		c := rest[0]
		switch {
		case c >= 'a' && c <= 'z':
			b = c - 'a' + 1
		case c >= 'A' && c <= 'Z':
			b = c - 'A' + 1
		case c >= '@' && c <= '_': // @ [ \ ] ^ _
			b = c - '@'
		default:
			return 0, fmt.Errorf("detach key %q: %q has no control key", name, c)
		}
	}
	if b > 0x1f {
		return 0, fmt.Errorf("detach key %q: 0x%02x is not a control key", name, b)
	}
	if why, ok := detachRefused[b]; ok {
		return 0, fmt.Errorf("detach key %q cannot be used: %s", name, why)
	}
	return b, nil
}
