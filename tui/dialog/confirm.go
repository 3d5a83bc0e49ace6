package dialog

import (
	"fmt"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// Confirm asks a yes/no question before a destructive action. No is
// selected when it opens, so an enter pressed by reflex does nothing.
type Confirm struct {
	title, body string
	yes         Action
	yesSel      bool
}

// NewConfirm returns a confirm dialog whose Yes returns yes (Close{} if yes
// is nil). Keys: left/right/tab/shift+tab move between the buttons, y and
// n choose directly, enter activates the selected button, esc is No. No
// always returns Close{}.
func NewConfirm(title, body string, yes Action) *Confirm {
	if yes == nil {
		yes = Close{}
	}
	return &Confirm{title: title, body: body, yes: yes}
}

// Title implements Dialog.
func (d *Confirm) Title() string { return d.title }

// YesSelected reports whether Yes is the selected button.
func (d *Confirm) YesSelected() bool { return d.yesSel }

// Update implements Dialog.
func (d *Confirm) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch dkey(km) {
	case keys.DialogYes:
		return d.yes, nil
	case keys.DialogNo, keys.DialogCancel:
		return Close{}, nil
	case keys.DialogOK:
		if d.yesSel {
			return d.yes, nil
		}
		return Close{}, nil
	case keys.DialogMove, keys.DialogNext, keys.DialogPrev:
		switch km.String() {
		case "left", "shift+tab", "up":
			d.yesSel = true
		case "right", "down":
			d.yesSel = false
		default: // tab
			d.yesSel = !d.yesSel
		}
	}
	return nil, nil
}

// View implements Dialog.
func (d *Confirm) View(st *themes.Styles, w, h int) string {
	const pref = 60
	iw := min(w, pref) - 4
	body := wrap(st.Base.Render, d.body, iw)
	// The selected button is bracketed as well as styled, so it shows
	// without colour too.
	yes, no := st.Button.Render(" Yes "), st.ButtonSel.Render("[No]")
	if d.yesSel {
		yes, no = st.ButtonSel.Render("[Yes]"), st.Button.Render(" No ")
	}
	buttons := yes + " " + no
	foot := []string{buttons, "", hint(st, "y", "yes", "n", "no", "←/→", "choose", "enter", "ok", "esc", "cancel")}
	return layoutBox(st, w, h, pref, d.title, body, foot)
}

// KillText says what killing id does: with force SIGKILL at once, else
// SIGTERM to its process group and SIGKILL after grace.
func KillText(id string, grace time.Duration, force bool) string {
	switch {
	case force:
		return fmt.Sprintf("Kill %s now? SIGKILL goes to its whole process group at once; nothing in it gets a chance to clean up.", id)
	case grace <= 0:
		return fmt.Sprintf("Stop %s? SIGKILL goes to its whole process group at once (the kill grace is 0).", id)
	}
	return fmt.Sprintf("Stop %s? SIGTERM goes to its process group; SIGKILL follows after %s if anything in it is still running.", id, grace)
}

// CloseText says what killing a headless Claude session does: it is closed
// (its claude process stopped); its transcript stays on the screen until
// the session is removed.
func CloseText(id string, kind session.Kind) string {
	what := "Its claude process is stopped"
	if kind != session.KindHeadless {
		what = "Its program is stopped"
	}
	return fmt.Sprintf("Close %s? %s and the session ends; its transcript stays until you remove it (d).", id, what)
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
