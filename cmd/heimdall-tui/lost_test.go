package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	bproc "github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
)

// Issue 35's done-when: every supervisor of five sessions (three fake
// Claudes in conversations, two shells) is SIGKILLed, as a reboot or the
// OOM killer would; a new dashboard in tmux lists five Lost sessions lost
// together; A (resume all) starts them again one by one — the Claudes
// with --resume ID, each in its own directory — at least the configured
// gap apart.
func TestDashboardLostTogether(t *testing.T) {
	t.Parallel()
	d := newDash(t)
	const gap = 1500 * time.Millisecond
	if err := os.WriteFile(d.cfg, []byte(dashConfig+"[resume]\ngap = \""+gap.String()+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(t.TempDir(), "starts")
	type sess struct{ id, convo, dir string }
	var ss []sess
	for i, s := range []struct{ id, convo string }{{"c1", "conv-a"}, {"p1", ""}, {"c2", "conv-b"}, {"p2", ""}, {"c3", "conv-c"}} {
		wd := filepath.Join(t.TempDir(), "w"+strconv.Itoa(i))
		if err := os.Mkdir(wd, 0o700); err != nil {
			t.Fatal(err)
		}
		argv := []string{"run", "--detach", "--id", s.id, "--workdir", wd}
		if s.convo != "" {
			argv = append(argv, "--agent", "claude", "--classifier", "claude", "--",
				"env", "FAKE_CLAUDE_CONV="+s.convo, "FAKE_CLAUDE_STARTS="+starts, fakeClaudePath)
		} else {
			argv = append(argv, "--", "sh", "-c", `echo "$(date +%s%N) $PWD sh" >> "$0"; echo plain-ready; exec sleep 300`, starts)
		}
		if r := hmIn(t, d.dir, argv[0], argv[1:]...); r.code != 0 {
			t.Fatalf("run %s: %s", s.id, r)
		}
		ss = append(ss, sess{s.id, s.convo, wd})
	}
	// Each record holds its conversation and the screen it stood still on.
	recs := map[string]supervisor.Record{}
	for _, s := range ss {
		if !poll(30*time.Second, func() bool {
			rec, err := supervisor.ReadRecord(d.dir, s.id)
			recs[s.id] = rec
			return err == nil && rec.Conversation == s.convo && rec.Seen != nil
		}) {
			t.Fatalf("%s's record: %+v", s.id, recs[s.id])
		}
	}
	for _, rec := range recs {
		syscall.Kill(rec.Supervisor, syscall.SIGKILL)
		syscall.Kill(-rec.PID, syscall.SIGKILL)
	}
	for _, rec := range recs {
		if !poll(waitTimeout, func() bool { return bproc.Gone(rec.Supervisor) && bproc.Gone(rec.PID) }) {
			t.Fatalf("%s still runs", rec.ID)
		}
	}
	before, _ := os.ReadFile(starts)

	d.open()
	screen := d.waitFor("5 sessions were lost together")
	if n := len(regexp.MustCompile(`(?m)^[ >!*]+[cp]\d +Lost `).FindAllString(screen, -1)); n != 5 || !strings.Contains(screen, "5 lost") {
		t.Fatalf("%d Lost rows:\n%s", n, screen)
	}
	d.waitFor("Welcome to Claude Code (fake)") // c1's last screen, from its record
	d.sendKeys("A")
	d.waitFor("Start 5 sessions again")
	d.sendKeys("y")
	var lines []string
	if !poll(60*time.Second, func() bool {
		b, _ := os.ReadFile(starts)
		lines = strings.Split(strings.TrimSpace(strings.TrimPrefix(string(b), string(before))), "\n")
		return len(lines) == 5 && lines[0] != ""
	}) {
		t.Fatalf("starts after resume all: %q\n%s", lines, d.capture())
	}
	var order []string
	for _, l := range lines {
		f := strings.Fields(l)
		var s *sess
		for j := range ss {
			if ss[j].dir == f[1] {
				s = &ss[j]
			}
		}
		if s == nil {
			t.Fatalf("a start in no session's directory: %q", l)
		}
		order = append(order, s.id)
		if s.convo != "" && !strings.Contains(l, " --resume "+s.convo+" ") {
			t.Errorf("%s started without --resume %s: %q", s.id, s.convo, l)
		}
	}
	// The gap, from the new records: a supervisor notes its start before
	// it starts the program, the restart it answers returns once the
	// program runs, and the next restart is asked a gap after that. (The
	// programs' own start times are no measure: each waits for its runtime
	// to start, longer under load.)
	type started struct {
		id string
		at time.Time
	}
	var byStart []started
	for _, s := range ss {
		var rec supervisor.Record
		if !poll(waitTimeout, func() bool {
			var err error
			rec, err = supervisor.ReadRecord(d.dir, s.id)
			return err == nil && rec.Started.After(recs[s.id].Started)
		}) {
			t.Fatalf("%s has no new record after the resume: %+v", s.id, rec)
		}
		byStart = append(byStart, started{s.id, rec.Started})
	}
	slices.SortFunc(byStart, func(a, b started) int { return a.at.Compare(b.at) })
	for i := 1; i < len(byStart); i++ {
		if d := byStart[i].at.Sub(byStart[i-1].at); d < gap {
			t.Errorf("%s's supervisor started %s after %s's (gap %s)", byStart[i].id, d, byStart[i-1].id, gap)
		}
	}
	if !slices.Equal(order, []string{"c1", "c2", "c3", "p1", "p2"}) && !slices.Equal(order, []string{"c1", "p1", "c2", "p2", "c3"}) {
		t.Errorf("started in the order %q", order)
	}
	d.waitScreen("all five running again", func(s string) bool { return strings.Contains(s, "5 running") })
	d.quit()
}

// ls --all lists, after the live sessions, those that ended (their exit
// code) and those lost (the supervisor SIGKILLed, as a reboot would leave
// them), from their records; plain ls lists the live one only, as hm's.
func TestLsAll(t *testing.T) {
	dir := newSockDir(t)
	waitLive(t, startRun(t, dir, "live", nil, nil, "sleep", "60"))
	ended := startRun(t, dir, "ended", nil, nil, "sh", "-c", "exit 3")
	if !poll(waitTimeout, ended.exited) {
		t.Fatal("the ended session's run did not end")
	}
	waitLive(t, startRun(t, dir, "lost", nil, nil, "sleep", "60"))
	rec, err := supervisor.ReadRecord(dir, "lost")
	if err != nil {
		t.Fatal(err)
	}
	syscall.Kill(rec.Supervisor, syscall.SIGKILL)
	syscall.Kill(-rec.PID, syscall.SIGKILL)
	if !poll(waitTimeout, func() bool { return bproc.Gone(rec.Supervisor) && bproc.Gone(rec.PID) }) {
		t.Fatal("the lost session still runs")
	}
	if lines := lsLines(t, dir); len(lines) != 1 || !strings.HasPrefix(lines[0], "live ") {
		t.Fatalf("ls: %q", lines)
	}
	r := hmIn(t, dir, "ls", "--all")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^live +pid=\d+ +state=\S+ +idle=\S+ +alive=yes$`),
		regexp.MustCompile(`^ended +pid=\d+ +state=ended +exit=3 ended=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d alive=no$`),
		regexp.MustCompile(`^lost +pid=\d+ +state=lost +(seen|started)=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d alive=no$`),
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != len(want) {
		t.Fatalf("ls --all: %s", r)
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("ls --all line %d: %q, want %s", i+1, lines[i], re)
		}
	}
}

// resume starts lost sessions again from the command line, as the
// dashboard's R and A do: a plain one with its command, a Claude one in
// the conversation its hooks reported; a running, an ended or an unknown
// ID is refused (exit 1) while the others go on; --all takes every lost
// one, and says so when there is none.
func TestResume(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := newSockDir(t)
	lose := func(id string) {
		t.Helper()
		rec, err := supervisor.ReadRecord(dir, id)
		if err != nil {
			t.Fatal(err)
		}
		syscall.Kill(rec.Supervisor, syscall.SIGKILL)
		syscall.Kill(-rec.PID, syscall.SIGKILL)
		if !poll(waitTimeout, func() bool { return bproc.Gone(rec.Supervisor) && bproc.Gone(rec.PID) }) {
			t.Fatalf("%s still runs", id)
		}
	}
	plainArgv := []string{"sh", "-c", "echo plain-$1; exec sleep 60", "sh", "one"}
	waitLive(t, startRun(t, dir, "plain", nil, nil, plainArgv...))
	waitLive(t, startRun(t, dir, "c1", nil, []string{"--agent", "claude", "--classifier", "claude"}, fakeClaudePath))
	if !poll(waitTimeout, func() bool {
		rec, err := supervisor.ReadRecord(dir, "c1")
		return err == nil && rec.Conversation == "conv-1"
	}) {
		t.Fatal("c1's record has no conversation")
	}
	ended := startRun(t, dir, "ended", nil, nil, "sh", "-c", "exit 3")
	if !poll(waitTimeout, ended.exited) {
		t.Fatal("the ended session's run did not end")
	}
	waitLive(t, startRun(t, dir, "live", nil, nil, "sleep", "60"))
	lose("plain")
	lose("c1")

	r := hmIn(t, dir, "resume", "plain", "ended", "live", "nope")
	if r.code != 1 || r.stdout != "plain: started again: "+strings.Join(plainArgv, " ")+"\n" {
		t.Fatalf("resume: %s", r)
	}
	for _, want := range []string{"ended ended (exit 3), it was not lost", "live is running", "no session nope"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("resume's errors lack %q: %s", want, r.stderr)
		}
	}
	if !poll(waitTimeout, func() bool { return strings.Contains(hmIn(t, dir, "screen", "plain").stdout, "plain-one") }) {
		t.Fatal("plain does not run its command again")
	}
	if rec, err := supervisor.ReadRecord(dir, "plain"); err != nil || !slices.Equal(rec.Argv, plainArgv) || bproc.Gone(rec.Supervisor) {
		t.Fatalf("plain's record after resume: %+v %v", rec, err)
	}

	r = hmIn(t, dir, "resume", "--all")
	if r.code != 0 || r.stdout != "c1: resumed in its conversation (conv-1)\n" {
		t.Fatalf("resume --all: %s", r)
	}
	if rec, err := supervisor.ReadRecord(dir, "c1"); err != nil || !slices.Equal(rec.Argv, []string{fakeClaudePath, "--resume", "conv-1"}) {
		t.Fatalf("c1's record after resume: %+v %v", rec, err)
	}
	if r := hmIn(t, dir, "resume", "--all"); r.code != 0 || r.stdout != "No lost sessions\n" {
		t.Fatalf("resume --all with none lost: %s", r)
	}
	if r := hmIn(t, dir, "resume"); r.code != 2 {
		t.Fatalf("resume without IDs: %s", r)
	}
}
