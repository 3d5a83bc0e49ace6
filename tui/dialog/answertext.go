package dialog

import (
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// AnswerTextDialog asks for the words that answer a session's question
// through its free-text option.
type AnswerTextDialog struct {
	id, reason string
	text       textfield.Field
}

// NewAnswerText returns the dialog for session id, showing why it waits:
// enter returns Answer{ID, text} (nothing for empty text), esc closes.
func NewAnswerText(id, reason string) *AnswerTextDialog {
	d := &AnswerTextDialog{id: id, reason: reason, text: textfield.New("your answer, one line", "")}
	d.text.Focused = true
	return d
}

// Title implements Dialog.
func (d *AnswerTextDialog) Title() string { return "Answer " + d.id }

// Update implements Dialog.
func (d *AnswerTextDialog) Update(msg tea.Msg) (Action, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch dkey(km) {
		case keys.DialogOK:
			if d.text.Value() == "" {
				return nil, nil
			}
			return Answer{ID: d.id, Choice: answer.Choice{Kind: answer.Text, Text: d.text.Value()}}, nil
		case keys.DialogCancel:
			return Close{}, nil
		}
	}
	d.text.Update(msg)
	return nil, nil
}

// View implements Dialog.
func (d *AnswerTextDialog) View(st *themes.Styles, w, h int) string {
	const pref = 72
	iw := min(w, pref) - 4
	var body []string
	if d.reason != "" {
		body = append(body, st.Muted.Render(cellwidth.Cut(d.reason, iw, "…")), "")
	}
	body = append(body, st.Key.Render("> ")+d.text.View(st, max(1, iw-2)))
	foot := []string{hint(st, "enter", "answer", "esc", "cancel")}
	return layoutBox(st, w, h, pref, d.Title(), body, foot)
}
