package main

import (
	"slices"
	"testing"

	"github.com/heimdall-tui/heimdall-tui/backend/planning/toollinks"
)

func TestMulticallArgs(t *testing.T) {
	defer func() { progName = "heimdall-tui" }()
	cases := []struct {
		argv []string
		want []string
		prog string
	}{
		{[]string{"/usr/local/bin/heimdall-tui", "ls"}, []string{"ls"}, "heimdall-tui"},
		{[]string{"heimdall-tui"}, []string{}, "heimdall-tui"},
		{[]string{"/x/bin/heimdall-resolve", "F12"}, []string{"resolve", "F12"}, "heimdall-resolve"},
		{[]string{"heimdall-protocol", "demo"}, []string{"protocol", "demo"}, "heimdall-protocol"},
		{[]string{"./heimdall-validate", "--on-receipt"}, []string{"validate", "--on-receipt"}, "heimdall-validate"},
		{[]string{"heimdall-ledger"}, []string{"ledger"}, "heimdall-ledger"},
		{[]string{"/x/heimdall-resolver", "F12"}, []string{"F12"}, "heimdall-tui"},
		{nil, nil, "heimdall-tui"},
	}
	for _, c := range cases {
		progName = "heimdall-tui"
		got := multicallArgs(c.argv)
		if !slices.Equal(got, c.want) || progName != c.prog {
			t.Errorf("multicallArgs(%q) = %q (prog %q), want %q (prog %q)", c.argv, got, progName, c.want, c.prog)
		}
	}
	// Every bash tool name maps to a command of the binary.
	root := newRoot(&app{})
	for _, l := range toollinks.Links {
		name, sub := l.Name, l.Subcommand
		if c, _, err := root.Find([]string{sub}); err != nil || c.Name() != sub {
			t.Errorf("%s -> %q: no such command (%v)", name, sub, err)
		}
	}
}
