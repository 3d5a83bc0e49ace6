package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle"
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
