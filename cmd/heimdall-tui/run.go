package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/host"
)

func newRunCmd(a *app) *cobra.Command {
	var o *host.Options
	cmd := &cobra.Command{
		Use:   "run [--detach] --id ID [flags] -- PROG [ARGS...]",
		Short: "Start one program in a pty, served on DIR/ID.sock by a supervisor of its own",
		Long: "run starts PROG in a new pty under a supervisor process of its own, which serves it on\n" +
			"DIR/ID.sock until it exits. Without --detach this terminal is attached to it: Ctrl-\\\n" +
			"detaches and gives the terminal back (the session keeps running; heimdall-tui attach ID\n" +
			"comes back), and when the program exits run exits with its code. With --detach run returns\n" +
			"as soon as the session is served: exit 0 if it started, else the reason and its code.\n" +
			"With --foreground run is the supervisor itself, in the foreground, with no terminal\n" +
			"attached (for service managers and scripts that wait): it exits with the program's code,\n" +
			"and SIGINT/SIGTERM to it kill the session.",
		Example: "  heimdall-tui run --id claude-1 --classifier claude --workdir ~/src/app -- claude\n" +
			"  heimdall-tui run --detach --id build -- make -j8",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Check(a.cfg, args, cmd.ArgsLenAtDash()); err != nil {
				return err
			}
			// The session runs once the command tree is gone (app.then).
			if o.Supervises() {
				a.then = func() error { return a.supervise(*o) }
			} else {
				a.then = func() error { return a.runBackground(*o, !o.Detach) }
			}
			return nil
		},
	}
	o = host.Flags(cmd.Flags())
	cmd.MarkFlagRequired("id")
	return cmd
}

// supervise is run when this process is the session's supervisor
// (host.Run).
func (a *app) supervise(o host.Options) error {
	code, err := host.Run(a.cfg, a.dir(), o, progName, a.stderr)
	var ee host.ExitError
	switch {
	case errors.As(err, &ee):
		return exitCode(ee)
	case err != nil:
		return err
	}
	if code == 0 {
		return nil
	}
	return exitCode(code)
}
