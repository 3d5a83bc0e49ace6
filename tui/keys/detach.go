package keys

import "fmt"

// DetachName is the display name of a detach byte in Bubble Tea's key
// syntax: 0x1c → "ctrl+\\", 0x01 → "ctrl+a".
func DetachName(b byte) string {
	switch {
	case b >= 0x01 && b <= 0x1a:
		return "ctrl+" + string(rune('a'+b-1))
	case b <= 0x1f:
		return "ctrl+" + string(rune('@'+b))
	}
	return fmt.Sprintf("0x%02x", b)
}
