package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle"
	"github.com/heimdall-tui/heimdall-tui/backend/heddle/client"
	"github.com/heimdall-tui/heimdall-tui/tui/dialog"
	wire "github.com/heimdall-tui/heimdall-tui/wire/heddle"
)

func newHeddleHeadlessCmd(a *app) *cobra.Command {
	var logLevel string
	cmd := &cobra.Command{
		Use:   "heddle-headless",
		Short: "Be a heddle worker: heddle's headless protocol (0.2.0) on stdin/stdout",
		Long: "heddle-headless serves one agent session over heddle's headless protocol (JSON lines:\n" +
			"init, send, status, cancel, shutdown on stdin; init_ok, event, result, status_ok,\n" +
			"shutdown_ok on stdout), so orchestrators that embed heddle workers can run it unchanged.\n" +
			"The agent loop streams from an OpenAI-compatible endpoint and runs read_file, write_file,\n" +
			"edit_file, glob, grep and bash in the working directory.\n\n" +
			"Environment: HEDDLE_BASE_URL (default " + "https://openrouter.ai/api/v1" + "), OPENROUTER_API_KEY (Bearer\n" +
			"token), HEDDLE_HOME (state directory, default ~/.heddle: sessions/<id>.jsonl),\n" +
			"HEDDLE_PROTOCOL_VERSION (the version advertised), HEDDLE_HEARTBEAT_INTERVAL (ms, default 5000).\n" +
			"Logs (JSON) go to stderr; stdout carries the protocol only.",
		Args: cobra.NoArgs,
		// Not heimdall's config: a worker is configured by its environment.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(*cobra.Command, []string) error {
			return a.heddleHeadless(logLevel)
		},
	}
	cmd.Flags().StringVar(&logLevel, "log-level", "warn", "stderr log level: debug, info, warn or error")
	return cmd
}

func (a *app) heddleHeadless(logLevel string) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	cfg, err := heddle.ConfigFromEnv(os.Getenv, dir)
	if err != nil {
		a.errorf("%v", err)
		return exitCode(2)
	}
	cfg.Logger = slog.New(slog.NewJSONHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	return heddle.New(cfg).Serve(a.stdin, a.stdout)
}

type heddleRunOptions struct {
	worker, model, systemPrompt, taskID, workerID, dir string
	tools                                              []string
	maxIterations                                      int
	jsonOut, status                                    bool
}

func newHeddleCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "heddle",
		Short: "Drive heddle workers (heddle's headless protocol)",
		Args:  cobra.NoArgs,
	}
	var o heddleRunOptions
	run := &cobra.Command{
		Use:   "run [flags] [MESSAGE...]",
		Short: "Start a heddle worker, send it each MESSAGE in turn, print the answers, shut it down",
		Long: "run starts a heddle worker (--worker, else config [heddle] command, else this binary's\n" +
			"heddle-headless), sends init (model, system prompt, tools, max_iterations, task_id,\n" +
			"worker_id), checks its protocol version (same major), then sends each MESSAGE (none:\n" +
			"standard input, as one message) and prints the answer as it streams; tool calls,\n" +
			"errors (with their code and whether a retry may help) and usage go to stderr. Ctrl-C\n" +
			"cancels the message in flight; a second one stops. With --json every line the worker\n" +
			"writes about a send is printed as is; --status asks for the worker's status at the end.\n" +
			"Exit status 1 if a send failed.",
		RunE: func(c *cobra.Command, args []string) error { return a.heddleRun(o, args) },
	}
	f := run.Flags()
	f.StringVar(&o.worker, "worker", "", "worker command (split like a shell; default config [heddle] command, else heimdall-tui heddle-headless)")
	f.StringVar(&o.model, "model", "", "model (default config [heddle] model)")
	f.StringVar(&o.systemPrompt, "system-prompt", "", "system prompt (default config [heddle] system_prompt)")
	f.StringSliceVar(&o.tools, "tools", nil, "tools to enable (default config [heddle] tools, else all six)")
	f.IntVar(&o.maxIterations, "max-iterations", 0, "max agent loop iterations (default config [heddle] max_iterations, else the worker's)")
	f.StringVar(&o.taskID, "task-id", "", "task_id for correlation")
	f.StringVar(&o.workerID, "worker-id", "", "worker_id for correlation")
	f.StringVar(&o.dir, "dir", "", "the worker's working directory (default the current one)")
	f.BoolVar(&o.jsonOut, "json", false, "print the worker's events and results as JSON lines")
	f.BoolVar(&o.status, "status", false, "ask the worker's status after the messages (model, messages, session, active)")
	cmd.AddCommand(run)
	return cmd
}

func (a *app) heddleRun(o heddleRunOptions, messages []string) error {
	c := a.cfg.Heddle
	argv := heddleCommand(c)
	if o.worker != "" {
		var err error
		if argv, err = dialog.SplitCommand(o.worker); err != nil || len(argv) == 0 {
			return fmt.Errorf("--worker: %q is not a command (%v)", o.worker, err)
		}
	}
	model, prompt, tools, maxIter := c.Model, c.SystemPrompt, c.Tools, c.MaxIterations
	if o.model != "" {
		model = o.model
	}
	if o.systemPrompt != "" {
		prompt = o.systemPrompt
	}
	if o.tools != nil {
		tools = o.tools
	}
	if tools == nil {
		tools = fleet.DefaultHeddleTools
	}
	if o.maxIterations > 0 {
		maxIter = o.maxIterations
	}
	if model == "" {
		a.errorf("no model: --model, or config [heddle] model")
		return exitCode(2)
	}
	if len(messages) == 0 {
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return err
		}
		if m := strings.TrimSpace(string(b)); m != "" {
			messages = []string{m}
		}
	}
	r := &heddleRunner{a: a, json: o.jsonOut, results: make(chan wire.Result, 1)}
	cl, err := client.Start(client.Options{Argv: argv, Dir: o.dir, Env: heddleEnv(c)}, client.Handler{
		Event: r.event, Result: r.result, Garbage: r.garbage,
	})
	if err != nil {
		return err
	}
	defer func() {
		cl.Close()
		<-cl.Done()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	ok, err := cl.Init(ctx, wire.InitConfig{Model: model, SystemPrompt: &prompt, Tools: tools, MaxIterations: maxIter, TaskID: o.taskID, WorkerID: o.workerID})
	cancel()
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "heddle worker · %s · protocol %s · session %s\n", model, ok.ProtocolVersion, ok.SessionID)

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	failed := false
	for _, msg := range messages {
		id, err := cl.Send(msg)
		if err != nil {
			return err
		}
		res, stop := r.wait(cl, id, sigs)
		if stop {
			a.errorf("stopped")
			return exitCode(130)
		}
		if res.Status != wire.ResultOK {
			failed = true
			if res.Error != nil && res.Error.Code == wire.CodeCancelled {
				break
			}
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if o.status {
		st, err := cl.Status(ctx)
		if err != nil {
			return err
		}
		if o.jsonOut {
			r.printJSON(st)
		} else {
			fmt.Fprintf(a.stderr, "· status: model %s, %d messages, session %s, active %v\n", st.Model, st.MessagesCount, st.SessionID, st.Active)
		}
	}
	if err := cl.Shutdown(ctx); err != nil {
		return err
	}
	if failed {
		return exitCode(1)
	}
	return nil
}

// heddleRunner prints what a worker says about `heddle run`'s sends.
type heddleRunner struct {
	a       *app
	json    bool
	results chan wire.Result
	mu      sync.Mutex
	midLine bool // stdout's last write did not end a line
}

// wait waits for send id's result; the first interrupt cancels it, the
// second stops (stop true). A worker that exits first ends the wait with
// an error result.
func (r *heddleRunner) wait(cl *client.Client, id string, sigs <-chan os.Signal) (res wire.Result, stop bool) {
	cancelled := false
	for {
		select {
		case res := <-r.results:
			if res.ID == id {
				return res, false
			}
		case <-sigs:
			if cancelled {
				return wire.Result{}, true
			}
			cancelled = true
			cl.Cancel(id) // a refusal (the send ended meanwhile) is printed as a result of another id
		case <-cl.Done():
			select {
			case res := <-r.results:
				return res, false
			default:
			}
			msg := "the worker exited"
			if err := cl.Err(); err != nil {
				msg = err.Error()
			}
			r.a.errorf("%s", msg)
			return wire.Result{Status: wire.ResultError}, false
		}
	}
}

func (r *heddleRunner) printJSON(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(r.a.stdout, "%s\n", b)
}

// endLine ends stdout's line if an answer is on it (r.mu held).
func (r *heddleRunner) endLine() {
	if r.midLine {
		fmt.Fprintln(r.a.stdout)
		r.midLine = false
	}
}

func (r *heddleRunner) event(ev wire.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.json {
		r.printJSON(ev)
		return
	}
	switch e := ev.Event.(type) {
	case wire.ContentDelta:
		fmt.Fprint(r.a.stdout, e.Text)
		r.midLine = !strings.HasSuffix(e.Text, "\n")
	case wire.ToolStart:
		r.endLine()
		fmt.Fprintf(r.a.stderr, "› %s %s\n", e.Name, e.Args)
	case wire.ToolEnd:
		fmt.Fprintf(r.a.stderr, "‹ %s\n", strings.ReplaceAll(e.ResultPreview, "\n", " ⏎ "))
	case wire.ErrorEvent:
		r.endLine()
		fmt.Fprintf(r.a.stderr, "! %s\n", errorLine(e.Code, e.Message, e.Retryable))
	case wire.PermissionRequest:
		fmt.Fprintf(r.a.stderr, "? permission requested: %s — %s\n", e.Name, e.Reason)
	case wire.PermissionDenied:
		fmt.Fprintf(r.a.stderr, "! permission denied: %s — %s\n", e.Name, e.Reason)
	case wire.PlanComplete:
		r.endLine()
		fmt.Fprintf(r.a.stdout, "plan:\n%s\n", e.Plan)
	case wire.ContextPrune:
		fmt.Fprintf(r.a.stderr, "· context pruned: %d messages, %d → %d tokens\n", e.MessagesPruned, e.TokensBefore, e.TokensAfter)
	}
}

func errorLine(code, msg string, retryable bool) string {
	r := "not retryable"
	if retryable {
		r = "retryable"
	}
	return fmt.Sprintf("%s (%s): %s", code, r, msg)
}

func (r *heddleRunner) result(res wire.Result) {
	r.mu.Lock()
	if r.json {
		r.printJSON(res)
	} else {
		r.endLine()
		if res.Status != wire.ResultOK && res.Error != nil {
			fmt.Fprintf(r.a.stderr, "! %s\n", errorLine(res.Error.Code, res.Error.Message, res.Error.Retryable))
		}
		if res.Usage != nil {
			fmt.Fprintf(r.a.stderr, "· %d iteration(s), %d tool call(s), tokens %d in + %d out = %d\n", res.Iterations, len(res.ToolCallsMade),
				res.Usage.PromptTokens, res.Usage.CompletionTokens, res.Usage.TotalTokens)
		}
	}
	r.mu.Unlock()
	r.results <- res
}

func (r *heddleRunner) garbage(line string, err error) {
	r.a.errorf("the worker wrote a line that is not the protocol: %q (%v)", line, err)
}
