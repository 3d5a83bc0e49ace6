// Package keys is the dashboard's key map: every key the dashboard reacts
// to, as data. Bindings are grouped by context (the session list, the pane
// grid, the filter prompt, the help screen, dialogs) and tagged with the
// Action they trigger; help, the footer and the key reference in docs/ are
// all generated from the same KeyMap, so they cannot disagree with what the
// keys do.
//
// Keys are configurable by action name (KeyMap.Override), and no default
// binding uses ctrl+b: the dashboard usually runs inside tmux, whose prefix
// it must never need.
//
// Key names are Bubble Tea v2's tea.KeyPressMsg.String() forms: "x", "X",
// "enter", "esc", "tab", "shift+tab", "up", "pgdown", "home", "ctrl+c",
// "space", "?".
package keys

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"
)

// Action names what a key does. The string is the name users write in the
// config to rebind it.
type Action string

// The actions. Session actions apply to the selected session (the list's
// selected row, the grid's focused pane).
const (
	// Global.
	Help          Action = "help"
	Command       Action = "command"
	Quit          Action = "quit"
	Back          Action = "back"
	Spawn         Action = "spawn"
	Filter        Action = "filter"
	NextAttention Action = "next-attention"
	Grid          Action = "grid"
	Zoom          Action = "zoom"
	Ledger        Action = "ledger"
	Blackboard    Action = "blackboard"
	Capsules      Action = "capsules"
	Inbox         Action = "inbox"
	ResumeAll     Action = "resume-all"

	// Session (the selected session).
	Attach    Action = "attach"
	Send      Action = "send"
	Kill      Action = "kill"
	KillNow   Action = "kill-now"
	Remove    Action = "remove"
	Restart   Action = "restart"
	Resize    Action = "resize"
	Interrupt Action = "interrupt"
	Diff      Action = "diff"
	Park      Action = "park"
	Continue  Action = "continue"
	// Answers to the dialog the session shows (a permission, a question).
	Allow        Action = "allow"
	AllowAlways  Action = "allow-always"
	Deny         Action = "deny"
	AnswerOption Action = "answer-option"
	AnswerText   Action = "answer-text"

	// Movement and ordering (list and grid).
	Up       Action = "up"
	Down     Action = "down"
	PageUp   Action = "page-up"
	PageDown Action = "page-down"
	Top      Action = "top"
	Bottom   Action = "bottom"
	Sort     Action = "sort"

	// Filter prompt.
	Accept Action = "accept"
	// Diff view.
	NextHunk Action = "next-hunk"
	PrevHunk Action = "prev-hunk"
	NextFile Action = "next-file"
	PrevFile Action = "prev-file"
	// SendNotes sends the review notes to the session as one prompt.
	SendNotes Action = "send-notes"
	// MarkRange starts (or drops) a range of lines for a note.
	MarkRange Action = "mark-range"
	// DiffBase picks what the diff is from.
	DiffBase Action = "diff-base"
	// Ship commits the session's changes (and pushes, opens a PR).
	Ship Action = "ship"
	// Blackboard editor.
	Add    Action = "add"
	Edit   Action = "edit"
	Delete Action = "delete"

	// Dialogs. These are fixed (Override refuses them): the dialogs in
	// tui/dialog match keys against these bindings, and the text fields in
	// dialogs need the printable keys.
	DialogOK     Action = "dialog-ok"
	DialogCancel Action = "dialog-cancel"
	DialogNext   Action = "dialog-next"
	DialogPrev   Action = "dialog-prev"
	DialogMove   Action = "dialog-move"
	DialogYes    Action = "dialog-yes"
	DialogNo     Action = "dialog-no"
	DialogSubmit Action = "dialog-submit"
)

// descs is every action's help text: what the key does, short enough for
// the footer.
var descs = map[Action]string{
	Help:          "help",
	Command:       "command line",
	Quit:          "quit",
	Back:          "back",
	Spawn:         "new session",
	Filter:        "filter",
	NextAttention: "next in the inbox",
	Grid:          "grid view",
	Zoom:          "zoom pane",
	Ledger:        "token ledger",
	Blackboard:    "blackboard",
	Capsules:      "capsules",
	Inbox:         "inbox",
	ResumeAll:     "resume the lost sessions shown, one at a time",

	Attach:    "attach",
	Send:      "send line",
	Kill:      "kill",
	KillNow:   "kill now (SIGKILL)",
	Remove:    "remove dead",
	Restart:   "restart",
	Resize:    "resize",
	Interrupt: "interrupt the turn",
	Diff:      "what it changed (diff)",
	Park:      "park / unpark (heimdall sends it nothing)",
	Continue:  "continue when its usage limit resets",

	Allow:        "allow (answer yes)",
	AllowAlways:  "allow from now on",
	Deny:         "deny (answer no)",
	AnswerOption: "choose option N",
	AnswerText:   "answer in words",

	Up:       "up",
	Down:     "down",
	PageUp:   "page up",
	PageDown: "page down",
	Top:      "first",
	Bottom:   "last",
	Sort:     "sort order",

	Accept: "apply",

	NextHunk:  "next hunk",
	PrevHunk:  "previous hunk",
	NextFile:  "next file",
	PrevFile:  "previous file",
	SendNotes: "send the notes as one prompt",
	DiffBase:  "diff from… (branch, commit, @session)",
	MarkRange: "start a range of lines for a note",
	Ship:      "commit, push, open a PR",

	Add:    "add fact",
	Edit:   "edit value",
	Delete: "delete fact",

	DialogOK:     "ok / choose",
	DialogCancel: "cancel",
	DialogNext:   "next field / complete",
	DialogPrev:   "previous field",
	DialogMove:   "move selection",
	DialogYes:    "yes",
	DialogNo:     "no",
	DialogSubmit: "submit form",
}

// Desc is the action's help text ("" for an unknown action).
func (a Action) Desc() string { return descs[a] }

// Fixed reports whether the action's keys cannot be changed (dialog keys).
func (a Action) Fixed() bool { return strings.HasPrefix(string(a), "dialog-") }

// Actions lists every action, sorted by name.
func Actions() []Action {
	as := make([]Action, 0, len(descs))
	for a := range descs {
		as = append(as, a)
	}
	slices.Sort(as)
	return as
}

// Context is where the user is; it selects which bindings apply.
type Context uint8

// The contexts. Lookup tries a context's own bindings first and then those
// of the contexts it falls through to (see Chain):
//
//	List, Grid → Session → Global
//	Session    → Global
//	Global, Filter, Help, Dialog: only their own
//
// Filter and Dialog take typed text, so they never fall through; Help is a
// modal screen with its own few keys.
const (
	CtxGlobal     Context = iota // anywhere outside text entry
	CtxSession                   // acting on the selected session (list and grid)
	CtxList                      // the session list (split layout)
	CtxGrid                      // the pane grid and a zoomed pane
	CtxFilter                    // typing the filter after '/'
	CtxHelp                      // the full help screen
	CtxDialog                    // any dialog (fixed keys)
	CtxLedger                    // the token-ledger view
	CtxBlackboard                // the blackboard editor (not while typing a value)
	CtxCapsules                  // the capsule browser
	CtxInbox                     // the inbox
	CtxDiff                      // the diff view
	numContexts
)

var ctxNames = [numContexts]string{"Global", "Session", "List", "Grid", "Filter", "Help", "Dialog", "Ledger", "Blackboard", "Capsules", "Inbox", "Diff"}

// ctxAbout says in a line when a context applies, for the key reference.
var ctxAbout = [numContexts]string{
	"In the list and the grid when no more specific key matches (not while typing or on the help screen).",
	"On the selected session: the list's selected row or the grid's focused pane.",
	"The session list (split layout).",
	"The pane grid and a zoomed pane.",
	"While typing the filter after `/`: other keys are text.",
	"On the full help screen.",
	"In dialogs. These keys are fixed; printable keys go to the focused text field.",
	"In the token-ledger view (L).",
	"In the blackboard editor (B). While a key or value is being typed, enter saves, esc cancels and tab switches fields.",
	"In the capsule browser (C).",
	"In the inbox (!): what wants you, newest first; the answer keys act on the selected item's session.",
	"In the diff view (D): what the selected session changed since it started.",
}

var ctxTitles = [numContexts]string{"Anywhere", "Selected session", "Session list", "Pane grid", "Filter prompt", "Help screen", "Dialogs", "Token ledger", "Blackboard", "Capsules", "Inbox", "Diff"}

// Title is the context's heading in the help screen.
func (c Context) Title() string {
	if c < numContexts {
		return ctxTitles[c]
	}
	return c.String()
}

func (c Context) String() string {
	if c < numContexts {
		return ctxNames[c]
	}
	return fmt.Sprintf("Context(%d)", c)
}

// Contexts lists every context in display order.
func Contexts() []Context {
	cs := make([]Context, numContexts)
	for i := range cs {
		cs[i] = Context(i)
	}
	return cs
}

// Chain is the lookup order for c: c itself, then what it falls through to.
func (c Context) Chain() []Context {
	switch c {
	case CtxList, CtxGrid:
		return []Context{c, CtxSession, CtxGlobal}
	case CtxSession:
		return []Context{CtxSession, CtxGlobal}
	}
	return []Context{c}
}

// Binding is one action's keys in one context.
type Binding struct {
	Action Action
	key.Binding
	// Short marks the binding for the footer (most useful first, in order).
	Short bool
	// desc overrides the action's Desc in this context ("" = Desc).
	desc string
}

// Desc is the binding's help text.
func (b Binding) Desc() string { return b.Help().Desc }

// DefaultDetach is the default detach key: Ctrl-\ (0x1c), as in dtach and
// `heimdall-tui attach`.
const DefaultDetach byte = 0x1c

// KeyMap holds the bindings of every context, in display order, and the
// detach key used while attached. The zero value has no bindings: start
// from Default. A KeyMap is a value; Override never changes slices that
// copies of it share.
type KeyMap struct {
	ctx [numContexts][]Binding
	// Detach returns from an attached session to the dashboard.
	Detach byte
}

func bind(a Action, short bool, keys ...string) Binding {
	b := Binding{Action: a, Short: short}
	b.setKeys(keys)
	return b
}

// in gives the binding a context-specific description.
func (b Binding) in(desc string) Binding {
	b.desc = desc
	b.setKeys(b.Keys())
	return b
}

func (b *Binding) setKeys(keys []string) {
	d := b.desc
	if d == "" {
		d = b.Action.Desc()
	}
	b.Binding = key.NewBinding(key.WithKeys(keys...), key.WithHelp(KeyHelp(keys), d))
}

// Default is the built-in key map.
func Default() KeyMap {
	var km KeyMap
	km.Detach = DefaultDetach
	km.ctx[CtxGlobal] = []Binding{
		bind(Spawn, true, "n"),
		bind(NextAttention, true, "tab"),
		bind(Inbox, true, "!"),
		bind(Filter, true, "/"),
		bind(Grid, true, "g"),
		bind(Zoom, true, "z"),
		bind(Command, true, ":"),
		bind(Ledger, false, "L"),
		bind(Blackboard, false, "B"),
		bind(Capsules, false, "C"),
		bind(ResumeAll, false, "A"),
		bind(Back, false, "esc"),
		bind(Quit, true, "q", "ctrl+c"),
		bind(Help, false, "?"),
	}
	km.ctx[CtxSession] = []Binding{
		bind(Attach, true, "enter"),
		bind(Send, true, "i"),
		bind(Kill, true, "x"),
		bind(KillNow, false, "X"),
		bind(Remove, false, "d"),
		bind(Restart, false, "R"),
		bind(Resize, false, "r"),
		bind(Interrupt, false, "I"),
		bind(Diff, false, "D"),
		bind(Park, false, "P"),
		bind(Continue, false, "W"),
		bind(Allow, false, "y"),
		bind(AllowAlways, false, "Y"),
		bind(Deny, false, "N"),
		bind(AnswerOption, false, "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		bind(AnswerText, false, "t"),
	}
	km.ctx[CtxList] = []Binding{
		bind(Up, false, "up", "k"),
		bind(Down, false, "down", "j"),
		bind(PageUp, false, "pgup", "ctrl+u"),
		bind(PageDown, false, "pgdown", "ctrl+d"),
		bind(Top, false, "home"),
		bind(Bottom, false, "end", "G"),
		bind(Sort, false, "s"),
	}
	km.ctx[CtxGrid] = []Binding{
		bind(Up, false, "up", "k", "left", "h").in("previous pane"),
		bind(Down, false, "down", "j", "right", "l").in("next pane"),
		bind(PageUp, false, "pgup", "ctrl+u").in("previous page"),
		bind(PageDown, false, "pgdown", "ctrl+d").in("next page"),
		bind(Top, false, "home"),
		bind(Bottom, false, "end", "G"),
		bind(Sort, false, "s"),
	}
	km.ctx[CtxFilter] = []Binding{
		bind(Accept, true, "enter").in("keep filter"),
		bind(Back, true, "esc").in("clear filter"),
	}
	km.ctx[CtxHelp] = []Binding{
		bind(Back, true, "esc", "q").in("close help"),
		bind(Down, true, "down", "j").in("scroll"),
		bind(Up, false, "up", "k").in("scroll back"),
		bind(PageDown, false, "pgdown", "space").in("next page"),
		bind(PageUp, false, "pgup").in("previous page"),
		bind(Help, false, "?").in("close help"),
		bind(Quit, false, "ctrl+c"),
	}
	km.ctx[CtxLedger] = []Binding{
		bind(Back, true, "esc", "q", "L").in("close ledger"),
	}
	km.ctx[CtxBlackboard] = []Binding{
		bind(Add, true, "a"),
		bind(Edit, true, "e", "enter"),
		bind(Delete, true, "d"),
		bind(Up, false, "up", "k"),
		bind(Down, false, "down", "j"),
		bind(Top, false, "home"),
		bind(Bottom, false, "end", "G"),
		bind(Back, true, "esc", "q", "B").in("close blackboard"),
	}
	km.ctx[CtxCapsules] = []Binding{
		bind(Up, true, "up", "k").in("previous capsule"),
		bind(Down, true, "down", "j").in("next capsule"),
		bind(Accept, false, "enter").in("show closure"),
		bind(PageUp, false, "pgup").in("scroll up"),
		bind(PageDown, false, "pgdown", "space").in("scroll down"),
		bind(Back, true, "esc", "q", "C").in("close capsules"),
	}
	km.ctx[CtxInbox] = []Binding{
		bind(Up, false, "up", "k").in("previous item"),
		bind(Down, false, "down", "j").in("next item"),
		bind(NextAttention, false, "tab").in("next item"),
		bind(Accept, true, "enter").in("go to its session"),
		bind(Allow, true, "y"),
		bind(AllowAlways, false, "Y"),
		bind(Deny, true, "N"),
		bind(AnswerOption, true, "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		bind(AnswerText, false, "t"),
		bind(Back, true, "esc", "q", "!").in("close inbox"),
	}
	km.ctx[CtxDiff] = []Binding{
		bind(Down, true, "down", "j").in("next line"),
		bind(Up, false, "up", "k").in("previous line"),
		bind(NextHunk, true, "]"),
		bind(PrevHunk, false, "["),
		bind(NextFile, true, "}"),
		bind(PrevFile, false, "{"),
		bind(Add, true, "a").in("note on this line (or the range)"),
		bind(MarkRange, false, "v"),
		bind(Delete, false, "x").in("remove its note"),
		bind(SendNotes, true, "S"),
		bind(DiffBase, false, "b"),
		bind(Ship, false, "c"),
		bind(PageDown, false, "pgdown", "space"),
		bind(PageUp, false, "pgup"),
		bind(Back, true, "esc", "q", "D").in("close diff"),
	}
	km.ctx[CtxDialog] = []Binding{
		bind(DialogOK, true, "enter"),
		bind(DialogCancel, true, "esc"),
		bind(DialogNext, true, "tab"),
		bind(DialogPrev, false, "shift+tab"),
		bind(DialogMove, false, "up", "down", "left", "right"),
		bind(DialogYes, false, "y"),
		bind(DialogNo, false, "n"),
		bind(DialogSubmit, true, "ctrl+s"),
	}
	return km
}

// Bindings returns a copy of ctx's own bindings, in display order.
func (km KeyMap) Bindings(ctx Context) []Binding {
	if ctx >= numContexts {
		return nil
	}
	return slices.Clone(km.ctx[ctx])
}

// Lookup returns the action bound to msg in ctx. ctx's own bindings win,
// then the contexts it falls through to, in Chain order (so a List binding
// shadows a Global one with the same key). Disabled bindings never match.
func (km KeyMap) Lookup(ctx Context, msg tea.KeyPressMsg) (Action, bool) {
	if ctx >= numContexts {
		return "", false
	}
	for _, c := range ctx.Chain() {
		for _, b := range km.ctx[c] {
			if key.Matches(msg, b.Binding) {
				return b.Action, true
			}
		}
	}
	return "", false
}

// KeysOf returns the keys bound to a in ctx's chain (the first context that
// binds it), or nil.
func (km KeyMap) KeysOf(ctx Context, a Action) []string {
	if ctx >= numContexts {
		return nil
	}
	for _, c := range ctx.Chain() {
		for _, b := range km.ctx[c] {
			if b.Action == a && b.Enabled() {
				return b.Keys()
			}
		}
	}
	return nil
}

// ErrUnknownAction is returned (wrapped) by Override for a name that is not
// an action.
var ErrUnknownAction = errors.New("unknown action")

// Override binds action to keys in every context where the action has a
// binding (so "up" changes both the list's and the grid's up). It fails,
// leaving km unchanged, when the action is unknown (the error names the
// valid ones), is a fixed dialog action, keys is empty, a key is empty or
// contains spaces, a key is ctrl+b (the tmux prefix never reaches us
// inside tmux), or a key would then be bound to two actions along one
// lookup chain (e.g. a Session key equal to a Global one).
//
// To change several actions at once (say, swap two keys) use Apply: it
// checks for conflicts only after all changes.
func (km *KeyMap) Override(action string, keys []string) error {
	return km.Apply(map[string][]string{action: keys})
}

// Apply makes every override (action name → keys) as Override does, and
// checks for conflicts once all are made, so overrides may swap keys
// between actions. On any error km is unchanged; errors for several
// actions are joined, in action-name order.
func (km *KeyMap) Apply(overrides map[string][]string) error {
	next := km.clone()
	names := make([]string, 0, len(overrides))
	for a := range overrides {
		names = append(names, a)
	}
	slices.Sort(names)
	var errs []error
	for _, a := range names {
		if err := next.set(a, overrides[a]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := next.Validate(); err != nil {
		return fmt.Errorf("keys: rebinding %s: %w", strings.Join(names, ", "), err)
	}
	*km = next
	return nil
}

// set rebinds one action without checking for conflicts. km must not share
// its slices with other KeyMaps (see clone).
func (km *KeyMap) set(action string, keys []string) error {
	a := Action(action)
	if _, ok := descs[a]; !ok {
		var valid []string
		for _, v := range Actions() {
			if !v.Fixed() {
				valid = append(valid, string(v))
			}
		}
		return fmt.Errorf("keys: %w %q (valid: %s)", ErrUnknownAction, action, strings.Join(valid, ", "))
	}
	if a.Fixed() {
		return fmt.Errorf("keys: %q is a dialog key and cannot be rebound", action)
	}
	if len(keys) == 0 {
		return fmt.Errorf("keys: %s: no keys given", action)
	}
	norm := make([]string, 0, len(keys))
	for _, k := range keys {
		n := strings.ToLower(k)
		if len([]rune(k)) == 1 {
			n = k // single characters are case-sensitive: "x" ≠ "X"
		}
		switch {
		case k == "" || strings.ContainsAny(k, " \t\r\n"):
			return fmt.Errorf("keys: %s: bad key %q (use names like \"x\", \"ctrl+x\", \"enter\", \"space\")", action, k)
		case n == "ctrl+b":
			return fmt.Errorf("keys: %s: ctrl+b is the tmux prefix; the dashboard never uses it", action)
		}
		if slices.Contains(norm, n) {
			return fmt.Errorf("keys: %s: key %q given twice", action, k)
		}
		norm = append(norm, n)
	}
	found := false
	for c := range km.ctx {
		for i := range km.ctx[c] {
			if km.ctx[c][i].Action == a {
				km.ctx[c][i].setKeys(norm)
				found = true
			}
		}
	}
	if !found {
		return fmt.Errorf("keys: %s is not bound in this key map", action)
	}
	return nil
}

func (km KeyMap) clone() KeyMap {
	out := km
	for c := range out.ctx {
		out.ctx[c] = slices.Clone(km.ctx[c])
	}
	return out
}

// Validate reports a key bound to two actions along one lookup chain, an
// action without help text and any binding of ctrl+b.
func (km KeyMap) Validate() error {
	for _, ctx := range Contexts() {
		seen := map[string]string{} // key → "action (context)"
		for _, c := range ctx.Chain() {
			for _, b := range km.ctx[c] {
				if b.Action.Desc() == "" {
					return fmt.Errorf("action %q has no help text", b.Action)
				}
				for _, k := range b.Keys() {
					if k == "ctrl+b" {
						return fmt.Errorf("%s binds ctrl+b (the tmux prefix)", b.Action)
					}
					here := fmt.Sprintf("%s (%s)", b.Action, c)
					if prev, ok := seen[k]; ok && prev != here {
						return fmt.Errorf("key %q is bound to both %s and %s", k, prev, here)
					}
					seen[k] = here
				}
			}
		}
	}
	return nil
}

// keySymbols are the display forms of named keys.
var keySymbols = map[string]string{
	"up": "↑", "down": "↓", "left": "←", "right": "→",
	"pgup": "pgup", "pgdown": "pgdn",
}

// KeyHelp is the display form of a binding's keys: "↑/k", "q/ctrl+c".
func KeyHelp(keys []string) string {
	if DigitRun(keys) {
		return keys[0] + "-" + keys[len(keys)-1] // 1-9, not 1/2/…/9
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		if s, ok := keySymbols[k]; ok {
			k = s
		}
		out[i] = k
	}
	return strings.Join(out, "/")
}

// DigitRun reports whether keys are three or more consecutive digits.
func DigitRun(keys []string) bool {
	if len(keys) < 3 {
		return false
	}
	for i, k := range keys {
		if len(k) != 1 || k[0] < '0' || k[0] > '9' || (i > 0 && k[0] != keys[i-1][0]+1) {
			return false
		}
	}
	return true
}
