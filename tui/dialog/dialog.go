// Package dialog holds the dashboard's modal dialogs: confirm, spawn, send
// a line, resize and the ':' command line.
//
// A dialog keeps its own state and never calls back into the app: Update
// returns an Action (a plain struct such as Kill{ID} or Close{}, of the
// vocabulary in package action that keys and ':' commands produce too) and
// the root model carries it out; a nil Action means the dialog stays open.
// The ':' commands are a table (Commands lists it) that ParseCommand runs.
// View is a pure rendering of the state into a bordered box no wider than
// w and no taller than h; the app centres it over the dashboard.
//
// Destructive actions go through NewConfirm, which selects No by default
// and says exactly what will happen (KillText, QuitText).
//
// Dialog keys are the fixed bindings of keys.CtxDialog (enter, esc, tab,
// shift+tab, arrows, y/n, ctrl+s); printable keys go to the focused text
// field. Text fields have a static (never blinking) cursor, so renders are
// deterministic.
package dialog

import (
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/action"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

// Dialog is one modal dialog. Implementations use pointer receivers: they
// keep their state between Update calls.
type Dialog interface {
	// Update takes a message (keys, and anything a text field needs) and
	// returns the action to carry out, or nil to stay open.
	Update(msg tea.Msg) (Action, tea.Cmd)
	// View renders the dialog's box, at most w cells wide and h lines tall.
	View(st *themes.Styles, w, h int) string
	// Title names the dialog ("Kill claude-1", "New session").
	Title() string
}

// Action is what a dialog asks the app to do: the dashboard's one action
// vocabulary (package action), which keys and ':' commands produce too.
// The app closes the dialog on any non-nil Action and then carries it out.
// The names below are that package's, so dialogs and their tests read as
// before.
type (
	Action    = action.Action
	Close     = action.Close
	Kill      = action.Kill
	Remove    = action.Remove
	Restart   = action.Restart
	Interrupt = action.Interrupt
	Spawn     = action.Spawn
	// SpawnHeadless is what the spawn form's headless entry returns.
	SpawnHeadless = action.SpawnHeadless
	Send          = action.Send
	Fit           = action.Fit
	Resize        = action.Resize
	Theme         = action.Theme
	Quit          = action.Quit
	Attach        = action.Attach
	Mode          = action.Mode
	Error         = action.Error
	Answer        = action.Answer
	Note          = action.Note
	OpenDiff      = action.OpenDiff
	Ship          = action.Ship
)

// What a Resize fits the session to.
const (
	FitPane     = action.FitPane
	FitTerminal = action.FitTerminal
	FitExplicit = action.FitExplicit
)

// dialogKeys are the fixed dialog bindings; Override cannot change them, so
// the default map is the effective one. Built on first use: package
// initialisation runs before every subcommand (docs/ARCHITECTURE.md,
// Invariants).
var dialogKeys = sync.OnceValue(keys.Default)

// dkey returns the dialog action of a key press, "" if none.
func dkey(msg tea.KeyPressMsg) keys.Action {
	a, _ := dialogKeys().Lookup(keys.CtxDialog, msg)
	return a
}

// hint renders "key desc" pairs for a dialog's bottom line.
func hint(st *themes.Styles, pairs ...string) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, st.Key.Render(pairs[i])+" "+st.Desc.Render(pairs[i+1]))
	}
	return strings.Join(parts, st.Subtle.Render(" · "))
}

// layoutBox draws a dialog: title, body lines, then the foot lines (kept
// whole: buttons, errors, the key hint), inside st.Dialog's border. The box
// is pref cells wide (inner width pref-4), shrunk to w; body lines longer
// than the inner width are truncated ("…"), and when the box is taller than
// h the body is cut from the bottom, its last kept line "…".
func layoutBox(st *themes.Styles, w, h, pref int, title string, body, foot []string) string {
	const frameW, frameH = 4, 2 // border + horizontal padding; border
	bw := min(w, pref)
	iw := bw - frameW
	if iw < 1 || h < frameH+1 {
		// No room for a box: as much of the title as fits.
		if w <= 0 || h <= 0 {
			return ""
		}
		return ansi.Truncate(st.Title.Render(title), w, "…")
	}
	lines := []string{st.Title.Render(title), ""}
	room := h - frameH - len(lines) - len(foot)
	if len(foot) > 0 {
		room-- // blank line before the foot
	}
	if room < len(body) {
		if room <= 0 {
			body = nil
		} else {
			body = append(body[:room-1:room-1], st.Subtle.Render("…"))
		}
	}
	lines = append(lines, body...)
	if len(foot) > 0 {
		lines = append(lines, "")
		lines = append(lines, foot...)
	}
	if len(lines) > h-frameH {
		lines = lines[:h-frameH]
	}
	for i, l := range lines {
		lines[i] = cellwidth.Fit(l, iw, "…")
	}
	return st.Dialog.Render(strings.Join(lines, "\n"))
}

// wrap word-wraps plain text to w cells and styles each line.
func wrap(style func(...string) string, text string, w int) []string {
	if w < 1 {
		return nil
	}
	var out []string
	for _, l := range cellwidth.Wrap(text, w) {
		out = append(out, style(l))
	}
	return out
}
