package dialog

import (
	"fmt"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// NoteDialog asks for a review note on one line of a session's diff,
// showing the line; a note already there is edited.
type NoteDialog struct {
	id   string
	note review.Note
	text textfield.Field
}

// NewNote returns the dialog for note n (its File, Line, Old, Quote set;
// its Text, if any, to edit) on session id's diff: enter returns
// Note{ID, n with the text} (empty text removes the note), esc closes.
func NewNote(id string, n review.Note) *NoteDialog {
	d := &NoteDialog{id: id, note: n, text: textfield.New("your note on this line", n.Text)}
	d.text.Focused = true
	return d
}

// Title implements Dialog.
func (d *NoteDialog) Title() string {
	return fmt.Sprintf("Note on %s:%d", d.note.File, d.note.Line)
}

// Update implements Dialog.
func (d *NoteDialog) Update(msg tea.Msg) (Action, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch dkey(km) {
		case keys.DialogOK:
			n := d.note
			n.Text = d.text.Value()
			return Note{ID: d.id, Note: n}, nil
		case keys.DialogCancel:
			return Close{}, nil
		}
	}
	d.text.Update(msg)
	return nil, nil
}

// View implements Dialog.
func (d *NoteDialog) View(st *themes.Styles, w, h int) string {
	const pref = 72
	iw := min(w, pref) - 4
	body := []string{st.Muted.Render(cellwidth.Cut("> "+cellwidth.Sanitize(d.note.Quote), iw, "…")), "",
		st.Key.Render("> ") + d.text.View(st, max(1, iw-2))}
	foot := []string{hint(st, "enter", "keep (empty: remove)", "esc", "cancel")}
	return layoutBox(st, w, h, pref, d.Title(), body, foot)
}
