// Package textfield is a one-line text field for the dashboard's dialogs and
// editors.
package textfield

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/themes"
)

// Field is a one-line text field with a static cursor (no blink timer, so
// renders are deterministic). It is small on purpose: bubbles' textinput
// pulls in a clipboard package this module does not carry; pasting works
// through bracketed paste (tea.PasteMsg) instead.
//
// Keys: printable text inserts; backspace/delete; left/right; home/ctrl+a,
// end/ctrl+e; ctrl+u deletes to the start, ctrl+k to the end, ctrl+w and
// alt+backspace the word before the cursor.
type Field struct {
	placeholder string
	val         []rune
	pos         int // cursor, 0..len(val)
	// Focused shows the cursor and the focused style.
	Focused bool
}

// New returns a field showing placeholder while empty.
func New(placeholder, value string) Field {
	f := Field{placeholder: placeholder}
	f.SetValue(value)
	return f
}

// Value is the field's text.
func (f *Field) Value() string { return string(f.val) }

// SetPlaceholder sets what the field shows while empty.
func (f *Field) SetPlaceholder(s string) { f.placeholder = s }

// SetValue replaces the text and puts the cursor at its end.
func (f *Field) SetValue(s string) {
	f.val = []rune(s)
	f.pos = len(f.val)
}

// oneLine turns line breaks and tabs into spaces (a field is one line).
var oneLine = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ", "\t", " ")

// insert puts s at the cursor; line breaks become spaces.
func (f *Field) insert(s string) {
	s = oneLine.Replace(s)
	r := []rune(s)
	f.val = append(f.val[:f.pos], append(r, f.val[f.pos:]...)...)
	f.pos += len(r)
}

// Update edits the field; it reports whether msg was used.
func (f *Field) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		f.insert(msg.Content)
		return true
	case tea.KeyPressMsg:
		switch msg.String() {
		case "backspace", "ctrl+h":
			if f.pos > 0 {
				f.val = append(f.val[:f.pos-1], f.val[f.pos:]...)
				f.pos--
			}
		case "delete", "ctrl+d":
			if f.pos < len(f.val) {
				f.val = append(f.val[:f.pos], f.val[f.pos+1:]...)
			}
		case "left", "ctrl+b":
			f.pos = max(0, f.pos-1)
		case "right", "ctrl+f":
			f.pos = min(len(f.val), f.pos+1)
		case "home", "ctrl+a":
			f.pos = 0
		case "end", "ctrl+e":
			f.pos = len(f.val)
		case "ctrl+u":
			f.val = f.val[f.pos:]
			f.pos = 0
		case "ctrl+k":
			f.val = f.val[:f.pos]
		case "ctrl+w", "alt+backspace":
			i := f.pos
			for i > 0 && f.val[i-1] == ' ' {
				i--
			}
			for i > 0 && f.val[i-1] != ' ' {
				i--
			}
			f.val = append(f.val[:i], f.val[f.pos:]...)
			f.pos = i
		default:
			if msg.Text == "" || msg.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
				return false
			}
			f.insert(msg.Text)
		}
		return true
	}
	return false
}

// View renders the field width cells wide: the text scrolled so the cursor
// is visible, the cursor as a reverse-video cell when focused, underlined
// when focused.
func (f *Field) View(st *themes.Styles, width int) string {
	if width < 1 {
		return ""
	}
	text, cur := st.Muted, lipgloss.NewStyle()
	if f.Focused {
		text = st.InputFocus
		cur = lipgloss.NewStyle().Reverse(true)
		if !st.Monochrome {
			cur = lipgloss.NewStyle().Foreground(st.P.Bg).Background(st.P.Primary)
		}
	}
	if len(f.val) == 0 {
		var sb strings.Builder
		n := 0
		if f.Focused {
			sb.WriteString(cur.Render(" "))
			n = 1
		}
		ph := ansi.Truncate(f.placeholder, width-n, "…")
		sb.WriteString(st.Subtle.Render(ph))
		n += ansi.StringWidth(ph)
		sb.WriteString(text.Render(strings.Repeat(" ", max(0, width-n))))
		return sb.String()
	}
	// Scroll: the smallest start that keeps the cursor cell inside width.
	cw := func(rs []rune) int { return ansi.StringWidth(string(rs)) }
	start := 0
	for start < f.pos && cw(f.val[start:f.pos])+1 > width {
		start++
	}
	// Visible runes from start, leaving a cell for a cursor at the end.
	end, n := start, 0
	for end < len(f.val) {
		w := ansi.StringWidth(string(f.val[end]))
		if n+w > width {
			break
		}
		n += w
		end++
	}
	var sb strings.Builder
	if !f.Focused || f.pos > end {
		sb.WriteString(text.Render(string(f.val[start:end])))
	} else {
		sb.WriteString(text.Render(string(f.val[start:f.pos])))
		if f.pos < end {
			sb.WriteString(cur.Render(string(f.val[f.pos])))
			sb.WriteString(text.Render(string(f.val[f.pos+1 : end])))
		} else if f.pos == len(f.val) && n < width {
			sb.WriteString(cur.Render(" "))
			n++
		}
	}
	sb.WriteString(text.Render(strings.Repeat(" ", max(0, width-n))))
	return sb.String()
}
