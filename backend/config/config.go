// Package config loads heimdall-tui's TOML configuration file.
//
// Contract:
//
//   - The file is TOML. [DefaultPath] is $XDG_CONFIG_HOME/heimdall/config.toml
//     when XDG_CONFIG_HOME is set, else ~/.config/heimdall/config.toml.
//   - [Load] with explicit=true (the user passed --config FILE) fails if the
//     file does not exist. With explicit=false a missing file (or an empty
//     path) is not an error: Load returns [Default] with Path == "".
//   - Keys that are absent keep their default value (see [Default]); a file
//     that is present is validated as a whole and the first problem found is
//     returned as an error of the form
//     `config /path/config.toml: key: problem`. TOML syntax and type errors
//     carry the line (and column) and unwrap to [toml.ParseError] where the
//     TOML library produced one, so callers may use ErrorWithPosition.
//   - Keys the program does not know are not errors (forward
//     compatibility): each is returned as a warning of the form
//     `config /path/config.toml: unknown key "foo.bar"`, for the caller to
//     print. Warnings may be returned together with an error.
//   - Array-of-table entries are named in errors with 1-based indexes, e.g.
//     `env[2].name` is the name key of the second [[env]] table.
//   - The package never prints anything and never reads the environment
//     except in [DefaultPath].
//
// Recognised keys (defaults in parentheses):
//
//	scrollback_bytes   = 65536                  # int, > 0
//	kill_process_group = true                   # bool
//	kill_grace         = "5s"                   # duration string, >= 0
//	session_env_var    = "HEIMDALL_SESSION_ID"  # env var name
//	classifier         = "simple"               # "simple" or "claude"
//	idle_threshold     = "2s"                   # duration string, > 0
//	socket_dir         = ""                     # "" = caller decides
//	theme              = ""                     # dashboard theme: dark, light, high-contrast
//	detach_key         = "ctrl-\\"               # leaves a full-screen attach (checked by the dashboard)
//	bell               = false                  # ring the bell when a session starts needing input
//	notify             = ""                     # "", "off", "osc9", "osc777" or "osc99": desktop notification
//	                                            # through the dashboard's terminal when away
//	notify_command     = ""                     # run with /bin/sh -c when a session needs input
//
//	[blemeesd]                                  # headless Claude sessions in the dashboard
//	enabled = false                             # run blemeesd in the dashboard (or follow one running)
//	socket  = ""                                # "" = blemeesd's default socket (§5.1); absolute path
//
//	[resume]                                    # sessions started again (lost, limited)
//	gap      = "10s"                            # between two of them: one at a time
//	lost     = "ask"                            # "ask" (list them) or "all" (resume all as the dashboard starts)
//	continue = "continue"                       # what a scheduled continue types after a limit's reset
//
//	[usage]                                     # tokens the agents report
//	daily_budget = 0                            # tokens a day, all sessions; past it limited sessions are parked (0 = none)
//	[usage.prices."claude-opus-4"]              # per million tokens, by model name or its prefix (none built in)
//	input = 15.0
//	output = 75.0
//	cache_write = 18.75
//	cache_read = 1.5
//
//	[keys]                                      # dashboard key overrides by action name
//	kill = ["x", "ctrl+k"]                      # (names and keys checked by the dashboard)
//
//	[[env]]                                     # extra session environment,
//	name  = "FOO"                               # in file order
//	value = "bar"
//
//	[[agent]]                                   # spawn presets (override built-ins by name)
//	name       = "claude"                       # required, unique
//	command    = ["claude", "--resume"]
//	classifier = "claude"                       # "", "simple" or "claude"
//	env        = [{ name = "X", value = "1" }]
//	hooks      = true                           # claude/codex report their steps (heimdall-tui hook)
//	acp        = false                          # the command speaks the Agent Client Protocol
//	acp_fs     = ""                             # its file requests served in its directory: read, write, read,write
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/notify"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// Built-in default values.
const (
	DefaultScrollbackBytes = 65536
	DefaultKillGrace       = 5 * time.Second
	DefaultSessionEnvVar   = "HEIMDALL_SESSION_ID"
	DefaultClassifier      = "simple"
	DefaultIdleThreshold   = 2 * time.Second
)

// Classifiers lists the accepted values of the classifier keys.
var Classifiers = classify.Names()

// EnvVar is one NAME=value pair from an [[env]] table (or an agent's env).
type EnvVar struct {
	Name  string `toml:"name"`
	Value string `toml:"value"`
}

// Host is one [[hosts]] table: another machine whose sessions the
// dashboard lists (as NAME:ID), reached over one ssh connection.
type Host struct {
	Name string `toml:"name"`
	// SSH is the destination ssh is given: a host, user@host, or an alias
	// of ~/.ssh/config (its keys, ports and jump hosts apply).
	SSH string `toml:"ssh"`
	// Command is the remote command ([] = heimdall mux: the small
	// executable on the remote PATH; give its path, and --socket-dir if
	// the remote's sessions live elsewhere).
	Command []string `toml:"command"`
}

// Agent is one [[agent]] table: a spawn preset in the dashboard.
type Agent struct {
	Name       string   `toml:"name"`
	Command    []string `toml:"command"`
	Classifier string   `toml:"classifier"` // "" = use the global classifier
	Env        []EnvVar `toml:"env"`
	// ACP: the command is an Agent Client Protocol agent (a session of
	// kind acp); ACPFS the file requests it is served, within its
	// working directory: "read", "write", "read,write" ("" none).
	ACP   bool   `toml:"acp"`
	ACPFS string `toml:"acp_fs"`
	// Hooks (default true): a Claude Code or codex session of this preset
	// reports its steps to its supervisor (`heimdall-tui hook`); false
	// leaves the agent as started (state from its screen alone).
	Hooks *bool `toml:"hooks"`
}

// HooksFor reports whether sessions of preset name get agent hooks: yes
// unless its [[agent]] table says hooks = false.
func (c Config) HooksFor(name string) bool {
	for _, a := range c.Agents {
		if a.Name == name && a.Hooks != nil {
			return *a.Hooks
		}
	}
	return true
}

// Config is the effective configuration.
type Config struct {
	ScrollbackBytes  int
	KillProcessGroup bool
	KillGrace        time.Duration
	SessionEnvVar    string
	Classifier       string
	IdleThreshold    time.Duration
	SocketDir        string // "" = caller decides
	Env              []EnvVar
	Theme            string
	DetachKey        string              // "" = Ctrl-\
	Bell             bool                // bell when a session starts needing input
	Notify           string              // "" (off), "osc9", "osc777" or "osc99"; "off" in the file reads as ""
	NotifyCommand    string              // "" = none
	Keys             map[string][]string // action name → keys
	Agents           []Agent
	Hosts            []Host
	Blemeesd         Blemeesd
	Heddle           Heddle
	Web              Web
	Worktree         Worktree
	Resume           Resume
	Usage            Usage
	Path             string // file loaded; "" if built-in defaults
}

// Resume is the [resume] table: how sessions are started again after a
// crash, a reboot or a usage limit.
type Resume struct {
	// Gap is the time between two sessions started one after the other
	// (resume all, scheduled continues): one at a time, never all at once.
	Gap time.Duration
	// Lost is what a dashboard does with sessions it finds lost: "ask"
	// (list them; the user resumes them) or "all" (resume them all,
	// staggered, as it starts).
	Lost string
	// Continue is what a scheduled continue types into a session after
	// its usage limit has reset.
	Continue string
}

// What Resume.Lost may say.
const (
	ResumeAsk = "ask"
	ResumeAll = "all"
)

// DefaultResumeGap is Resume.Gap's default.
const DefaultResumeGap = 10 * time.Second

// Usage is the [usage] table: token prices and the daily budget.
type Usage struct {
	// DailyBudget is the tokens (input, output and cache, over every
	// session) a day may use; once spent, sessions stopped by a usage
	// limit are parked instead of continued. 0: none.
	DailyBudget int64 `toml:"daily_budget"`
	// Prices are per model (as the agent names it, or a prefix of that
	// name), in the user's currency per million tokens. None is built in:
	// without a price, the dashboard shows tokens only.
	Prices map[string]Price `toml:"prices"`
}

// Cost is what u costs at the prices: false when a row's model has none
// (the cost would be a guess).
func (u Usage) Cost(us session.Usage) (float64, bool) {
	var c float64
	for _, r := range us {
		p, ok := u.PriceOf(r.Model)
		if !ok {
			return 0, false
		}
		c += (float64(r.Input)*p.Input + float64(r.Output)*p.Output +
			float64(r.CacheWrite)*p.CacheWrite + float64(r.CacheRead)*p.CacheRead) / 1e6
	}
	return c, true
}

// ResumeCost is what going on with a conversation costs if its context
// is cached again: Claude's own estimate when it gave one, else the
// context's tokens at the cache-write price of its model; false without
// either.
func (u Usage) ResumeCost(r session.Resume) (float64, bool) {
	if r.USD > 0 {
		return r.USD, true
	}
	p, ok := u.PriceOf(r.Model)
	if !ok || r.Tokens == 0 {
		return 0, false
	}
	return float64(r.Tokens) * p.CacheWrite / 1e6, true
}

// PriceOf is model's price: the price named exactly so, else the one of
// the longest name that model starts with ("claude-opus-4" prices
// "claude-opus-4-6").
func (u Usage) PriceOf(model string) (Price, bool) {
	if p, ok := u.Prices[model]; ok {
		return p, true
	}
	best, found := "", false
	for name := range u.Prices {
		if strings.HasPrefix(model, name) && len(name) > len(best) {
			best, found = name, true
		}
	}
	return u.Prices[best], found
}

// Price is what a million tokens of each kind cost.
type Price struct {
	Input      float64 `toml:"input"`
	Output     float64 `toml:"output"`
	CacheWrite float64 `toml:"cache_write"`
	CacheRead  float64 `toml:"cache_read"`
}

// Worktree is the [worktree] table: what a session spawned into a new
// git worktree gets besides its checkout.
type Worktree struct {
	// Copy names untracked files (relative to the repository's top
	// level, such as .env) copied into each new worktree.
	Copy []string `toml:"copy"`
}

// Web is the [web] table: the dashboard serves its sessions to browsers on
// Addr (`--web` overrides it; "" = not at all). A non-loopback Addr needs
// a token: Token, else one generated and printed at start.
type Web struct {
	Addr  string `toml:"addr"`
	Token string `toml:"token"` // "" = the one kept in the state dir's web-token, made on first use
	// NoToken serves loopback without a token: every local user and
	// process may then use the sessions (refused off loopback).
	NoToken     bool     `toml:"no_token"`
	Hosts       []string `toml:"hosts"`        // names a request's Host may give besides loopback ones
	Origins     []string `toml:"origins"`      // browser origins allowed besides the page's own host
	UploadLimit int64    `toml:"upload_limit"` // bytes; 0 = the server's default (32 MiB)
	// TLSCert and TLSKey, both or neither, serve https with that
	// certificate (PEM files): browsers allow Web Push only on a secure
	// origin, so a phone needs it.
	TLSCert string `toml:"tls_cert"`
	TLSKey  string `toml:"tls_key"`
	// NoPush turns Web Push off: no VAPID keys made, no subscriptions
	// taken, nothing pushed.
	NoPush bool `toml:"no_push"`
}

// Heddle is the [heddle] table: whether the dashboard offers heddle
// workers (sessions of kind heddle), the worker command, and init's
// defaults. A worker gets base_url as HEDDLE_BASE_URL; the rest of its
// environment (OPENROUTER_API_KEY, HEDDLE_HOME, …) is the dashboard's.
type Heddle struct {
	Enabled bool `toml:"enabled"`
	// Command is the worker ([] = this binary's heddle-headless).
	Command      []string `toml:"command"`
	Model        string   `toml:"model"`
	SystemPrompt string   `toml:"system_prompt"`
	// Tools are the tools the worker enables ([] = heddle's six).
	Tools         []string `toml:"tools"`
	MaxIterations int      `toml:"max_iterations"` // 0 = the worker's default
	BaseURL       string   `toml:"base_url"`       // "" = the worker's (OpenRouter)
}

// Blemeesd is the [blemeesd] table: whether the dashboard runs the
// headless Claude daemon in process (or follows one already answering on
// its socket), and on which socket.
type Blemeesd struct {
	Enabled bool   `toml:"enabled"`
	Socket  string `toml:"socket"` // "" = blemeesd's default resolution
}

// Default returns the built-in configuration used when no file is loaded.
func Default() Config {
	return Config{
		ScrollbackBytes:  DefaultScrollbackBytes,
		KillProcessGroup: true,
		KillGrace:        DefaultKillGrace,
		SessionEnvVar:    DefaultSessionEnvVar,
		Classifier:       DefaultClassifier,
		IdleThreshold:    DefaultIdleThreshold,
		Resume:           Resume{Gap: DefaultResumeGap, Lost: ResumeAsk, Continue: "continue"},
	}
}

// DefaultPath returns the default config file location:
// $XDG_CONFIG_HOME/heimdall/config.toml if XDG_CONFIG_HOME is set, else
// ~/.config/heimdall/config.toml. It returns "" if neither XDG_CONFIG_HOME
// nor the home directory is known.
func DefaultPath() string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "heimdall", "config.toml")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "heimdall", "config.toml")
}

// EnvList returns the [[env]] entries as "NAME=value" strings in file order.
// Later duplicates are kept; with os/exec the last one wins.
func (c Config) EnvList() []string {
	if len(c.Env) == 0 {
		return nil
	}
	out := make([]string, 0, len(c.Env))
	for _, e := range c.Env {
		out = append(out, e.Name+"="+e.Value)
	}
	return out
}

// Session returns the settings this configuration gives every session
// (`run`'s and the dashboard's alike): environment, session variable,
// scrollback, kill grace (0 here, "kill at once", is negative there) and
// kill scope. The caller adds the ID, program, size and classifier.
func (c Config) Session() supervisor.Config {
	grace := c.KillGrace
	if grace <= 0 {
		grace = -1
	}
	return supervisor.Config{
		Env:             c.EnvList(),
		SessionEnvVar:   c.SessionEnvVar,
		ScrollbackBytes: c.ScrollbackBytes,
		KillGrace:       grace,
		KillChildOnly:   !c.KillProcessGroup,
	}
}

// fileConfig mirrors the TOML document. Durations are strings, parsed after
// decoding so that errors can name the key.
type fileConfig struct {
	ScrollbackBytes  int                 `toml:"scrollback_bytes"`
	KillProcessGroup bool                `toml:"kill_process_group"`
	KillGrace        string              `toml:"kill_grace"`
	SessionEnvVar    string              `toml:"session_env_var"`
	Classifier       string              `toml:"classifier"`
	IdleThreshold    string              `toml:"idle_threshold"`
	SocketDir        string              `toml:"socket_dir"`
	Env              []EnvVar            `toml:"env"`
	Theme            string              `toml:"theme"`
	DetachKey        string              `toml:"detach_key"`
	Bell             bool                `toml:"bell"`
	Notify           string              `toml:"notify"`
	NotifyCommand    string              `toml:"notify_command"`
	Keys             map[string][]string `toml:"keys"`
	Agents           []Agent             `toml:"agent"`
	Hosts            []Host              `toml:"hosts"`
	Blemeesd         Blemeesd            `toml:"blemeesd"`
	Web              Web                 `toml:"web"`
	Heddle           Heddle              `toml:"heddle"`
	Worktree         Worktree            `toml:"worktree"`
	Resume           fileResume          `toml:"resume"`
	Usage            Usage               `toml:"usage"`
}

// fileResume is [resume] as written: its gap a duration string.
type fileResume struct {
	Gap      string `toml:"gap"`
	Lost     string `toml:"lost"`
	Continue string `toml:"continue"`
}

// LoadFile is Load of the file a --config flag names: path, or with path
// "" the default file if there is one.
func LoadFile(path string) (Config, []string, error) {
	if path == "" {
		return Load(DefaultPath(), false)
	}
	return Load(path, true)
}

// SocketDirFor returns the socket directory: flag (--socket-dir), else
// $HEIMDALL_SOCKET_DIR, else the config's socket_dir, else the default.
func (c Config) SocketDirFor(flag string) string {
	switch {
	case flag != "":
		return flag
	case os.Getenv("HEIMDALL_SOCKET_DIR") != "":
		return os.Getenv("HEIMDALL_SOCKET_DIR")
	case c.SocketDir != "":
		return c.SocketDir
	}
	return supervisor.DefaultDir()
}

// Load reads the config file at path and returns the effective
// configuration, warnings about unknown keys, and an error for a missing
// explicit file, unreadable file, TOML error or invalid value. If explicit
// is false and the file does not exist (or path is ""), Load returns
// [Default] and no error. On error the returned Config is [Default]; any
// warnings gathered before the error are still returned.
func Load(path string, explicit bool) (Config, []string, error) {
	if path == "" {
		if explicit {
			return Default(), nil, errors.New("config: empty file name")
		}
		return Default(), nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return Default(), nil, nil
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is already in our prefix
		}
		return Default(), nil, &Error{Path: path, Msg: err.Error(), Err: err}
	}
	return parse(path, string(data))
}

// Error is the error type returned by [Load] for problems with a file.
type Error struct {
	Path string // config file
	Line int    // 1-based line, 0 if unknown
	Col  int    // 1-based column, 0 if unknown
	Key  string // offending key (dotted, 1-based [n] for array tables), may be ""
	// LastKey is the last key the TOML parser saw before a syntax error;
	// it is context only and need not be the offending key.
	LastKey string
	Msg     string
	Err     error // underlying error (e.g. toml.ParseError), may be nil
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "config %s: ", e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ", column %d", e.Col)
		}
		if e.LastKey != "" {
			fmt.Fprintf(&b, " (last key %q)", e.LastKey)
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

func parse(path, data string) (Config, []string, error) {
	def := Default()
	fc := fileConfig{
		ScrollbackBytes:  def.ScrollbackBytes,
		KillProcessGroup: def.KillProcessGroup,
		KillGrace:        def.KillGrace.String(),
		SessionEnvVar:    def.SessionEnvVar,
		Classifier:       def.Classifier,
		IdleThreshold:    def.IdleThreshold.String(),
	}
	md, err := toml.Decode(data, &fc)
	if err != nil {
		return def, nil, tomlError(path, err)
	}
	warnings := unknownKeys(path, md.Undecoded())

	fail := func(key, format string, args ...any) (Config, []string, error) {
		return def, warnings, &Error{Path: path, Key: key, Msg: fmt.Sprintf(format, args...)}
	}

	c := Config{
		ScrollbackBytes:  fc.ScrollbackBytes,
		KillProcessGroup: fc.KillProcessGroup,
		SessionEnvVar:    fc.SessionEnvVar,
		Classifier:       fc.Classifier,
		SocketDir:        fc.SocketDir,
		Env:              fc.Env,
		Theme:            fc.Theme,
		DetachKey:        fc.DetachKey,
		Bell:             fc.Bell,
		Notify:           fc.Notify,
		NotifyCommand:    fc.NotifyCommand,
		Keys:             fc.Keys,
		Agents:           fc.Agents,
		Hosts:            fc.Hosts,
		Blemeesd:         fc.Blemeesd,
		Web:              fc.Web,
		Heddle:           fc.Heddle,
		Worktree:         fc.Worktree,
		Usage:            fc.Usage,
		Resume:           Resume{Gap: def.Resume.Gap, Lost: ResumeAsk, Continue: def.Resume.Continue},
		Path:             path,
	}
	if g := fc.Resume.Gap; g != "" {
		if c.Resume.Gap, err = parseDuration(g); err != nil {
			return fail("resume.gap", "%v", err)
		}
		if c.Resume.Gap < 0 {
			return fail("resume.gap", "must be >= 0, got %q", g)
		}
	}
	switch fc.Resume.Lost {
	case "", ResumeAsk:
	case ResumeAll:
		c.Resume.Lost = ResumeAll
	default:
		return fail("resume.lost", "want %q or %q, got %q", ResumeAsk, ResumeAll, fc.Resume.Lost)
	}
	if t := fc.Resume.Continue; t != "" {
		if strings.ContainsAny(t, "\x00\x1b") || len(t) > 1000 {
			return fail("resume.continue", "no NUL or escape, at most 1000 bytes")
		}
		c.Resume.Continue = t
	}
	if c.Usage.DailyBudget < 0 {
		return fail("usage.daily_budget", "must be >= 0, got %d", c.Usage.DailyBudget)
	}
	for m, p := range c.Usage.Prices {
		if p.Input < 0 || p.Output < 0 || p.CacheWrite < 0 || p.CacheRead < 0 {
			return fail("usage.prices."+m, "prices must be >= 0")
		}
	}
	if c.Heddle.MaxIterations < 0 {
		return fail("heddle.max_iterations", "must be >= 0, got %d", c.Heddle.MaxIterations)
	}
	if u := c.Heddle.BaseURL; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return fail("heddle.base_url", "must be an http:// or https:// URL, got %q", u)
	}
	if p := c.Blemeesd.Socket; p != "" && !filepath.IsAbs(p) {
		return fail("blemeesd.socket", "must be an absolute path, got %q", p)
	}
	if len(c.Blemeesd.Socket) >= 108 {
		return fail("blemeesd.socket", "too long for a Unix socket (%d bytes, < 108)", len(c.Blemeesd.Socket))
	}
	if a := c.Web.Addr; a != "" {
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			return fail("web.addr", "want host:port (e.g. \"127.0.0.1:1977\"), got %q", a)
		}
	}
	if (c.Web.TLSCert == "") != (c.Web.TLSKey == "") {
		return fail("web.tls_cert", "tls_cert and tls_key go together")
	}
	if c.Web.UploadLimit < 0 {
		return fail("web.upload_limit", "must be >= 0, got %d", c.Web.UploadLimit)
	}
	if c.ScrollbackBytes <= 0 {
		return fail("scrollback_bytes", "must be > 0, got %d", c.ScrollbackBytes)
	}
	if c.KillGrace, err = parseDuration(fc.KillGrace); err != nil {
		return fail("kill_grace", "%v", err)
	}
	if c.KillGrace < 0 {
		return fail("kill_grace", "must be >= 0, got %q", fc.KillGrace)
	}
	if c.IdleThreshold, err = parseDuration(fc.IdleThreshold); err != nil {
		return fail("idle_threshold", "%v", err)
	}
	if c.IdleThreshold <= 0 {
		return fail("idle_threshold", "must be > 0, got %q", fc.IdleThreshold)
	}
	if !ValidEnvName(c.SessionEnvVar) {
		return fail("session_env_var", "invalid environment variable name %q (want [A-Za-z_][A-Za-z0-9_]*)", c.SessionEnvVar)
	}
	if !validClassifier(c.Classifier) {
		return fail("classifier", "unknown classifier %q (want %s)", c.Classifier, classifierList())
	}
	if !notify.ValidFormat(c.Notify) {
		return fail("notify", "unknown notification %q (want \"\", %q, %s)", c.Notify, notify.FormatOff, quotedOr(notify.Formats))
	}
	if c.Notify == notify.FormatOff {
		c.Notify = ""
	}
	if key, msg := checkEnv("env", c.Env); key != "" {
		return fail(key, "%s", msg)
	}
	hosts := make(map[string]int, len(c.Hosts))
	for i, h := range c.Hosts {
		prefix := fmt.Sprintf("hosts[%d]", i+1)
		switch {
		case h.Name == "":
			return fail(prefix+".name", "missing or empty")
		case strings.ContainsAny(h.Name, ":/ \t") || strings.HasPrefix(h.Name, "."):
			return fail(prefix+".name", "%q: no ':', '/', spaces or leading '.' (its sessions are listed as NAME:ID)", h.Name)
		}
		if j, dup := hosts[h.Name]; dup {
			return fail(prefix+".name", "duplicate host name %q (also hosts[%d])", h.Name, j)
		}
		hosts[h.Name] = i + 1
		if err := CheckSSHDest(h.SSH); err != nil {
			return fail(prefix+".ssh", "%v", err)
		}
		for _, a := range h.Command {
			if a == "" {
				return fail(prefix+".command", "an empty word")
			}
		}
	}
	seen := make(map[string]int, len(c.Agents))
	for i, a := range c.Agents {
		prefix := fmt.Sprintf("agent[%d]", i+1)
		if a.Name == "" {
			return fail(prefix+".name", "missing or empty")
		}
		if j, dup := seen[a.Name]; dup {
			return fail(prefix+".name", "duplicate agent name %q (also agent[%d])", a.Name, j)
		}
		seen[a.Name] = i + 1
		for _, f := range strings.Split(a.ACPFS, ",") {
			if f != "" && f != "read" && f != "write" {
				return fail(prefix+".acp_fs", "want read, write or read,write, got %q", a.ACPFS)
			}
		}
		if a.Classifier != "" && !validClassifier(a.Classifier) {
			return fail(prefix+".classifier", "unknown classifier %q (want %s)", a.Classifier, classifierList())
		}
		if key, msg := checkEnv(prefix+".env", a.Env); key != "" {
			return fail(key, "%s", msg)
		}
	}
	return c, warnings, nil
}

// ValidEnvName reports whether s matches [A-Za-z_][A-Za-z0-9_]*.
func ValidEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '_', ch >= 'A' && ch <= 'Z', ch >= 'a' && ch <= 'z':
		case ch >= '0' && ch <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func checkEnv(prefix string, vars []EnvVar) (key, msg string) {
	for i, e := range vars {
		if !ValidEnvName(e.Name) {
			return fmt.Sprintf("%s[%d].name", prefix, i+1),
				fmt.Sprintf("invalid environment variable name %q (want [A-Za-z_][A-Za-z0-9_]*)", e.Name)
		}
	}
	return "", ""
}

func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (want e.g. \"5s\", \"500ms\", \"1m30s\")", s)
	}
	return d, nil
}

func validClassifier(s string) bool {
	for _, c := range Classifiers {
		if s == c {
			return true
		}
	}
	return false
}

func classifierList() string { return quotedOr(Classifiers) }

// quotedOr lists values quoted: "a" or "b" or "c".
func quotedOr(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, " or ")
}

// tomlError turns a decode error into an *Error naming the file and, where
// known, the line, column and key.
func tomlError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Error{Path: path, Line: pe.Position.Line, Col: pe.Position.Col,
			LastKey: pe.LastKey, Msg: pe.Message, Err: err}
	}
	// Type mismatches are plain errors: `toml: line N (last key "k"): msg`.
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	return &Error{Path: path, Msg: msg, Err: err}
}

// unknownKeys formats one warning per undecoded key. A key below an unknown
// table is not reported again, and repeated keys (from several entries of an
// array of tables) are reported once.
func unknownKeys(path string, keys []toml.Key) []string {
	var (
		warnings []string
		seen     = make(map[string]bool)
		parents  []string
	)
outer:
	for _, k := range keys {
		s := k.String()
		if seen[s] {
			continue
		}
		for _, p := range parents {
			if strings.HasPrefix(s, p+".") {
				continue outer
			}
		}
		seen[s] = true
		parents = append(parents, s)
		warnings = append(warnings, fmt.Sprintf("config %s: unknown key %q", path, s))
	}
	return warnings
}

// CheckSSHDest refuses a destination ssh would read as something else (an
// option) or that holds what no host name does.
func CheckSSHDest(dest string) error {
	switch {
	case dest == "":
		return errors.New("no ssh destination")
	case strings.HasPrefix(dest, "-"):
		return fmt.Errorf("ssh destination %q starts with '-'", dest)
	case strings.ContainsFunc(dest, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("ssh destination %q holds a space or a control character", dest)
	}
	return nil
}
