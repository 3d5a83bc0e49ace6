package classify

import (
	"strings"
	"testing"
)

func TestProfilesCompile(t *testing.T) {
	for n, p := range Profiles {
		if p.Name != n {
			t.Errorf("Profiles[%q].Name = %q", n, p.Name)
		}
		if _, err := compile(p); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestCompileRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Profile
		want string
	}{
		{"bad regexp", Profile{Name: "x", Rules: []Rule{{Name: "r", Re: "(", Then: RawIdle}}}, "rule r"},
		{"both", Profile{Name: "x", Rules: []Rule{{Name: "r", Re: "a", Sub: "a"}}}, "exactly one"},
		{"neither", Profile{Name: "x", Rules: []Rule{{Name: "r"}}}, "exactly one"},
		{"dup", Profile{Name: "x", Rules: []Rule{{Name: "r", Sub: "a"}, {Name: "r", Sub: "b"}}}, "repeated"},
		{"bad state", Profile{Name: "x", Rules: []Rule{{Name: "r", Sub: "a", Then: 9}}}, "bad state"},
		{"busy default", Profile{Name: "x", BusyDefault: RawBusy}, "BusyDefault"},
		{"bad prompt", Profile{Name: "x", Prompt: "["}, "prompt"},
	} {
		if _, err := compile(tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestRegions(t *testing.T) {
	p, err := compile(Profile{Name: "x", Prompt: `^>`, Block: `^⏺`})
	if err != nil {
		t.Fatal(err)
	}
	v := newView(p, Screen{Title: " T ", Lines: []string{
		"⏺ Bash(ls)", // 0
		"  out",      // 1
		"⏺ text",     // 2
		"",           // 3
		"✻ Busy…",    // 4
		"╭──────╮",   // 5
		"│ >    │",   // 6
		"╰──────╯",   // 7
		"  hint",     // 8
		"",           // 9
	}})
	if v.prompt != 6 || v.rows[6] != ">" || v.title != "T" {
		t.Fatalf("prompt %d rows[6] %q title %q", v.prompt, v.rows[6], v.title)
	}
	eq := func(what string, got []int, want ...int) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: %v, want %v", what, got, want)
				return
			}
		}
	}
	eq("bottom 2", v.region(p, Bottom(2)), 7, 8)
	eq("above prompt 2", v.region(p, AbovePrompt(2)), 2, 4) // skips the border and the blank row
	eq("last block", v.region(p, LastBlock()), 2)
	v.status = 2 // a status row hides the blocks below it
	eq("last block above status", v.region(p, LastBlock()), 0)
	if got := v.above(); got != "⏺ Bash(ls)\nout" {
		t.Errorf("above = %q", got)
	}
}

func TestNotRule(t *testing.T) {
	p, _ := compile(Profile{Name: "x", Rules: []Rule{{Name: "no-prompt", In: Bottom(1), Re: `^>`, Not: true, Then: RawToolUse}}})
	for _, tc := range []struct {
		lines []string
		want  Raw
	}{
		{nil, RawIdle}, // an empty region never matches
		{[]string{"working", ""}, RawToolUse},
		{[]string{"> typed", ""}, RawIdle},
	} {
		if got, _, _ := p.eval(newView(p, Screen{Lines: tc.lines})); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.lines, got, tc.want)
		}
	}
}

func TestBelowPrompt(t *testing.T) {
	p, err := compile(Profile{Name: "x", Prompt: `^>`})
	if err != nil {
		t.Fatal(err)
	}
	v := newView(p, Screen{Lines: []string{"Do you want to proceed?", ">", "", "  hint", "  more"}})
	if got := v.region(p, BelowPrompt(1)); len(got) != 1 || got[0] != 4 {
		t.Errorf("below prompt 1: %v", got)
	}
	if got := v.region(p, BelowPrompt(9)); len(got) != 2 || got[0] != 3 {
		t.Errorf("below prompt 9: %v (the question above the prompt is not below it)", got)
	}
	v = newView(p, Screen{Lines: []string{"Do you want to proceed?", "", "1. Yes"}})
	if got := v.region(p, BelowPrompt(9)); len(got) != 2 || got[0] != 0 {
		t.Errorf("no prompt: %v, want the bottom rows", got)
	}
}

// A busy title alone does not enable IfBusy rules, and a busy hint below
// the prompt does not bound the streaming text.
func TestTitleBusyAndFooterHint(t *testing.T) {
	p, err := compile(Profile{Name: "x", Prompt: `^>`, Rules: []Rule{
		{Name: "tool", In: Bottom(9), Sub: "Bash(", IfBusy: true, Then: RawToolUse},
		{Name: "hint", In: BelowPrompt(1), Sub: "esc to interrupt", Then: RawBusy},
		{Name: "title", In: Title(), Sub: "⠂", Then: RawBusy},
	}})
	if err != nil {
		t.Fatal(err)
	}
	v := newView(p, Screen{Title: "⠂", Lines: []string{"Bash(ls)", "> typed"}})
	if got, _, busy := p.eval(v); got != RawBusy || !busy {
		t.Errorf("title only: %v busy %v, want Busy", got, busy)
	}
	v = newView(p, Screen{Lines: []string{"Bash(ls)", "> typed", "esc to interrupt"}})
	if got, _, _ := p.eval(v); got != RawToolUse {
		t.Errorf("footer hint: %v, want ToolUse", got)
	}
	if got := v.above(); got != "Bash(ls)" {
		t.Errorf("above = %q, want the rows above the prompt", got)
	}
}
