package dialog

import (
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// SendDialog types one line for a session without attaching: answering a
// prompt from the list.
type SendDialog struct {
	id      string
	message bool // the session takes messages (a user turn), not keystrokes
	text    textfield.Field
}

// NewSend returns the dialog: enter returns Send{ID, Text} (the app adds
// Enter; empty text is sent too, which just presses Enter); esc closes.
//
// With message (a session that takes messages, such as a headless Claude
// session) the text is one user turn, and the dialog says so.
func NewSend(id string, message bool) *SendDialog {
	placeholder := "text to type; empty = just Enter"
	if message {
		placeholder = "message to send"
	}
	d := &SendDialog{id: id, message: message, text: textfield.New(placeholder, "")}
	d.text.Focused = true
	return d
}

// Title implements Dialog.
func (d *SendDialog) Title() string { return "Send to " + d.id }

// Update implements Dialog.
func (d *SendDialog) Update(msg tea.Msg) (Action, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch dkey(km) {
		case keys.DialogOK:
			return Send{ID: d.id, Text: d.text.Value()}, nil
		case keys.DialogCancel:
			return Close{}, nil
		}
	}
	d.text.Update(msg)
	return nil, nil
}

// View implements Dialog.
func (d *SendDialog) View(st *themes.Styles, w, h int) string {
	const pref = 64
	iw := min(w, pref) - 4
	body := []string{st.Key.Render("> ") + d.text.View(st, max(1, iw-2))}
	what := "send + Enter"
	if d.message {
		what = "send"
	}
	foot := []string{hint(st, "enter", what, "esc", "cancel")}
	return layoutBox(st, w, h, pref, d.Title(), body, foot)
}
