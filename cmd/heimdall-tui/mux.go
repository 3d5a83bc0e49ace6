package main

import (
	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/remote"
)

// newMuxCmd is `mux`, which the small executable serves itself: here for a
// host where only heimdall-tui is installed.
func newMuxCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:    "mux",
		Short:  "Serve the socket dir's sessions over stdin and stdout (the command a dashboard runs over ssh)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return remote.Serve(remote.Stdio{}, a.dir(), a.cfg, remote.Global(a.dir(), a.cfg))
		},
	}
}
