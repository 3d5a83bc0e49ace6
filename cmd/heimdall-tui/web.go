package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/heimdall-tui/heimdall-tui/backend/config"
	"github.com/heimdall-tui/heimdall-tui/backend/host"
	"github.com/heimdall-tui/heimdall-tui/backend/push"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/backend/webterm"
)

// webShutdownWait bounds how long the web server waits for its
// connections to close when it stops.
const webShutdownWait = 3 * time.Second

func newWebCmd(a *app) *cobra.Command {
	var addr, shell, tlsCert, tlsKey string
	cmd := &cobra.Command{
		Use:   "web",
		Short: "Serve the sessions to browsers: WebSocket terminals and a page",
		Long: "web serves every pty session of the socket dir to browsers over the WebSocket terminal\n" +
			"protocol (/ws/{id}?assistant=KEY joins a session or starts one), and a page at / that lists\n" +
			"them and opens terminals. Sessions started here are the dashboard's too, and keep running\n" +
			"when web stops. Every request needs a token (config [web] token, else the one kept in\n" +
			"$XDG_STATE_HOME/heimdall/web-token, made on first use): open the URL printed, which\n" +
			"carries it once; the page keeps it as a cookie. Requests naming a host other than\n" +
			"loopback's (or config [web] hosts) are refused. [web] no_token = true drops the token\n" +
			"on loopback, letting every local user in. With --tls-cert and --tls-key it serves\n" +
			"https, which a phone's browser needs for Web Push: the page then offers to notify the\n" +
			"device of what waits for you, even with the browser closed ([web] no_push = true: not).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("addr") && a.cfg.Web.Addr != "" {
				addr = a.cfg.Web.Addr
			}
			if tlsCert != "" || tlsKey != "" {
				if tlsCert == "" || tlsKey == "" {
					return usageErr(a, cmd, "--tls-cert and --tls-key go together")
				}
				a.cfg.Web.TLSCert, a.cfg.Web.TLSKey = tlsCert, tlsKey
			}
			var custom []string
			if shell != "" {
				custom = []string{"/bin/sh", "-c", shell}
			}
			return a.web(addr, custom)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", webterm.DefaultAddr, "address to listen on (host:port; default config [web] addr, else "+webterm.DefaultAddr+")")
	cmd.Flags().StringVar(&shell, "shell", "", "command (run with sh -c) of the assistant \"custom\" (display name Custom)")
	cmd.Flags().StringVar(&tlsCert, "tls-cert", "", "serve https with this certificate (PEM; with --tls-key; config [web] tls_cert)")
	cmd.Flags().StringVar(&tlsKey, "tls-key", "", "the certificate's private key (PEM; config [web] tls_key)")
	return cmd
}

// web runs the web server standalone over a fleet of the socket dir until
// SIGINT or SIGTERM.
//
// The port is taken first, before the sessions are adopted: a port in use
// is one line and nothing else. The log is text on a terminal, JSON
// otherwise (a service manager's journal).
func (a *app) web(addr string, custom []string) error {
	var logger *slog.Logger
	if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		logger = slog.New(slog.NewTextHandler(a.stderr, nil))
	} else {
		logger = slog.New(slog.NewJSONHandler(a.stderr, nil))
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	defer l.Close()
	f, _, err := a.openFleet(logger)
	if err != nil {
		return err
	}
	defer f.Close()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	w, err := startWeb(l, a.cfg.Web, custom, f, logger, a.stdout)
	if err != nil {
		return err
	}
	select {
	case <-sigs:
	case err := <-w.done:
		return fmt.Errorf("web: %w", err)
	}
	w.stop(logger)
	f.Close()
	supervisor.ReapOrphans(host.OrphanWait)
	return nil
}

// runningWeb is a web server serving in the background.
type runningWeb struct {
	srv      *webterm.Server
	url      string
	done     chan error // Serve's error, if it stops by itself
	stopOnce sync.Once
}

// startWeb serves f's sessions on l in the background,
// with the token webToken gives. The URL to open (carrying the token) is
// printed once on out, never logged.
func startWeb(l net.Listener, cfg config.Web, custom []string, f webterm.Fleet, logger *slog.Logger, out io.Writer) (*runningWeb, error) {
	addr := l.Addr().String()
	token, err := webToken(addr, cfg)
	if err != nil {
		return nil, err
	}
	hosts := slices.Clone(cfg.Hosts)
	if h, err := os.Hostname(); err == nil && !webterm.Loopback(addr) {
		hosts = append(hosts, h) // the name webURL prints for an unspecified address
	}
	if cfg.TLSCert != "" {
		if _, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey); err != nil {
			return nil, fmt.Errorf("web: the TLS certificate: %w", err)
		}
	}
	var ps *push.Service
	if !cfg.NoPush {
		if ps, err = push.Open(push.Options{Dir: filepath.Join(supervisor.StateDir(), "push"), Logger: logger}); err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
	}
	srv, err := webterm.New(webterm.Options{Fleet: f, Addr: addr, Token: token, NoToken: token == "", Hosts: hosts,
		Origins: cfg.Origins, UploadLimit: cfg.UploadLimit, Custom: custom, Logger: logger, Push: ps})
	if err != nil {
		return nil, err
	}
	https := cfg.TLSCert != ""
	w := &runningWeb{srv: srv, url: webURL(l.Addr().String(), token, https), done: make(chan error, 1)}
	go func() {
		serve := func() error { return srv.Serve(l) }
		if https {
			serve = func() error { return srv.ServeTLS(l, cfg.TLSCert, cfg.TLSKey) }
		}
		if err := serve(); !errors.Is(err, webterm.ErrServerClosed) {
			logger.Error("web server stopped", "err", err)
			w.done <- err
		}
	}()
	logger.Info("web server listening", "addr", l.Addr().String(), "token", token != "")
	fmt.Fprintf(out, "heimdall-tui web: open %s\n", w.url)
	return w, nil
}

// stop shuts the server down (connections closed: pages reconnect to the
// next one); the sessions keep running. It is idempotent.
func (w *runningWeb) stop(logger *slog.Logger) {
	w.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), webShutdownWait)
		defer cancel()
		if err := w.srv.Shutdown(ctx); err != nil {
			logger.Warn("web shutdown", "err", err)
			w.srv.Close()
		}
	})
}

// webToken is the token a server on addr requires: the configured one,
// none when no_token is set (loopback only), else the one kept in the
// state dir (made on first use).
func webToken(addr string, cfg config.Web) (string, error) {
	switch {
	case cfg.Token != "":
		return cfg.Token, nil
	case cfg.NoToken && webterm.Loopback(addr):
		return "", nil
	case cfg.NoToken:
		return "", fmt.Errorf("web: [web] no_token is for loopback only; %s is not loopback", addr)
	}
	return webterm.LoadToken(webTokenPath())
}

// webTokenPath is where the web token is kept.
func webTokenPath() string { return filepath.Join(supervisor.StateDir(), "web-token") }

// webURL is the page's URL for a server listening on addr (an unspecified
// host shows as this machine's name).
func webURL(addr, token string, tls bool) string {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			if h, err := os.Hostname(); err == nil {
				host = h
			}
		}
		addr = net.JoinHostPort(host, port)
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	u := scheme + "://" + addr + "/"
	if token != "" {
		u += "?token=" + token
	}
	return u
}
