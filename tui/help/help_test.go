package help

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/keys"
)

var widths = []int{60, 80, 120, 200}

var styles = []struct {
	name string
	st   *themes.Styles
}{
	{"dark", themes.Build(themes.Dark(), false)},
	{"light", themes.Build(themes.Light(), false)},
}

func TestFullGolden(t *testing.T) {
	km := keys.Default()
	for _, s := range styles {
		for _, w := range widths {
			for _, ctx := range []keys.Context{keys.CtxList, keys.CtxGrid} {
				t.Run(fmt.Sprintf("%s/%s/w%d", s.name, ctx, w), func(t *testing.T) {
					out := Full(s.st, km, ctx, w, 40)
					checkBox(t, out, w, 40)
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

func TestFullCut(t *testing.T) {
	km := keys.Default()
	st := styles[0].st
	for _, w := range widths {
		t.Run(fmt.Sprintf("w%d", w), func(t *testing.T) {
			out := Full(st, km, keys.CtxList, w, 8)
			checkBox(t, out, w, 8)
			lines := strings.Split(ansi.Strip(out), "\n")
			if len(lines) != 8 {
				t.Fatalf("%d lines, want 8 (content is taller)", len(lines))
			}
			if !strings.Contains(lines[7], "pgdown: more (1–7 of ") {
				t.Errorf("last line %q does not say there is more", lines[7])
			}
			golden.RequireEqual(t, out)
			// Scrolled: the lines after, to the end, which says so; a top
			// past the end shows the end.
			next, last := FullAt(st, km, keys.CtxList, w, 8, 7)
			if nl := strings.Split(ansi.Strip(next), "\n"); len(nl) != 8 || nl[0] != strings.Split(ansi.Strip(mustFull(st, km, w)), "\n")[7] {
				t.Errorf("scrolled by 7: %q", nl)
			}
			end, _ := FullAt(st, km, keys.CtxList, w, 8, last+5)
			if el := strings.Split(ansi.Strip(end), "\n"); !strings.Contains(el[7], "pgup: back") {
				t.Errorf("at the end: %q", el[7])
			}
		})
	}
	if got := Full(st, km, keys.CtxList, 0, 10); got != "" {
		t.Errorf("w=0: %q", got)
	}
	if got := Full(st, km, keys.CtxList, 10, 0); got != "" {
		t.Errorf("h=0: %q", got)
	}
}

// mustFull is the whole help at width w, in one piece.
func mustFull(st *themes.Styles, km keys.KeyMap, w int) string {
	return Full(st, km, keys.CtxList, w, 1000)
}

// TestFullListsEverything: with room enough, every binding's help appears,
// focused context first.
func TestFullListsEverything(t *testing.T) {
	km := keys.Default()
	plain := ansi.Strip(Full(styles[0].st, km, keys.CtxGrid, 200, 100))
	for _, c := range keys.Contexts() {
		if !strings.Contains(plain, c.Title()) {
			t.Errorf("no heading %q", c.Title())
		}
		for _, b := range km.Bindings(c) {
			if !strings.Contains(plain, b.Help().Key) || !strings.Contains(plain, b.Desc()) {
				t.Errorf("%s: %s (%s %s) missing", c, b.Action, b.Help().Key, b.Desc())
			}
		}
	}
	if strings.Index(plain, keys.CtxGrid.Title()) > strings.Index(plain, keys.CtxList.Title()) {
		t.Error("focused context (Grid) is not first")
	}
	if !strings.Contains(plain, `ctrl+\`) {
		t.Error("detach key missing")
	}
	// A rebound key shows up.
	if err := km.Override("kill", []string{"K"}); err != nil {
		t.Fatal(err)
	}
	if p := ansi.Strip(Full(styles[0].st, km, keys.CtxList, 200, 100)); !strings.Contains(p, "K  ") {
		t.Error("rebound kill key not shown")
	}
}

func TestFooterGolden(t *testing.T) {
	km := keys.Default()
	for _, s := range styles {
		for _, w := range widths {
			for _, ctx := range []keys.Context{keys.CtxList, keys.CtxGrid, keys.CtxFilter, keys.CtxHelp, keys.CtxDialog} {
				t.Run(fmt.Sprintf("%s/%s/w%d", s.name, ctx, w), func(t *testing.T) {
					out := Footer(s.st, km, ctx, w)
					checkBox(t, out, w, 1)
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

func TestFooterContract(t *testing.T) {
	km := keys.Default()
	st := styles[0].st
	for w := 1; w <= 220; w++ {
		out := Footer(st, km, keys.CtxList, w)
		if got := ansi.StringWidth(out); got != w || strings.Contains(out, "\n") {
			t.Fatalf("w=%d: width %d", w, got)
		}
		plain := strings.TrimRight(ansi.Strip(out), " ")
		if w >= len("? help") && !strings.HasSuffix(plain, "? help") {
			t.Fatalf("w=%d: %q does not end with ? help", w, plain)
		}
		if strings.HasSuffix(plain, " ·") || strings.HasPrefix(plain, "·") {
			t.Fatalf("w=%d: dangling separator in %q", w, plain)
		}
	}
	wide := ansi.Strip(Footer(st, km, keys.CtxList, 300))
	for _, want := range []string{"enter attach", "n new session", "x kill", "q quit"} {
		if !strings.Contains(wide, want) {
			t.Errorf("wide footer %q lacks %q", wide, want)
		}
	}
	if strings.Index(wide, "enter attach") > strings.Index(wide, "n new session") {
		t.Error("session keys should come before global ones in the list footer")
	}
	// Where ? is text (filter) or closes help, no "? help".
	for _, ctx := range []keys.Context{keys.CtxFilter, keys.CtxDialog, keys.CtxHelp} {
		if p := ansi.Strip(Footer(st, km, ctx, 200)); strings.Contains(p, "? help") {
			t.Errorf("%s footer offers ? help: %q", ctx, p)
		}
	}
	if Footer(st, km, keys.CtxList, 0) != "" {
		t.Error("w=0 not empty")
	}
	// The help key follows a rebinding.
	if err := km.Override("help", []string{"f1"}); err != nil {
		t.Fatal(err)
	}
	if p := strings.TrimSpace(ansi.Strip(Footer(st, km, keys.CtxList, 200))); !strings.HasSuffix(p, "f1 help") {
		t.Errorf("rebound help: %q", p)
	}
}

// checkBox asserts at most h lines, each exactly w cells.
func checkBox(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) > h {
		t.Fatalf("%d lines > %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("line %d is %d wide, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
}
