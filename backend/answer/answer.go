// Package answer answers an agent's dialog — a permission prompt, a
// question with options — from outside its terminal: it reads the dialog
// off the agent's screen (known for what it is by the classifier's rules,
// its options by their labels, never by their position alone) and says
// which keys give the user's choice. It decides nothing about when to
// write them: the supervisor, which owns the pty, checks and writes in one
// step (supervisor.Session.Answer).
package answer

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
)

// Kind is the kind of a choice.
type Kind string

const (
	Allow  Kind = "allow"  // the option that allows this once ("Yes")
	Always Kind = "always" // the option that allows it from now on ("Yes, and don't ask again …")
	Deny   Kind = "deny"   // the option that refuses ("No, …")
	Option Kind = "option" // option number Choice.Option
	Text   Kind = "text"   // Choice.Text, through the dialog's free-text option
)

// Choice is the user's answer.
type Choice struct {
	Kind   Kind   `json:"choice"`
	Option int    `json:"option,omitempty"`
	Text   string `json:"text,omitempty"`
}

// MaxText bounds a free-text answer.
const MaxText = 4096

// Check reports a malformed choice.
func (c Choice) Check() error {
	switch c.Kind {
	case Allow, Always, Deny:
	case Option:
		if c.Option < 1 || c.Option > 9 {
			return fmt.Errorf("option %d: options are numbered 1 to 9", c.Option)
		}
	case Text:
		if c.Text == "" || len(c.Text) > MaxText || strings.ContainsAny(c.Text, "\r\n\x1b") {
			return fmt.Errorf("text: one line of 1 to %d bytes, without control keys", MaxText)
		}
		for _, r := range c.Text {
			if r < 0x20 || r == 0x7f {
				return errors.New("text: no control characters")
			}
		}
	default:
		return fmt.Errorf("unknown choice %q (want allow, always, deny, option or text)", c.Kind)
	}
	return nil
}

// Given is an answer given: the option chosen, on which prompt.
type Given struct {
	Option   int
	Label    string
	Question string
}

// Prompt is a dialog on an agent's screen.
type Prompt struct {
	Family   string   `json:"family"`   // the classifier's rule family: "permission", "ask", "trust"
	Question string   `json:"question"` // the row above its options
	Labels   []string `json:"options"`  // option n is Labels[n-1]
	// Multi: the options have check boxes (a question that takes several
	// answers, then Submit); one key does not answer it.
	Multi bool `json:"multi,omitempty"`
}

// answerable are the rule families whose dialogs are answered here; others
// (first-run screens, a login) need the user at the terminal.
var answerable = map[string]bool{"permission": true, "ask": true, "trust": true, "resume": true}

// roleRule tells an option's meaning by its label.
type roleRule struct {
	kind Kind
	re   *regexp.Regexp
}

// roles are the label rules (agent-neutral where the wordings agree;
// Claude Code's 2.0–2.1 wordings), compiled on first use: the supervisor
// links this package and starts often.
var roles = sync.OnceValue(func() []roleRule {
	return []roleRule{
		{Always, regexp.MustCompile(`^Yes, (?:and )?(?:don't ask again|allow all|always allow)\b`)},
		{Allow, regexp.MustCompile(`^Yes(?:$|, (?:proceed|I trust this folder)$)`)},
		{Deny, regexp.MustCompile(`^No\b`)},
		{Text, regexp.MustCompile(`^Type something\.?$`)},
	}
})

// optionRow is a numbered option row: its number and label (a selection
// marker ❯ and a checkbox [ ] dropped).
var optionRow = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:❯\s*)?(\d)\.\s+(\[.\]\s*)?(\S.*?)\s*$`)
})

// ErrNoDialog: the screen shows no dialog this package answers.
var ErrNoDialog = errors.New("the screen shows no prompt to answer")

// Read reads the dialog on screen s of an agent whose classifier is
// profile.
func Read(profile string, s classify.Screen) (Prompt, error) {
	fam := classify.Dialog(profile, s)
	if fam == "" {
		return Prompt{}, ErrNoDialog
	}
	if !answerable[fam] {
		return Prompt{}, fmt.Errorf("the screen shows a %s dialog, which only the terminal answers", fam)
	}
	rows := make([]string, len(s.Lines))
	for i, l := range s.Lines {
		rows[i] = strings.Trim(l, " \t│┃")
	}
	// The options: the last run numbered 1..n, bottom up, description
	// rows between them skipped.
	last := -1
	for i := len(rows) - 1; i >= 0 && last < 0; i-- {
		if optionRow().MatchString(rows[i]) {
			last = i
		}
	}
	if last < 0 {
		return Prompt{}, fmt.Errorf("the %s dialog shows no numbered options", fam)
	}
	var labels []string
	multi := false
	want := 0
	first := -1
	for i := last; i >= 0; i-- {
		m := optionRow().FindStringSubmatch(rows[i])
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if want == 0 {
			want = n
		}
		if n != want {
			break // another list above
		}
		labels = append([]string{m[3]}, labels...)
		multi = multi || m[2] != ""
		first, want = i, want-1
		if want == 0 {
			break
		}
	}
	if want != 0 {
		return Prompt{}, fmt.Errorf("the %s dialog's options are not numbered from 1", fam)
	}
	p := Prompt{Family: fam, Labels: labels, Multi: multi}
	for i := first - 1; i >= 0; i-- {
		if rows[i] != "" {
			p.Question = rows[i]
			break
		}
	}
	return p, nil
}

// role is the kind of option label l.
func role(l string) Kind {
	for _, r := range roles() {
		if r.re.MatchString(l) {
			return r.kind
		}
	}
	return Option
}

// Keys are the keys that give choice c to p (the option's number, and for
// a text its words and Enter), with the option chosen; or why it cannot
// be given.
func (p Prompt) Keys(c Choice) (keys []byte, option int, err error) {
	if err := c.Check(); err != nil {
		return nil, 0, err
	}
	if p.Multi {
		return nil, 0, errors.New("the question takes several answers (check boxes, then Submit): answer it in its terminal")
	}
	pick := func(k Kind) int {
		for i, l := range p.Labels {
			if role(l) == k {
				return i + 1
			}
		}
		return 0
	}
	switch c.Kind {
	case Option:
		option = c.Option
		if option > len(p.Labels) {
			return nil, 0, fmt.Errorf("the prompt has %d options, not %d", len(p.Labels), option)
		}
	default:
		if option = pick(c.Kind); option == 0 {
			return nil, 0, fmt.Errorf("the prompt has no %s option (its options: %s)", c.Kind, strings.Join(p.Labels, " · "))
		}
	}
	keys = []byte{byte('0' + option)}
	if c.Kind == Text {
		keys = append(keys, c.Text...)
		keys = append(keys, '\r')
	}
	return keys, option, nil
}
