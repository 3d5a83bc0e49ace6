package dialog

import (
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// ShipDialog asks for the commit message of a session's changes and how
// far to take them: commit (enter), and push (ctrl+p), and open a pull
// request (ctrl+r).
type ShipDialog struct {
	id, warn string
	msg      textfield.Field
}

// NewShip returns the dialog for session id; warn, if not "", is shown
// (what the commit takes in besides the agent's work).
func NewShip(id, warn string) *ShipDialog {
	d := &ShipDialog{id: id, warn: warn, msg: textfield.New("commit message (one line)", "")}
	d.msg.Focused = true
	return d
}

// Title implements Dialog.
func (d *ShipDialog) Title() string { return "Ship " + d.id }

// Update implements Dialog.
func (d *ShipDialog) Update(msg tea.Msg) (Action, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		s := review.Ship{Message: d.msg.Value()}
		switch {
		case dkey(km) == keys.DialogCancel:
			return Close{}, nil
		case dkey(km) == keys.DialogOK:
		case km.String() == "ctrl+p":
			s.Push = true
		case km.String() == "ctrl+r":
			s.Push, s.PR = true, true
		default:
			d.msg.Update(msg)
			return nil, nil
		}
		if s.Message == "" {
			return nil, nil
		}
		return Ship{ID: d.id, Ship: s}, nil
	}
	d.msg.Update(msg)
	return nil, nil
}

// View implements Dialog.
func (d *ShipDialog) View(st *themes.Styles, w, h int) string {
	const pref = 72
	iw := min(w, pref) - 4
	var body []string
	if d.warn != "" {
		body = append(body, wrap(st.Warning.Render, d.warn, iw)...)
		body = append(body, "")
	}
	body = append(body, st.Key.Render("> ")+d.msg.View(st, max(1, iw-2)))
	foot := []string{cellwidth.Cut(hint(st, "enter", "commit", "ctrl+p", "and push", "ctrl+r", "and open a PR", "esc", "cancel"), iw, "…")}
	return layoutBox(st, w, h, pref, d.Title(), body, foot)
}
