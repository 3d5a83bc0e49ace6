package dialog

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
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

// command is one ':' command: its name, usage and help (shown by the
// command line as it is typed, and by Commands), what each argument
// completes to, how many arguments it takes, and parse, which turns the
// arguments into the action. The table below is the whole of the command
// language: there is no switch to keep in step with it.
type command struct {
	name  string
	usage string
	about string
	args  []argKind // what each positional argument completes to
	// min and max bound the number of arguments; max < 0: no bound.
	min, max int
	parse    func(c *cmdline) (Action, error)
}

// commands are the ':' commands, in the order completion offers them.
var commands = []command{
	{"spawn", "spawn PRESET|claude-headless|heddle [NAME]", "start a session from a preset, a headless Claude session or a heddle worker", []argKind{argPreset, argNone}, 1, 2, parseSpawn},
	{"kill", "kill NAME", "SIGTERM to its process group, SIGKILL after the grace", []argKind{argSession}, 1, 1,
		onSession(func(id string) Action { return Kill{ID: id} })},
	{"kill!", "kill! NAME", "SIGKILL to its process group now", []argKind{argSession}, 1, 1,
		onSession(func(id string) Action { return Kill{ID: id, Force: true} })},
	{"remove", "remove NAME", "forget a dead session", []argKind{argSession}, 1, 1,
		onSession(func(id string) Action { return Remove{ID: id} })},
	{"restart", "restart NAME", "start a session again", []argKind{argSession}, 1, 1,
		onSession(func(id string) Action { return Restart{ID: id} })},
	{"interrupt", "interrupt NAME", "interrupt its current turn (the agent's interrupt key)", []argKind{argSession}, 1, 1,
		onSession(func(id string) Action { return Interrupt{ID: id} })},
	{"attach", "attach NAME", "attach to a session", []argKind{argSession}, 1, 1,
		onSession(func(id string) Action { return Attach{ID: id} })},
	{"send", "send NAME TEXT…", "type TEXT and Enter into a session", []argKind{argSession, argText}, 1, -1, parseSend},
	{"resize", "resize NAME COLSxROWS|pane|terminal", "resize a session's pty", []argKind{argSession, argSize}, 2, 3, parseResize},
	{"theme", "theme NAME", "switch theme", []argKind{argTheme}, 1, 1, parseTheme},
	{"grid", "grid", "pane grid", nil, 0, 0, constant(Mode{Name: "grid"})},
	{"zoom", "zoom", "zoom the selected pane", nil, 0, 0, constant(Mode{Name: "zoom"})},
	{"split", "split", "list and preview", nil, 0, 0, constant(Mode{Name: "split"})},
	{"help", "help", "full key help", nil, 0, 0, constant(Mode{Name: "help"})},
	{"quit", "quit", "quit (asks first when sessions are running)", nil, 0, 0, constant(Quit{})},
	{"q", "q", "quit", nil, 0, 0, constant(Quit{})},
}

// CommandHelp is one ':' command's usage and what it does.
type CommandHelp struct{ Name, Usage, About string }

// Commands lists the ':' commands, generated from the table ParseCommand
// runs, in completion order.
func Commands() []CommandHelp {
	out := make([]CommandHelp, len(commands))
	for i, c := range commands {
		out[i] = CommandHelp{c.name, c.usage, c.about}
	}
	return out
}

// cmdline is a command line being parsed: the command's arguments and
// what they may name.
type cmdline struct {
	cmd     command
	line    string // the line after ':' (for text arguments, spacing kept)
	args    []string
	ids     []string
	presets []fleet.Preset
}

// errorf is an error that names the command.
func (c *cmdline) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", c.cmd.name, fmt.Errorf(format, args...))
}

// count checks the number of arguments against min and max.
func (c *cmdline) count(min, max int) error {
	switch {
	case len(c.args) < min:
		return fmt.Errorf("%s: missing argument (usage: %s)", c.cmd.name, c.cmd.usage)
	case max >= 0 && len(c.args) > max:
		return fmt.Errorf("%s: too many arguments (usage: %s)", c.cmd.name, c.cmd.usage)
	}
	return nil
}

// session is argument i, which must name a session.
func (c *cmdline) session(i int) (string, error) {
	if err := checkSession(c.args[i], c.ids); err != nil {
		return "", c.errorf("%w", err)
	}
	return c.args[i], nil
}

// constant parses a command without arguments into a.
func constant(a Action) func(*cmdline) (Action, error) {
	return func(*cmdline) (Action, error) { return a, nil }
}

// onSession parses a command whose one argument names a session.
func onSession(mk func(id string) Action) func(*cmdline) (Action, error) {
	return func(c *cmdline) (Action, error) {
		id, err := c.session(0)
		if err != nil {
			return nil, err
		}
		return mk(id), nil
	}
}

// HeadlessPreset and HeddlePreset are what ":spawn" takes for a headless
// Claude session and a heddle worker (their defaults, the dashboard's
// directory; the spawn form sets the rest).
const (
	HeadlessPreset = "claude-headless"
	HeddlePreset   = "heddle"
)

// spawnKind is the event-driven kind ":spawn NAME" names ("": none).
func spawnKind(name string) session.Kind {
	for k, ek := range eventKinds {
		if ek.spawnName == name {
			return k
		}
	}
	return ""
}

func parseSpawn(c *cmdline) (Action, error) {
	if kind := spawnKind(c.args[0]); kind != "" {
		spec := fleet.HeadlessSpec{Kind: kind}
		if len(c.args) == 2 {
			if err := c.newName(c.args[1]); err != nil {
				return nil, err
			}
			spec.ID = c.args[1]
		}
		return SpawnHeadless{Spec: spec}, nil
	}
	p, err := findPreset(c.args[0], c.presets)
	if err != nil {
		return nil, c.errorf("%w", err)
	}
	spec := fleet.Spec{Agent: p.Name, Argv: slices.Clone(p.Argv), Classifier: p.Classifier, Env: slices.Clone(p.Env)}
	if len(c.args) == 2 {
		if err := c.newName(c.args[1]); err != nil {
			return nil, err
		}
		spec.ID = c.args[1]
	}
	return Spawn{Spec: spec}, nil
}

// newName checks name for a new session: usable, and not taken.
func (c *cmdline) newName(name string) error {
	if err := checkName(name); err != nil {
		return c.errorf("%w", err)
	}
	if slices.Contains(c.ids, name) {
		return c.errorf("a session named %q exists", name)
	}
	return nil
}

func parseSend(c *cmdline) (Action, error) {
	id, err := c.session(0)
	if err != nil {
		return nil, err
	}
	return Send{ID: id, Text: restAfter(c.line, 2)}, nil
}

func parseResize(c *cmdline) (Action, error) {
	id, err := c.session(0)
	if err != nil {
		return nil, err
	}
	fit := map[string]Fit{"pane": FitPane, "fit": FitPane, "terminal": FitTerminal, "full": FitTerminal}
	if f, ok := fit[strings.ToLower(c.args[1])]; ok {
		if err := c.count(2, 2); err != nil {
			return nil, err
		}
		return Resize{ID: id, Fit: f}, nil
	}
	cols, rows, err := ParseSize(strings.Join(c.args[1:], " "))
	if err != nil {
		return nil, c.errorf("%w", err)
	}
	return Resize{ID: id, Fit: FitExplicit, Cols: cols, Rows: rows}, nil
}

func parseTheme(c *cmdline) (Action, error) {
	if _, err := themes.ByName(c.args[0]); err != nil {
		return nil, c.errorf("%w", err)
	}
	return Theme{Name: strings.ToLower(c.args[0])}, nil
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
// the action it asks for, by the command table (Commands lists it with
// each command's usage). NAME arguments must be one of ids exactly;
// "spawn PRESET" needs PRESET among presets and found on PATH; "send"
// takes the rest of the line as its text, spacing kept. An empty line is
// Close{}. Errors name the command and say what was expected.
func ParseCommand(line string, ids []string, presets ...fleet.Preset) (Action, error) {
	line = strings.TrimLeft(line, " \t")
	line = strings.TrimPrefix(line, ":")
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return Close{}, nil
	}
	cmd, ok := lookupCommand(strings.ToLower(fields[0]))
	if !ok {
		return nil, fmt.Errorf("unknown command %q (commands: %s)", fields[0], strings.Join(commandNames(), ", "))
	}
	c := &cmdline{cmd: cmd, line: line, args: fields[1:], ids: ids, presets: presets}
	if err := c.count(cmd.min, cmd.max); err != nil {
		return nil, err
	}
	return cmd.parse(c)
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
	kinds           []session.Kind // tab offers their names after ":spawn" (OfferHeadless)
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

// OfferHeadless makes tab offer the ":spawn" names of kinds (none given:
// session.KindHeadless, HeadlessPreset) after ":spawn" (the app does for
// the kinds it can open); it returns d. The line parses either way: the
// app refuses a SpawnHeadless it cannot carry out.
func (d *CommandDialog) OfferHeadless(kinds ...session.Kind) *CommandDialog {
	if len(kinds) == 0 {
		kinds = []session.Kind{session.KindHeadless}
	}
	d.kinds = append(d.kinds, kinds...)
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
			for _, k := range d.kinds {
				if ek, ok := eventKinds[k]; ok {
					pool = append(pool, ek.spawnName)
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
