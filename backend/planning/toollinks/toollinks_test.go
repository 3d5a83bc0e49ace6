package toollinks

import (
	"slices"
	"testing"
)

func TestArgs(t *testing.T) {
	for _, c := range []struct {
		argv, args []string
		tool       string
	}{
		{[]string{"/x/bin/heimdall-resolve", "F12"}, []string{"resolve", "F12"}, "heimdall-resolve"},
		{[]string{"heimdall-ledger", "log"}, []string{"ledger", "log"}, "heimdall-ledger"},
		{[]string{"/x/heimdall-tui", "resolve", "F1"}, []string{"resolve", "F1"}, ""},
		{[]string{"heimdall"}, []string{}, ""},
		{nil, nil, ""},
	} {
		args, tool := Args(c.argv)
		if !slices.Equal(args, c.args) || tool != c.tool {
			t.Errorf("Args(%q) = %q, %q; want %q, %q", c.argv, args, tool, c.args, c.tool)
		}
	}
}
