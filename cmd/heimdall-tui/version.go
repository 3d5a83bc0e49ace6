package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is what `heimdall-tui version` and `--version` print: the
// module's version (a tag, or "(devel)" for a build of a checkout), the
// commit it was built from, with "+dirty" when the tree had changes, and
// the Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "heimdall-tui (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	out := "heimdall-tui " + v
	if rev != "" {
		out += " commit " + rev[:min(len(rev), 12)] + dirty
	}
	return out + " " + bi.GoVersion
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from and the Go version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(a.stdout, version())
			return nil
		},
	}
}
