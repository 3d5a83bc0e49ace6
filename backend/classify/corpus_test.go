package classify

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify/classifytest"
)

// corpusCase is one replay of a classifytest.Case (see that package for
// the file format): the screens the terminal emulator shows when the case
// is drawn at one width in one style, and the raw state after the last one.
type corpusCase struct {
	profile, name string
	variant       string // "80/plain", "120/truecolour", ...
	expect        Raw
	screens       []Screen
}

const corpusStep = 100 * time.Millisecond

// loadCorpus returns every case at every width and style. The replays are
// made once per test binary: several tests score the same corpus.
func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	corpusOnce.Do(func() { corpus, corpusErr = replayCorpus() })
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpus
}

var (
	corpusOnce sync.Once
	corpus     []corpusCase
	corpusErr  error
)

func replayCorpus() ([]corpusCase, error) {
	raw, err := classifytest.Load("testdata")
	if err != nil {
		return nil, err
	}
	var cs []corpusCase
	for _, rc := range raw {
		expect := Raw(255)
		for i, n := range rawNames {
			if n == rc.Expect {
				expect = Raw(i)
			}
		}
		if expect > RawNeedsInput {
			return nil, fmt.Errorf("%s/%s: unknown expected state %q", rc.Profile, rc.Name, rc.Expect)
		}
		for _, w := range classifytest.Widths {
			for _, st := range classifytest.Styles {
				c := corpusCase{profile: rc.Profile, name: rc.Name, expect: expect, variant: fmt.Sprintf("%d/%v", w, st)}
				for _, sh := range rc.Replay(w, st) {
					c.screens = append(c.screens, Screen{Title: sh.Title, Lines: sh.Lines, CursorY: len(sh.Lines) - 1})
				}
				cs = append(cs, c)
			}
		}
	}
	return cs, nil
}

// runCase feeds the case's screens and returns the raw state and deciding
// rule of the last one, checking the debounced output agrees with it.
func runCase(t *testing.T, p *compiledProfile, c corpusCase) (Raw, string) {
	t0 := time.Unix(1_000, 0)
	cl := newRules(p, t0)
	var raw Raw
	var rule string
	var at time.Time
	for i, s := range c.screens {
		at = t0.Add(time.Duration(i+1) * corpusStep)
		raw, rule = cl.classify(at, s)
		cl.deb.set(at, raw)
	}
	settled := at.Add(DebounceHold)
	if st, _ := cl.State(settled); st != wireState(raw) {
		t.Errorf("%s/%s (%s): settled wire state %v, raw %v", c.profile, c.name, c.variant, st, raw)
	}
	if got := cl.NeedsInput(settled); got != (raw == RawNeedsInput) {
		t.Errorf("%s/%s (%s): NeedsInput = %v with raw %v", c.profile, c.name, c.variant, got, raw)
	}
	return raw, rule
}

// score runs the corpus cases of profile p and returns total and correct
// counts per expected state, logging every miss.
func score(t *testing.T, p Profile, cases []corpusCase, logMiss bool) (total, ok map[Raw]int) {
	total, ok = map[Raw]int{}, map[Raw]int{}
	cp, err := compile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.profile != p.Name {
			continue
		}
		got, rule := runCase(t, cp, c)
		total[c.expect]++
		if got == c.expect {
			ok[c.expect]++
		} else if logMiss {
			t.Errorf("%s/%s (%s): got %v (rule %q), want %v", c.profile, c.name, c.variant, got, rule, c.expect)
		}
	}
	return total, ok
}

func TestCorpusAccuracy(t *testing.T) {
	cases := loadCorpus(t)
	names := make([]string, 0, len(Profiles))
	for n := range Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	var tab strings.Builder
	fmt.Fprintf(&tab, "\n%-8s %-11s %5s %8s %6s %7s\n", "profile", "state", "cases", "replays", "right", "acc")
	for _, n := range names {
		total, ok := score(t, Profiles[n], cases, true)
		for r := RawIdle; r <= RawNeedsInput; r++ {
			if total[r] == 0 {
				if n == "claude" {
					t.Errorf("claude corpus has no %v case", r)
				}
				continue
			}
			v := total[r] / variants
			fmt.Fprintf(&tab, "%-8s %-11v %5d %8d %6d %6.1f%%\n", n, r, v, total[r], ok[r], 100*float64(ok[r])/float64(total[r]))
		}
	}
	t.Log(tab.String())
}

// variants is how many times each case is replayed (widths × styles).
var variants = len(classifytest.Widths) * len(classifytest.Styles)

// TestCorpusDiscriminates guards against a vacuous corpus and dead rules:
// Claude's profile with any one rule family removed (every rule has one)
// must get some case wrong, and so must one whose busy text never streams.
func TestCorpusDiscriminates(t *testing.T) {
	cases := loadCorpus(t)
	var families []string
	seen := map[string]bool{}
	for _, r := range Claude.Rules {
		if r.Family == "" {
			t.Errorf("claude rule %s has no Family", r.Name)
		}
		if !seen[r.Family] {
			seen[r.Family] = true
			families = append(families, r.Family)
		}
	}
	for _, drop := range families {
		p := Claude
		p.Rules = nil
		for _, r := range Claude.Rules {
			if r.Family != drop {
				p.Rules = append(p.Rules, r)
			}
		}
		total, ok := score(t, p, cases, false)
		n, k := 0, 0
		for r := range total {
			n += total[r]
			k += ok[r]
		}
		if k == n {
			t.Errorf("claude without its %q rules still scores %d/%d", drop, k, n)
		} else {
			t.Logf("without %-15q %4d/%d right", drop, k, n)
		}
	}
	// And a profile whose busy text never streams.
	p := Claude
	p.StreamHold = 0
	total, ok := score(t, p, cases, false)
	if ok[RawStreaming] == total[RawStreaming] {
		t.Errorf("StreamHold 0 still gets every Streaming case right")
	}
}
