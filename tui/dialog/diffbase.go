package dialog

import (
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// DiffBaseDialog asks what session id's diff is from: a branch or
// commit, @ID (another session's baseline), or nothing (its own).
type DiffBaseDialog struct {
	id   string
	base textfield.Field
}

// NewDiffBase returns the dialog, showing the base now (cur): enter
// returns OpenDiff{ID, Base}, esc closes.
func NewDiffBase(id, cur string) *DiffBaseDialog {
	d := &DiffBaseDialog{id: id, base: textfield.New("empty: its baseline, as it started", cur)}
	d.base.Focused = true
	return d
}

// Title implements Dialog.
func (d *DiffBaseDialog) Title() string { return "Diff " + d.id + " from" }

// Update implements Dialog.
func (d *DiffBaseDialog) Update(msg tea.Msg) (Action, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch dkey(km) {
		case keys.DialogOK:
			return OpenDiff{ID: d.id, Base: d.base.Value()}, nil
		case keys.DialogCancel:
			return Close{}, nil
		}
	}
	d.base.Update(msg)
	return nil, nil
}

// View implements Dialog.
func (d *DiffBaseDialog) View(st *themes.Styles, w, h int) string {
	const pref = 72
	iw := min(w, pref) - 4
	body := []string{st.Muted.Render("a branch or commit, or @NAME for another session's baseline"), "",
		st.Key.Render("> ") + d.base.View(st, max(1, iw-2))}
	foot := []string{hint(st, "enter", "diff", "esc", "cancel")}
	return layoutBox(st, w, h, pref, d.Title(), body, foot)
}
