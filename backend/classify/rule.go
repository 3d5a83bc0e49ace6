package classify

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Raw is the state a single screen shows, before debouncing. It is richer
// than the wire state: NeedsInput is reported on the wire as Idle, and Busy
// exists only in rule tables (see Rule.Then).
type Raw uint8

const (
	RawIdle       Raw = iota // nothing is running; the agent waits at its prompt
	RawThinking              // working, nothing visible growing yet / model reasoning
	RawStreaming             // working, assistant text growing on screen
	RawToolUse               // working, a tool (shell, file edit, sub-agent) is running
	RawNeedsInput            // a question blocks the agent until the user answers
	// RawBusy marks a rule that says "the agent is working" without saying
	// on what. The engine refines it: Streaming if the text above the
	// status line changed within the profile's StreamHold, else the
	// profile's BusyDefault. A screen-level Busy match also enables the
	// rules marked IfBusy.
	RawBusy
)

var rawNames = [...]string{"Idle", "Thinking", "Streaming", "ToolUse", "NeedsInput", "Busy"}

func (r Raw) String() string {
	if int(r) < len(rawNames) {
		return rawNames[r]
	}
	return fmt.Sprintf("Raw(%d)", uint8(r))
}

// RegionKind says which part of the screen a rule looks at.
type RegionKind uint8

const (
	// InTitle is the window title.
	InTitle RegionKind = iota
	// InBottom is the last N non-blank rows of the screen. Non-blank,
	// because agents that render inline leave empty rows below their UI.
	InBottom
	// InAbovePrompt is the N non-blank, non-border rows directly above the
	// prompt line (the last row matching Profile.Prompt); the bottom N
	// non-blank rows when there is no prompt line.
	InAbovePrompt
	// InLastBlock is the head row of the last block (the last row matching
	// Profile.Block) above the status line, or above the prompt line when
	// no status line was found.
	InLastBlock
	// InBelowPrompt is the last N non-blank rows below the prompt line; the
	// bottom N non-blank rows when there is no prompt line. It is where a
	// dialog that replaced the input box is, and never the transcript above
	// an input box: text quoted there asks nothing.
	InBelowPrompt
)

// Region is a part of the screen; N counts rows for InBottom/InAbovePrompt.
type Region struct {
	Kind RegionKind
	N    int
}

// Title, Bottom, AbovePrompt, BelowPrompt and LastBlock build Regions for
// rule tables.
func Title() Region            { return Region{Kind: InTitle} }
func Bottom(n int) Region      { return Region{Kind: InBottom, N: n} }
func AbovePrompt(n int) Region { return Region{Kind: InAbovePrompt, N: n} }
func BelowPrompt(n int) Region { return Region{Kind: InBelowPrompt, N: n} }
func LastBlock() Region        { return Region{Kind: InLastBlock} }

// Rule maps "Pattern occurs in Region" to a raw state. Patterns are matched
// row by row against normalised rows: surrounding spaces and box sides (│ ┃)
// trimmed, so ^ and $ anchor to the row's text even inside a drawn box.
type Rule struct {
	Name string
	// Family groups the rules that recognise one thing the agent draws (a
	// kind of dialog, the status line, ...). Tests drop one family at a time
	// and expect the corpus to fail, so no family is dead weight.
	Family string
	In     Region
	Re     string // RE2 regexp; exactly one of Re and Sub is set
	Sub    string // plain substring
	// Has, with Re, is a literal every match of Re contains (case
	// sensitive): rows without it are skipped before the regexp runs. Go's
	// regexp is cheap only when anchored (^ on every branch: ^(?:A|B), not
	// ^A|^B) or when it starts with a literal; Has makes any other
	// pattern cheap on rows that cannot match.
	Has string
	// Not inverts the rule: it matches when no row of the region matches
	// (and the region is not empty).
	Not bool
	// IfBusy restricts the rule to screens where some Busy rule matched in
	// the screen's rows. A busy title alone does not count: the title lags
	// the screen and says nothing about what the agent is doing.
	IfBusy bool
	Then   Raw
	// Why, for a rule whose Then is RawNeedsInput, is a regexp whose
	// first group, in the first row of the screen it matches, says why
	// the agent waits (formatted with WhyFmt, a printf format of it; "":
	// "%s"): the reason of a dialog no hook reports.
	Why, WhyFmt string
}

// Profile is an agent's rule table. Rules are tried in order and the first
// match decides, with one exception: Busy rules are also evaluated up front
// to decide whether IfBusy rules apply and where the status line is (the
// row the first matching non-title Busy rule matched; only a row above the
// prompt line bounds the transcript). No match: Idle.
type Profile struct {
	Name   string
	Prompt string // regexp for the prompt row (normalised); "" if none
	Block  string // regexp for a block head row (normalised); "" if none
	Rules  []Rule
	// BusyDefault is the state for Busy when nothing is growing on screen.
	BusyDefault Raw
	// StreamHold is how long a change above the status line keeps a Busy
	// screen Streaming. Only screen timestamps are compared, so once the
	// screen stops changing the raw state stops changing too.
	StreamHold time.Duration
}

type compiledRule struct {
	Rule
	re  *pattern
	why *regexp.Regexp
}

type compiledProfile struct {
	Profile
	prompt, block *pattern
	rules         []compiledRule
}

// compile checks and compiles p; an error names the offending rule.
func compile(p Profile) (*compiledProfile, error) {
	cp := &compiledProfile{Profile: p}
	var err error
	if p.Prompt != "" {
		if cp.prompt, err = compilePattern(p.Prompt); err != nil {
			return nil, fmt.Errorf("profile %s prompt: %w", p.Name, err)
		}
	}
	if p.Block != "" {
		if cp.block, err = compilePattern(p.Block); err != nil {
			return nil, fmt.Errorf("profile %s block: %w", p.Name, err)
		}
	}
	names := map[string]bool{}
	for _, r := range p.Rules {
		if r.Name == "" || names[r.Name] {
			return nil, fmt.Errorf("profile %s: rule name %q empty or repeated", p.Name, r.Name)
		}
		names[r.Name] = true
		if (r.Re == "") == (r.Sub == "") {
			return nil, fmt.Errorf("profile %s rule %s: set exactly one of Re and Sub", p.Name, r.Name)
		}
		if r.Then > RawBusy {
			return nil, fmt.Errorf("profile %s rule %s: bad state %v", p.Name, r.Name, r.Then)
		}
		if r.Has != "" && r.Re == "" {
			return nil, fmt.Errorf("profile %s rule %s: Has needs Re", p.Name, r.Name)
		}
		cr := compiledRule{Rule: r}
		if r.Re != "" {
			if cr.re, err = compilePattern(r.Re); err != nil {
				return nil, fmt.Errorf("profile %s rule %s: %w", p.Name, r.Name, err)
			}
		}
		if r.Why != "" {
			if cr.why, err = regexp.Compile(r.Why); err != nil || cr.why.NumSubexp() < 1 || r.Then != RawNeedsInput {
				return nil, fmt.Errorf("profile %s rule %s: Why needs a regexp with a group, on a NeedsInput rule (%v)", p.Name, r.Name, err)
			}
		}
		cp.rules = append(cp.rules, cr)
	}
	if p.BusyDefault == RawBusy || p.BusyDefault == RawNeedsInput {
		return nil, fmt.Errorf("profile %s: BusyDefault %v", p.Name, p.BusyDefault)
	}
	return cp, nil
}

// Names lists the classifier names New accepts: "simple", then the agent
// profiles in alphabetical order.
func Names() []string {
	var ns []string
	for n := range Profiles {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return append([]string{"simple"}, ns...)
}

// view is one screen prepared for matching.
type view struct {
	rows   []string // normalised rows, same indices as Screen.Lines
	title  string
	prompt int // index of the prompt row, len(rows) if none
	status int // index of the status row, -1 if unknown
}

func normalise(line string) string { return strings.Trim(line, " \t│┃") }

// border reports rows made only of box-drawing characters (and spaces).
func border(row string) bool {
	return row != "" && strings.Trim(row, " ─━═╭╮╰╯┌┐└┘├┤▔▁-") == ""
}

func newView(p *compiledProfile, s Screen) *view {
	v := &view{rows: make([]string, len(s.Lines)), title: strings.TrimSpace(s.Title), status: -1}
	for i, l := range s.Lines {
		v.rows[i] = normalise(l)
	}
	v.prompt = len(v.rows)
	if p.prompt != nil {
		for i := len(v.rows) - 1; i >= 0; i-- {
			if p.prompt.MatchString(v.rows[i]) {
				v.prompt = i
				break
			}
		}
	}
	return v
}

// region returns the row indices of r (top to bottom); nil for the title.
func (v *view) region(p *compiledProfile, r Region) []int {
	var idx []int
	switch r.Kind {
	case InBottom:
		for i := len(v.rows) - 1; i >= 0 && len(idx) < r.N; i-- {
			if v.rows[i] != "" {
				idx = append(idx, i)
			}
		}
	case InBelowPrompt:
		if v.prompt == len(v.rows) {
			return v.region(p, Region{Kind: InBottom, N: r.N}) // no prompt line
		}
		for i := len(v.rows) - 1; i > v.prompt && len(idx) < r.N; i-- {
			if v.rows[i] != "" {
				idx = append(idx, i)
			}
		}
	case InAbovePrompt:
		from := v.prompt - 1
		if v.prompt == len(v.rows) {
			from = len(v.rows) - 1
		}
		for i := from; i >= 0 && len(idx) < r.N; i-- {
			if v.rows[i] != "" && !border(v.rows[i]) {
				idx = append(idx, i)
			}
		}
	case InLastBlock:
		// From the status row even when it is below the prompt (a hint in
		// the footer): no block head is inside the input box.
		end := v.prompt
		if v.status >= 0 {
			end = v.status
		}
		if p.block != nil {
			for i := end - 1; i >= 0; i-- {
				if p.block.MatchString(v.rows[i]) {
					return []int{i}
				}
			}
		}
		return nil
	}
	// Collected bottom-up; return top-down so "first match" is the top row.
	for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx
}

// match reports whether r matches v and, for a row region, the matching row
// (-1 for the title or an inverted rule).
func (r *compiledRule) match(p *compiledProfile, v *view) (bool, int) {
	hit := func(s string) bool {
		if r.re != nil {
			if r.Has != "" && !strings.Contains(s, r.Has) {
				return false
			}
			return r.re.MatchString(s)
		}
		return strings.Contains(s, r.Sub)
	}
	if r.In.Kind == InTitle {
		return hit(v.title) != r.Not, -1
	}
	idx := v.region(p, r.In)
	if r.Not {
		for _, i := range idx {
			if hit(v.rows[i]) {
				return false, -1
			}
		}
		return len(idx) > 0, -1
	}
	for _, i := range idx {
		if hit(v.rows[i]) {
			return true, i
		}
	}
	return false, -1
}

// eval applies the table to v. It returns the raw state (possibly Busy, for
// the caller to refine), the deciding rule's name ("" if none) and whether
// the screen is busy. It sets v.status.
func (p *compiledProfile) eval(v *view) (Raw, string, bool) {
	busy, screenBusy := false, false
	for i := range p.rules {
		r := &p.rules[i]
		if r.Then != RawBusy {
			continue
		}
		if ok, row := r.match(p, v); ok {
			busy = true
			if r.In.Kind != InTitle {
				screenBusy = true
			}
			if row >= 0 {
				v.status = row
				break
			}
		}
	}
	for i := range p.rules {
		r := &p.rules[i]
		if r.IfBusy && !screenBusy {
			continue
		}
		if ok, _ := r.match(p, v); ok {
			return r.Then, r.Name, busy
		}
	}
	return RawIdle, "", busy
}

// end is the row where the transcript ends: the status row, or the prompt
// row when the status row is unknown or below the prompt (a busy hint in
// the footer says nothing about where the transcript ends).
func (v *view) end() int {
	if v.status >= 0 && v.status < v.prompt {
		return v.status
	}
	return v.prompt
}

// above is the screen text above end(): what grows while the agent
// streams. The status row itself, with its spinner and counters, and the
// input box, where the user may type while the agent works, are excluded
// on purpose.
func (v *view) above() string {
	return strings.Join(v.rows[:v.end()], "\n")
}

// why is what rule name's Why reads off lines ("" if it has none, or no
// row matches).
func (cp *compiledProfile) why(name string, lines []string) string {
	for _, r := range cp.rules {
		if r.Name != name || r.why == nil {
			continue
		}
		for _, l := range lines {
			if m := r.why.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
				f := r.WhyFmt
				if f == "" {
					f = "%s"
				}
				return fmt.Sprintf(f, m[1])
			}
		}
	}
	return ""
}

// Dialog is the family of the rule of the named profile that reads screen
// s as waiting for the user ("permission", "ask", "trust", …), "" if none
// does (or there is no such profile). It is how a dialog on an agent's
// screen is known for what it is before anything answers it.
func Dialog(profile string, s Screen) string {
	p, ok := Profiles[profile]
	if !ok {
		return ""
	}
	cp, err := compile(p)
	if err != nil {
		return ""
	}
	raw, name, _ := cp.eval(newView(cp, s))
	if raw != RawNeedsInput {
		return ""
	}
	for _, r := range cp.rules {
		if r.Name == name {
			return r.Family
		}
	}
	return ""
}
