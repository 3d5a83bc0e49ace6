package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/inbox"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// readerFleet opens the socket dir's fleet to read it — it starts no
// session and forgets no record — with the config's hosts followed and
// settled (each up with its sessions, or failed once).
func (a *app) readerFleet() (*fleet.Fleet, error) {
	dir, err := filepath.Abs(a.dir())
	if err != nil {
		return nil, err
	}
	f, err := fleet.New(fleet.Options{Dir: dir, Config: a.cfg, Reader: true})
	if err != nil {
		return nil, err
	}
	followHosts(f, a.cfg.Hosts)
	settleHosts(f)
	return f, nil
}

// watchFleet calls fn with the sessions of a readerFleet now and after
// every change until fn returns done, ctx ends (its error), or
// SIGINT/SIGTERM (context.Canceled).
func (a *app) watchFleet(ctx context.Context, fn func(*fleet.Fleet, []session.Info) (done bool, err error)) error {
	f, err := a.readerFleet()
	if err != nil {
		return err
	}
	defer f.Close()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	for {
		if done, err := fn(f, f.Sessions()); done || err != nil {
			return err
		}
		if _, err := f.Next(ctx); err != nil {
			return err
		}
	}
}

func newInboxCmd(a *app) *cobra.Command {
	var asJSON, watch bool
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "List what wants you: sessions that need input, failed, or finished a turn you have not seen",
		Long: "inbox lists, newest first, every session that waits for you (with why: the tool and its\n" +
			"command, or the agent's question), whose last turn failed or that exited with a failure,\n" +
			"and whose turn ended while you were not looking (with the first line of its answer).\n" +
			"--json prints a JSON array (each item with the last rows of its session's screen);\n" +
			"--watch prints the list, then each change as it comes (+ added, ~ its reason said more\n" +
			"precisely, - gone; with --json a JSON object a line, {\"change\":\"added\"|\"updated\"|\n" +
			"\"removed\",\"item\":{…}}) until interrupted.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var shown map[string]inbox.Item
			err := a.watchFleet(context.Background(), func(f *fleet.Fleet, infos []session.Info) (bool, error) {
				items := inbox.Items(infos)
				peek := func(it inbox.Item) jsonItem {
					rows, _ := f.Peek(it.Session, previewRows)
					return jsonItem{Item: it, Preview: rows}
				}
				if shown == nil {
					shown = map[string]inbox.Item{}
					for _, it := range items {
						shown[it.Key()] = it
					}
					if asJSON {
						out := []jsonItem{}
						for _, it := range items {
							out = append(out, peek(it))
						}
						if err := json.NewEncoder(a.stdout).Encode(out); err != nil {
							return true, err
						}
					} else {
						printItems(a.stdout, items, time.Now())
					}
					return !watch, nil
				}
				return false, printChanges(a.stdout, shown, items, asJSON, peek)
			})
			if errors.Is(err, context.Canceled) {
				return nil // interrupted: how --watch ends
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&watch, "watch", false, "go on printing each change until interrupted")
	return cmd
}

// jsonItem is an item as --json prints it, with the last rows of its
// session's screen that have text.
type jsonItem struct {
	inbox.Item
	Preview []string `json:"preview,omitempty"`
}

// previewRows is how many rows of a session's screen an item shows.
const previewRows = 6

// printItems prints items as a table (or says there are none).
func printItems(w io.Writer, items []inbox.Item, now time.Time) {
	if len(items) == 0 {
		fmt.Fprintln(w, "Nothing waits for you.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGE\tSESSION\tKIND\tREASON")
	for _, it := range items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", it.Age(now), it.Session, it.Kind, it.Reason)
	}
	tw.Flush()
}

// printChanges prints the items added to, updated in (a new reason) and
// removed from shown (which it updates), removals first.
func printChanges(w io.Writer, shown map[string]inbox.Item, items []inbox.Item, asJSON bool, peek func(inbox.Item) jsonItem) error {
	now := map[string]inbox.Item{}
	for _, it := range items {
		now[it.Key()] = it
	}
	emit := func(change string, it inbox.Item) error {
		if asJSON {
			ji := jsonItem{Item: it}
			if change != "removed" {
				ji = peek(it)
			}
			return json.NewEncoder(w).Encode(struct {
				Change string   `json:"change"`
				Item   jsonItem `json:"item"`
			}{change, ji})
		}
		sign := map[string]string{"added": "+", "removed": "-", "updated": "~"}[change]
		_, err := fmt.Fprintf(w, "%s %s %s %s\n", sign, it.Session, it.Kind, it.Reason)
		return err
	}
	for k, it := range shown {
		if _, ok := now[k]; !ok {
			delete(shown, k)
			if err := emit("removed", it); err != nil {
				return err
			}
		}
	}
	for i := len(items) - 1; i >= 0; i-- { // oldest first: the order they came in
		it := items[i]
		was, ok := shown[it.Key()]
		change := "added"
		switch {
		case ok && was.Reason == it.Reason:
			continue
		case ok:
			change = "updated" // the same wait, said more precisely (Claude reports a prompt twice)
		}
		shown[it.Key()] = it
		if err := emit(change, it); err != nil {
			return err
		}
	}
	return nil
}

// errTimedOut is `wait`'s timeout (exit 124, as timeout(1)).
var errTimedOut = errors.New("timed out")

func newWaitCmd(a *app) *cobra.Command {
	var forWhat string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait ID --for input|done|idle",
		Short: "Wait until a session needs input, finishes a turn, or is idle (for scripts)",
		Long: "wait returns (exit 0) once session ID meets the condition:\n" +
			"  input  it waits for the user (a permission, a question)\n" +
			"  done   a turn ends normally after the wait began (by the agent's own report), or the session ends\n" +
			"  idle   its agent is idle and not waiting for input, or the session has ended\n" +
			"It exits 1 if there is no such session or it ends before it needs input, and 124 when\n" +
			"--timeout passes first.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			w, err := inbox.ParseWait(forWhat)
			if err != nil {
				return usageErr(a, cmd, "--for: %v", err)
			}
			ctx := context.Background()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			start := time.Now()
			err = a.watchFleet(ctx, func(_ *fleet.Fleet, infos []session.Info) (bool, error) {
				for _, in := range infos {
					if in.ID != id {
						continue
					}
					if w.Holds(in, start) {
						return true, nil
					}
					if !in.Alive {
						return true, fmt.Errorf("session %q ended (exit code %d) before it needed input", id, in.ExitCode)
					}
					return false, nil
				}
				return true, fmt.Errorf("No session found with ID %q", id)
			})
			switch {
			case errors.Is(err, context.DeadlineExceeded):
				a.errorf("wait for %s to be %s: %v after %v", id, w, errTimedOut, timeout)
				return exitCode(124)
			case errors.Is(err, context.Canceled):
				return exitCode(130) // interrupted, as a shell reports it
			}
			return err
		},
	}
	cmd.Flags().StringVar(&forWhat, "for", "", "the condition: input, done or idle (required)")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (exit 124; e.g. 30s, 5m; default: wait on)")
	cmd.MarkFlagRequired("for")
	return cmd
}
