package dialog

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// argKind is what a command's argument completes to.
type argKind uint8

const (
	argNone argKind = iota
	argSession
	argPreset
	argTheme
	argSize
	argText
)

// command is one ':' command.
type command struct {
	name  string
	usage string
	about string
	args  []argKind // what each positional argument completes to
}

// commands are the ':' commands, in the order completion offers them.
var commands = []command{
	{"spawn", "spawn PRESET [NAME]", "start a session from a preset", []argKind{argPreset, argNone}},
	{"kill", "kill NAME", "SIGTERM to its process group, SIGKILL after the grace", []argKind{argSession}},
	{"kill!", "kill! NAME", "SIGKILL to its process group now", []argKind{argSession}},
	{"remove", "remove NAME", "forget a dead session", []argKind{argSession}},
	{"restart", "restart NAME", "start a session again", []argKind{argSession}},
	{"attach", "attach NAME", "attach to a session", []argKind{argSession}},
	{"send", "send NAME TEXT…", "type TEXT and Enter into a session", []argKind{argSession, argText}},
	{"resize", "resize NAME COLSxROWS|pane|terminal", "resize a session's pty", []argKind{argSession, argSize}},
	{"theme", "theme NAME", "switch theme", []argKind{argTheme}},
	{"grid", "grid", "pane grid", nil},
	{"zoom", "zoom", "zoom the selected pane", nil},
	{"split", "split", "list and preview", nil},
	{"help", "help", "full key help", nil},
	{"quit", "quit", "quit (asks first when sessions are running)", nil},
	{"q", "q", "quit", nil},
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() []string {
	ns := make([]string, len(commands))
	for i, c := range commands {
		ns[i] = c.name
	}
	return ns
}

// ParseCommand parses a ':' command line (a leading ':' is allowed) into
// the action it asks for:
//
//	spawn PRESET [NAME]   Spawn (PRESET must be one of presets and found on PATH)
//	kill NAME             Kill
//	kill! NAME            Kill{Force: true}
//	remove NAME           Remove
//	restart NAME          Restart
//	attach NAME           Attach
//	send NAME [TEXT…]     Send (TEXT is the rest of the line, spacing kept)
//	resize NAME SIZE      Resize: SIZE is COLSxROWS (see ParseSize), "pane" or "terminal"
//	theme NAME            Theme (a built-in theme)
//	grid | zoom | split   Mode
//	help                  Mode{"help"}
//	quit | q              Quit
//
// NAME must be one of ids exactly. An empty line is Close{}. Errors name
// the command and say what was expected.
func ParseCommand(line string, ids []string, presets ...fleet.Preset) (Action, error) {
	line = strings.TrimLeft(line, " \t")
	line = strings.TrimPrefix(line, ":")
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return Close{}, nil
	}
	name := strings.ToLower(fields[0])
	cmd, ok := lookupCommand(name)
	if !ok {
		return nil, fmt.Errorf("unknown command %q (commands: %s)", fields[0], strings.Join(commandNames(), ", "))
	}
	args := fields[1:]
	want := func(min, max int) error {
		switch {
		case len(args) < min:
			return fmt.Errorf("%s: missing argument (usage: %s)", name, cmd.usage)
		case max >= 0 && len(args) > max:
			return fmt.Errorf("%s: too many arguments (usage: %s)", name, cmd.usage)
		}
		return nil
	}
	session := func() (string, error) {
		if err := checkSession(args[0], ids); err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		return args[0], nil
	}
	switch name {
	case "grid", "zoom", "split", "help", "quit", "q":
		if err := want(0, 0); err != nil {
			return nil, err
		}
		if name == "quit" || name == "q" {
			return Quit{}, nil
		}
		return Mode{Name: name}, nil
	case "theme":
		if err := want(1, 1); err != nil {
			return nil, err
		}
		if _, err := themes.ByName(args[0]); err != nil {
			return nil, fmt.Errorf("theme: %w", err)
		}
		return Theme{Name: strings.ToLower(args[0])}, nil
	case "spawn":
		if err := want(1, 2); err != nil {
			return nil, err
		}
		p, err := findPreset(args[0], presets)
		if err != nil {
			return nil, fmt.Errorf("spawn: %w", err)
		}
		spec := fleet.Spec{Agent: p.Name, Argv: slices.Clone(p.Argv), Classifier: p.Classifier, Env: slices.Clone(p.Env)}
		if len(args) == 2 {
			if err := checkName(args[1]); err != nil {
				return nil, fmt.Errorf("spawn: %w", err)
			}
			if slices.Contains(ids, args[1]) {
				return nil, fmt.Errorf("spawn: a session named %q exists", args[1])
			}
			spec.ID = args[1]
		}
		return Spawn{Spec: spec}, nil
	case "send":
		if err := want(1, -1); err != nil {
			return nil, err
		}
		id, err := session()
		if err != nil {
			return nil, err
		}
		return Send{ID: id, Text: restAfter(line, 2)}, nil
	case "resize":
		if err := want(2, 3); err != nil {
			return nil, err
		}
		id, err := session()
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(args[1]) {
		case "pane", "fit":
			if err := want(2, 2); err != nil {
				return nil, err
			}
			return Resize{ID: id, Fit: FitPane}, nil
		case "terminal", "full":
			if err := want(2, 2); err != nil {
				return nil, err
			}
			return Resize{ID: id, Fit: FitTerminal}, nil
		}
		c, r, err := ParseSize(strings.Join(args[1:], " "))
		if err != nil {
			return nil, fmt.Errorf("resize: %w", err)
		}
		return Resize{ID: id, Fit: FitExplicit, Cols: c, Rows: r}, nil
	}
	// kill, kill!, remove, restart, attach: one session.
	if err := want(1, 1); err != nil {
		return nil, err
	}
	id, err := session()
	if err != nil {
		return nil, err
	}
	switch name {
	case "kill":
		return Kill{ID: id}, nil
	case "kill!":
		return Kill{ID: id, Force: true}, nil
	case "remove":
		return Remove{ID: id}, nil
	case "restart":
		return Restart{ID: id}, nil
	}
	return Attach{ID: id}, nil
}

// restAfter returns line after its first n blank-separated words and the
// blanks after them, keeping the rest verbatim.
func restAfter(line string, n int) string {
	s := strings.TrimLeft(line, " \t")
	for range n {
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return ""
		}
		s = s[i:]
		s = s[len(s)-len(strings.TrimLeft(s, " \t")):]
	}
	return s
}

// checkSession reports an id that is not one of ids, suggesting close ones.
func checkSession(id string, ids []string) error {
	if slices.Contains(ids, id) {
		return nil
	}
	if len(ids) == 0 {
		return fmt.Errorf("no session %q (there are no sessions)", id)
	}
	var near []string
	for _, x := range ids {
		if strings.HasPrefix(x, id) || strings.Contains(strings.ToLower(x), strings.ToLower(id)) {
			near = append(near, x)
		}
	}
	if len(near) > 0 {
		return fmt.Errorf("no session %q (did you mean %s?)", id, listSome(near, 5, " or "))
	}
	return fmt.Errorf("no session %q (sessions: %s)", id, listSome(ids, 8, ", "))
}

func listSome(xs []string, n int, sep string) string {
	if len(xs) > n {
		return strings.Join(xs[:n], sep) + sep + "…"
	}
	return strings.Join(xs, sep)
}

// findPreset finds a spawnable preset by name.
func findPreset(name string, presets []fleet.Preset) (fleet.Preset, error) {
	var have []string
	for _, p := range presets {
		if p.Found {
			have = append(have, p.Name)
		}
	}
	for _, p := range presets {
		if p.Name == name {
			if !p.Found {
				return fleet.Preset{}, fmt.Errorf("%s is not on PATH (%s)", name, strings.Join(p.Argv[:min(1, len(p.Argv))], ""))
			}
			return p, nil
		}
	}
	if len(have) == 0 {
		return fleet.Preset{}, fmt.Errorf("unknown preset %q (no preset is on PATH; use n for a custom command)", name)
	}
	return fleet.Preset{}, fmt.Errorf("unknown preset %q (have: %s)", name, strings.Join(have, ", "))
}

// CommandDialog is the ':' command line.
type CommandDialog struct {
	ids     []string
	presets []fleet.Preset
	line    textfield.Field
	err     string
	cands   []string // completions shown after an ambiguous tab
	// pending is true from NewCommandPending until SetPresets; queued is
	// true when enter ran a line that needs the presets meanwhile.
	pending, queued bool
}

// NewCommand returns the command line for the given session IDs; presets
// (optional) make ":spawn PRESET" possible and complete. enter runs the
// line (ParseCommand); an error keeps the dialog open, showing it, with the
// line intact. tab completes command names, session IDs, presets, themes
// and sizes; esc closes.
func NewCommand(sessionIDs []string, presets ...fleet.Preset) *CommandDialog {
	d := &CommandDialog{ids: slices.Clone(sessionIDs), presets: presets, line: textfield.New("command (tab completes, e.g. kill NAME)", "")}
	d.line.Focused = true
	return d
}

// NewCommandPending is NewCommand before the presets are known (looking
// them up on PATH is I/O, done off the event loop); SetPresets fills them
// in. Until then every command works but those naming a preset: enter on
// such a line waits for the presets (SetPresets then runs it), and tab
// offers no preset names.
func NewCommandPending(sessionIDs []string) *CommandDialog {
	d := NewCommand(sessionIDs)
	d.pending = true
	return d
}

// Pending reports whether the command line still waits for SetPresets.
func (d *CommandDialog) Pending() bool { return d.pending }

// SetPresets fills in the presets of a command line from
// NewCommandPending. If enter was pressed on a line that needed them
// while they were looked up, the line runs now: its Action is returned
// (or nil, with its error shown, as enter would).
func (d *CommandDialog) SetPresets(presets []fleet.Preset) Action {
	d.presets, d.pending = presets, false
	if !d.queued {
		return nil
	}
	d.queued = false
	return d.run()
}

// needsPresets reports whether line is a command with a preset argument.
func needsPresets(line string) bool {
	f := strings.Fields(line)
	if len(f) == 0 {
		return false
	}
	c, ok := lookupCommand(strings.ToLower(f[0]))
	return ok && slices.Contains(c.args, argPreset)
}

// run parses the line: its Action, or nil with the error shown.
func (d *CommandDialog) run() Action {
	act, err := ParseCommand(d.line.Value(), d.ids, d.presets...)
	if err != nil {
		d.err, d.cands = err.Error(), nil
		return nil
	}
	return act
}

// Title implements Dialog.
func (d *CommandDialog) Title() string { return "Command" }

// Value is the text typed so far.
func (d *CommandDialog) Value() string { return d.line.Value() }

// Update implements Dialog.
func (d *CommandDialog) Update(msg tea.Msg) (Action, tea.Cmd) {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch dkey(km) {
		case keys.DialogCancel:
			return Close{}, nil
		case keys.DialogOK:
			if d.pending && needsPresets(d.line.Value()) {
				d.queued = true
				d.err, d.cands = "", nil
				return nil, nil
			}
			return d.run(), nil
		case keys.DialogNext:
			d.complete()
			return nil, nil
		}
	}
	if d.line.Update(msg) {
		d.err, d.cands, d.queued = "", nil, false
	}
	return nil, nil
}

// complete completes the word before the cursor-at-end: to the single
// candidate plus a space, or to the candidates' longest common prefix,
// listing them.
func (d *CommandDialog) complete() {
	line := d.line.Value()
	words := strings.Fields(line)
	if len(words) == 0 || strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
		words = append(words, "")
	}
	idx := len(words) - 1
	word := words[idx]
	var pool []string
	if idx == 0 {
		pool = commandNames()
	} else if cmd, ok := lookupCommand(strings.ToLower(words[0])); ok && idx-1 < len(cmd.args) {
		switch cmd.args[idx-1] {
		case argSession:
			pool = d.ids
		case argPreset:
			if d.pending {
				d.err, d.cands = "still looking up presets on PATH", nil
				return
			}
			for _, p := range d.presets {
				if p.Found {
					pool = append(pool, p.Name)
				}
			}
		case argTheme:
			pool = themes.Names()
		case argSize:
			pool = []string{"pane", "terminal"}
		}
	}
	var cands []string
	for _, c := range pool {
		if strings.HasPrefix(c, word) {
			cands = append(cands, c)
		}
	}
	d.err, d.cands = "", nil
	base := line[:len(line)-len(word)]
	switch len(cands) {
	case 0:
		d.err = "no completions"
		if len(pool) == 0 {
			d.err = "nothing to complete here"
		}
	case 1:
		d.line.SetValue(base + cands[0] + " ")
	default:
		d.line.SetValue(base + commonPrefix(cands))
		d.cands = cands
	}
}

func commonPrefix(xs []string) string {
	p := xs[0]
	for _, x := range xs[1:] {
		for !strings.HasPrefix(x, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// View implements Dialog.
func (d *CommandDialog) View(st *themes.Styles, w, h int) string {
	const pref = 72
	iw := min(w, pref) - 4
	body := []string{st.Key.Render(":") + d.line.View(st, max(1, iw-1))}
	var foot []string
	switch {
	case d.err != "":
		foot = append(foot, wrap(st.Error.Render, d.err, iw)...)
	case d.queued:
		foot = append(foot, wrap(st.Muted.Render, "looking up presets on PATH…", iw)...)
	case len(d.cands) > 0:
		foot = append(foot, wrap(st.Muted.Render, strings.Join(d.cands, "  "), iw)...)
	default:
		if f := strings.Fields(d.line.Value()); len(f) > 0 {
			if c, ok := lookupCommand(strings.ToLower(f[0])); ok {
				foot = append(foot, st.Base.Render(c.usage)+st.Muted.Render(" — "+c.about))
			}
		}
	}
	foot = append(foot, hint(st, "enter", "run", "tab", "complete", "esc", "cancel"))
	return layoutBox(st, w, h, pref, d.Title(), body, foot)
}
