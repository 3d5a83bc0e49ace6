package dialog

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// Option is one button of a Choice: its label, the key that picks it
// directly (one printable character; its first letter, lower case, is the
// convention) and the action it returns.
type Option struct {
	Label  string
	Key    string
	Action Action
}

// Choice asks the user to pick one of several options (Quit: leave the
// sessions running, stop them, or cancel). The default option is selected
// when it opens. Keys: left/right/tab/shift+tab move, enter activates the
// selected option, an option's Key activates it directly, esc closes.
type Choice struct {
	title, body string
	opts        []Option
	sel         int
}

// NewChoice returns a Choice with opts (at least one), def selected.
func NewChoice(title, body string, opts []Option, def int) *Choice {
	return &Choice{title: title, body: body, opts: opts, sel: min(max(def, 0), len(opts)-1)}
}

// Title implements Dialog.
func (d *Choice) Title() string { return d.title }

// Selected returns the selected option's index.
func (d *Choice) Selected() int { return d.sel }

// Update implements Dialog.
func (d *Choice) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	for _, o := range d.opts {
		if o.Key != "" && km.String() == o.Key {
			return o.Action, nil
		}
	}
	n := len(d.opts)
	switch dkey(km) {
	case keys.DialogCancel:
		return Close{}, nil
	case keys.DialogOK:
		return d.opts[d.sel].Action, nil
	case keys.DialogMove, keys.DialogNext, keys.DialogPrev:
		switch km.String() {
		case "left", "shift+tab", "up":
			d.sel = (d.sel + n - 1) % n
		default: // right, down, tab
			d.sel = (d.sel + 1) % n
		}
	}
	return nil, nil
}

// View implements Dialog.
func (d *Choice) View(st *themes.Styles, w, h int) string {
	const pref = 64
	iw := min(w, pref) - 4
	body := wrap(st.Base.Render, d.body, iw)
	// The selected button is bracketed as well as styled, so it shows
	// without colour too.
	var bs []string
	for i, o := range d.opts {
		if i == d.sel {
			bs = append(bs, st.ButtonSel.Render("["+o.Label+"]"))
		} else {
			bs = append(bs, st.Button.Render(" "+o.Label+" "))
		}
	}
	pairs := []string{}
	for _, o := range d.opts {
		if o.Key != "" {
			word, _, _ := strings.Cut(strings.ToLower(o.Label), " ")
			pairs = append(pairs, o.Key, word)
		}
	}
	pairs = append(pairs, "enter", "ok", "esc", "cancel")
	foot := append(wrapButtons(bs, iw), "", hint(st, pairs...))
	return layoutBox(st, w, h, pref, d.title, body, foot)
}

// wrapButtons lays buttons out on as few lines as fit in w cells.
func wrapButtons(bs []string, w int) []string {
	var lines []string
	line, lw := "", 0
	for _, b := range bs {
		bw := cellwidth.Of(b)
		if lw > 0 && lw+1+bw > w {
			lines = append(lines, line)
			line, lw = "", 0
		}
		if lw > 0 {
			line += " "
			lw++
		}
		line += b
		lw += bw
	}
	return append(lines, line)
}

// QuitText says what quitting does with the running sessions started from
// a dashboard: running pty and headless sessions (the quit choice: leave
// them running or stop them) and inside ones (sessions it runs itself:
// heddle workers; it closes them as it quits, either way); and with the
// lost sessions still queued to start again (resume all), which the
// dashboard's queue holds.
func QuitText(running, inside, queued int, grace time.Duration) string {
	var b strings.Builder
	if running > 0 {
		what := fmt.Sprintf("%d sessions started from the dashboard are", running)
		if running == 1 {
			what = "1 session started from the dashboard is"
		}
		stop := fmt.Sprintf("hangs them up as a closing terminal does (SIGHUP to each process group, SIGTERM a second later, SIGKILL after %s)", grace)
		if grace <= 0 {
			stop = "SIGKILLs each process group at once"
		}
		fmt.Fprintf(&b, "%s still running. Leave them running: they keep working and the next heimdall-tui shows them again. Stop them: %s.",
			capitalize(what), stop)
	}
	// After the choice's text, or else as the question.
	also := func(text string) {
		if b.Len() > 0 {
			b.WriteString(" ")
		} else {
			b.WriteString("Quit heimdall-tui? ")
		}
		b.WriteString(text)
	}
	if inside == 1 {
		also("1 session the dashboard runs itself (a heddle worker) is closed either way.")
	} else if inside > 0 {
		also(fmt.Sprintf("%d sessions the dashboard runs itself (heddle workers) are closed either way.", inside))
	}
	if queued == 1 {
		also("1 lost session is still queued to start again: it stays lost (A in the next heimdall-tui starts it).")
	} else if queued > 0 {
		also(fmt.Sprintf("%d lost sessions are still queued to start again: they stay lost (A in the next heimdall-tui starts them).", queued))
	}
	return b.String()
}

// QuitOptions are the quit choice's options, Leave them running first (the
// default).
func QuitOptions() []Option {
	return []Option{
		{Label: "Leave them running", Key: "l", Action: Quit{Confirmed: true}},
		{Label: "Stop them", Key: "s", Action: Quit{Confirmed: true, Stop: true}},
		{Label: "Cancel", Key: "c", Action: Close{}},
	}
}
