package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// writeConfig writes body to a fresh config.toml in a temp dir.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// loadErr loads body explicitly and checks the error mentions the file and
// every string in want.
func loadErr(t *testing.T, body string, want ...string) error {
	t.Helper()
	p := writeConfig(t, body)
	_, _, err := Load(p, true)
	if err == nil {
		t.Fatalf("Load(%q): no error, want one mentioning %q", body, want)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "config "+p+": ") {
		t.Errorf("error %q does not start with %q", msg, "config "+p+": ")
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
	return err
}

func TestDefault(t *testing.T) {
	c := Default()
	want := Config{
		ScrollbackBytes:  65536,
		KillProcessGroup: true,
		KillGrace:        5 * time.Second,
		SessionEnvVar:    "HEIMDALL_SESSION_ID",
		Classifier:       "simple",
		IdleThreshold:    2 * time.Second,
		Resume:           Resume{Gap: 10 * time.Second, Lost: "ask", Continue: "continue"},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("Default() = %+v, want %+v", c, want)
	}
	if c.EnvList() != nil {
		t.Errorf("Default().EnvList() = %q, want nil", c.EnvList())
	}
}

func TestDefaultPath(t *testing.T) {
	xdg := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if got, want := DefaultPath(), filepath.Join(xdg, "heimdall", "config.toml"); got != want {
		t.Errorf("with XDG_CONFIG_HOME: DefaultPath() = %q, want %q", got, want)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	if got, want := DefaultPath(), filepath.Join(home, ".config", "heimdall", "config.toml"); got != want {
		t.Errorf("without XDG_CONFIG_HOME: DefaultPath() = %q, want %q", got, want)
	}
}

func TestDefaultPathAbsentGivesDefaults(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := DefaultPath()
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("default path %q unexpectedly exists (err %v)", p, err)
	}
	c, w, err := Load(p, false)
	if err != nil {
		t.Fatalf("Load(absent default): %v", err)
	}
	if len(w) != 0 {
		t.Errorf("warnings = %q, want none", w)
	}
	if !reflect.DeepEqual(c, Default()) {
		t.Errorf("Load(absent default) = %+v, want Default()", c)
	}
	if c.Path != "" {
		t.Errorf("Path = %q, want empty", c.Path)
	}

	// An empty default path (no home known) is also just defaults.
	if c, _, err := Load("", false); err != nil || !reflect.DeepEqual(c, Default()) {
		t.Errorf(`Load("", false) = %+v, %v; want Default(), nil`, c, err)
	}
}

func TestDefaultPathPresentIsLoaded(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	dir := filepath.Join(xdg, "heimdall")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(p, []byte("scrollback_bytes = 1024\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err := Load(DefaultPath(), false)
	if err != nil {
		t.Fatal(err)
	}
	if c.ScrollbackBytes != 1024 || c.Path != p {
		t.Errorf("got ScrollbackBytes=%d Path=%q, want 1024 %q", c.ScrollbackBytes, c.Path, p)
	}
	// Keys not in the file keep their defaults.
	if c.KillGrace != 5*time.Second || c.Classifier != "simple" || !c.KillProcessGroup {
		t.Errorf("unset keys lost their defaults: %+v", c)
	}

	// Present but invalid default file is an error, not silently ignored.
	if err := os.WriteFile(p, []byte("scrollback_bytes = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(p, false); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("invalid default file: err = %v, want error naming %s", err, p)
	}
}

func TestExplicitMissingFileErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.toml")
	_, _, err := Load(p, true)
	if err == nil {
		t.Fatal("Load(missing, explicit): no error")
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v does not wrap os.ErrNotExist", err)
	}
	if !strings.Contains(err.Error(), p) {
		t.Errorf("error %q does not name %s", err, p)
	}
	if strings.Count(err.Error(), p) != 1 {
		t.Errorf("error %q names the file more than once", err)
	}
	if _, _, err := Load("", true); err == nil {
		t.Error(`Load("", true): no error`)
	}
}

func TestEmptyFile(t *testing.T) {
	p := writeConfig(t, "# nothing here\n")
	c, w, err := Load(p, true)
	if err != nil || len(w) != 0 {
		t.Fatalf("Load(empty) = %v, %q", err, w)
	}
	want := Default()
	want.Path = p
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Load(empty) = %+v, want %+v", c, want)
	}
}

func TestAllKeys(t *testing.T) {
	p := writeConfig(t, `
scrollback_bytes   = 131072
kill_process_group = false
kill_grace         = "1m30s"
session_env_var    = "MY_SESSION"
classifier         = "claude"
idle_threshold     = "750ms"
socket_dir         = "/run/heimdall-test"
theme              = "nord"
detach_key         = "ctrl-]"
bell               = true
notify             = "osc777"
notify_command     = 'notify-send "heimdall" "$HEIMDALL_MESSAGE"'

[keys]
kill  = ["x", "ctrl+k"]
quit  = ["q"]

[[env]]
name  = "FOO"
value = "bar"

[[env]]
name  = "_EMPTY"
value = ""

[[agent]]
name       = "claude"
command    = ["claude", "--resume"]
classifier = "claude"
env        = [{ name = "ANTHROPIC_LOG", value = "debug" }]

[[agent]]
name    = "shell"
command = ["bash", "-l"]

[[agent.env]]
name  = "PS1"
value = "$ "

[resume]
gap = "2m"
lost = "all"
continue = "go on"

[usage]
daily_budget = 5000000
[usage.prices."claude-opus-4"]
input = 15.0
output = 75.0
cache_write = 18.75
cache_read = 1.5
`)
	c, w, err := Load(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 0 {
		t.Errorf("warnings = %q, want none", w)
	}
	want := Config{
		ScrollbackBytes:  131072,
		KillProcessGroup: false,
		KillGrace:        90 * time.Second,
		SessionEnvVar:    "MY_SESSION",
		Classifier:       "claude",
		IdleThreshold:    750 * time.Millisecond,
		SocketDir:        "/run/heimdall-test",
		Env:              []EnvVar{{"FOO", "bar"}, {"_EMPTY", ""}},
		Theme:            "nord",
		DetachKey:        "ctrl-]",
		Bell:             true,
		Notify:           "osc777",
		NotifyCommand:    `notify-send "heimdall" "$HEIMDALL_MESSAGE"`,
		Keys:             map[string][]string{"kill": {"x", "ctrl+k"}, "quit": {"q"}},
		Agents: []Agent{
			{Name: "claude", Command: []string{"claude", "--resume"}, Classifier: "claude",
				Env: []EnvVar{{"ANTHROPIC_LOG", "debug"}}},
			{Name: "shell", Command: []string{"bash", "-l"}, Env: []EnvVar{{"PS1", "$ "}}},
		},
		Resume: Resume{Gap: 2 * time.Minute, Lost: "all", Continue: "go on"},
		Usage: Usage{DailyBudget: 5000000, Prices: map[string]Price{
			"claude-opus-4": {Input: 15, Output: 75, CacheWrite: 18.75, CacheRead: 1.5}}},
		Path: p,
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Load =\n%+v\nwant\n%+v", c, want)
	}
}

func TestZeroKillGraceAllowed(t *testing.T) {
	c, _, err := Load(writeConfig(t, `kill_grace = "0s"`+"\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	if c.KillGrace != 0 {
		t.Errorf("KillGrace = %v, want 0", c.KillGrace)
	}
}

func TestNotifyValues(t *testing.T) {
	for value, want := range map[string]string{"": "", "off": "", "osc9": "osc9", "osc777": "osc777"} {
		c, _, err := Load(writeConfig(t, "notify = \""+value+"\"\n"), true)
		if err != nil {
			t.Errorf("notify = %q: %v", value, err)
			continue
		}
		if c.Notify != want {
			t.Errorf("notify = %q: Notify = %q, want %q", value, c.Notify, want)
		}
	}
}

func TestEnvListOrder(t *testing.T) {
	c, _, err := Load(writeConfig(t, `
[[env]]
name = "ZED"
value = "1"
[[env]]
name = "ALPHA"
value = "a=b c"
[[env]]
name = "MIDDLE"
value = ""
[[env]]
name = "ZED"
value = "2"
`), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ZED=1", "ALPHA=a=b c", "MIDDLE=", "ZED=2"}
	if got := c.EnvList(); !reflect.DeepEqual(got, want) {
		t.Errorf("EnvList() = %q, want %q", got, want)
	}
}

func TestUnknownKeysWarn(t *testing.T) {
	p := writeConfig(t, `
scrollback_bytes = 4096
foo = 1

[bar]
baz = "x"

[bar.deeper]
q = 2

[[env]]
name  = "A"
value = "1"
colour = "red"

[[env]]
name  = "B"
value = "2"
colour = "blue"

[[agent]]
name = "x"
env  = [{ name = "Q", value = "v", extra = true }]
`)
	c, w, err := Load(p, true)
	if err != nil {
		t.Fatalf("unknown keys must not be an error: %v", err)
	}
	if c.ScrollbackBytes != 4096 || len(c.Env) != 2 {
		t.Errorf("known keys not applied: %+v", c)
	}
	want := []string{
		`config ` + p + `: unknown key "foo"`,
		`config ` + p + `: unknown key "bar"`,
		`config ` + p + `: unknown key "env.colour"`,
		`config ` + p + `: unknown key "agent.env.extra"`,
	}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("warnings =\n%q\nwant\n%q", w, want)
	}
}

func TestInvalidValues(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"bad duration", `kill_grace = "5 parsecs"`, []string{`kill_grace: invalid duration "5 parsecs"`}},
		{"unitless duration", `idle_threshold = "2"`, []string{`idle_threshold: invalid duration "2"`}},
		{"negative kill_grace", `kill_grace = "-1s"`, []string{"kill_grace: must be >= 0"}},
		{"zero idle", `idle_threshold = "0s"`, []string{"idle_threshold: must be > 0"}},
		{"bad resume gap", "[resume]\ngap = \"soon\"", []string{`resume.gap: invalid duration "soon"`}},
		{"negative resume gap", "[resume]\ngap = \"-1s\"", []string{"resume.gap: must be >= 0"}},
		{"bad resume lost", "[resume]\nlost = \"some\"", []string{`resume.lost: want "ask" or "all", got "some"`}},
		{"escape in continue", "[resume]\ncontinue = \"a\\u001bb\"", []string{"resume.continue: no NUL or escape"}},
		{"negative budget", "[usage]\ndaily_budget = -1", []string{"usage.daily_budget: must be >= 0"}},
		{"negative price", "[usage.prices.m]\ninput = -1.0", []string{"usage.prices.m: prices must be >= 0"}},
		{"bad classifier", `classifier = "magic"`, []string{`classifier: unknown classifier "magic"`, `"simple"`, `"claude"`}},
		{"negative scrollback", `scrollback_bytes = -1`, []string{"scrollback_bytes: must be > 0, got -1"}},
		{"zero scrollback", `scrollback_bytes = 0`, []string{"scrollback_bytes: must be > 0"}},
		{"bad session var", `session_env_var = "HEIMDALL-ID"`, []string{`session_env_var: invalid environment variable name "HEIMDALL-ID"`}},
		{"empty session var", `session_env_var = ""`, []string{`session_env_var: invalid environment variable name ""`}},
		{"bad env name", "[[env]]\nname = \"OK\"\nvalue = \"1\"\n[[env]]\nname = \"1BAD\"\nvalue = \"x\"",
			[]string{`env[2].name: invalid environment variable name "1BAD"`}},
		{"missing env name", "[[env]]\nvalue = \"x\"", []string{`env[1].name: invalid environment variable name ""`}},
		{"bad agent classifier", "[[agent]]\nname = \"a\"\nclassifier = \"nope\"", []string{`agent[1].classifier: unknown classifier "nope"`}},
		{"bad agent env", "[[agent]]\nname = \"a\"\nenv = [{ name = \"A B\", value = \"\" }]", []string{`agent[1].env[1].name: invalid environment variable name "A B"`}},
		{"agent without name", "[[agent]]\ncommand = [\"x\"]", []string{"agent[1].name: missing or empty"}},
		{"duplicate agent", "[[agent]]\nname = \"a\"\n[[agent]]\nname = \"a\"", []string{`agent[2].name: duplicate agent name "a"`}},
		{"wrong type duration", `kill_grace = 5`, []string{"line 1", "kill_grace", "incompatible types"}},
		{"wrong type int", `scrollback_bytes = "big"`, []string{"line 1", "scrollback_bytes", "incompatible types"}},
		{"wrong type bool", `kill_process_group = "yes"`, []string{"line 1", "kill_process_group"}},
		{"bad notify", `notify = "osc9;bell"`, []string{`notify: unknown notification "osc9;bell"`, `"", "off", "osc9" or "osc777"`}},
		{"notify on", `notify = "on"`, []string{`notify: unknown notification "on"`}},
		{"wrong type notify", `notify = true`, []string{"line 1", "notify", "incompatible types"}},
		{"relative blemeesd socket", "[blemeesd]\nsocket = \"b.sock\"", []string{`blemeesd.socket: must be an absolute path, got "b.sock"`}},
		{"long blemeesd socket", "[blemeesd]\nsocket = \"/" + strings.Repeat("s", 120) + "\"", []string{"blemeesd.socket: too long for a Unix socket"}},
		{"wrong type blemeesd enabled", "[blemeesd]\nenabled = \"yes\"", []string{"blemeesd.enabled", "incompatible types"}},
		{"negative heddle max_iterations", "[heddle]\nmax_iterations = -1", []string{"heddle.max_iterations: must be >= 0"}},
		{"heddle base_url not a URL", "[heddle]\nbase_url = \"openrouter.ai\"", []string{`heddle.base_url: must be an http:// or https:// URL, got "openrouter.ai"`}},
		{"wrong type notify_command", `notify_command = ["notify-send", "x"]`, []string{"line 1", "notify_command", "incompatible types"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := loadErr(t, tt.body+"\n", tt.want...)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Errorf("error %T is not *config.Error", err)
			}
		})
	}
}

func TestBlemeesd(t *testing.T) {
	c, w, err := Load(writeConfig(t, "[blemeesd]\nenabled = true\nsocket = \"/run/user/1/b.sock\"\n"), true)
	if err != nil || len(w) != 0 {
		t.Fatalf("Load = %v, %q", err, w)
	}
	if !c.Blemeesd.Enabled || c.Blemeesd.Socket != "/run/user/1/b.sock" {
		t.Fatalf("[blemeesd] = %+v", c.Blemeesd)
	}
	if d := Default().Blemeesd; d.Enabled || d.Socket != "" {
		t.Fatalf("default [blemeesd] = %+v", d)
	}
}

func TestHeddle(t *testing.T) {
	c, w, err := Load(writeConfig(t, "[heddle]\nenabled = true\ncommand = [\"heddle\", \"--headless\"]\nmodel = \"anthropic/claude-sonnet-4\"\n"+
		"system_prompt = \"Be brief.\"\ntools = [\"read_file\"]\nmax_iterations = 7\nbase_url = \"http://127.0.0.1:9/v1\"\n"), true)
	if err != nil || len(w) != 0 {
		t.Fatalf("Load = %v, %q", err, w)
	}
	want := Heddle{Enabled: true, Command: []string{"heddle", "--headless"}, Model: "anthropic/claude-sonnet-4", SystemPrompt: "Be brief.",
		Tools: []string{"read_file"}, MaxIterations: 7, BaseURL: "http://127.0.0.1:9/v1"}
	if !reflect.DeepEqual(c.Heddle, want) {
		t.Fatalf("[heddle] = %+v", c.Heddle)
	}
	if d := Default().Heddle; d.Enabled || d.Command != nil {
		t.Fatalf("default [heddle] = %+v", d)
	}
}

func TestSyntaxErrorHasLine(t *testing.T) {
	body := "scrollback_bytes = 1024\n\nkill_grace = 5s\n"
	err := loadErr(t, body, "line 3")
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v does not unwrap to toml.ParseError", err)
	}
	if pe.Position.Line != 3 {
		t.Errorf("ParseError line = %d, want 3", pe.Position.Line)
	}
	if !strings.Contains(pe.ErrorWithPosition(), "kill_grace = 5s") {
		t.Errorf("ErrorWithPosition lacks context:\n%s", pe.ErrorWithPosition())
	}

	// Unterminated array, duplicate key.
	loadErr(t, "a = [1,\n2,\n", "line ")
	loadErr(t, "theme = \"a\"\ntheme = \"b\"\n", "line 2", "theme")
}

func TestWarningsAndErrorTogether(t *testing.T) {
	p := writeConfig(t, "foo = 1\nscrollback_bytes = 0\n")
	c, w, err := Load(p, true)
	if err == nil {
		t.Fatal("no error")
	}
	if len(w) != 1 || !strings.Contains(w[0], `unknown key "foo"`) {
		t.Errorf("warnings = %q, want the unknown key", w)
	}
	if !reflect.DeepEqual(c, Default()) {
		t.Errorf("config on error = %+v, want Default()", c)
	}
}

func TestValidEnvName(t *testing.T) {
	for _, s := range []string{"A", "_", "a_b", "HEIMDALL_SESSION_ID", "x9", "_1"} {
		if !ValidEnvName(s) {
			t.Errorf("ValidEnvName(%q) = false", s)
		}
	}
	for _, s := range []string{"", "9x", "A-B", "A B", "A=B", "É", "a.b"} {
		if ValidEnvName(s) {
			t.Errorf("ValidEnvName(%q) = true", s)
		}
	}
}

func TestWeb(t *testing.T) {
	c, w, err := Load(writeConfig(t, "[web]\naddr = \"0.0.0.0:1977\"\ntoken = \"t\"\norigins = [\"*.example.com\"]\nupload_limit = 1048576\n"), true)
	if err != nil || len(w) != 0 {
		t.Fatalf("Load = %v, %q", err, w)
	}
	if c.Web.Addr != "0.0.0.0:1977" || c.Web.Token != "t" || len(c.Web.Origins) != 1 || c.Web.UploadLimit != 1<<20 {
		t.Fatalf("[web] = %+v", c.Web)
	}
	if d := Default().Web; d.Addr != "" || d.Token != "" {
		t.Fatalf("default [web] = %+v", d)
	}
	for body, key := range map[string]string{
		"[web]\naddr = \"1977\"\n":      "web.addr",
		"[web]\naddr = \"localhost\"\n": "web.addr",
		"[web]\nupload_limit = -1\n":    "web.upload_limit",
	} {
		if _, _, err := Load(writeConfig(t, body), true); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: %v", body, err)
		}
	}
}
