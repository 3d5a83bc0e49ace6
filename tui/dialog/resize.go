package dialog

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// MaxSize bounds an explicit size in either direction.
const MaxSize = 1000

// ParseSize parses "120x40", "120×40", "120X40" or "120 40" (blanks around
// the separator allowed) into columns and rows, each 1..MaxSize.
func ParseSize(s string) (cols, rows uint16, err error) {
	t := strings.TrimSpace(s)
	var a, b string
	if i := strings.IndexAny(t, "xX×"); i >= 0 {
		_, n := firstRune(t[i:])
		a, b = t[:i], t[i+n:]
	} else if f := strings.Fields(t); len(f) == 2 {
		a, b = f[0], f[1]
	} else {
		return 0, 0, fmt.Errorf("size %q: want COLSxROWS, e.g. 120x40", s)
	}
	c, err1 := parseDim(strings.TrimSpace(a))
	r, err2 := parseDim(strings.TrimSpace(b))
	switch {
	case err1 != nil:
		return 0, 0, fmt.Errorf("size %q: columns: %w", s, err1)
	case err2 != nil:
		return 0, 0, fmt.Errorf("size %q: rows: %w", s, err2)
	}
	return c, r, nil
}

func firstRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 0
}

func parseDim(s string) (uint16, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < 1 || n > MaxSize {
		return 0, fmt.Errorf("%d is out of range 1..%d", n, MaxSize)
	}
	return uint16(n), nil
}

var fitLabels = [...]string{"Fit to the pane", "Fit to the whole terminal", "Explicit size"}

// ResizeDialog chooses a session's pty size.
type ResizeDialog struct {
	id      string
	cur     string
	fit     Fit
	size    textfield.Field
	onField bool
	err     string
}

// NewResize returns the dialog for session id, now curCols×curRows. up/down
// choose between fitting the pane, the terminal or an explicit size; tab
// moves to the COLS×ROWS field (typing a digit there too, and editing
// selects "explicit"); enter applies; esc closes. A bad size is reported in
// the dialog.
func NewResize(id string, curCols, curRows uint16) *ResizeDialog {
	cur := fmt.Sprintf("%d×%d", curCols, curRows)
	return &ResizeDialog{id: id, cur: cur, size: textfield.New("COLSxROWS", fmt.Sprintf("%dx%d", curCols, curRows))}
}

// Title implements Dialog.
func (d *ResizeDialog) Title() string { return "Resize " + d.id }

func (d *ResizeDialog) setField(on bool) {
	d.onField = on
	d.size.Focused = on
	if on {
		d.fit = FitExplicit
	}
}

// Update implements Dialog.
func (d *ResizeDialog) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if d.onField && d.size.Update(msg) {
			d.err = ""
		}
		return nil, nil
	}
	switch dkey(km) {
	case keys.DialogCancel:
		return Close{}, nil
	case keys.DialogOK, keys.DialogSubmit:
		if d.fit != FitExplicit {
			return Resize{ID: d.id, Fit: d.fit}, nil
		}
		c, r, err := ParseSize(d.size.Value())
		if err != nil {
			d.err = err.Error()
			d.setField(true)
			return nil, nil
		}
		return Resize{ID: d.id, Fit: FitExplicit, Cols: c, Rows: r}, nil
	case keys.DialogNext, keys.DialogPrev:
		d.setField(!d.onField)
		return nil, nil
	}
	s := km.String()
	switch {
	case s == "up" || (!d.onField && s == "k"):
		d.setField(false)
		d.fit = (d.fit + 2) % 3
	case s == "down" || (!d.onField && s == "j"):
		d.setField(false)
		d.fit = (d.fit + 1) % 3
	case d.onField:
		if d.size.Update(km) {
			d.err = ""
		}
	case len(s) == 1 && s[0] >= '0' && s[0] <= '9':
		// Typing a size starts it afresh.
		d.size.SetValue("")
		d.setField(true)
		d.size.Update(km)
		d.err = ""
	}
	return nil, nil
}

// View implements Dialog.
func (d *ResizeDialog) View(st *themes.Styles, w, h int) string {
	const pref = 52
	iw := min(w, pref) - 4
	body := []string{st.Muted.Render("Now " + d.cur + "."), ""}
	for i, l := range fitLabels {
		mark := "( ) "
		style := st.Muted
		if Fit(i) == d.fit {
			mark = "(•) "
			style = st.Base
			if !d.onField {
				style = st.Key
			}
		}
		body = append(body, style.Render(mark+l))
	}
	lab := st.Muted.Render("    Size ")
	if d.onField {
		lab = st.Key.Render("    Size ")
	}
	body = append(body, lab+d.size.View(st, max(1, min(16, iw-9))))
	var foot []string
	if d.err != "" {
		foot = append(foot, wrap(st.Error.Render, d.err, iw)...)
	}
	foot = append(foot, hint(st, "↑/↓", "choose", "tab", "size", "enter", "apply", "esc", "cancel"))
	return layoutBox(st, w, h, pref, d.Title(), body, foot)
}
