package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/heimdall-tui/heimdall-tui/backend/proc"
)

// openPty returns a pty pair closed when the test ends.
func openPty(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { master.Close(); tty.Close() })
	return master, tty
}

// readN reads exactly n bytes from the master, failing the test after a
// generous bound instead of hanging.
func readN(t *testing.T, master *os.File, n int) []byte {
	t.Helper()
	master.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, n)
	if _, err := io.ReadFull(master, buf); err != nil {
		t.Fatalf("reading %d bytes from the pty: %v (got %q)", n, err, buf)
	}
	return buf
}

func TestSaveLoadTerminalRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := Terminal{TTY: "/dev/pts/7", TMUX: "/tmp/tmux-0/default,123,0", Term: "xterm-256color", TermProgram: "WezTerm"}
	if err := SaveTerminal(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := LoadTerminal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("LoadTerminal = %+v, want %+v", got, want)
	}
	if !got.InTmux() {
		t.Error("InTmux() = false with $TMUX recorded")
	}
	st, err := os.Stat(filepath.Join(dir, TerminalFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	// A second save replaces the file by rename (a new inode), leaving no
	// temporary file behind.
	ino := st.Sys().(*syscall.Stat_t).Ino
	want2 := Terminal{TTY: "/dev/pts/8"}
	if err := SaveTerminal(dir, want2); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(filepath.Join(dir, TerminalFile))
	if st2.Sys().(*syscall.Stat_t).Ino == ino {
		t.Error("the second save rewrote the file in place")
	}
	if got, _ := LoadTerminal(dir); got != want2 || got.InTmux() {
		t.Errorf("after the second save: %+v, want %+v", got, want2)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("dir holds %d entries, want only %s", len(ents), TerminalFile)
	}
}

func TestTerminalFileNameIsNoSessionFile(t *testing.T) {
	if !strings.HasPrefix(TerminalFile, ".") {
		t.Errorf("%q does not start with a dot (session IDs cannot)", TerminalFile)
	}
	for _, ext := range []string{".sock", ".pid", ".log"} {
		if strings.HasSuffix(TerminalFile, ext) {
			t.Errorf("%q ends in %s", TerminalFile, ext)
		}
	}
}

// A reader never sees a half-written file while a dashboard saves.
func TestSaveTerminalIsAtomic(t *testing.T) {
	dir := t.TempDir()
	a := Terminal{TTY: "/dev/pts/1", Term: strings.Repeat("a", 3000)}
	b := Terminal{TTY: "/dev/pts/2", TMUX: strings.Repeat("b", 5000)}
	if err := SaveTerminal(dir, a); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 300 {
			if err := SaveTerminal(dir, [2]Terminal{a, b}[i%2]); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 300 {
		got, err := LoadTerminal(dir)
		if err != nil {
			t.Fatalf("LoadTerminal during saves: %v", err)
		}
		if got != a && got != b {
			t.Fatalf("LoadTerminal during saves: a mix: %.40q…", got.TTY)
		}
	}
	wg.Wait()
}

func TestLoadTerminalRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadTerminal(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("nothing saved: err = %v, want fs.ErrNotExist", err)
	}
	path := filepath.Join(dir, TerminalFile)
	write := func(body string) {
		t.Helper()
		os.Remove(path)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ name, body, want string }{
		{"not json", "tty=/dev/pts/1", "invalid character"},
		{"no tty", `{"term":"xterm"}`, "not a terminal device path"},
		{"tty outside /dev", `{"tty":"/home/u/.bashrc"}`, "not a terminal device path"},
		{"dotdot", `{"tty":"/dev/../etc/passwd"}`, "not a terminal device path"},
		{"/dev/tty", `{"tty":"/dev/tty"}`, "not a terminal device path"},
	} {
		write(tt.body)
		if _, err := LoadTerminal(dir); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", tt.name, err, tt.want)
		}
	}
	// A symlink in its place is not followed.
	os.Remove(path)
	target := filepath.Join(t.TempDir(), "t.json")
	os.WriteFile(target, []byte(`{"tty":"/dev/pts/1"}`), 0o600)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTerminal(dir); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("symlink: err = %v, want a refusal", err)
	}
	// Nor is a file of another user read (root can make one).
	if os.Getuid() == 0 {
		os.Remove(path)
		write(`{"tty":"/dev/pts/1"}`)
		if err := os.Chown(path, 12345, -1); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadTerminal(dir); err == nil || !strings.Contains(err.Error(), "owned by uid 12345") {
			t.Errorf("foreign file: err = %v", err)
		}
	}
	if err := SaveTerminal(dir, Terminal{TTY: "relative/pts"}); err == nil {
		t.Error("SaveTerminal of a non-device path: no error")
	}
}

func TestTTYName(t *testing.T) {
	_, tty := openPty(t)
	name, ok := ttyName(int(tty.Fd()))
	if !ok || name != tty.Name() {
		t.Errorf("ttyName(pty) = %q, %v; want %q", name, ok, tty.Name())
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if name, ok := ttyName(int(w.Fd())); ok {
		t.Errorf("ttyName(pipe) = %q, true", name)
	}
}

// CurrentTerminal in a process whose stdout is a pty (stdin and stderr are
// not) finds that pty and the environment.
func TestCurrentTerminal(t *testing.T) {
	if os.Getenv("HEIMDALL_NOTIFY_HELPER") == "current" {
		term, ok := CurrentTerminal()
		json.NewEncoder(os.Stderr).Encode(struct {
			T  Terminal
			OK bool
		}{term, ok})
		os.Exit(0)
	}
	_, tty := openPty(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCurrentTerminal$")
	cmd.Env = append(os.Environ(), "HEIMDALL_NOTIFY_HELPER=current",
		"TMUX=/tmp/tmux-1/default,42,0", "TERM=tmux-256color", "TERM_PROGRAM=tmux")
	cmd.Stdout = tty
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		T  Terminal
		OK bool
	}
	if err := json.Unmarshal(stderr.Bytes(), &got); err != nil {
		t.Fatalf("helper output %q: %v", stderr.Bytes(), err)
	}
	want := Terminal{TTY: tty.Name(), TMUX: "/tmp/tmux-1/default,42,0", Term: "tmux-256color", TermProgram: "tmux"}
	if !got.OK || got.T != want {
		t.Errorf("CurrentTerminal() = %+v, %v; want %+v", got.T, got.OK, want)
	}
}

func newNotifier(t *testing.T, o Options) (*Notifier, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	o.Logger = slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	n, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return n, &log
}

// Notify writes the exact sequence into the dashboard's real tty.
func TestNotifyWritesToTheSavedTTY(t *testing.T) {
	ev := Event{ID: "s1", Title: "title \x1b]0;x\a"}
	for _, tt := range []struct {
		format string
		tmux   string
	}{
		{FormatOSC9, ""},
		{FormatOSC777, ""},
		{FormatOSC9, "/tmp/tmux-0/default,1,0"},
	} {
		master, tty := openPty(t)
		dir := t.TempDir()
		if err := SaveTerminal(dir, Terminal{TTY: tty.Name(), TMUX: tt.tmux}); err != nil {
			t.Fatal(err)
		}
		n, _ := newNotifier(t, Options{Terminal: tt.format, Dir: dir})
		if err := n.Notify(context.Background(), ev); err != nil {
			t.Fatalf("%s: Notify: %v", tt.format, err)
		}
		want, _ := Sequence(tt.format, ev, tt.tmux != "")
		if got := readN(t, master, len(want)); string(got) != want {
			t.Errorf("%s tmux=%q: the tty got %q, want %q", tt.format, tt.tmux, got, want)
		}
	}
}

func TestNotifyWithoutTerminalIsHarmless(t *testing.T) {
	dir := t.TempDir()
	n, log := newNotifier(t, Options{Terminal: FormatOSC9, Dir: dir})
	if err := n.Notify(context.Background(), Event{ID: "x"}); err != nil {
		t.Errorf("nothing saved: Notify = %v", err)
	}
	// A tty that has gone away (its terminal was closed).
	if err := SaveTerminal(dir, Terminal{TTY: "/dev/pts/heimdall-test-no-such-tty"}); err != nil {
		t.Fatal(err)
	}
	if err := n.Notify(context.Background(), Event{ID: "x"}); err != nil {
		t.Errorf("missing tty: Notify = %v", err)
	}
	if !strings.Contains(log.String(), `"level":"DEBUG"`) || !strings.Contains(log.String(), "no-such-tty") {
		t.Errorf("missing tty not logged at debug level:\n%s", log)
	}
	if strings.Contains(log.String(), `"level":"WARN"`) || strings.Contains(log.String(), `"level":"ERROR"`) {
		t.Errorf("missing tty logged above debug:\n%s", log)
	}
}

func TestNotifyRefusesWhatIsNotOurTerminal(t *testing.T) {
	// /dev/null: a character device, root's, and no terminal.
	if err := writeTTY("/dev/null", []byte("x"), time.Second); err == nil || ttyGone(err) {
		t.Errorf("writeTTY(/dev/null) = %v, want a refusal", err)
	}
	for _, p := range []string{"/etc/passwd", "/dev/tty", "/dev/../dev/null", ""} {
		if err := writeTTY(p, []byte("x"), time.Second); err == nil {
			t.Errorf("writeTTY(%q): no error", p)
		}
	}
	if os.Getuid() != 0 {
		t.Skip("a pty of another uid needs root to make")
	}
	_, tty := openPty(t)
	if err := os.Chown(tty.Name(), 12345, -1); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	SaveTerminal(dir, Terminal{TTY: tty.Name()})
	n, _ := newNotifier(t, Options{Terminal: FormatOSC9, Dir: dir})
	if err := n.Notify(context.Background(), Event{ID: "x"}); err == nil || !strings.Contains(err.Error(), "owned by uid 12345") {
		t.Errorf("foreign tty: Notify = %v", err)
	}
}

// The tty is opened without becoming the controlling terminal of a process
// that has none. (Linux gives no controlling terminal through a write-only
// open either; the test fails if the open takes O_RDWR without O_NOCTTY.)
func TestNotifyNeverTakesAControllingTTY(t *testing.T) {
	if os.Getenv("HEIMDALL_NOTIFY_HELPER") == "ctty" {
		dir := os.Getenv("HEIMDALL_NOTIFY_DIR")
		n, _ := New(Options{Terminal: FormatOSC9, Dir: dir})
		if err := n.Notify(context.Background(), Event{ID: "x"}); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(2)
		}
		// With a controlling terminal, /dev/tty opens.
		if f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			f.Close()
			os.Stderr.WriteString("has a controlling terminal")
			os.Exit(3)
		}
		os.Exit(0)
	}
	master, tty := openPty(t)
	dir := t.TempDir()
	SaveTerminal(dir, Terminal{TTY: tty.Name()})
	cmd := exec.Command(os.Args[0], "-test.run=^TestNotifyNeverTakesAControllingTTY$")
	cmd.Env = append(os.Environ(), "HEIMDALL_NOTIFY_HELPER=ctty", "HEIMDALL_NOTIFY_DIR="+dir)
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	// A session leader without a terminal, started with proc.Start: in a
	// session of its own, a child started plainly may be reaped by
	// TestMain's subreaper before its Wait ("waitid: no child processes").
	p, err := proc.Start(cmd, proc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if code := p.Wait(); code != 0 {
		msg, _ := os.ReadFile(stderr.Name())
		t.Fatalf("helper: exit %d: %s", code, msg)
	}
	want, _ := Sequence(FormatOSC9, Event{ID: "x"}, false)
	if got := readN(t, master, len(want)); string(got) != want {
		t.Errorf("the tty got %q, want %q", got, want)
	}
}

func TestNewChecksOptions(t *testing.T) {
	if _, err := New(Options{Terminal: "osc8"}); err == nil || !strings.Contains(err.Error(), `"osc8"`) {
		t.Errorf("New(osc8) = %v", err)
	}
	if _, err := New(Options{Terminal: FormatOSC9}); err == nil {
		t.Error("New(osc9 without Dir): no error")
	}
	for _, o := range []Options{{}, {Terminal: FormatOff}} {
		n, err := New(o)
		if err != nil || n.Enabled() {
			t.Errorf("New(%+v) = %v, Enabled %v; want a notifier that does nothing", o, err, n != nil && n.Enabled())
		}
		if err := n.Notify(context.Background(), Event{ID: "x"}); err != nil {
			t.Errorf("disabled Notify = %v", err)
		}
	}
	if n, _ := New(Options{Command: "true"}); !n.Enabled() {
		t.Error("a command alone: Enabled() = false")
	}
}
