package classify

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// A corpus case is one file testdata/<profile>/<name>.txt:
//
//	# expect: <Idle|Thinking|Streaming|ToolUse|NeedsInput>
//	# free comment lines
//	=== title: <window title>
//	<screen rows>
//	=== title: <next screen, 100 ms later>
//	...
//
// The expected state is the raw state after the last screen.
type corpusCase struct {
	profile, name string
	expect        Raw
	screens       []Screen
}

const corpusStep = 100 * time.Millisecond

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	files, err := filepath.Glob("testdata/*/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var cs []corpusCase
	for _, f := range files {
		c, err := parseCase(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cs = append(cs, c)
	}
	return cs
}

func parseCase(path string) (corpusCase, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return corpusCase{}, err
	}
	c := corpusCase{
		profile: filepath.Base(filepath.Dir(path)),
		name:    strings.TrimSuffix(filepath.Base(path), ".txt"),
		expect:  255,
	}
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		line = strings.TrimRight(line, " ")
		switch {
		case len(c.screens) == 0 && strings.HasPrefix(line, "# expect: "):
			want := strings.TrimPrefix(line, "# expect: ")
			for i, n := range rawNames {
				if n == want {
					c.expect = Raw(i)
				}
			}
		case len(c.screens) == 0 && strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "=== title:"):
			c.screens = append(c.screens, Screen{Title: strings.TrimSpace(strings.TrimPrefix(line, "=== title:"))})
		case len(c.screens) == 0:
			return c, fmt.Errorf("row %q before the first === title line", line)
		default:
			s := &c.screens[len(c.screens)-1]
			s.Lines = append(s.Lines, line)
			s.CursorY = len(s.Lines) - 1
		}
	}
	if c.expect > RawNeedsInput || len(c.screens) == 0 {
		return c, fmt.Errorf("missing or bad '# expect:' header, or no screen")
	}
	return c, nil
}

// runCase feeds the case's screens and returns the raw state and deciding
// rule of the last one, checking the debounced output agrees with it.
func runCase(t *testing.T, p Profile, c corpusCase) (Raw, string) {
	t0 := time.Unix(1_000, 0)
	cl := NewRules(p, t0)
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
		t.Errorf("%s/%s: settled wire state %v, raw %v", c.profile, c.name, st, raw)
	}
	if got := cl.NeedsInput(settled); got != (raw == RawNeedsInput) {
		t.Errorf("%s/%s: NeedsInput = %v with raw %v", c.profile, c.name, got, raw)
	}
	return raw, rule
}

// score runs the corpus cases of profile p and returns total and correct
// counts per expected state, logging every miss.
func score(t *testing.T, p Profile, cases []corpusCase, logMiss bool) (total, ok map[Raw]int) {
	total, ok = map[Raw]int{}, map[Raw]int{}
	for _, c := range cases {
		if c.profile != p.Name {
			continue
		}
		got, rule := runCase(t, p, c)
		total[c.expect]++
		if got == c.expect {
			ok[c.expect]++
		} else if logMiss {
			t.Errorf("%s/%s: got %v (rule %q), want %v", c.profile, c.name, got, rule, c.expect)
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
	fmt.Fprintf(&tab, "\n%-8s %-11s %5s %5s %7s\n", "profile", "state", "cases", "right", "acc")
	for _, n := range names {
		total, ok := score(t, Profiles[n], cases, true)
		for r := RawIdle; r <= RawNeedsInput; r++ {
			if total[r] == 0 {
				if n == "claude" {
					t.Errorf("claude corpus has no %v case", r)
				}
				continue
			}
			fmt.Fprintf(&tab, "%-8s %-11v %5d %5d %6.1f%%\n", n, r, total[r], ok[r], 100*float64(ok[r])/float64(total[r]))
		}
	}
	t.Log(tab.String())
}

// TestCorpusDiscriminates guards against a vacuous corpus: profiles with a
// rule family removed must score below 100%.
func TestCorpusDiscriminates(t *testing.T) {
	cases := loadCorpus(t)
	for _, drop := range []Raw{RawNeedsInput, RawThinking, RawToolUse, RawBusy} {
		p := Claude
		p.Rules = nil
		for _, r := range Claude.Rules {
			if r.Then != drop {
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
			t.Errorf("claude without %v rules still scores %d/%d", drop, k, n)
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
