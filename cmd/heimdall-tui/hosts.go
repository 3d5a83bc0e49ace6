package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/remote"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
	"github.com/heimdall-tui/heimdall-tui/wire/mux"
)

// followHosts follows the config's [[hosts]] in f: their sessions are
// listed as NAME:ID, each host over one ssh connection (fleet.Host); f's
// Close ends them. $HEIMDALL_SSH names the ssh client (default: ssh on
// PATH).
func followHosts(f *fleet.Fleet, hosts []config.Host) {
	for _, h := range hosts {
		f.FollowHost(fleet.HostOptions{Name: h.Name, Remote: remoteOptions(h)})
	}
}

// hostsWait bounds how long a command waits for each host's first answer.
const hostsWait = 30 * time.Second

// settleHosts waits until every host of f is up with its sessions listed,
// or has failed a first time, within hostsWait.
func settleHosts(f *fleet.Fleet) {
	ctx, cancel := context.WithTimeout(context.Background(), hostsWait)
	defer cancel()
	settled := func() bool {
		for _, h := range f.Hosts() {
			if !h.Up && h.Err == "" {
				return false
			}
		}
		return true
	}
	sub := f.Subscribe()
	defer sub.Close()
	for !settled() {
		if _, err := sub.Next(ctx); err != nil {
			return
		}
	}
}

func newHostsCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "hosts",
		Short: "List the config's [[hosts]]: reached or not (with what ssh said), and their sessions",
		Long: "hosts connects to each host of the config's [[hosts]] as the dashboard does (one ssh\n" +
			"connection each, running heimdall mux there) and prints NAME, SSH, STATE (up or down),\n" +
			"SESSIONS and, for a host that could not be reached, what ssh said. It exits 1 if any is down.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(a.cfg.Hosts) == 0 {
				fmt.Fprintln(a.stdout, "No hosts: add [[hosts]] tables (name, ssh) to the config.")
				return nil
			}
			f, err := a.readerFleet()
			if err != nil {
				return err
			}
			defer f.Close()
			hs := f.Hosts()
			if asJSON {
				if err := json.NewEncoder(a.stdout).Encode(hs); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tSSH\tSTATE\tSESSIONS\tERROR")
				for _, h := range hs {
					state := "down"
					if h.Up {
						state = "up"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", h.Name, h.Dest, state, h.Sessions, h.Err)
				}
				tw.Flush()
			}
			for _, h := range hs {
				if !h.Up {
					return exitCode(1)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// hostOf is the configured host whose sessions' IDs id has the prefix of
// (NAME:), and the rest of id.
func (a *app) hostOf(id string) (config.Host, string, bool) {
	name, rid, ok := strings.Cut(id, ":")
	if !ok {
		return config.Host{}, "", false
	}
	for _, h := range a.cfg.Hosts {
		if h.Name == name {
			return h, rid, true
		}
	}
	return config.Host{}, "", false
}

// connectHost opens a link to h for one command.
func connectHost(h config.Host) (*remote.Link, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hostsWait)
	defer cancel()
	return remote.Connect(ctx, remoteOptions(h), nil)
}

// hostAttachCommand is the command line that attaches a terminal to
// session rid of host h (remote.Link.AttachCommand): the link is
// connected to learn the far end's executable and closed again, so that
// the attach's ssh is the only connection while attached. nil: the far
// end is too old to name it.
func hostAttachCommand(h config.Host, rid string, detach byte) ([]string, error) {
	link, err := connectHost(h)
	if err != nil {
		return nil, err
	}
	defer link.Close()
	return link.AttachCommand(rid, detach), nil
}

// remoteOptions is how host h is reached: its ssh destination and remote
// command, with $HEIMDALL_SSH as the ssh client if set.
func remoteOptions(h config.Host) remote.Options {
	return remote.Options{Dest: h.SSH, Command: h.Command, SSH: os.Getenv("HEIMDALL_SSH")}
}

// lsHost lists the live sessions of the [[hosts]] entry name, as NAME:ID,
// over one link: the sessions its first announcement names, each asked
// for its STATUS on a channel.
func (a *app) lsHost(name string) error {
	h, _, ok := a.hostOf(name + ":")
	if !ok {
		return fmt.Errorf("no host %q in the config's [[hosts]]", name)
	}
	first := make(chan mux.Sessions, 1)
	ctx, cancel := context.WithTimeout(context.Background(), hostsWait)
	defer cancel()
	link, err := remote.Connect(ctx, remoteOptions(h), func(s mux.Sessions) {
		select {
		case first <- s:
		default:
		}
	})
	if err != nil {
		return err
	}
	defer link.Close()
	var ids []string
	select {
	case s := <-first:
		ids = slices.Sorted(slices.Values(s.Added))
	case <-link.Done():
		return link.Err()
	case <-ctx.Done():
		return fmt.Errorf("%s: no list of sessions within %v", name, hostsWait)
	}
	live := 0
	for _, id := range ids {
		st, err := hostStatus(link, id)
		if err != nil {
			continue // gone meanwhile
		}
		live++
		a.lsLine(name+":"+id, st)
	}
	if live == 0 {
		fmt.Fprintln(a.stdout, "No active sessions")
	}
	return nil
}

// hostStatus asks session id over link for its STATUS.
func hostStatus(link *remote.Link, id string) (frame.StatusInfo, error) {
	conn, err := link.Dial(id)
	if err != nil {
		return frame.StatusInfo{}, err
	}
	c, err := frame.NewClient(conn, dialTimeout)
	if err != nil {
		conn.Close()
		return frame.StatusInfo{}, err
	}
	defer c.Close()
	c.Conn().SetDeadline(time.Now().Add(dialTimeout))
	return c.Status()
}
