package dialog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// The spawn form's fields, in tab order. fCommand is skipped unless the
// "custom command" entry is selected.
const (
	fPreset = iota
	fCommand
	fName
	fDir
	fClassifier
	numFields
)

// customLabel is the last entry of the preset list.
const customLabel = "custom command"

// errPending is the form's error when it is submitted with nothing to
// start while the presets are looked up; SetPresets clears it.
var errPending = errors.New("still looking up presets on PATH: wait a moment, or enter a custom command")

// SpawnDialog is the "new session" form.
type SpawnDialog struct {
	presets     []fleet.Preset // found ones only
	sel         int            // preset index; len(presets) = custom command
	classifiers []string       // choices; [0] is "" (the config's default)
	cls         int
	defaultDir  string
	cmd         textfield.Field
	name        textfield.Field
	dir         textfield.Field
	focus       int
	err         string
	// pending is true from NewSpawnPending until SetPresets: the presets
	// are being looked up, and only "custom command" can be chosen.
	pending bool
}

// NewSpawn returns the spawn form. It offers the presets that were found
// on PATH, in the given order, then "custom command". The classifier cycles
// through "default" (Spec.Classifier "", the config's) and classifiers, and
// follows the selected preset (claude → claude; choosing a preset resets it);
// the working directory starts as defaultDir.
//
// Keys: tab/shift+tab (and up/down in text fields) move between fields;
// up/down choose the preset; left/right/space cycle the classifier; enter
// moves on, and on the last field (or ctrl+s anywhere) submits; esc closes.
// Submitting validates (custom command present and well quoted, name
// usable as a file name, directory exists); an error is shown in the form,
// which keeps everything typed, and focuses the field at fault.
func NewSpawn(presets []fleet.Preset, defaultDir string, classifiers []string) *SpawnDialog {
	d := &SpawnDialog{defaultDir: defaultDir}
	d.presets = found(presets)
	d.classifiers = append([]string{""}, classifiers...)
	d.cmd = textfield.New("program and arguments, e.g. make -j8 test", "")
	d.name = textfield.New("auto", "")
	d.dir = textfield.New("the dashboard's directory", defaultDir)
	d.selectPreset(0)
	d.setFocus(fPreset)
	return d
}

// NewSpawnPending is NewSpawn before the presets are known (looking them
// up on PATH is I/O, done off the event loop): the form opens at once and
// says it is looking them up; SetPresets fills them in. Meanwhile every
// field works, with "custom command" the only choice of the list.
func NewSpawnPending(defaultDir string, classifiers []string) *SpawnDialog {
	d := NewSpawn(nil, defaultDir, classifiers)
	d.pending = true
	return d
}

// Pending reports whether the form still waits for SetPresets.
func (d *SpawnDialog) Pending() bool { return d.pending }

// SetPresets fills in the presets of a form from NewSpawnPending (a form
// with presets gets them replaced). The first preset is selected, with its
// classifier, unless the user is already writing a custom command (the
// command field is focused or not empty), which then stays selected; a
// classifier the user chose meanwhile is kept.
func (d *SpawnDialog) SetPresets(presets []fleet.Preset) {
	d.pending = false
	d.presets = found(presets)
	if d.err == errPending.Error() {
		d.err = ""
	}
	if d.focus == fCommand || d.cmd.Value() != "" {
		d.sel = len(d.presets) // custom command
		return
	}
	cls := d.cls
	d.selectPreset(0)
	if cls != 0 {
		d.cls = cls
	}
}

// found returns the presets found on PATH, in order.
func found(presets []fleet.Preset) []fleet.Preset {
	var out []fleet.Preset
	for _, p := range presets {
		if p.Found {
			out = append(out, p)
		}
	}
	return out
}

// Title implements Dialog.
func (d *SpawnDialog) Title() string { return "New session" }

func (d *SpawnDialog) custom() bool { return d.sel == len(d.presets) }

// selectPreset selects preset i and sets the classifier to its default.
func (d *SpawnDialog) selectPreset(i int) {
	d.sel = max(0, min(i, len(d.presets)))
	d.cls = 0
	if !d.custom() {
		if j := slices.Index(d.classifiers, d.presets[d.sel].Classifier); j >= 0 {
			d.cls = j
		}
	}
}

func (d *SpawnDialog) setFocus(f int) {
	d.focus = f
	d.cmd.Focused = f == fCommand
	d.name.Focused = f == fName
	d.dir.Focused = f == fDir
}

// move focuses the next (+1) or previous (-1) field, wrapping, skipping
// the command unless custom is selected.
func (d *SpawnDialog) move(delta int) {
	f := d.focus
	for {
		f = (f + delta + numFields) % numFields
		if f != fCommand || d.custom() {
			break
		}
	}
	d.setFocus(f)
}

func (d *SpawnDialog) textField() *textfield.Field {
	switch d.focus {
	case fCommand:
		return &d.cmd
	case fName:
		return &d.name
	case fDir:
		return &d.dir
	}
	return nil
}

// Update implements Dialog.
func (d *SpawnDialog) Update(msg tea.Msg) (Action, tea.Cmd) {
	km, isKey := msg.(tea.KeyPressMsg)
	if !isKey {
		if f := d.textField(); f != nil {
			f.Update(msg) // paste
		}
		return nil, nil
	}
	switch dkey(km) {
	case keys.DialogCancel:
		return Close{}, nil
	case keys.DialogSubmit:
		return d.submit(), nil
	case keys.DialogNext:
		d.move(1)
		return nil, nil
	case keys.DialogPrev:
		d.move(-1)
		return nil, nil
	case keys.DialogOK:
		if d.focus == fClassifier {
			return d.submit(), nil
		}
		d.move(1)
		return nil, nil
	}
	s := km.String()
	switch d.focus {
	case fPreset:
		switch s {
		case "up", "k":
			d.selectPreset((d.sel + len(d.presets)) % (len(d.presets) + 1))
		case "down", "j":
			d.selectPreset((d.sel + 1) % (len(d.presets) + 1))
		}
	case fClassifier:
		n := len(d.classifiers)
		switch s {
		case "left", "up", "h", "k", "shift+space":
			d.cls = (d.cls + n - 1) % n
		case "right", "down", "l", "j", "space":
			d.cls = (d.cls + 1) % n
		}
	default:
		switch s {
		case "up":
			d.move(-1)
		case "down":
			d.move(1)
		default:
			d.textField().Update(km)
		}
	}
	return nil, nil
}

// submit validates the form and returns Spawn, or sets the error and
// returns nil.
func (d *SpawnDialog) submit() Action {
	d.err = ""
	fail := func(f int, err error) Action {
		d.err = err.Error()
		d.setFocus(f)
		return nil
	}
	spec := fleet.Spec{Classifier: d.classifiers[d.cls]}
	if d.pending && d.custom() && strings.TrimSpace(d.cmd.Value()) == "" {
		return fail(fPreset, errPending)
	}
	if d.custom() {
		argv, err := SplitCommand(d.cmd.Value())
		if err != nil {
			return fail(fCommand, fmt.Errorf("command: %w", err))
		}
		if len(argv) == 0 {
			return fail(fCommand, errors.New("command: required for a custom command"))
		}
		spec.Argv = argv
	} else {
		p := d.presets[d.sel]
		spec.Agent = p.Name
		spec.Argv = slices.Clone(p.Argv)
		spec.Env = slices.Clone(p.Env)
	}
	name := strings.TrimSpace(d.name.Value())
	if err := checkName(name); err != nil {
		return fail(fName, err)
	}
	spec.ID = name
	dir, err := d.resolveDir(strings.TrimSpace(d.dir.Value()))
	if err != nil {
		return fail(fDir, err)
	}
	spec.Dir = dir
	return Spawn{Spec: spec}
}

// checkName refuses names that cannot name the session's socket file.
// "" is fine: the fleet picks one.
func checkName(name string) error {
	switch {
	case name == "":
		return nil
	case strings.HasPrefix(name, "."):
		return fmt.Errorf("name %q: must not start with '.'", name)
	case strings.ContainsAny(name, "/ \t\x00"):
		return fmt.Errorf("name %q: no '/' or spaces", name)
	}
	return nil
}

// resolveDir expands "~", makes a relative path relative to the default
// directory, and checks that it is a directory. "" stays "" (the
// dashboard's directory).
func (d *SpawnDialog) resolveDir(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("directory: %w", err)
		}
		dir = filepath.Join(home, dir[1:])
	}
	if !filepath.IsAbs(dir) && d.defaultDir != "" {
		dir = filepath.Join(d.defaultDir, dir)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("directory %s does not exist", dir)
	case err != nil:
		return "", fmt.Errorf("directory: %w", err)
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return filepath.Clean(dir), nil
}

// Spec is what submitting would return right now, or the validation error.
// It leaves the form as it was (no error shown, focus kept).
func (d *SpawnDialog) Spec() (fleet.Spec, error) {
	saved, savedFocus := d.err, d.focus
	defer func() { d.err = saved; d.setFocus(savedFocus) }()
	if a, ok := d.submit().(Spawn); ok {
		return a.Spec, nil
	}
	return fleet.Spec{}, errors.New(d.err)
}

// View implements Dialog.
func (d *SpawnDialog) View(st *themes.Styles, w, h int) string {
	const pref, labelW = 72, 12
	iw := min(w, pref) - 4
	vw := max(1, iw-labelW)
	label := func(f int, s string) string {
		if d.focus == f {
			return cellwidth.PadRight(st.Key.Render(s), labelW)
		}
		return cellwidth.PadRight(st.Muted.Render(s), labelW)
	}
	var body []string
	// Preset list.
	nameW := len(customLabel)
	for _, p := range d.presets {
		nameW = max(nameW, ansi.StringWidth(p.Name))
	}
	nameW = min(nameW, max(1, vw-2))
	if d.pending {
		body = append(body, label(fPreset, "Agent")+st.Muted.Render("  "+cellwidth.Cut("looking up presets…", vw-2, "…")))
	}
	for i := 0; i <= len(d.presets); i++ {
		lead := strings.Repeat(" ", labelW)
		if i == 0 && !d.pending {
			lead = label(fPreset, "Agent")
		}
		var text string
		if i < len(d.presets) {
			p := d.presets[i]
			text = cellwidth.Fit(p.Name, nameW, "…") + "  " + strings.Join(p.Argv, " ")
		} else {
			text = customLabel
		}
		text = cellwidth.Cut(text, vw-2, "…")
		row := "  " + text
		switch {
		case i == d.sel && d.focus == fPreset:
			row = st.RowSelected.Render(cellwidth.PadRight("▸ "+text, vw))
		case i == d.sel:
			row = st.Base.Bold(true).Render("▸ " + text)
		default:
			row = st.Muted.Render(row)
		}
		body = append(body, lead+row)
	}
	if d.custom() {
		body = append(body, label(fCommand, "Command")+d.cmd.View(st, vw))
	}
	body = append(body,
		label(fName, "Name")+d.name.View(st, vw),
		label(fDir, "Directory")+d.dir.View(st, vw))
	cname := d.classifiers[d.cls]
	if cname == "" {
		cname = "default (config)"
	}
	cval := "◂ " + cname + " ▸"
	if d.focus == fClassifier {
		cval = st.Key.Render(cval)
	} else {
		cval = st.Base.Render(cval)
	}
	body = append(body, label(fClassifier, "Classifier")+cval)

	var foot []string
	if d.err != "" {
		foot = append(foot, wrap(st.Error.Render, d.err, iw)...)
	}
	foot = append(foot, hint(st, "tab", "next field", "↑/↓", "choose", "ctrl+s", "start", "esc", "cancel"))
	return layoutBox(st, w, h, pref, d.Title(), body, foot)
}
