package keys

import (
	"fmt"
	"strings"
	"unicode/utf8"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"
)

// named are the key names of the key map that are not a single character.
var named = map[string]rune{
	"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "space": tea.KeySpace,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"home": tea.KeyHome, "end": tea.KeyEnd, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
	"backspace": tea.KeyBackspace, "delete": tea.KeyDelete,
}

// Press returns the tea.KeyPressMsg a terminal delivers for a key name as
// the key map writes it ("x", "X", "enter", "shift+tab", "ctrl+s"), so
// that tests and synthetic input go through the same Lookup as real keys.
// It panics on a name it cannot build: callers pass literals.
func Press(name string) tea.KeyPressMsg {
	var mod tea.KeyMod
	rest := name
	for {
		switch {
		case strings.HasPrefix(rest, "ctrl+") && len(rest) > 5:
			mod |= tea.ModCtrl
			rest = rest[5:]
			continue
		case strings.HasPrefix(rest, "shift+") && len(rest) > 6:
			mod |= tea.ModShift
			rest = rest[6:]
			continue
		case strings.HasPrefix(rest, "alt+") && len(rest) > 4:
			mod |= tea.ModAlt
			rest = rest[4:]
			continue
		}
		break
	}
	if code, ok := named[rest]; ok {
		k := tea.KeyPressMsg{Code: code, Mod: mod}
		if code == tea.KeySpace && mod == 0 {
			k.Text = " "
		}
		return k
	}
	r, size := utf8.DecodeRuneInString(rest)
	if r == utf8.RuneError || size != len(rest) {
		panic(fmt.Sprintf("keys.Press: cannot build key %q", name))
	}
	k := tea.KeyPressMsg{Code: r, Mod: mod}
	if mod == 0 {
		k.Text = rest
	}
	return k
}
