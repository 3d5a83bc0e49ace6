package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

func newResumeCmd(a *app) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "resume (ID... | --all)",
		Short: "Start lost sessions again, in their agents' conversations where they reported one",
		Long: "resume starts again this machine's sessions that were lost (their supervisor died without\n" +
			"recording an end: a reboot, a SIGKILL; ls --all lists them), as the dashboard's R and A do:\n" +
			"one whose agent reported its conversation (Claude's hooks, an ACP agent's session id) goes on\n" +
			"in it, any other starts again with its command, in its working directory. With --all, every\n" +
			"lost session, one at a time, the config's resume.gap apart. It prints a line a session and\n" +
			"exits 1 if any could not be started (an ID that is running, ended or unknown among them).",
		RunE: func(cmd *cobra.Command, args []string) error {
			if all == (len(args) > 0) {
				return usageErr(a, cmd, "give the IDs of lost sessions, or --all")
			}
			dir, err := a.checkedDir()
			if err != nil {
				return err
			}
			if dir, err = filepath.Abs(dir); err != nil {
				return err
			}
			// A reader: what it saw end stays recorded for the next
			// dashboard; the sessions it starts run on after it exits.
			f, err := fleet.New(fleet.Options{Dir: dir, Config: a.cfg, Supervisor: a.supervisorCommand(dir), Reader: true})
			if err != nil {
				return err
			}
			defer f.Close()
			infos := f.Sessions()
			if all {
				for _, in := range infos {
					if in.Lost && in.Host == "" {
						args = append(args, in.ID)
					}
				}
				slices.Sort(args)
				if len(args) == 0 {
					fmt.Fprintln(a.stdout, "No lost sessions")
					return nil
				}
			}
			failed := false
			var last time.Time // the last start: the next one waits the gap
			for _, id := range args {
				in, err := lostOne(infos, id)
				if err == nil {
					if !last.IsZero() {
						time.Sleep(time.Until(last.Add(a.cfg.Resume.Gap)))
					}
					err = a.startAgain(f, in)
					last = time.Now()
				}
				if err != nil {
					a.errorf("%v", err)
					failed = true
				}
			}
			if failed {
				return exitCode(1)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every lost session")
	return cmd
}

// lostOne is the lost session id of infos, or why it cannot be resumed.
func lostOne(infos []session.Info, id string) (session.Info, error) {
	i := slices.IndexFunc(infos, func(in session.Info) bool { return in.ID == id })
	switch {
	case i < 0:
		return session.Info{}, fmt.Errorf("no session %s", id)
	case infos[i].Alive:
		return session.Info{}, fmt.Errorf("%s is running", id)
	case !infos[i].Lost:
		return session.Info{}, fmt.Errorf("%s ended (exit %d), it was not lost: run starts it anew", id, infos[i].ExitCode)
	}
	return infos[i], nil
}

// startAgain starts the lost session in again (see newResumeCmd) and says
// how.
func (a *app) startAgain(f *fleet.Fleet, in session.Info) error {
	if in.ResumesConversation() {
		if err := f.Resume(in.ID); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s: resumed in its conversation (%s)\n", in.ID, in.Conversation)
		return nil
	}
	if err := f.Restart(in.ID); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: started again: %s\n", in.ID, strings.Join(in.Argv, " "))
	return nil
}
