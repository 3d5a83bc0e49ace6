// Package blackboard is the dashboard's blackboard editor: the facts as a
// table, with add, edit and delete in place. It does no I/O: it returns
// Actions (Set, Delete, Close) that the app carries out with the
// compare-and-swap writes of backend/planning, passing the Version of the
// facts the edit started from, so a race with another process comes back
// as a conflict (Conflict) instead of overwriting their change.
package blackboard

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// Action is what the editor asks the app to do.
type Action interface{ action() }

// Close leaves the editor.
type Close struct{}

// Set writes Key = Value if the blackboard is still at Version.
type Set struct {
	Key, Value string
	Version    planning.Version
}

// Delete removes Key if the blackboard is still at Version.
type Delete struct {
	Key     string
	Version planning.Version
}

func (Close) action()  {}
func (Set) action()    {}
func (Delete) action() {}

type mode uint8

const (
	browsing   mode = iota
	adding          // key and value fields
	editing         // the selected key's value
	confirming      // "Delete KEY? y/N"
)

type fact struct{ key, value string }

// Editor is the blackboard editor's state.
type Editor struct {
	km      keys.KeyMap
	facts   []fact
	version planning.Version
	sel     int
	offset  int

	mode     mode
	key, val textfield.Field
	onKey    bool             // adding: the key field has focus
	target   string           // the key being edited or deleted
	from     planning.Version // the facts' Version when the edit began
	note     string           // conflict or error line
	noteErr  bool
}

// New returns an empty editor using km's blackboard bindings.
func New(km keys.KeyMap) *Editor {
	return &Editor{km: km, key: textfield.New("key", ""), val: textfield.New("value", "")}
}

// SetFacts shows f. The selection stays on the same key when it is still
// there; an edit in progress is left alone (it keeps the Version it began
// from, so saving it over a change made meanwhile is a conflict).
func (e *Editor) SetFacts(f planning.Facts) {
	cur := e.selectedKey()
	e.facts = e.facts[:0]
	for k, v := range f.Facts {
		e.facts = append(e.facts, fact{k, v})
	}
	slices.SortFunc(e.facts, func(a, b fact) int { return strings.Compare(a.key, b.key) })
	e.version = f.Version
	e.sel = max(0, min(e.sel, len(e.facts)-1))
	if i := e.index(cur); i >= 0 {
		e.sel = i
	}
}

func (e *Editor) index(key string) int {
	return slices.IndexFunc(e.facts, func(f fact) bool { return f.key == key })
}

func (e *Editor) selectedKey() string {
	if e.sel >= 0 && e.sel < len(e.facts) {
		return e.facts[e.sel].key
	}
	return ""
}

// Editing reports whether a field or the delete confirmation has the keys:
// the app then sends every key here and none to its own bindings, and shows
// EditingHelp instead of the key map's footer.
func (e *Editor) Editing() bool { return e.mode != browsing }

// EditingHelp is the footer while a field has the keys.
const EditingHelp = "enter save · esc cancel · tab switch field"

// SetError shows msg on the editor's message line.
func (e *Editor) SetError(msg string) { e.note, e.noteErr = msg, true }

// Conflict reopens an edit of key holding mine after a save raced another
// process. The facts must already be reloaded (SetFacts): a second save
// then deliberately writes over the current ones.
func (e *Editor) Conflict(key, mine string) {
	now := "absent"
	if i := e.index(key); i >= 0 {
		now = fmt.Sprintf("%q", e.facts[i].value)
		e.sel = i
	}
	e.mode, e.target, e.from = editing, key, e.version
	e.val.SetValue(mine)
	e.val.Focused = true
	e.note = fmt.Sprintf("%s was changed by another process (now %s). Your value is kept: enter saves it over theirs, esc discards it.", key, now)
	e.noteErr = true
}

// Update handles a key (or a paste into a field).
func (e *Editor) Update(msg tea.Msg) Action {
	switch e.mode {
	case adding, editing:
		return e.updateField(msg)
	case confirming:
		k, ok := msg.(tea.KeyPressMsg)
		if !ok {
			return nil
		}
		e.mode = browsing
		if k.String() == "y" || k.String() == "Y" {
			e.note = ""
			return Delete{Key: e.target, Version: e.from}
		}
		e.note, e.noteErr = "kept "+e.target, false
		return nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	act, _ := e.km.Lookup(keys.CtxBlackboard, k)
	switch act {
	case keys.Up:
		e.sel = max(0, e.sel-1)
	case keys.Down:
		e.sel = max(0, min(len(e.facts)-1, e.sel+1))
	case keys.Top:
		e.sel = 0
	case keys.Bottom:
		e.sel = max(0, len(e.facts)-1)
	case keys.Back:
		return Close{}
	case keys.Add:
		e.mode, e.onKey, e.from, e.note = adding, true, e.version, ""
		e.key.SetValue("")
		e.val.SetValue("")
		e.focus()
	case keys.Edit:
		if key := e.selectedKey(); key != "" {
			e.mode, e.target, e.from, e.note = editing, key, e.version, ""
			e.val.SetValue(e.facts[e.sel].value)
			e.focus()
		}
	case keys.Delete:
		if key := e.selectedKey(); key != "" {
			e.mode, e.target, e.from, e.note = confirming, key, e.version, ""
		}
	}
	return nil
}

func (e *Editor) focus() {
	e.key.Focused = e.mode == adding && e.onKey
	e.val.Focused = !e.key.Focused
}

func (e *Editor) updateField(msg tea.Msg) Action {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "esc":
			e.mode, e.note = browsing, ""
			return nil
		case "tab", "shift+tab":
			if e.mode == adding {
				e.onKey = !e.onKey
				e.focus()
			}
			return nil
		case "enter":
			key := e.target
			if e.mode == adding {
				key = strings.TrimSpace(e.key.Value())
			}
			if key == "" {
				e.note, e.noteErr = "the key is empty", true
				e.onKey = true
				e.focus()
				return nil
			}
			e.mode, e.note = browsing, ""
			e.target = key
			return Set{Key: key, Value: e.val.Value(), Version: e.from}
		}
	}
	if e.mode == adding && e.onKey {
		e.key.Update(msg)
	} else {
		e.val.Update(msg)
	}
	return nil
}

// View draws the editor as exactly h lines of exactly w cells.
func (e *Editor) View(st *themes.Styles, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var foot []string
	switch e.mode {
	case adding:
		half := max(1, (w-16)/2)
		foot = append(foot, st.Key.Render("key ")+e.key.View(st, half)+st.Key.Render("  value ")+e.val.View(st, max(1, w-half-11)))
	case editing:
		label := cellwidth.Cut(cellwidth.Sanitize(e.target), max(1, w/3), "…") + " = "
		foot = append(foot, st.Key.Render(label)+e.val.View(st, max(1, w-ansi.StringWidth(label))))
	case confirming:
		// Wrapped, not cut: the "y/N" that says No is the default ends the line.
		msg := fmt.Sprintf("Delete %s? Other agents reading it will not find it. y/N", cellwidth.Sanitize(e.target))
		for _, l := range cellwidth.Wrap(msg, w) {
			foot = append(foot, st.Warning.Render(l))
		}
	}
	if e.note != "" {
		style := st.Muted
		if e.noteErr {
			style = st.Error
		}
		// Wrapped: a conflict message says what to do, all of it matters.
		// Notes name keys agents wrote: sanitized.
		for _, l := range cellwidth.Wrap(cellwidth.Sanitize(e.note), w) {
			foot = append(foot, style.Render(l))
		}
	}

	facts := "facts"
	if len(e.facts) == 1 {
		facts = "fact"
	}
	lines := []string{st.Title.Render("Blackboard") + st.Muted.Render(fmt.Sprintf("  %d %s", len(e.facts), facts))}
	rows := h - 2 - len(foot)
	keyW := 4
	for _, f := range e.facts {
		keyW = max(keyW, min(w/3, ansi.StringWidth(f.key)))
	}
	lines = append(lines, st.Muted.Render(cellwidth.Fit("KEY", keyW, "…")+" │ VALUE"))
	if len(e.facts) == 0 {
		lines = append(lines, st.Muted.Render("no facts yet — a adds one; agents add with: heimdall-blackboard set KEY VALUE"))
	}
	if rows > 0 {
		e.offset = layout.VisibleRange(len(e.facts), e.sel, e.offset, rows)
		for i := e.offset; i < len(e.facts) && i < e.offset+rows; i++ {
			f := e.facts[i]
			// Facts are written by agents: control characters are shown,
			// never sent to the terminal.
			row := cellwidth.Fit(cellwidth.Sanitize(f.key), keyW, "…") + " │ " + cellwidth.Sanitize(strings.ReplaceAll(f.value, "\n", "⏎"))
			row = cellwidth.Fit(row, w, "…")
			if i == e.sel {
				lines = append(lines, st.RowSelected.Render(row))
			} else {
				lines = append(lines, st.Row.Render(row))
			}
		}
	}
	for len(lines) < h-len(foot) {
		lines = append(lines, "")
	}
	lines = append(lines[:max(0, h-len(foot))], foot...)
	for i, l := range lines {
		lines[i] = cellwidth.Fit(l, w, "")
	}
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	return strings.Join(lines, "\n")
}
