package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/classify/classifytest"
)

// The dashboard, driven through tmux as a person would: a 120×35 pane runs
// bash, bash runs heimdall-tui; keys go in with send-keys, the screen comes
// back with capture-pane.

// dashConfig is the config the dashboard tests use: a quick kill grace, a
// "sh" preset running bash with a recognisable prompt, and "late", which
// waits until the file $HM_GATE exists, then exits 7.
const dashConfig = `kill_grace = "1s"
[[agent]]
name = "sh"
command = ["bash", "--norc", "--noprofile", "-i"]
env = [{ name = "PS1", value = "in$ " }, { name = "HISTFILE", value = "/dev/null" }]
[[agent]]
name = "late"
command = ["sh", "-c", 'echo waiting; while [ ! -e "$HM_GATE" ]; do sleep 0.05; done; exit 7']
`

type dash struct {
	*tmuxServer
	dir string
	cfg string   // the config file (dashConfig)
	log string   // the dashboards' log (--log), one file for every start
	env []string // NAME=value added to the dashboard's environment
}

// startDashboard opens the dashboard in a fresh tmux pane on a fresh socket
// dir, with env (NAME=value) added to its environment, and waits for its
// first frame.
func startDashboard(t *testing.T, env ...string) *dash {
	t.Helper()
	d := newDash(t, env...)
	d.open()
	d.waitFor("no sessions")
	return d
}

// newDash prepares a dashboard on a fresh socket dir, with its config and
// log, and a fresh tmux pane at the shell prompt to start it from (open).
func newDash(t *testing.T, env ...string) *dash {
	t.Helper()
	d := &dash{env: env, log: filepath.Join(t.TempDir(), "dash.log")}
	if raceEnabled {
		d.env = append(d.env, raceLogEnv(t))
	}
	d.dir = newSockDir(t)
	d.cfg = filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(d.cfg, []byte(dashConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	d.newPane(t)
	return d
}

// raceLogEnv returns a GORACE setting that makes the race-enabled binary
// write its reports to files (log_path) rather than to stderr, where a
// dashboard's would land amid its screen and a dashboard's supervisor's
// (whose stderr is /dev/null once started) would be lost; the test fails
// at cleanup (after every other cleanup: the sessions are reaped by then)
// if any was written.
func raceLogEnv(t *testing.T) string {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "race")
	t.Cleanup(func() {
		files, _ := filepath.Glob(prefix + ".*")
		for _, f := range files {
			b, _ := os.ReadFile(f)
			t.Errorf("the dashboard or a supervisor reported a data race (%s):\n%s", f, b)
		}
	})
	gorace := os.Getenv("GORACE")
	if gorace != "" {
		gorace += " "
	}
	return "GORACE=" + gorace + "log_path=" + prefix
}

// newPane gives d a new tmux server whose pane runs a shell, and waits for
// its prompt: where the next dashboard is started (open) after the last
// one's pane went away.
func (d *dash) newPane(t *testing.T) {
	t.Helper()
	d.tmuxServer = newTmux(t, "env HISTFILE=/dev/null PS1='hm$ ' bash --norc --noprofile")
	d.waitPrompt("hm$")
}

// open starts the dashboard from the shell at the pane's prompt and waits
// until it has taken the screen (the alternate screen is on).
func (d *dash) open() {
	d.t.Helper()
	prefix := "env"
	for _, e := range d.env {
		prefix += " " + shellQuote(e)
	}
	d.sendLine(fmt.Sprintf("%s %s --config %s --socket-dir %s --log %s", prefix, shellQuote(binPath), shellQuote(d.cfg),
		shellQuote(d.dir), shellQuote(d.log)))
	d.waitDisplay("#{alternate_on}", "1")
}

// command types a `:` command line.
func (d *dash) command(line string) {
	d.t.Helper()
	d.sendKeys(":")
	d.waitFor(":")
	d.run("send-keys", "-t", "main", "-l", line)
	d.sendKeys("Enter")
}

// sendTo sends line to the selected session with i (send a line), which
// must be id.
func (d *dash) sendTo(id, line string) {
	d.t.Helper()
	d.sendKeys("i")
	d.waitFor("Send to " + id)
	d.run("send-keys", "-t", "main", "-l", line)
	d.sendKeys("Enter")
}

// quit leaves the dashboard, choosing to stop its sessions if it asks, and
// waits for the shell prompt.
func (d *dash) quit() {
	d.t.Helper()
	d.quitChoosing("s")
}

// quitChoosing presses q and, if the dashboard asks what to do with the
// running sessions, key (s: stop them, l or enter: leave them running),
// then waits for the shell prompt.
func (d *dash) quitChoosing(key string) {
	d.t.Helper()
	d.sendKeys("q")
	asked := false
	d.waitScreen("the dashboard gone or asking about its sessions", func(s string) bool {
		asked = strings.Contains(s, "Leave them running")
		return asked || d.display("#{alternate_on}") == "0"
	})
	if asked {
		d.sendKeys(key)
	}
	d.waitDisplay("#{alternate_on}", "0")
	d.waitPrompt("hm$")
}

// paneLine matches a line of the preview pane whose text is exactly s.
func paneLine(s string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)│` + regexp.QuoteMeta(s) + ` *│`)
}

func TestDashboardSpawnSendAttachKill(t *testing.T) {
	t.Parallel()
	d := startDashboard(t)

	// Spawn from the dialog: n, the "sh" preset, enter.
	d.sendKeys("n")
	d.waitFor("custom command")
	d.spawnPreset("sh")
	d.waitFor("sh-1")
	d.waitFor("in$")

	// i sends a line without attaching.
	d.sendTo("sh-1", "echo hello")
	d.waitScreen("hello printed in the pane", func(s string) bool { return paneLine("hello").MatchString(s) })

	// enter attaches full screen; Ctrl-\ comes back with the first key
	// after it reaching the dashboard.
	d.sendKeys("Enter")
	d.waitScreen("the attached session", func(s string) bool {
		return !strings.Contains(s, "heimdall") && strings.Contains(s, "in$")
	})
	d.sendLine("echo inside-$((6*7))")
	d.waitFor("inside-42")
	d.sendKeys(`C-\`)
	d.waitFor("heimdall")
	d.waitFor("detached from sh-1")
	d.sendKeys("?")
	d.waitFor("Key reference")
	d.sendKeys("Escape")
	d.waitScreen("help closed", func(s string) bool { return !strings.Contains(s, "Key reference") })
	// What was typed while attached is in the pane, once.
	s := d.capture()
	if n := strings.Count(s, "inside-42"); n != 1 {
		t.Errorf("inside-42 shown %d times after detach, want 1 (the output line; the command is shown as typed):\n%s", n, s)
	}

	// Resize from the command line; stty in the session sees it.
	d.command("resize sh-1 100x30")
	d.waitFor("resized to 100×30")
	d.sendTo("sh-1", "stty size")
	d.waitScreen("stty size 30 100", func(s string) bool { return paneLine("30 100").MatchString(s) })

	// x asks first, with No selected: enter keeps the session.
	d.sendKeys("x")
	d.waitFor("SIGTERM")
	d.sendKeys("Enter")
	d.waitScreen("the dialog closed", func(s string) bool { return !strings.Contains(s, "SIGTERM") })
	time.Sleep(300 * time.Millisecond)
	if s := d.capture(); strings.Contains(s, "Dead") {
		t.Fatalf("enter on the kill dialog (No selected) killed the session:\n%s", s)
	}
	// x then y kills: interactive bash ignores SIGTERM, so SIGKILL follows
	// after the 1 s grace: exit 137.
	d.sendKeys("x")
	d.waitFor("SIGTERM")
	d.sendKeys("y")
	d.waitFor("Dead")
	d.waitFor("137")

	d.sendKeys("d") // remove the dead session
	d.waitFor("no sessions")
	d.quit()
}

// spawnPreset picks preset in the open spawn dialog and submits it.
func (d *dash) spawnPreset(preset string) {
	d.t.Helper()
	for range 10 {
		if strings.Contains(d.capture(), "▸ "+preset+" ") {
			break
		}
		d.sendKeys("Down")
		time.Sleep(50 * time.Millisecond)
	}
	d.waitFor("▸ " + preset + " ")
	d.sendKeys("C-s")
}

func TestDashboardSeesRunFromAnotherTerminal(t *testing.T) {
	t.Parallel()
	d := startDashboard(t)
	// A session started by `heimdall-tui run` elsewhere appears, with its
	// screen followed over the socket.
	p := startSession(t, d.dir, "ext-1", "sh", "-c", "echo external-$((2*21)); exec sleep 60")
	d.waitFor("ext-1")
	d.waitFor("external-42")
	// Killing it from the dashboard ends the other process's session.
	d.sendKeys("x")
	d.waitFor("SIGTERM")
	d.sendKeys("y")
	d.waitFor("Dead")
	if code := p.wait(); code != 143 {
		t.Errorf("run exited %d, want 143 (SIGTERM)", code)
	}
	// The dashboard quits without asking: nothing of its own is running.
	d.quit()
}

func TestDashboardQuitStopsSessions(t *testing.T) {
	t.Parallel()
	d := startDashboard(t)
	d.command("spawn sh")
	d.waitFor("sh-1")
	sock := filepath.Join(d.dir, "sh-1.sock")
	if !poll(waitTimeout, func() bool { return fileExists(sock) }) {
		t.Fatalf("no socket %s", sock)
	}
	// Another terminal sees the dashboard's session.
	if r := hmIn(t, d.dir, "status", "sh-1"); r.code != 0 || !strings.Contains(r.stdout, "alive:    true") {
		t.Fatalf("status from another terminal: %s", r)
	}
	d.sendKeys("q")
	d.waitFor("1 session started from the dashboard is still running")
	d.sendKeys("s")
	d.waitDisplay("#{alternate_on}", "0")
	d.waitFor("stopping 1 session")
	d.waitPrompt("hm$")
	assertGone(t, sock)
}

// The ledger view and the blackboard editor follow the files as other
// processes write them.
func TestDashboardPlanningViewsFollowOtherWriters(t *testing.T) {
	t.Parallel()
	e := newPlanEnv(t)
	e.want(0, "", "ledger", "baseline", "--role", "orchestration", "--tokens", "41000")
	d := startDashboard(t, "HEIMDALL_PLANNING_DIR="+e.root)
	d.sendKeys("L")
	d.waitFor("Token ledger")
	e.want(0, "", "ledger", "log", "--role", "orchestration", "--kind", "delta_brief", "--tokens", "11250")
	d.waitFor("-73%")
	d.sendKeys("B")
	d.waitFor("Blackboard")
	e.want(0, "", "blackboard", "set", "dev_port", "5173")
	d.waitFor("5173")
	// An edit made in the dashboard reaches the file other tools read.
	d.sendKeys("e")
	d.run("send-keys", "-t", "main", "C-u")
	d.run("send-keys", "-t", "main", "-l", "3000")
	d.sendKeys("Enter")
	d.waitFor("saved dev_port")
	e.want(0, "3000\n", "blackboard", "get", "dev_port")
	d.sendKeys("Escape")
	d.waitFor("no sessions")
	d.quit()
}

// The ledger view follows the coordination ledger as agents write it, in a
// planning tree that only the ledger's tools have written (ledger/claims/
// and decisions.md, no protocol/): a claim made from a shell and a
// decision appended over MCP show while the view is open.
func TestDashboardLedgerFollowsClaims(t *testing.T) {
	t.Parallel()
	e := newPlanEnv(t)
	e.want(0, "claimed src/a/** for haid:alice.box-1a2b (task T-1, ttl 60m)\n", "claim", "claim", "--surfaces", "src/a/**", "--task", "T-1", "--haid", "haid:alice.box-1a2b")
	d := startDashboard(t, "HEIMDALL_PLANNING_DIR="+e.root)
	d.sendKeys("L")
	d.waitFor("Claims (1 active)")
	r := e.run("", "claim", "claim", "--surfaces", "docs/**", "--task", "T-2", "--haid", "haid:bob.box-3c4d", "--ttl-minutes", "30")
	if r.code != 0 {
		t.Fatalf("claim: %v", r)
	}
	d.waitFor("haid:bob.box-3c4d")
	d.waitFor("Claims (2 active)")
	mcp := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"cursor"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"append_decision","arguments":{"title":"parser uses tables","body":"agreed"}}}` + "\n"
	if r := e.run(mcp, "ledger-mcp"); r.code != 0 || !strings.Contains(r.stdout, `"id":2,"result"`) {
		t.Fatalf("ledger-mcp: %v", r)
	}
	d.waitFor("parser uses tables")
	e.want(0, "released haid:bob.box-3c4d\n", "claim", "release", "--haid", "haid:bob.box-3c4d")
	d.waitFor("Claims (1 active)")
	d.sendKeys("Escape")
	d.waitFor("no sessions")
	d.quit()
}

// Claude sessions report themselves to the dashboard through their hooks
// (the fake claude, spawned from a claude preset): a permission prompt
// shows as needs input with its command in the pane title; a turn that
// ends while another session is focused shows Done, counted in the
// header, until the user focuses it; an interrupt (Esc: no hook) settles
// to Idle.
func TestDashboardAgentHooks(t *testing.T) {
	t.Parallel()
	d := newDash(t, "HOME="+t.TempDir(), "FAKE_CLAUDE_STEP=300")
	cfg := dashConfig + fmt.Sprintf("[[agent]]\nname = \"claude\"\ncommand = [%q]\nclassifier = \"claude\"\n", fakeClaudePath)
	if err := os.WriteFile(d.cfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d.open()
	d.waitFor("no sessions")
	d.command("spawn claude a1")
	d.waitFor("Welcome to Claude Code")
	d.command("spawn claude b1")
	d.waitScreen("b1 listed", func(s string) bool { return strings.Contains(s, "b1") && strings.Contains(s, "2 running") })
	d.sendKeys("home")
	d.waitFor("╭─ a1")

	d.sendTo("a1", "perm")
	d.waitFor("a1 — Bash: rm -rf build")
	d.waitFor("! 1 need input")
	// The reason is in a1's row beside the preview, at every width.
	reasonInRow := regexp.MustCompile(`(?m)^[ >]! a1 +needs input .*Bash: rm.*│`)
	for _, size := range [][2]string{{"80", "24"}, {"220", "40"}, {"120", "35"}} {
		d.run("resize-window", "-t", "main", "-x", size[0], "-y", size[1])
		d.waitScreen("the reason in a1's row at "+size[0]+" columns", reasonInRow.MatchString)
	}
	d.sendTo("a1", "1") // allow
	d.waitScreen("the prompt answered", func(s string) bool { return !strings.Contains(s, "need input") })

	// A turn that ends while b1 is focused: Done until a1 is focused.
	d.sendTo("a1", "tool")
	d.sendKeys("j")
	d.waitFor("╭─ b1")
	d.waitFor("✓ 1 done")
	d.sendKeys("k")
	d.waitFor("╭─ a1")
	d.waitScreen("Done cleared by focus", func(s string) bool { return !strings.Contains(s, "done") })

	// Esc fires no hook: the screen settles it.
	row := func(state string) func(string) bool {
		re := regexp.MustCompile(`a1 +` + state)
		return func(s string) bool { return re.MatchString(s) }
	}
	d.sendTo("a1", "slow")
	d.waitScreen("a1 Thinking", row("Thinking"))
	before := strings.Count(d.capture(), "Interrupted")
	d.sendKeys("I")
	d.waitScreen("the slow turn interrupted", func(s string) bool { return strings.Count(s, "Interrupted") > before })
	d.waitScreen("a1 Idle", row("Idle"))
	d.quit()
}

// A session's bell wants attention — its row is marked until the user
// focuses it — and never reaches the dashboard's own terminal (tmux's
// alert-bell hook would record it).
func TestDashboardBellsStayInside(t *testing.T) {
	t.Parallel()
	d := startDashboard(t)
	rang := filepath.Join(t.TempDir(), "rang")
	d.run("set", "-g", "bell-action", "any")
	d.run("set-hook", "-g", "alert-bell", "run-shell 'touch "+rang+"'")
	d.command("spawn sh s1")
	d.waitFor("in$")
	d.command("spawn sh s2")
	d.waitScreen("s2 listed", func(s string) bool { return strings.Contains(s, "2 running") })
	d.sendKeys("home")
	d.waitFor("╭─ s1")
	d.command(`send s2 printf 'rings\a\033]777;notify;Build;done\007'`)
	marked := regexp.MustCompile(`(?m)^ +\* +s2 `)
	d.waitScreen("s2 marked", func(s string) bool { return marked.MatchString(s) })
	d.sendKeys("j")
	d.waitFor("╭─ s2")
	d.waitScreen("the mark cleared by focus", func(s string) bool { return !strings.Contains(s, "* ") })
	if _, err := os.Stat(rang); err == nil {
		t.Fatal("a session's bell reached the dashboard's terminal")
	}
	// The check can fail: the pane's own bell is recorded.
	d.quit()
	d.sendLine(`printf '\a'`)
	if !poll(waitTimeout, func() bool { _, err := os.Stat(rang); return err == nil }) {
		t.Fatal("tmux's alert-bell hook did not record a bell")
	}
}

// At 60×20 (a split beside an editor) the help does not fit: it scrolls
// (j, pgdown) to its end, which says what the list's marks mean.
func TestDashboardHelpScrolls(t *testing.T) {
	t.Parallel()
	d := startDashboard(t)
	d.run("resize-window", "-t", "main", "-x", "60", "-y", "20")
	d.waitFor("no sessions")
	d.sendKeys("?")
	d.waitFor("Key reference")
	d.waitFor("j, pgdown: more")
	for range 30 {
		before := d.capture()
		if strings.Contains(before, "k, pgup: back") {
			break
		}
		d.sendKeys("PgDn")
		d.waitScreen("a page further", func(s string) bool { return s != before })
	}
	d.waitFor("k, pgup: back")
	d.waitFor("Marks in the list")
	d.waitFor("needs input (the reason")
	d.sendKeys("k")
	d.waitFor("j k, pgup pgdown: more")
	d.sendKeys("Escape")
	d.waitFor("no sessions")
	d.quit()
}

// The sort order the user chooses is kept for the next dashboard.
func TestDashboardSortKept(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	d := startDashboard(t, "XDG_STATE_HOME="+state)
	d.sendKeys("s")
	d.waitFor("sorted by name")
	d.quit()
	if !poll(waitTimeout, func() bool {
		b, _ := os.ReadFile(filepath.Join(state, "heimdall", "dashboard.json"))
		return strings.Contains(string(b), `"sort":"name"`)
	}) {
		t.Fatal("the order was not kept")
	}
	d2 := startDashboard(t, "XDG_STATE_HOME="+state)
	d2.sendKeys("s")
	d2.waitFor("sorted by attention") // the one after name
	d2.quit()
}

// Issue 29, bug 2: a permission prompt that came up while no dashboard
// watched wants attention ('*'); answered (no hooks: the screen alone
// tells) by a program that then stays quiet, it no longer does: the
// dashboard that comes back shows no stale mark.
func TestDashboardAttentionEnds(t *testing.T) {
	t.Parallel()
	d := newDash(t)
	var script strings.Builder
	script.WriteString(promptScript(t))
	script.WriteString("read x; printf '\\033[2J\\033[Hdone\\r\\n'; exec sleep 300\n")
	if r := hmIn(t, d.dir, "run", "--detach", "--id", "p0", "--", "sleep", "300"); r.code != 0 {
		t.Fatalf("run: %s", r)
	}
	runPrompt(t, d.dir, "p1", script.String())
	needsInput := func(want bool) func() bool {
		return func() bool {
			r := hmIn(t, d.dir, "status", "p1", "--json")
			return r.code == 0 && strings.Contains(r.stdout, fmt.Sprintf(`"needs_input":%v`, want))
		}
	}
	if !poll(waitTimeout, needsInput(true)) {
		t.Fatal("the permission prompt was not read as needing input")
	}
	hmIn(t, d.dir, "send", "p1", "1")
	if !poll(waitTimeout, func() bool { return strings.Contains(hmIn(t, d.dir, "screen", "p1").stdout, "done") }) {
		t.Fatal("the prompt was not answered")
	}
	if !poll(waitTimeout, needsInput(false)) {
		t.Fatal("the answered prompt still reads as needing input")
	}
	// (The mark may still be on for the moment its re-check takes after
	// the screen changed: wait for it to go, do not look for it once.)
	d.open()
	d.waitScreen("p1 listed without a mark", regexp.MustCompile(`(?m)^[ >]  p1 `).MatchString)
	d.quit()
}

// promptScript is a shell script that draws a Claude Code permission
// prompt (the classifier corpus's) at 120 columns.
func promptScript(t *testing.T) string {
	t.Helper()
	cases, err := classifytest.Load("../../backend/classify/testdata")
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	for _, c := range cases {
		if c.Profile == "claude" && c.Expect == "NeedsInput" && strings.HasPrefix(c.Name, "needs-bash") {
			for i := range c.Frames {
				fmt.Fprintf(&script, "printf '%%s' '%s'\nsleep 0.1\n", strings.ReplaceAll(string(c.Draw(i, 120, classifytest.TrueColour)), "'", `'\''`))
			}
			return script.String()
		}
	}
	t.Fatal("no claude needs-input case in the corpus")
	return ""
}

// runPrompt runs script as session id with the claude classifier (no
// hooks: the screen alone tells) at the corpus's size.
func runPrompt(t *testing.T, dir, id, script string) {
	t.Helper()
	if r := hmIn(t, dir, "run", "--detach", "--id", id, "--classifier", "claude", "--cols", "120", "--rows", strconv.Itoa(classifytest.Rows), "--", "sh", "-c", script); r.code != 0 {
		t.Fatalf("run: %s", r)
	}
}

// Issue 29, bug 6: at 60×20 the list says how many rows are above and
// below the ones shown, and how many of those need input: scrolled to
// the end, the session waiting for the user (first in the attention
// order) is out of view and the header says so.
func TestDashboardSaysWhatIsOutOfView(t *testing.T) {
	t.Parallel()
	d := newDash(t)
	runPrompt(t, d.dir, "q", promptScript(t)+"exec sleep 300\n")
	for i := range 7 {
		if r := hmIn(t, d.dir, "run", "--detach", "--id", "p"+strconv.Itoa(i), "--", "sleep", "300"); r.code != 0 {
			t.Fatalf("run: %s", r)
		}
	}
	if !poll(waitTimeout, func() bool {
		r := hmIn(t, d.dir, "status", "q", "--json")
		return strings.Contains(r.stdout, `"needs_input":true`)
	}) {
		t.Fatal("q does not need input")
	}
	d.run("resize-window", "-t", "main", "-x", "60", "-y", "20")
	d.open()
	d.waitFor("! q ")
	d.waitScreen("more below", regexp.MustCompile(`NAME.* ↓\d`).MatchString)
	for range 8 {
		d.sendKeys("j")
	}
	d.waitScreen("p6 selected, q above and counted", func(s string) bool {
		return strings.Contains(s, ">  p6 ") && !strings.Contains(s, "! q ") && regexp.MustCompile(`NAME.* ↑\d+ !1`).MatchString(s)
	})
	d.quit()
}

// Issue 29, bug 7: in the attention order, sessions flipping between
// Active and Idle keep their rows: watched until each flipping session was
// seen both ways, the order of the rows never changes.
func TestDashboardAttentionOrderStill(t *testing.T) {
	t.Parallel()
	// A state dir of its own: the order chosen here is kept there, and
	// must not become the other dashboards' order.
	d := newDash(t, "XDG_STATE_HOME="+t.TempDir())
	// Idle after half a second of quiet: a and c work for a second and go
	// quiet for 1.5, over and over, flipping often enough to be seen on a
	// busy machine.
	cfg := filepath.Join(t.TempDir(), "run.toml")
	if err := os.WriteFile(cfg, []byte("idle_threshold = \"500ms\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	work := "while :; do i=0; while [ $i -lt 4 ]; do echo tick; sleep 0.25; i=$((i+1)); done; sleep 1.5; done"
	for _, s := range []struct{ id, script string }{
		{"a", work},
		{"b", "exec sleep 300"},
		{"c", "sleep 1; " + work},
		{"d", "exec sleep 300"},
	} {
		if r := hmIn(t, d.dir, "run", "--config", cfg, "--detach", "--id", s.id, "--", "sh", "-c", s.script); r.code != 0 {
			t.Fatalf("run: %s", r)
		}
	}
	d.open()
	d.sendKeys("s")
	d.sendKeys("s")
	d.waitFor("sorted by attention")
	row := regexp.MustCompile(`(?m)^.. +([a-d]) +(Active|Idle) `)
	var first string
	last, flips := map[string]string{}, map[string]int{}
	d.waitScreen("a and c flipped twice each", func(s string) bool {
		var order strings.Builder
		for _, m := range row.FindAllStringSubmatch(s, -1) {
			order.WriteString(m[1])
			if was, ok := last[m[1]]; ok && was != m[2] {
				flips[m[1]]++
			}
			last[m[1]] = m[2]
		}
		if order.Len() != 4 {
			return false
		}
		if first == "" {
			first = order.String()
		} else if order.String() != first {
			t.Fatalf("the rows moved: %s, then %s", first, order.String())
		}
		return flips["a"] >= 2 && flips["c"] >= 2
	})
	d.quit()
}

// Issue 29, item 9: the spawn form stays open when its spawn fails (a
// name taken), says why in place and keeps what was typed; corrected, it
// starts the session and closes.
func TestDashboardSpawnFormKeepsInput(t *testing.T) {
	t.Parallel()
	d := startDashboard(t)
	d.command("spawn sh s1")
	d.waitFor("in$")
	d.sendKeys("n")
	d.waitFor("ctrl+s")
	d.sendKeys("Tab")
	d.run("send-keys", "-t", "main", "-l", "s1")
	d.sendKeys("C-s")
	d.waitScreen("the reason in the open form, the name kept", func(s string) bool {
		return strings.Contains(s, `session "s1" already exists`) && strings.Contains(s, "ctrl+s") && regexp.MustCompile(`Name +s1\b`).MatchString(s)
	})
	d.sendKeys("BSpace")
	d.run("send-keys", "-t", "main", "-l", "2")
	d.sendKeys("C-s")
	d.waitScreen("s2 started, the form closed", func(s string) bool {
		return strings.Contains(s, "2 running") && !strings.Contains(s, "ctrl+s")
	})
	d.quitChoosing("s")
}
