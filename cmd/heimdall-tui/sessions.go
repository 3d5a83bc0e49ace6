package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// dialTimeout bounds connecting to a session and reading its mode byte.
const dialTimeout = 2 * time.Second

// checkedDir returns the socket dir after refusing one that is not ours
// (owner, mode; see supervisor.CheckDir). A dir that does not exist yet is
// fine: it simply has no sessions.
func (a *app) checkedDir() (string, error) {
	dir := a.dir()
	if _, err := os.Stat(dir); err == nil {
		if err := supervisor.CheckDir(dir); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// dialSession connects to session id of the checked socket dir
// (supervisor.DialSession: ErrNoSession when none runs there; printed as
// "No session found", exit 1).
func (a *app) dialSession(id string) (*frame.Client, error) {
	dir, err := a.checkedDir()
	if err != nil {
		return nil, err
	}
	return supervisor.DialSession(dir, id, dialTimeout)
}

// withSession runs fn on a connection to session id and closes it after.
// A missing session prints "No session found" and exits 1, as hm does. An
// id HOST:ID of a configured [[hosts]] is that host's session, reached
// over one ssh for the command (as the dashboard reaches it).
func (a *app) withSession(id string, fn func(c *frame.Client) error) error {
	if h, rid, ok := a.hostOf(id); ok {
		link, err := connectHost(h)
		if err != nil {
			return err
		}
		defer link.Close()
		conn, err := link.Dial(rid)
		if err != nil {
			if strings.Contains(err.Error(), "no such file") || strings.Contains(err.Error(), "connection refused") {
				fmt.Fprintf(a.stderr, "No session found: %s\n", id)
				return exitCode(1)
			}
			return err
		}
		c, err := frame.NewClient(conn, dialTimeout)
		if err != nil {
			return err
		}
		defer c.Close()
		return fn(c)
	}
	c, err := a.dialSession(id)
	if errors.Is(err, supervisor.ErrNoSession) {
		fmt.Fprintf(a.stderr, "No session found: %s\n", id)
		return exitCode(1)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(c)
}

// sessionIDs lists the ids that have a file in dir (socket, pid file, log
// or record), sorted.
// A missing dir has none.
func sessionIDs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var ids []string
	for _, e := range entries {
		for _, ext := range []string{".sock", ".pid", ".log", ".json"} {
			// A leading dot is never a session's (ValidateID): the
			// dashboard's own files start with one.
			if id, ok := strings.CutSuffix(e.Name(), ext); ok && id != "" && !strings.HasPrefix(id, ".") && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// queryStatus asks the session at sock for its status.
func queryStatus(sock string) (frame.StatusInfo, error) {
	c, err := frame.Dial(sock, dialTimeout)
	if err != nil {
		return frame.StatusInfo{}, err
	}
	defer c.Close()
	c.Conn().SetDeadline(time.Now().Add(dialTimeout))
	return c.Status()
}

func fmtMillis(ms uint32) string {
	return (time.Duration(ms) * time.Millisecond).Round(100 * time.Millisecond).String()
}

func newLsCmd(a *app) *cobra.Command {
	var (
		host string
		all  bool
	)
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List live sessions (and remove stale sockets and pid files)",
		Long: "ls lists this machine's live sessions; with --host NAME, those of the config's\n" +
			"[[hosts]] entry NAME instead (as NAME:ID, over one ssh connection). With --all, after\n" +
			"them, the sessions that no longer run, from their records: ended (with the exit code),\n" +
			"or lost (their supervisor died without recording an end: a reboot, a SIGKILL), which\n" +
			"resume starts again (as a dashboard's R, or A for all).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if host != "" {
				return a.lsHost(host)
			}
			dir, err := a.checkedDir()
			if err != nil {
				return err
			}
			ids, err := sessionIDs(dir)
			if err != nil {
				return err
			}
			live := 0
			for _, id := range ids {
				sock := supervisor.SocketPath(dir, id)
				st, err := queryStatus(sock)
				if err != nil {
					supervisor.RemoveStale(dir, id, supervisor.StaleOptions{})
					continue
				}
				live++
				a.lsLine(id, st)
			}
			if live == 0 {
				fmt.Fprintln(a.stdout, "No active sessions")
			}
			if all {
				past, err := supervisor.PastRecords(dir)
				if err != nil {
					return err
				}
				for _, r := range past {
					a.lsPastLine(r)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&host, "host", "", "list the sessions of this [[hosts]] entry")
	cmd.Flags().BoolVar(&all, "all", false, "also the sessions that ended or were lost")
	return cmd
}

// lsPastLine is ls --all's line for a session that no longer runs, from
// its record: ended, with its exit code and when; or lost, with when its
// supervisor last wrote what it showed and whether the machine has
// rebooted since.
func (a *app) lsPastLine(r supervisor.Record) {
	const stamp = "2006-01-02T15:04:05"
	var state, detail string
	switch {
	case !r.Lost():
		state, detail = "ended", fmt.Sprintf("exit=%d ended=%s", r.ExitCode, r.Ended.Local().Format(stamp))
	case r.Seen != nil:
		state, detail = "lost", "seen="+r.Seen.Local().Format(stamp)
	default:
		state, detail = "lost", "started="+r.Started.Local().Format(stamp)
	}
	if r.Lost() && r.Boot != "" && r.Boot != supervisor.BootID() {
		detail += " rebooted"
	}
	fmt.Fprintf(a.stdout, "%-16s pid=%-7d state=%-9s %s alive=no\n", r.ID, r.PID, state, detail)
}

// lsLine prints one session as ls does.
func (a *app) lsLine(id string, st frame.StatusInfo) {
	alive := "yes"
	if !st.Alive {
		alive = "no"
	}
	fmt.Fprintf(a.stdout, "%-16s pid=%-7d state=%-9s idle=%-8s alive=%s\n",
		id, st.PID, st.State, fmtMillis(st.IdleMS), alive)
}

type statusJSON struct {
	ID        string `json:"id"`
	PID       uint32 `json:"pid"`
	Alive     bool   `json:"alive"`
	State     string `json:"state"`
	StateByte uint8  `json:"state_byte"`
	StateMS   uint32 `json:"state_ms"`
	IdleMS    uint32 `json:"idle_ms"`
	// From the SCREEN extension; absent when the server lacks it.
	Title      *string `json:"title,omitempty"`
	NeedsInput *bool   `json:"needs_input,omitempty"`
	// The agent's own reports (hooks), when it made any: why it waits,
	// done, the error that ended its turn, its tool, its conversation id.
	frame.AgentState
}

// screenTimeout bounds the wait for a SCREEN_RESP: a server without the
// extension ignores the request.
const screenTimeout = 2 * time.Second

func newStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status ID",
		Short: "Show a session's status (pid, state, idle time)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			return a.withSession(id, func(c *frame.Client) error {
				c.Conn().SetDeadline(time.Now().Add(dialTimeout))
				st, err := c.Status()
				if err != nil {
					return fmt.Errorf("status of %q: %w", id, err)
				}
				out := statusJSON{ID: id, PID: st.PID, Alive: st.Alive, State: st.State.String(),
					StateByte: uint8(st.State), StateMS: st.StateMS, IdleMS: st.IdleMS}
				c.Conn().SetDeadline(time.Now().Add(screenTimeout))
				if si, err := c.Screen(false); err == nil {
					out.Title, out.NeedsInput, out.AgentState = &si.Title, &si.NeedsInput, si.AgentState
				}
				if asJSON {
					return json.NewEncoder(a.stdout).Encode(out)
				}
				fmt.Fprintf(a.stdout, "id:       %s\npid:      %d\nalive:    %v\nstate:    %s\nstate_ms: %d\nidle_ms:  %d\n",
					id, st.PID, st.Alive, st.State, st.StateMS, st.IdleMS)
				if out.Title != nil {
					fmt.Fprintf(a.stdout, "title:    %s\nneeds_input: %v\n", *out.Title, *out.NeedsInput)
				}
				for _, kv := range [][2]string{{"reason", out.Reason}, {"error", strings.TrimSpace(out.Error + " " + out.ErrorDetails)},
					{"tool", out.Tool}, {"conversation_id", out.Conversation}} {
					if kv[1] != "" {
						fmt.Fprintf(a.stdout, "%s: %s\n", kv[0], kv[1])
					}
				}
				if out.Done {
					fmt.Fprintln(a.stdout, "done:     true")
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newScreenCmd(a *app) *cobra.Command {
	var ansi bool
	cmd := &cobra.Command{
		Use:   "screen ID",
		Short: "Print a session's current screen as its terminal emulator shows it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			return a.withSession(id, func(c *frame.Client) error {
				c.Conn().SetDeadline(time.Now().Add(screenTimeout))
				si, err := c.Screen(ansi)
				if err != nil {
					return fmt.Errorf("screen of %q (does its server support SCREEN?): %w", id, err)
				}
				fmt.Fprintln(a.stdout, si.Screen)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&ansi, "ansi", false, "keep colours and attributes (SGR sequences)")
	return cmd
}

func newKillCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "kill ID",
		Short: "Kill a session: SIGTERM to its process group, SIGKILL after the grace",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			return a.withSession(id, func(c *frame.Client) error {
				if err := c.Kill(); err != nil {
					return fmt.Errorf("kill %q: %w", id, err)
				}
				fmt.Fprintf(a.stdout, "Sent KILL to %s\n", id)
				return nil
			})
		},
	}
}

func newSendCmd(a *app) *cobra.Command {
	var noEnter bool
	cmd := &cobra.Command{
		Use:   "send ID TEXT...",
		Short: "Type TEXT and Enter into a session, as the dashboard's :send (for scripts and other agents)",
		Long: "send types TEXT (the arguments joined by spaces) into session ID's terminal, then Enter\n" +
			"(--no-enter: not). It prints nothing and exits 0 once the session has taken it. Text that\n" +
			"starts with - goes after --: heimdall-tui send build -- --help",
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, text := args[0], strings.Join(args[1:], " ")
			if !noEnter {
				text += "\r"
			}
			return a.withSession(id, func(c *frame.Client) error {
				if err := c.Input([]byte(text)); err != nil {
					return fmt.Errorf("send to %q: %w", id, err)
				}
				// A reply after it: the session has read the input.
				if _, err := c.Status(); err != nil {
					return fmt.Errorf("send to %q: %w", id, err)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&noEnter, "no-enter", false, "type TEXT without Enter after it")
	return cmd
}

func newAttachCmd(a *app) *cobra.Command {
	var key string
	cmd := &cobra.Command{
		Use:   "attach ID",
		Short: "Attach this terminal to a session (Ctrl-\\ detaches)",
		Long: "attach hands this terminal to a session until the detach key (Ctrl-\\ unless --detach-key\n" +
			"says otherwise) or the session's end. A session of another host (HOST:ID) is attached with\n" +
			"`ssh -t HOST heimdall attach ID`, an ssh connection of its own while attached.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			detach, err := attach.ParseDetachKey(key)
			if err != nil {
				return err
			}
			opts := attach.Options{In: a.stdin, Out: outFile(a), DetachKey: detach}
			if h, rid, ok := a.hostOf(id); ok {
				argv, err := hostAttachCommand(h, rid, detach)
				if err != nil {
					return err
				}
				if argv != nil {
					// The far end's attach says "detached" or how the
					// session ended on this terminal itself.
					res, err := attach.RunCommand(argv, opts)
					if err == nil && res.Exited {
						return exitCode(res.Code)
					}
					return err
				}
			}
			return a.withSession(id, func(c *frame.Client) error {
				ep, err := attach.NewSocket(c)
				if err != nil {
					return fmt.Errorf("attach %q: %w", id, err)
				}
				res, err := attach.Run(ep, opts)
				if err != nil {
					return fmt.Errorf("attach %q: %w", id, err)
				}
				line, code := res.Said()
				fmt.Fprintln(a.stderr, line)
				if code != 0 {
					return exitCode(code)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&key, "detach-key", `ctrl-\`, "the key that detaches: ctrl-\\, ctrl-], ^A, 0x1d, ...")
	return cmd
}

func newCleanCmd(a *app) *cobra.Command {
	var (
		olderThan time.Duration
		force     bool
	)
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "List (or with --force remove) stale sockets, pid files and orphan session logs",
		Long: "clean lists the files in the socket dir that no live session owns: stale sockets (nobody\n" +
			"accepts on them, or a plain file in their place), pid files whose owner is gone, and the logs\n" +
			"of sessions that have neither a socket nor a pid file left. With --force it removes them and\n" +
			"ends with \"Cleaned N log file(s)\", as hm does; with nothing to remove it says \"Nothing to clean\".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := a.checkedDir()
			if err != nil {
				return err
			}
			ids, err := sessionIDs(dir)
			if err != nil {
				return err
			}
			cutoff := time.Now().Add(-olderThan)
			old := func(p string) bool {
				fi, err := os.Lstat(p)
				return err == nil && !fi.ModTime().After(cutoff)
			}
			n, logs := 0, 0
			for _, id := range ids {
				// The log goes only if everything else of the id goes: a
				// log is an orphan once no .sock and no .pid are left.
				done, err := supervisor.RemoveStale(dir, id, supervisor.StaleOptions{Log: true, May: old, DryRun: !force})
				if err != nil {
					a.errorf("%s: %v", id, err)
				}
				for _, p := range done {
					n++
					if !force {
						fmt.Fprintf(a.stdout, "would remove %s\n", p)
						continue
					}
					fmt.Fprintf(a.stdout, "removed %s\n", p)
					if p == supervisor.LogPath(dir, id) {
						logs++
					}
				}
			}
			switch {
			case n == 0:
				fmt.Fprintln(a.stdout, "Nothing to clean")
			case force:
				fmt.Fprintf(a.stdout, "Cleaned %d log file(s)\n", logs)
			default:
				fmt.Fprintln(a.stdout, "(use --force to remove them)")
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&olderThan, "older-than", 0, "only files last modified longer ago than this (e.g. 24h)")
	cmd.Flags().BoolVar(&force, "force", false, "remove instead of listing")
	return cmd
}
