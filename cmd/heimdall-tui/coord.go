package main

// The coordination ledger's commands (haid, claim): drop-in replacements
// for the bash implementation's heimdall-haid and heimdall-claim, over
// backend/coord. Exit codes as the planning commands: 0 ok; 1 conflict,
// not found or invalid; 2 usage or I/O error.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/appendfile"
	"github.com/heimdall-tui/heimdall-tui/backend/coord"
	"github.com/heimdall-tui/heimdall-tui/backend/ledgermcp"
)

// coordLedger opens the ledger of the planning root.
func coordLedger() *coord.Ledger { return coord.Open("") }

// coordErr maps a coord error to its exit code.
func coordErr(a *app, err error) error {
	if errors.Is(err, coord.ErrConflict) || errors.Is(err, coord.ErrInvalid) {
		return planFail(a, 1, err)
	}
	return planErr(a, err)
}

// whoami is the root HAID of this agent.
func whoami() string { return coord.Detect().HAID() }

func newHaidCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "haid whoami | spawn ROLE | register HAID [--role R] | list",
		Short: "Agent identities (HAIDs) and their registry",
		Long: "haid names agents: whoami prints the root HAID haid:{human}.{machine}-{hash4}\n" +
			"(human: the local part of git's user.email, else $USER; machine: hostname -s;\n" +
			"hash4: sha256 of both and the repository root), spawn ROLE prints {root}/{role},\n" +
			"register records a HAID as active in ledger/haid-registry.json, list prints the\n" +
			"registry (haid, role, status, registered_at, last_seen; tab-separated).",
	}
	c.AddCommand(&cobra.Command{
		Use: "whoami", Short: "Print this checkout's root HAID", Args: planArgs(0, 0),
		RunE: func(*cobra.Command, []string) error { a.println(whoami()); return nil },
	}, &cobra.Command{
		Use: "spawn ROLE", Short: "Print the HAID of a role under the root ({root}/{role})", Args: planArgs(1, 1),
		RunE: func(_ *cobra.Command, args []string) error {
			a.println(coord.Spawn(whoami(), args[0]))
			return nil
		},
	}, &cobra.Command{
		Use: "list", Short: "List the registered HAIDs", Args: planArgs(0, 0),
		RunE: func(*cobra.Command, []string) error {
			agents, err := coordLedger().Agents()
			if err != nil {
				return coordErr(a, err)
			}
			for _, g := range agents {
				fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\t%s\n", g.HAID, g.Role, g.Status, g.RegisteredAt, g.LastSeen)
			}
			return nil
		},
	})
	var role string
	reg := &cobra.Command{
		Use: "register HAID [--role R]", Short: "Record a HAID as active in the registry", Args: planArgs(1, 1),
		RunE: func(_ *cobra.Command, args []string) error {
			g, err := coordLedger().Register(args[0], role)
			if err != nil {
				return coordErr(a, err)
			}
			a.println(g.HAID)
			return nil
		},
	}
	reg.Flags().StringVar(&role, "role", "", "role (default: the HAID's /role suffix)")
	c.AddCommand(reg)
	return planCmd(a, c)
}

func newClaimCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "claim claim|list|release|heartbeat|gc",
		Short: "Claims on file surfaces, with a collision gate",
		Long: "claim keeps one claim per HAID in ledger/claims/<haid>.json. claim claim refuses\n" +
			"(exit 1) a surface pattern that overlaps an active claim of another HAID, naming\n" +
			"it; overlap is decided on the glob patterns (src/** overlaps src/a/b.go, a\n" +
			"directory covers its files). Expired claims (heartbeat + ttl past) are ignored\n" +
			"by the gate and removed by gc.",
	}
	var (
		haid, surfaces, task string
		ttl                  int
		asJSON               bool
	)
	me := func() string {
		if haid != "" {
			return haid
		}
		return whoami()
	}
	mk := &cobra.Command{
		Use: "claim --surfaces 'a/**,b.md' --task T [--ttl-minutes N] [--haid H]", Short: "Claim surfaces for a task (exit 1 on a collision)", Args: planArgs(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if surfaces == "" || task == "" {
				return usageErr(a, cmd, "--surfaces and --task are required")
			}
			cl, err := coordLedger().Claim(me(), strings.Split(surfaces, ","), task, ttl)
			if err != nil {
				return coordErr(a, err)
			}
			fmt.Fprintf(a.stdout, "claimed %s for %s (task %s, ttl %dm)\n", strings.Join(cl.ClaimedSurfaces, ","), cl.HAID, cl.TaskRef, cl.TTLMinutes)
			return nil
		},
	}
	mk.Flags().StringVar(&surfaces, "surfaces", "", "comma-separated surface patterns")
	mk.Flags().StringVar(&task, "task", "", "task reference")
	mk.Flags().IntVar(&ttl, "ttl-minutes", coord.DefaultTTL, "lifetime without heartbeat")
	ls := &cobra.Command{
		Use: "list [--json]", Short: "List the active claims", Args: planArgs(0, 0),
		RunE: func(*cobra.Command, []string) error {
			cls, err := coordLedger().Claims()
			if err != nil {
				return coordErr(a, err)
			}
			if asJSON {
				if cls == nil {
					cls = []coord.Claim{}
				}
				b, _ := json.Marshal(cls)
				a.println(string(b))
				return nil
			}
			printClaims(a, cls, time.Now())
			return nil
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "a JSON array of the active claims")
	rel := &cobra.Command{
		Use: "release [--haid H]", Short: "Release a HAID's claim", Args: planArgs(0, 0),
		RunE: func(*cobra.Command, []string) error {
			h := me()
			had, err := coordLedger().Release(h)
			if err != nil {
				return coordErr(a, err)
			}
			if had {
				a.println("released " + h)
			} else {
				a.println("no claim of " + h)
			}
			return nil
		},
	}
	hb := &cobra.Command{
		Use: "heartbeat [--haid H]", Short: "Renew a HAID's claim (its ttl counts from now)", Args: planArgs(0, 0),
		RunE: func(*cobra.Command, []string) error {
			cl, err := coordLedger().Heartbeat(me())
			if err != nil {
				return coordErr(a, err)
			}
			a.println("heartbeat " + cl.HAID + " " + cl.Heartbeat)
			return nil
		},
	}
	gc := &cobra.Command{
		Use: "gc", Short: "Remove expired claims", Args: planArgs(0, 0),
		RunE: func(*cobra.Command, []string) error {
			gone, err := coordLedger().GC()
			if err != nil {
				return coordErr(a, err)
			}
			for _, g := range gone {
				a.println("expired " + g.HAID)
			}
			return nil
		},
	}
	for _, sub := range []*cobra.Command{mk, rel, hb} {
		sub.Flags().StringVar(&haid, "haid", "", "the claiming HAID (default: haid whoami)")
	}
	c.AddCommand(mk, ls, rel, hb, gc)
	return planCmd(a, c)
}

// printClaims prints the human table of claims.
func printClaims(a *app, cls []coord.Claim, now time.Time) {
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HAID\tTASK_REF\tSURFACES\tLEFT")
	for _, c := range cls {
		left := int(c.Expires().Sub(now).Round(time.Minute) / time.Minute)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%dm\n", c.HAID, c.TaskRef, strings.Join(c.ClaimedSurfaces, ","), left)
	}
	tw.Flush()
}

func newLedgerMCPCmd(a *app) *cobra.Command {
	var logPath string
	c := &cobra.Command{
		Use:   "ledger-mcp [--log FILE]",
		Short: "The coordination ledger as an MCP server on stdio (heimdall-ledger-mcp)",
		Long: "ledger-mcp serves the coordination ledger over MCP on stdin/stdout (JSON-RPC 2.0;\n" +
			"newline-delimited or Content-Length framed input, line-delimited output) with six\n" +
			"tools: read_claims, make_claim, release_claim, read_capsules, append_decision,\n" +
			"raise_conflict_pr. Each call is attributed to {haid whoami}/{client}, the client\n" +
			"being initialize's clientInfo.name or the call's client_identity. Logs go to\n" +
			"stderr (warnings) or to --log. It exits 0 at the end of its input.",
		Args: planArgs(0, 0),
		RunE: func(*cobra.Command, []string) error {
			logW, level := a.stderr, slog.LevelWarn
			if logPath != "" {
				f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				if err != nil {
					return planFail(a, 2, err)
				}
				defer f.Close()
				logW, level = appendfile.New(f), slog.LevelInfo
			}
			logger := slog.New(slog.NewTextHandler(logW, &slog.HandlerOptions{Level: level}))
			srv := ledgermcp.New(coordLedger(), whoami()).MCP(logger)
			err := srv.Run(context.Background(), &ledgermcp.Transport{Reader: a.stdin, Writer: a.stdout})
			if err != nil && !errors.Is(err, io.EOF) {
				logger.Warn("session ended", "error", err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&logPath, "log", "", "log file (default: warnings on stderr)")
	return planCmd(a, c)
}
