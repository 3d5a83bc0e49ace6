package webterm

import (
	"context"
	"encoding/json"
	"github.com/heimdall-tui/heimdall-tui/backend/fleet"
	"github.com/heimdall-tui/heimdall-tui/backend/push"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// playwrightVersion is the playwright-core the browser test installs from
// the npm registry when none is given (HEIMDALL_PLAYWRIGHT_DIR).
const playwrightVersion = "1.65.1"

// unavailable skips the test outside CI and fails it in CI, where .ci/run
// installs what the browser test needs.
func unavailable(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("browser test: %s (in CI, .ci/run installs it)", what)
	}
	t.Skipf("browser test skipped: %s (apt-get install chromium nodejs npm, or run .ci/run)", what)
}

// chromiumPath finds Debian's chromium: $HEIMDALL_CHROMIUM, else on PATH.
func chromiumPath() string {
	if p := os.Getenv("HEIMDALL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// playwrightDir returns a directory whose node_modules holds
// playwright-core: $HEIMDALL_PLAYWRIGHT_DIR (.ci/run sets it), else one in
// the user's cache, installed there with npm the first time.
func playwrightDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("HEIMDALL_PLAYWRIGHT_DIR"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "heimdall-tui-test", "playwright-core-"+playwrightVersion)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); err == nil {
		return dir
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		unavailable(t, "no playwright-core and no npm to install it")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "playwright-core@"+playwrightVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install playwright-core@%s: %v\n%s", playwrightVersion, err, out)
	}
	return dir
}

// The page in a real browser: headless Chromium driven by Playwright
// (testdata/browser.js) against a real server and fleet.
func TestBrowser(t *testing.T) {
	chromium := chromiumPath()
	if chromium == "" {
		unavailable(t, "no chromium")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(t, "no node")
	}
	pw := playwrightDir(t)

	dir := t.TempDir()
	f := newFleet(t)
	_, hs := testServer(t, Options{Fleet: f, Dir: dir, Custom: []string{"bash", "--norc", "--noprofile"}})
	upload := filepath.Join(t.TempDir(), "picked file.bin")
	if err := os.WriteFile(upload, []byte{0, 1, 2, 'p', 'i', 'c', 'k'}, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := os.Getenv("HEIMDALL_BROWSER_SCREENSHOT") // to look at the page: a PNG path

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "testdata/browser.js", hs.URL, testToken, chromium, upload, shot)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(pw, "node_modules"))
	// node is told to stop (Playwright then closes the browser), and
	// killed if it does not.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("browser: %v\n%s", err, stderr.String())
	}
	var res struct {
		ID         string `json:"id"`
		Cols, Rows int
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("browser said %q: %v", out, err)
	}
	// (The pages closed: the pty keeps the size of whichever left last.)
	if in := info(t, f, res.ID); !in.Alive || in.Agent != customKey || res.Cols < 20 || res.Rows < 5 {
		t.Fatalf("the page's session %+v, size while viewed %dx%d", in, res.Cols, res.Rows)
	}
	for name, want := range map[string]string{"picked file.bin": "\x00\x01\x02pick", "dropped.txt": "dropped content"} {
		b, err := os.ReadFile(filepath.Join(dir, UploadDir, name))
		if err != nil || string(b) != want {
			t.Errorf("upload %s: %q %v", name, b, err)
		}
	}
}

// The page's inbox in a real browser (testdata/inbox.js): fake Claude
// sessions' prompts listed with their options as buttons, answered from
// the page; the agents read the keys of those options. An ACP agent's
// permission request is listed too, without a link to a terminal it does
// not have, and answered the same way.
func TestBrowserInbox(t *testing.T) {
	chromium := chromiumPath()
	if chromium == "" {
		unavailable(t, "no chromium")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(t, "no node")
	}
	pw := playwrightDir(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("FAKE_CLAUDE_STEP", "100")
	logs := t.TempDir()
	f := newFleet(t)
	for id, prompt := range map[string]string{"c1": "perm", "c2": "ask"} {
		spec := fleet.Spec{ID: id, Agent: "claude", Classifier: "claude", Argv: []string{fakeClaudeBin},
			Env: []string{"FAKE_CLAUDE_KEYS=" + filepath.Join(logs, id)}}
		if _, err := f.Spawn(spec); err != nil {
			t.Fatal(err)
		}
		waitInfo(t, f, id, "its prompt", func(in session.Info) bool { return in.Alive && in.State == session.Idle })
		if err := f.Send(id, session.Input{Data: []byte(prompt + "\r")}); err != nil {
			t.Fatal(err)
		}
		waitInfo(t, f, id, "needs input", func(in session.Info) bool { return in.NeedsInput })
	}
	// An ACP agent asking permission: no terminal, answered from its item.
	acpLog := filepath.Join(logs, "a1")
	if _, err := f.Spawn(fleet.Spec{ID: "a1", ACP: true, Argv: []string{fakeACPBin}, Env: []string{"FAKE_ACP_LOG=" + acpLog}}); err != nil {
		t.Fatal(err)
	}
	waitInfo(t, f, "a1", "its ACP session", func(in session.Info) bool { return in.Alive && in.Conversation != "" })
	if err := f.Send("a1", session.Input{Data: []byte("tool\r")}); err != nil {
		t.Fatal(err)
	}
	waitInfo(t, f, "a1", "needs input", func(in session.Info) bool { return in.NeedsInput })
	_, hs := testServer(t, Options{Fleet: f})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "testdata/inbox.js", hs.URL, testToken, chromium)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(pw, "node_modules"))
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("browser: %v %q\n%s", err, out, stderr.String())
	}
	for id, want := range map[string]string{"c1": "perm key 1\n", "c2": "ask key 3\n", "a1": "prompt tool\npermission allow\n"} {
		if b, _ := os.ReadFile(filepath.Join(logs, id)); string(b) != want {
			t.Errorf("%s read %q, want %q", id, b, want)
		}
	}
}

// The page's Web Push side in a real browser (testdata/push.js): it
// offers to notify the device on a secure origin, and its service worker
// shows a pushed message as the notification, with the session's page.
func TestBrowserPush(t *testing.T) {
	chromium := chromiumPath()
	if chromium == "" {
		unavailable(t, "no chromium")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(t, "no node")
	}
	pw := playwrightDir(t)
	svc, err := push.Open(push.Options{Dir: filepath.Join(t.TempDir(), "push")})
	if err != nil {
		t.Fatal(err)
	}
	_, hs := testServer(t, Options{Push: svc})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "testdata/push.js", hs.URL, testToken, chromium)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(pw, "node_modules"))
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("browser: %v %q\n%s", err, out, stderr.String())
	}
}
