package main

// The token-frugal protocol's commands (validate, resolve, capsule, brief,
// blackboard, ledger, gate, protocol): drop-in replacements for the bash
// implementation's heimdall-* tools, over backend/planning. Exit codes: 0
// ok; 1 not found or invalid; 2 usage or I/O error, with a message on
// stderr. Outputs are the bare values the seed shows.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/demo"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/plancli"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/tokens"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/toollinks"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/validate"
)

// planStore opens the planning root ($HEIMDALL_PLANNING_DIR or ./.planning).
func planStore() *planning.Store { return planning.Open(planning.DefaultRoot()) }

// msgIDOf names a message in retry and escalation lines.
func msgIDOf(v validate.Validation) string {
	if v.MsgID == "" {
		return "(no msg_id)"
	}
	return v.MsgID
}

// printEntries prints a table as the bash tools do: id<TAB>value lines.
func printEntries(a *app, entries []planning.Entry) {
	for _, e := range entries {
		fmt.Fprintf(a.stdout, "%s\t%s\n", e.Key, e.Value)
	}
}

// planFail prints err on stderr and returns the exit code. Where there is
// no planning tree at all, it says so, and how to start one: a newcomer's
// "not found" is most often that.
func planFail(a *app, code int, err error) error {
	return exitCode(plancli.Fail(a.planIO(), code, err))
}

// planIO is where a planning command writes, and the name it goes by.
func (a *app) planIO() plancli.IO {
	return plancli.IO{Prog: progName, Tool: progName != toollinks.Binary, Stdout: a.stdout, Stderr: a.stderr}
}

// planExit is a plancli tool's exit status as the command's result.
func planExit(code int) error {
	if code == 0 {
		return nil
	}
	return exitCode(code)
}

// planErr maps a backend error to its exit code: 1 for not found, invalid
// and conflicts; 2 for everything else (I/O, corrupt or foreign state).
func planErr(a *app, err error) error {
	return exitCode(plancli.Err(a.planIO(), err))
}

// usageLine is cmd's usage line as the tool was invoked: through a link
// (heimdall-resolve), with the link's name for the command's.
func usageLine(cmd *cobra.Command) string {
	line := cmd.UseLine()
	if progName == toollinks.Binary || cmd.Parent() == nil {
		return line
	}
	line = strings.TrimPrefix(line, cmd.Parent().CommandPath()+" ")
	words := strings.Split(line, " ")
	for i, w := range words {
		if w == cmd.Name() && (i == 0 || words[i-1] == "|") {
			words[i] = progName
		}
	}
	return strings.Join(words, " ")
}

// usageErr is a usage error: exit 2 with the message and the usage line.
func usageErr(a *app, cmd *cobra.Command, format string, args ...any) error {
	fmt.Fprintf(a.stderr, "%s: %s\nusage: %s\n", progName, fmt.Sprintf(format, args...), usageLine(cmd))
	return exitCode(2)
}

// planArgs checks the number of positional arguments (max < 0: no limit)
// with a usage error (exit 2), where cobra's own check would exit 1.
func planArgs(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			return fmt.Errorf("wrong number of arguments (%d)", len(args))
		}
		return nil
	}
}

// planCmd makes c and its subcommands report flag and argument errors as
// usage errors (exit 2), and gives a group command without a Run one that
// rejects an unknown subcommand with exit 2.
func planCmd(a *app, c *cobra.Command) *cobra.Command {
	if c.Annotations["planCmd"] != "" {
		return c // already prepared (a command reused under protocol)
	}
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations["planCmd"] = "1"
	// The protocol tools never read the dashboard's config (the bash tools
	// they replace have none): a broken or newer config file must not fail
	// or add warnings to an agent's `heimdall-resolve`. This overrides the
	// root's PersistentPreRunE, which loads it.
	c.PersistentPreRunE = func(*cobra.Command, []string) error { return nil }
	c.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageErr(a, cmd, "%v", err)
	})
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, as []string) error {
			if err := args(cmd, as); err != nil {
				return usageErr(a, cmd, "%v", err)
			}
			return nil
		}
	}
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(a, cmd, "missing subcommand")
			}
			return usageErr(a, cmd, "unknown subcommand %q", args[0])
		}
	}
	for _, sub := range c.Commands() {
		planCmd(a, sub)
	}
	return c
}

// println writes lines to stdout.
func (a *app) println(s ...string) {
	for _, l := range s {
		fmt.Fprintln(a.stdout, l)
	}
}

func newValidateCmd(a *app) *cobra.Command {
	var onReceipt bool
	c := &cobra.Command{
		Use:   "validate [--on-receipt]",
		Short: "Validate protocol messages (JSON on stdin) against the message schema",
		Long: "validate reads one JSON message on stdin and prints {\"valid\":bool,\"errors\":[…]}\n" +
			"(exit 0 valid, 1 invalid or unparseable), checked against the installed schema\n" +
			"(protocol/message-schema.json; the built-in one if none is installed).\n\n" +
			"--on-receipt reads one message a line: an invalid or malformed message gets one retry\n" +
			"(a \"retry\" line is printed; the next line is the retry); a second failure escalates:\n" +
			"it is logged to protocol.log and the exit status is 1.",
		Args: planArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			s := planStore()
			v, err := validate.Load(s)
			if err != nil {
				return planErr(a, err)
			}
			if onReceipt {
				return validateOnReceipt(a, s, v)
			}
			msg, err := io.ReadAll(a.stdin)
			if err != nil {
				return planFail(a, 2, fmt.Errorf("read stdin: %w", err))
			}
			res, err := validate.Message(s, v, msg)
			a.println(string(validate.Marshal(res)))
			if err != nil {
				return planErr(a, err)
			}
			if !res.Valid {
				return exitCode(1)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&onReceipt, "on-receipt", false, "one message a line; one retry, then escalate")
	return planCmd(a, c)
}

// validateOnReceipt implements "malformed → one retry → escalate".
func validateOnReceipt(a *app, s *planning.Store, v *validate.Validator) error {
	sc := bufio.NewScanner(a.stdin)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	retrying := false
	var last validate.Validation
	escalate := func() error {
		who := msgIDOf(last)
		if err := s.Log("validate", "escalate", who+" invalid after one retry: "+strings.Join(last.Errors, "; ")); err != nil {
			return planErr(a, err)
		}
		a.errorf("escalate: message %s invalid after one retry (logged to protocol.log)", who)
		return exitCode(1)
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		res, err := validate.Message(s, v, line)
		a.println(string(validate.Marshal(res)))
		if err != nil {
			return planErr(a, err)
		}
		switch {
		case res.Valid:
			retrying = false
		case retrying:
			last = res
			return escalate()
		default:
			retrying, last = true, res
			who := msgIDOf(res)
			if err := s.Log("validate", "retry", who); err != nil {
				return planErr(a, err)
			}
			a.println("retry: message " + who + " is invalid; send it again on the next line")
		}
	}
	if err := sc.Err(); err != nil {
		return planFail(a, 2, fmt.Errorf("read stdin: %w", err))
	}
	if retrying {
		// The retry never came: that is the second failure.
		return escalate()
	}
	return nil
}

func newResolveCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:                "resolve ID | resolve set ID VALUE | resolve --reverse VALUE | resolve list",
		Short:              "Symbol table: resolve short ids to artifacts and back",
		DisableFlagParsing: true, // plancli parses, as heimdall's resolve does
		RunE: func(cmd *cobra.Command, args []string) error {
			return planExit(plancli.Resolve(a.planIO(), args))
		},
	}
	return planCmd(a, c)
}

func newBlackboardCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "blackboard set KEY VALUE | get KEY | delete KEY | list",
		Short: "Shared key→value facts (blackboard.json)",
		Args:  planArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			b := planStore().Blackboard()
			switch {
			case args[0] == "set" && len(args) == 3:
				if err := b.Set(args[1], args[2]); err != nil {
					return planErr(a, err)
				}
			case args[0] == "get" && len(args) == 2:
				v, err := b.Get(args[1])
				if err != nil {
					return planErr(a, err)
				}
				a.println(v)
			case (args[0] == "delete" || args[0] == "del" || args[0] == "rm") && len(args) == 2:
				if err := b.Delete(args[1]); err != nil {
					return planErr(a, err)
				}
			case args[0] == "list" && len(args) == 1:
				entries, err := b.List()
				if err != nil {
					return planErr(a, err)
				}
				printEntries(a, entries)
			default:
				return usageErr(a, cmd, "bad arguments %q", args)
			}
			return nil
		},
	}
	c.Flags().SetInterspersed(false)
	return planCmd(a, c)
}

func newCapsuleCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "capsule",
		Short: "Context capsules: ≤10-line summaries, hydrated by dependency closure",
	}
	var cp planning.Capsule
	var depends string
	write := &cobra.Command{
		Use:   "write ID --what TEXT --where REF [--decision TEXT] [--gotcha TEXT] [--depends A,B]",
		Short: "Write a capsule (over 10 lines is rejected)",
		Args:  planArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cp.What == "" || cp.Where == "" {
				return usageErr(a, cmd, "--what and --where are required")
			}
			cp.ID = args[0]
			cp.Depends = planning.SplitList(depends)
			err := planStore().Capsules().Write(cp)
			if errors.Is(err, planning.ErrTooLong) {
				// Over the line cap: the seed's "rejected", exit 2.
				return planFail(a, 2, err)
			}
			if err != nil {
				return planErr(a, err)
			}
			return nil
		},
	}
	f := write.Flags()
	f.StringVar(&cp.What, "what", "", "what was done")
	f.StringVar(&cp.Where, "where", "", "where (a symbol id or path)")
	f.StringVar(&cp.Decision, "decision", "", "the decision taken")
	f.StringVar(&cp.Gotcha, "gotcha", "", "the gotcha to remember")
	f.StringVar(&depends, "depends", "", "capsule ids this one depends on, comma-separated")

	hydrate := &cobra.Command{
		Use:   "hydrate ID...",
		Short: "Print the transitive depends closure of the capsules, dependencies first",
		Args:  planArgs(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := planStore().Capsules().Hydrate(args...)
			if err != nil {
				return planErr(a, err)
			}
			fmt.Fprint(a.stdout, text)
			return nil
		},
	}
	deps := &cobra.Command{
		Use:   "deps ID...",
		Short: "Print the ids of the closure, dependencies first",
		Args:  planArgs(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			order, err := planStore().Capsules().Closure(args...)
			if err != nil {
				return planErr(a, err)
			}
			for _, cp := range order {
				a.println(cp.ID)
			}
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "Print the capsule ids",
		Args:  planArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := planStore().Capsules().List()
			if err != nil {
				return planErr(a, err)
			}
			a.println(ids...)
			return nil
		},
	}
	c.AddCommand(write, hydrate, deps, list)
	return planCmd(a, c)
}

func newBriefCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "brief",
		Short: "Delta briefs for spawned agents",
	}
	var b planning.BriefSpec
	var symbols, capsules string
	build := &cobra.Command{
		Use:   "build --task T --spec S [--symbols A,B] [--capsules X] [--invariants REF]",
		Short: "Print a brief: the task spec, the named symbols, the capsule closure, the invariants reference",
		Long: "build prints the brief of one task: its spec, each named symbol as ID = value, the\n" +
			"hydrated closure of the named capsules and the invariants reference (echoed, not read).\n" +
			"Nothing else from the planning tree enters a brief.",
		Args: planArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if b.Task == "" || b.Spec == "" {
				return usageErr(a, cmd, "--task and --spec are required")
			}
			b.Symbols, b.Capsules = planning.SplitList(symbols), planning.SplitList(capsules)
			text, err := planStore().BuildBrief(b)
			if err != nil {
				return planErr(a, err)
			}
			fmt.Fprint(a.stdout, text)
			return nil
		},
	}
	f := build.Flags()
	f.StringVar(&b.Task, "task", "", "task id")
	f.StringVar(&b.Spec, "spec", "", "task spec")
	f.StringVar(&symbols, "symbols", "", "symbol ids, comma-separated")
	f.StringVar(&capsules, "capsules", "", "capsule ids, comma-separated")
	f.StringVar(&b.Invariants, "invariants", "", "invariants reference (path), echoed")
	c.AddCommand(build)
	return planCmd(a, c)
}

func newLedgerCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "ledger",
		Short: "Token ledger: measured token costs by role, v1 baselines, deltas",
	}
	logCmd := &cobra.Command{
		Use:   "log --role R --kind K (--tokens N | --text S | --file F) [--msg-id M]",
		Short: "Log the token cost of one message or spawn",
		Long: "log appends one line to protocol/ledger.jsonl. With --text or --file the tokens are\n" +
			"counted with the o200k_base BPE tokenizer (built in, offline).",
		DisableFlagParsing: true, // plancli parses, as heimdall's ledger log does
		RunE: func(cmd *cobra.Command, args []string) error {
			return planExit(plancli.LedgerLog(a.planIO(), args, tokens.Count))
		},
	}

	report := &cobra.Command{
		Use:   "report",
		Short: "Print per-role totals (role<TAB>tokens)",
		Args:  planArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := planStore().Ledger().Report(0)
			if err != nil {
				return planErr(a, err)
			}
			for _, rr := range r.Roles {
				if rr.Entries > 0 {
					fmt.Fprintf(a.stdout, "%s\t%d\n", rr.Role, rr.Tokens)
				}
			}
			return nil
		},
	}
	var brole string
	var btokens int64
	baseline := &cobra.Command{
		Use:   "baseline --role R --tokens N",
		Short: "Record the v1 token count to beat for a role",
		Args:  planArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if brole == "" || !cmd.Flags().Changed("tokens") {
				return usageErr(a, cmd, "--role and --tokens are required")
			}
			if err := planStore().Ledger().SetBaseline(brole, btokens); err != nil {
				return planErr(a, err)
			}
			return nil
		},
	}
	baseline.Flags().StringVar(&brole, "role", "", "role")
	baseline.Flags().Int64Var(&btokens, "tokens", 0, "v1 token count")
	var drole string
	delta := &cobra.Command{
		Use:   "delta --role R",
		Short: "Print the role's measured delta against its v1 baseline",
		Args:  planArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if drole == "" {
				return usageErr(a, cmd, "--role is required")
			}
			d, err := planStore().Ledger().Delta(drole)
			if err != nil {
				return planErr(a, err)
			}
			a.println(d.String())
			return nil
		},
	}
	delta.Flags().StringVar(&drole, "role", "", "role")
	c.AddCommand(logCmd, report, baseline, delta)
	return planCmd(a, c)
}

func newGateCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "gate",
		Short: "Adapter from an H-1 gate report to a gate_report message",
	}
	var report, from, msgID string
	to := &cobra.Command{
		Use:   "to-message --report PATH --from F --msg-id M",
		Short: "Print a gate_report message referencing the report by path",
		Long: "to-message reads only gate_id, status and wave from the report and prints one\n" +
			"schema-valid gate_report message whose report_ref is the report's absolute path.\n" +
			"The report's body and metrics are never inlined.",
		Args: planArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if report == "" || from == "" || msgID == "" {
				return usageErr(a, cmd, "--report, --from and --msg-id are required")
			}
			s := planStore()
			v, err := validate.Load(s)
			if err != nil {
				return planErr(a, err)
			}
			msg, err := validate.Gate(s, v, report, from, msgID)
			if err != nil {
				return planErr(a, err)
			}
			a.println(string(msg))
			return nil
		},
	}
	to.Flags().StringVar(&report, "report", "", "path of the report.json")
	to.Flags().StringVar(&from, "from", "", "sender")
	to.Flags().StringVar(&msgID, "msg-id", "", "message id")
	c.AddCommand(to)
	return planCmd(a, c)
}

func newProtocolCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "protocol",
		Short: "Token-frugal protocol 2.0.0: init, log, demo, and every mechanism's command",
	}
	initCmd := &cobra.Command{
		Use:   "init",
		Short: "Create the planning tree and install the message schema",
		Args:  planArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			s := planStore()
			if err := s.Init(); err != nil {
				return planErr(a, err)
			}
			a.println(fmt.Sprintf("initialized %s (protocol %s)", s.Root(), planning.ProtocolVersion))
			return nil
		},
	}
	logCmd := &cobra.Command{
		Use:   "log [N]",
		Short: "Print the last N lines of protocol.log (default 10)",
		Args:  planArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 10
			if len(args) == 1 {
				v, err := strconv.Atoi(args[0])
				if err != nil || v < 0 {
					return usageErr(a, cmd, "N must be a non-negative integer, not %q", args[0])
				}
				n = v
			}
			lines, err := planStore().Tail(n)
			if err != nil {
				return planErr(a, err)
			}
			a.println(lines...)
			return nil
		},
	}
	var dir string
	demo := &cobra.Command{
		Use:   "demo [--dir DIR]",
		Short: "Run one wave verbatim (v1) and with the protocol (v2); print the measured delta",
		Long: "demo builds one wave — an orchestrator briefing 3 spawns and collecting 3 results —\n" +
			"twice: v1 restating the plan, criteria and context in every brief, and v2 with the\n" +
			"symbol table, delta briefs and typed results. Every figure is counted with the\n" +
			"tokenizer and logged to a scratch planning tree's ledger (DIR if given, kept; else a\n" +
			"temporary one), and the delta is the ledger's own. One line goes to protocol.log.",
		Args: planArgs(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			d := dir
			if d == "" {
				tmp, err := os.MkdirTemp("", "heimdall-demo-")
				if err != nil {
					return planFail(a, 2, err)
				}
				defer os.RemoveAll(tmp)
				d = tmp
			}
			res, err := demo.Run(d)
			if err != nil {
				return planErr(a, err)
			}
			a.println(res.Lines()...)
			if err := planStore().Log("protocol", "demo", res.Delta.Short()); err != nil {
				return planErr(a, err)
			}
			return nil
		},
	}
	demo.Flags().StringVar(&dir, "dir", "", "planning tree for the demo (must be empty; kept)")
	c.AddCommand(initCmd, logCmd, demo,
		newValidateCmd(a), newResolveCmd(a), newCapsuleCmd(a), newBriefCmd(a),
		newBlackboardCmd(a), newLedgerCmd(a), newGateCmd(a))
	return planCmd(a, c)
}
