package vt_test

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/classify/classifytest"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// The classifier corpus (agents' screens: Claude Code, Codex, Aider), each
// case's frames drawn one after another in every style, at a width that
// goes round the corpus's widths from case to case, and repainted at every
// frame's start and at random points: every follower stays equivalent to
// the emulator that saw the whole stream.
func TestRepaintCorpus(t *testing.T) {
	cases, err := classifytest.Load("../classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(3))
	taken, exact := 0, 0
	for k, c := range cases {
		for j, st := range classifytest.Styles {
			cols := classifytest.Widths[(k+j)%len(classifytest.Widths)]
			in, cuts := drawn(c, cols, st, r)
			name := fmt.Sprintf("%s/%s at %d, %s", c.Profile, c.Name, cols, st)
			tk, ex := vt.ReplayWithFollowers(t, name, cols, classifytest.Rows, in, cuts, nil)
			taken += tk
			exact += ex
		}
	}
	if taken < 600 || exact != taken {
		t.Fatalf("%d repaints taken, %d exact", taken, exact)
	}
}

// drawn returns c's frames drawn one after another, and cut points: where
// each frame starts and two random ones.
func drawn(c classifytest.Case, cols int, st classifytest.Style, r *rand.Rand) (in []byte, cuts []int) {
	for i := range c.Frames {
		cuts = append(cuts, len(in))
		in = append(in, c.Draw(i, cols, st)...)
	}
	for range 2 {
		cuts = append(cuts, r.Intn(len(in)))
	}
	slices.Sort(cuts)
	return in, cuts
}
