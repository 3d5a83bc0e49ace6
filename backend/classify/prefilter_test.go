package classify

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

func TestAnchoredFirst(t *testing.T) {
	for _, tc := range []struct {
		re   string
		want []rune // nil: no prefilter
	}{
		{`^Select`, []rune{'S', 'S'}},
		{`^A|^B`, []rune{'A', 'A', 'B', 'B'}},
		{`^(?:❯\s*)?\d+\.`, []rune{'0', '9', '❯', '❯'}},
		{`^[⏺●]\s`, []rune{'⏺', '⏺', '●', '●'}},
		{`^\bfoo`, []rune{'f', 'f'}},
		{`^(?:a|b*)`, nil}, // may match ""
		{`^$`, nil},
		{`^.x`, nil}, // any rune
		{`(?i)^abc`, nil},
		{`abc`, nil}, // unanchored
		{`^a|b`, nil},
		{`(?:^|· )Esc`, nil},
	} {
		tr, err := syntax.Parse(tc.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := anchoredFirst(tr.Simplify())
		if got != nil {
			// Compare as sets of ranges.
			got = slices.Clone(got)
		}
		if (got == nil) != (tc.want == nil) || !sameRanges(got, tc.want) {
			t.Errorf("%s: first %q, want %q", tc.re, string(got), string(tc.want))
		}
	}
}

func sameRanges(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i += 2 {
		found := false
		for j := 0; j < len(b); j += 2 {
			if a[i] == b[j] && a[i+1] == b[j+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// The prefilters (first rune, Has) never change a verdict: every rule of
// every profile agrees with its bare regexp on every row of the corpus.
func TestPrefilterAgrees(t *testing.T) {
	cases := loadCorpus(t)
	rows := map[string]bool{"": true, " ": true}
	for _, c := range cases {
		for _, s := range c.screens {
			for _, l := range s.Lines {
				rows[normalise(l)] = true
			}
		}
	}
	for _, p := range Profiles {
		cp, err := compile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range cp.rules {
			if r.re == nil {
				continue
			}
			bare := regexp.MustCompile(r.Re)
			for row := range rows {
				want := bare.MatchString(row)
				got := r.re.MatchString(row) && (r.Has == "" || strings.Contains(row, r.Has))
				if got != want {
					t.Errorf("%s rule %s on %q: %v with prefilters, %v without", p.Name, r.Name, row, got, want)
				}
			}
		}
	}
}

// Claude's rules are cheap on rows they cannot match: each is anchored
// (the engine then rejects rows by their first rune), starts with a
// literal Go's regexp searches for, or has Has. A rule table is read over
// every row of a flooding screen (BenchmarkClassifyClaude).
func TestClaudeRulesCheap(t *testing.T) {
	cp, err := compile(Claude)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cp.rules {
		if r.re == nil || r.In.Kind == InTitle {
			continue
		}
		if pre, _ := r.re.re.LiteralPrefix(); r.re.first == nil && pre == "" && r.Has == "" {
			t.Errorf("claude rule %s: %s is neither anchored nor starts with a literal, and has no Has", r.Name, r.Re)
		}
	}
	for _, p := range []*pattern{cp.prompt, cp.block} {
		if p.first == nil {
			t.Errorf("claude prompt or block %s is not anchored", p.re)
		}
	}
}
