package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/planning/toollinks"
)

// progName prefixes the planning commands' error messages: the name the
// binary was invoked as, so heimdall-resolve's errors read as before.
var progName = toollinks.Binary

// multicallArgs turns argv into the CLI's arguments (toollinks.Args),
// setting progName to the tool's name when argv[0] names one.
func multicallArgs(argv []string) []string {
	args, tool := toollinks.Args(argv)
	if tool != "" {
		progName = tool
	}
	return args
}

func newInstallLinksCmd(a *app) *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "install-links DIR",
		Short: "Create heimdall-resolve, heimdall-ledger, ... links to the executables in DIR",
		Long: "install-links creates, in DIR, one symbolic link per tool of the bash implementation\n" +
			"(heimdall-validate, -resolve, -capsule, -brief, -blackboard, -ledger, -gate, -protocol,\n" +
			"-haid, -claim, -ledger-mcp),\n" +
			"each pointing at heimdall beside this binary (which answers resolve and ledger log itself,\n" +
			"fast, and hands the rest to heimdall-tui), or at this binary where heimdall is not beside\n" +
			"it; invoked through a link, the executable behaves as that tool. An existing link to the\n" +
			"same executable is kept; anything else in the way is an error unless --force replaces it.",
		Args: planArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			exe, err := supervisorExe() // heimdall beside, else this one
			if err == nil {
				exe, err = filepath.EvalSymlinks(exe)
			}
			if err != nil {
				return planFail(a, 2, fmt.Errorf("find this binary: %w", err))
			}
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return planFail(a, 2, err)
			}
			names := make([]string, 0, len(toollinks.Links))
			for _, l := range toollinks.Links {
				names = append(names, l.Name)
			}
			sort.Strings(names)
			for _, n := range names {
				link := filepath.Join(dir, n)
				if cur, err := os.Readlink(link); err == nil && cur == exe {
					fmt.Fprintln(a.stdout, link)
					continue
				} else if _, lerr := os.Lstat(link); lerr == nil {
					if !force {
						return planFail(a, 2, fmt.Errorf("%s exists (use --force to replace it)", link))
					}
					if err := os.Remove(link); err != nil {
						return planFail(a, 2, err)
					}
				} else if !errors.Is(lerr, fs.ErrNotExist) {
					return planFail(a, 2, lerr)
				}
				if err := os.Symlink(exe, link); err != nil {
					return planFail(a, 2, err)
				}
				fmt.Fprintln(a.stdout, link)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&force, "force", false, "replace existing files")
	return planCmd(a, c)
}
