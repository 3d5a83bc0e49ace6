package dialog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/heimdall-tui/heimdall-tui/tui/bubbletea"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/headless"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/cellwidth"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
	"github.com/heimdall-tui/heimdall-tui/tui/textfield"
)

// The spawn form's fields, in tab order. fCommand is shown only for the
// "custom command" entry; fModel and fPrompt only for the entries of
// event-driven kinds (headless Claude, heddle workers), fPerm only for
// headless Claude; those have no fClassifier (their state comes from their
// events, not a screen).
const (
	fPreset = iota
	fCommand
	fName
	fDir
	fBranch // a worktree on a new branch (pty entries)
	fBase   // the branch's base
	fClassifier
	fModel
	fPerm
	fPrompt
	numFields
)

// customLabel is the last entry of the preset list; the entries of the
// event-driven kinds offered (OfferHeadless) come before it.
const customLabel = "custom command"

// eventKind is what the form and ":spawn" say of an event-driven session
// kind they can open: its entry's label and note, its name after ":spawn",
// and what its model field suggests. The kinds are this table's data: a
// new one is a row here, and its opener in the app's HeadlessOpener.
type eventKind struct{ label, note, spawnName, modelHint string }

var eventKinds = map[session.Kind]eventKind{
	session.KindHeadless: {"claude (headless)", "through blemeesd", HeadlessPreset, "claude's default, e.g. sonnet"},
	session.KindHeddle:   {"heddle worker", "the worker of config [heddle]", HeddlePreset, "config [heddle] model, e.g. anthropic/claude-sonnet-4"},
}

// headlessLabel is headless Claude's entry.
var headlessLabel = eventKinds[session.KindHeadless].label

// permissionModes are the --permission-mode values the form offers: ""
// (no flag: claude's own setting) and claude's safe modes.
// bypassPermissions is left out on purpose: it is the unsafe
// --dangerously-skip-permissions by another name.
var permissionModes = []string{"", "default", "acceptEdits", "plan"}

// errPending is the form's error when it is submitted with nothing to
// start while the presets are looked up; SetPresets clears it.
var errPending = errors.New("still looking up presets on PATH: wait a moment, or enter a custom command")

// SpawnDialog is the "new session" form.
type SpawnDialog struct {
	presets []fleet.Preset // found ones only
	// sel is the entry chosen: a preset index, then the entries of kinds
	// (when offered), then custom command.
	sel         int
	kinds       []session.Kind // the event-driven kinds offered, in order
	perm        int            // index in permissionModes
	model       textfield.Field
	prompt      textfield.Field
	classifiers []string // choices; [0] is "" (the config's default)
	cls         int
	defaultDir  string
	cmd         textfield.Field
	name        textfield.Field
	dir         textfield.Field
	branch      textfield.Field
	base        textfield.Field
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
	d.branch = textfield.New("none: the directory itself; a name: a new branch in a worktree", "")
	d.base = textfield.New("HEAD", "")
	d.model = textfield.New(eventKinds[session.KindHeadless].modelHint, "")
	d.prompt = textfield.New("none (one line)", "")
	d.selectPreset(0)
	d.setFocus(fPreset)
	return d
}

// NewSpawnPending is NewSpawn before the presets are known (looking them
// up on PATH is I/O, done off the event loop): the form opens at once and
// says it is looking them up; SetPresets fills them in. Meanwhile every
// field works, with "custom command" (and the headless entry, if
// offered) the only choices of the list.
func NewSpawnPending(defaultDir string, classifiers []string) *SpawnDialog {
	d := NewSpawn(nil, defaultDir, classifiers)
	d.pending = true
	return d
}

// OfferHeadless adds an entry per event-driven kind (none given:
// session.KindHeadless) to the agents, after the presets: "claude
// (headless)", a headless Claude session opened through blemeesd (the
// dashboard's own or the standalone one it follows: Model, Permission mode
// and System prompt instead of a classifier); "heddle worker", a heddle worker (Model and System prompt).
// Submitting one returns SpawnHeadless with the kind in its Spec. It
// returns d. The app offers the kinds it can open.
func (d *SpawnDialog) OfferHeadless(kinds ...session.Kind) *SpawnDialog {
	if len(kinds) == 0 {
		kinds = []session.Kind{session.KindHeadless}
	}
	for _, k := range kinds {
		if _, known := eventKinds[k]; !known || slices.Contains(d.kinds, k) {
			continue
		}
		wasCustom := d.custom()
		d.kinds = append(d.kinds, k)
		if wasCustom {
			d.sel = d.customIdx() // custom command stays selected
		}
	}
	return d
}

// Pending reports whether the form still waits for SetPresets.
func (d *SpawnDialog) Pending() bool { return d.pending }

// SetPresets fills in the presets of a form from NewSpawnPending (a form
// with presets gets them replaced). The first preset is selected, with its
// classifier, unless the user is already writing a custom command (the
// command field is focused or not empty), which then stays selected; a
// classifier the user chose meanwhile is kept; the headless entry, if
// chosen meanwhile, stays chosen.
func (d *SpawnDialog) SetPresets(presets []fleet.Preset) {
	d.pending = false
	kind := d.selKind()
	d.presets = found(presets)
	if d.err == errPending.Error() {
		d.err = ""
	}
	if d.focus == fCommand || d.cmd.Value() != "" {
		d.sel = d.customIdx()
		return
	}
	if kind != "" {
		d.sel = len(d.presets) + slices.Index(d.kinds, kind)
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

// customIdx is custom command's index, the last (the kinds' entries
// come before it, after the presets); entries counts them.
func (d *SpawnDialog) customIdx() int { return len(d.presets) + len(d.kinds) }

func (d *SpawnDialog) entries() int { return d.customIdx() + 1 }

func (d *SpawnDialog) custom() bool { return d.sel == d.customIdx() }

// kindAt is the event-driven kind of entry i ("": a preset or custom).
func (d *SpawnDialog) kindAt(i int) session.Kind {
	if j := i - len(d.presets); j >= 0 && j < len(d.kinds) {
		return d.kinds[j]
	}
	return ""
}

// selKind is the selected entry's event-driven kind ("": none).
func (d *SpawnDialog) selKind() session.Kind { return d.kindAt(d.sel) }

func (d *SpawnDialog) isHeadless() bool { return d.selKind() != "" }

// shown reports whether field f belongs to the selected entry's form.
func (d *SpawnDialog) shown(f int) bool {
	switch f {
	case fCommand:
		return d.custom()
	case fClassifier, fBranch, fBase:
		return !d.isHeadless()
	case fModel, fPrompt:
		return d.isHeadless()
	case fPerm:
		return d.selKind() == session.KindHeadless
	}
	return true
}

// last is the form's last field: enter there submits.
func (d *SpawnDialog) last() int {
	if d.isHeadless() {
		return fPrompt
	}
	return fClassifier
}

// selectPreset selects entry i and sets the classifier to its default.
func (d *SpawnDialog) selectPreset(i int) {
	d.sel = max(0, min(i, d.customIdx()))
	d.cls = 0
	if d.sel < len(d.presets) {
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
	d.branch.Focused = f == fBranch
	d.base.Focused = f == fBase
	d.model.Focused = f == fModel
	d.prompt.Focused = f == fPrompt
}

// move focuses the next (+1) or previous (-1) field of the form, wrapping.
func (d *SpawnDialog) move(delta int) {
	f := d.focus
	for {
		f = (f + delta + numFields) % numFields
		if d.shown(f) {
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
	case fBranch:
		return &d.branch
	case fBase:
		return &d.base
	case fModel:
		return &d.model
	case fPrompt:
		return &d.prompt
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
		if d.focus == d.last() {
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
			d.selectPreset((d.sel + d.entries() - 1) % d.entries())
		case "down", "j":
			d.selectPreset((d.sel + 1) % d.entries())
		}
	case fClassifier:
		d.cls = cycle(s, d.cls, len(d.classifiers))
	case fPerm:
		d.perm = cycle(s, d.perm, len(permissionModes))
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

// cycle is choice i of n after key s in a "◂ value ▸" field.
func cycle(s string, i, n int) int {
	switch s {
	case "left", "up", "h", "k", "shift+space":
		return (i + n - 1) % n
	case "right", "down", "l", "j", "space":
		return (i + 1) % n
	}
	return i
}

// SetError shows err in the form (a spawn it asked for failed: a name
// taken, a program missing), which stays open for the user to correct.
func (d *SpawnDialog) SetError(err error) {
	d.err = err.Error()
	if strings.Contains(d.err, "already exists") {
		d.setFocus(fName)
	}
}

// submit validates the form and returns Spawn (SpawnHeadless for the
// headless entry), or sets the error and returns nil.
func (d *SpawnDialog) submit() Action {
	d.err = ""
	fail := func(f int, err error) Action {
		d.err = err.Error()
		d.setFocus(f)
		return nil
	}
	if d.isHeadless() {
		return d.submitHeadless(fail)
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
	if branch := strings.TrimSpace(d.branch.Value()); branch != "" {
		if strings.HasPrefix(branch, "-") || strings.ContainsAny(branch, " \t") {
			return fail(fBranch, fmt.Errorf("worktree: %q is no branch name", branch))
		}
		spec.NewWorktree = &review.Worktree{Branch: branch, Base: strings.TrimSpace(d.base.Value())}
	}
	return Spawn{Spec: spec}
}

// submitHeadless is submit for the headless entry.
func (d *SpawnDialog) submitHeadless(fail func(int, error) Action) Action {
	name := strings.TrimSpace(d.name.Value())
	if err := checkName(name); err != nil {
		return fail(fName, err)
	}
	dir, err := d.resolveDir(strings.TrimSpace(d.dir.Value()))
	if err != nil {
		return fail(fDir, err)
	}
	model := strings.TrimSpace(d.model.Value())
	if strings.HasPrefix(model, "-") || strings.ContainsAny(model, " \t") {
		return fail(fModel, fmt.Errorf("model %q: a model name or alias, e.g. sonnet", model))
	}
	prompt := strings.TrimSpace(d.prompt.Value())
	if err := headless.CheckArgs([]string{prompt}); err != nil {
		return fail(fPrompt, fmt.Errorf("system prompt: %w", err))
	}
	spec := fleet.HeadlessSpec{Kind: d.selKind(), ID: name, Dir: dir, Model: model, SystemPrompt: prompt}
	if spec.Kind == session.KindHeadless {
		spec.PermissionMode = permissionModes[d.perm]
	}
	return SpawnHeadless{Spec: spec}
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
	switch a := d.submit().(type) {
	case Spawn:
		return a.Spec, nil
	case SpawnHeadless:
		return fleet.Spec{}, errors.New(eventKinds[a.Spec.Kind].label + " is selected: it starts no pty session")
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
	for _, k := range d.kinds {
		nameW = max(nameW, ansi.StringWidth(eventKinds[k].label))
	}
	for _, p := range d.presets {
		nameW = max(nameW, ansi.StringWidth(p.Name))
	}
	nameW = min(nameW, max(1, vw-2))
	if d.pending {
		body = append(body, label(fPreset, "Agent")+st.Muted.Render("  "+cellwidth.Cut("looking up presets…", vw-2, "…")))
	}
	for i := range d.entries() {
		lead := strings.Repeat(" ", labelW)
		if i == 0 && !d.pending {
			lead = label(fPreset, "Agent")
		}
		var text string
		switch {
		case i < len(d.presets):
			p := d.presets[i]
			text = cellwidth.Fit(p.Name, nameW, "…") + "  " + strings.Join(p.Argv, " ")
		case d.kindAt(i) != "":
			ek := eventKinds[d.kindAt(i)]
			text = cellwidth.Fit(ek.label, nameW, "…") + "  " + ek.note
		default:
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
	choice := func(f int, v string) string {
		v = cellwidth.Cut("◂ "+v+" ▸", vw, "…")
		if d.focus == f {
			return label(f, labelOf(f)) + st.Key.Render(v)
		}
		return label(f, labelOf(f)) + st.Base.Render(v)
	}
	if d.isHeadless() {
		perm := permissionModes[d.perm]
		if perm == "" {
			perm = "claude's setting"
		}
		d.model.SetPlaceholder(eventKinds[d.selKind()].modelHint)
		body = append(body, label(fModel, labelOf(fModel))+d.model.View(st, vw))
		if d.shown(fPerm) {
			body = append(body, choice(fPerm, perm))
		}
		body = append(body, label(fPrompt, labelOf(fPrompt))+d.prompt.View(st, vw))
	} else {
		body = append(body, label(fBranch, "Worktree")+d.branch.View(st, vw), label(fBase, "From")+d.base.View(st, vw))
		cname := d.classifiers[d.cls]
		if cname == "" {
			cname = "default (config)"
		}
		body = append(body, choice(fClassifier, cname))
	}

	var foot []string
	if d.err != "" {
		foot = append(foot, wrap(st.Error.Render, d.err, iw)...)
	}
	foot = append(foot, hint(st, "tab", "next field", "↑/↓", "choose", "ctrl+s", "start", "esc", "cancel"))
	return layoutBox(st, w, h, pref, d.Title(), body, foot)
}

// labelOf is the label of field f in the form.
func labelOf(f int) string {
	switch f {
	case fClassifier:
		return "Classifier"
	case fModel:
		return "Model"
	case fPerm:
		return "Permissions"
	case fPrompt:
		return "Sys. prompt"
	}
	return ""
}
