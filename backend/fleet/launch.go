package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/classify"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
	"github.com/heimdall-tui/heimdall-tui/wire/unixsock"
)

// launchWait bounds how long a spawn waits for its supervisor to serve the
// session (the program's start included) or to give up.
const launchWait = 10 * time.Second

// recordWait bounds how long following a session whose socket was just
// created waits for its supervisor to write the session's record (just
// after it starts listening).
const recordWait = 300 * time.Millisecond

// launch starts spec under id (reserved by the caller) as a session of a
// supervisor process of its own — Options.Supervisor with run's arguments,
// `--dashboard` among them — and follows it once it serves the session.
// The supervisor leads its own session (setsid), so the terminal or the
// death of this process does not reach it; this process reaps it while it
// lives (proc.Start).
//
// Readiness: run --dashboard points its stdio at /dev/null once the
// session is served, so EOF on its stderr means it started, unless it
// exited: then what it printed is the error. A program that started and
// exited at once is a Dead session (its record says how it ended), as a
// program that exits later is.
func (f *Fleet) launch(id string, spec Spec, r Reporter) (Member, error) {
	if len(f.supervisor) == 0 {
		return nil, fmt.Errorf("spawn %s: no supervisor command configured", id)
	}
	args, envVar, err := f.runArgs(id, spec)
	if err != nil {
		return nil, fmt.Errorf("spawn %s: %w", id, err)
	}
	// A supervisor still serving the ID (a restart's old session finishing)
	// is told apart from other failures, so a restart waits for it.
	if st, _ := unixsock.Inspect(supervisor.SocketPath(f.dir, id)); st == unixsock.Live {
		return nil, fmt.Errorf("spawn %s: %w", id, supervisor.ErrAlreadyRunning)
	}
	cmd := exec.Command(f.supervisor[0], args...)
	cmd.Args[0] = "heimdall-tui" // not /proc/self/exe in ps
	cmd.Env = append(os.Environ(), envVar)
	cmd.Dir = "/" // a supervisor lives for hours: it keeps no directory busy
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("spawn %s: %w", id, err)
	}
	cmd.Stderr = wr
	p, err := proc.Start(cmd, proc.Options{Logger: f.log})
	wr.Close()
	if err != nil {
		rd.Close()
		return nil, fmt.Errorf("spawn %s: start supervisor: %w", id, err)
	}
	rd.SetReadDeadline(time.Now().Add(launchWait))
	said, _ := io.ReadAll(io.LimitReader(rd, 64<<10))
	rd.Close()
	m, x, err := f.follow(id, r, false)
	if err == nil {
		x.supervisor = p
		return m, nil
	}
	select {
	case <-p.Done():
	case <-time.After(time.Second):
		p.ForceKill() // alive but not serving: nothing to follow
		return nil, fmt.Errorf("spawn %s: its supervisor does not answer: %w", id, err)
	}
	if rec, rerr := supervisor.ReadRecord(f.dir, id); rerr == nil && rec.Ended != nil && rec.Supervisor == p.PID() {
		return f.endedMember(rec, r), nil
	}
	msg := strings.TrimSpace(string(said))
	msg = strings.TrimPrefix(msg, "heimdall-tui: ")
	if msg == "" {
		msg = fmt.Sprintf("its supervisor exited with code %d", p.ExitCode())
	}
	if p.ExitCode() == 1 && strings.Contains(msg, "already running") { // run's words for ErrAlreadyRunning
		return nil, fmt.Errorf("spawn %s: %w", id, supervisor.ErrAlreadyRunning)
	}
	return nil, fmt.Errorf("spawn %s: %s", id, msg)
}

// SpawnEnvVar carries the environment a spawn adds (the preset's, then the
// spec's) from the dashboard to its supervisor, as a JSON array of
// NAME=value: not as `run --env` arguments, which any user can read in
// the process list for as long as the supervisor lives (API keys…).
// `run --dashboard` takes it out of its own environment.
const SpawnEnvVar = "HEIMDALL_SPAWN_ENV"

// runArgs are the supervisor's arguments for spec under id (the preset's
// classifier, the working directory made absolute), and the SpawnEnvVar
// entry of its environment.
func (f *Fleet) runArgs(id string, spec Spec) (args []string, envVar string, err error) {
	cls := spec.Classifier
	var env []string
	if p, ok := f.preset(spec.Agent); ok {
		env = append(env, p.Env...)
		if cls == "" {
			cls = p.Classifier
		}
	}
	env = append(env, spec.Env...)
	if cls == "" {
		cls = f.cfg.Classifier
	}
	if cls != "" && !slices.Contains(classify.Names(), cls) {
		return nil, "", fmt.Errorf("unknown classifier %q (one of %s)", cls, strings.Join(classify.Names(), ", "))
	}
	dir, err := filepath.Abs(spec.Dir) // "" is this process's directory
	if err != nil {
		return nil, "", err
	}
	args = append(slices.Clone(f.supervisor[1:]), "run", "--dashboard", "--id", id, "--workdir", dir)
	if cls != "" {
		args = append(args, "--classifier", cls)
	}
	if spec.Agent != "" {
		args = append(args, "--agent", spec.Agent)
	}
	if spec.Cols > 0 && spec.Rows > 0 {
		args = append(args, "--cols", strconv.Itoa(int(spec.Cols)), "--rows", strconv.Itoa(int(spec.Rows)))
	}
	js, err := json.Marshal(withoutRepeats(env))
	if err != nil {
		return nil, "", err
	}
	return append(append(args, "--"), spec.Argv...), SpawnEnvVar + "=" + string(js), nil
}

// withoutRepeats drops each entry of env that a later entry repeats
// exactly. The environment it gives is the same (the last NAME= wins), but
// the preset's env is not given twice when the spec holds it too (the
// dashboard's spawn passes it), nor once more on every restart (which
// passes the env the session's record lists).
func withoutRepeats(env []string) []string {
	var out []string
	for i, e := range env {
		if !slices.Contains(env[i+1:], e) {
			out = append(out, e)
		}
	}
	return out
}

// follow dials the session served on id's socket and returns it as a
// followed member reporting to r, described by its record (agent,
// classifier, working dir, command, start, who started it) or, without
// one, by /proc. With wait (its socket was just created) it gives the
// supervisor recordWait to write the record. A session whose command is
// known can be restarted: launched again under the same ID.
func (f *Fleet) follow(id string, r Reporter, wait bool) (Member, *followed, error) {
	sock := supervisor.SocketPath(f.dir, id)
	x, err := dialFollowed(sock, r)
	if err != nil {
		return nil, nil, err
	}
	x.log, x.idle = f.log, f.idle
	x.info.ID = id
	rec, ok := f.recordOf(id, x.info.PID, wait)
	if ok {
		x.rec = rec
		x.info.Agent, x.info.Classifier = rec.Agent, rec.Classifier
		x.info.Argv, x.info.Dir = slices.Clone(rec.Argv), rec.Dir
		x.info.Started, x.info.Owned = rec.Started, rec.Dashboard
	} else {
		x.info.Argv, x.info.Dir = procInfo(x.info.PID)
		x.info.Agent = f.agentName(x.info.Argv)
		x.info.Started = time.Now()
		if fi, err := os.Lstat(sock); err == nil {
			x.info.Started = fi.ModTime() // when the session's supervisor bound it
		}
	}
	// What a restart starts is read from x.info before the reader and its
	// status refreshes write to it.
	restartable, spec := len(x.info.Argv) > 0, specOf(id, x.info, rec.Env)
	x.start()
	if !restartable {
		return x, x, nil
	}
	return restartableFollowed{followed: x, f: f, spec: spec}, x, nil
}

// recordOf reads id's record if it describes the session whose program is
// pid (a record left by an earlier session under the ID does not).
func (f *Fleet) recordOf(id string, pid int, wait bool) (supervisor.Record, bool) {
	deadline := time.Now().Add(recordWait)
	for {
		rec, err := supervisor.ReadRecord(f.dir, id)
		if err == nil && rec.PID == pid {
			return rec, true
		}
		if !wait || time.Now().After(deadline) {
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				f.log.Warn("session record", "id", id, "err", err)
			}
			return supervisor.Record{}, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// specOf is what a restart of the session in starts again.
func specOf(id string, in session.Info, env []string) Spec {
	return Spec{ID: id, Agent: in.Agent, Argv: slices.Clone(in.Argv), Dir: in.Dir,
		Classifier: in.Classifier, Env: slices.Clone(env), Cols: uint16(in.Cols), Rows: uint16(in.Rows)}
}

// ended is a session that ended while no dashboard followed it, known from
// its record: Dead with its exit code and the screen it left, restartable
// with what it ran.
type ended struct {
	info session.Info
	rec  supervisor.Record
	f    *Fleet
	emu  *vt.Emulator  // the last screen, drawn from the record
	done chan struct{} // closed: nothing runs
}

// endedMember lists rec as a Dead session: its Exited is reported now (and
// published right after its Added).
func (f *Fleet) endedMember(rec supervisor.Record, r Reporter) Member {
	d := &ended{rec: rec, f: f, done: make(chan struct{})}
	close(d.done)
	cols, rows := rec.Cols, rec.Rows
	if cols <= 0 || rows <= 0 { // a record without the screen
		cols, rows = supervisor.DefaultCols, supervisor.DefaultRows
	}
	d.emu = vt.New(cols, rows, vt.Options{})
	d.emu.Write([]byte(rec.Screen))
	d.info = session.Info{
		Kind: session.KindPty, Agent: rec.Agent, Classifier: rec.Classifier,
		Argv: slices.Clone(rec.Argv), Dir: rec.Dir, Owned: rec.Dashboard, PID: rec.PID,
		Started: rec.Started, StateSince: *rec.Ended, State: session.Dead, ExitCode: rec.ExitCode,
		Cols: cols, Rows: rows, Title: d.emu.Snapshot().Title,
	}
	r.Exited(rec.ExitCode)
	return d
}

func (d *ended) Info() session.Info          { return d.info }
func (d *ended) Send(session.Input) error    { return errors.New("session has exited") }
func (d *ended) Stop(bool) error             { return nil }
func (d *ended) Hangup()                     {}
func (d *ended) Done() <-chan struct{}       { return d.done }
func (d *ended) record() supervisor.Record   { return d.rec }
func (d *ended) Screen() *vt.Snapshot        { return d.emu.Snapshot() }
func (d *ended) Resize(uint16, uint16) error { return errors.New("session has exited") }
func (d *ended) Endpoint() (attach.Endpoint, error) {
	return nil, errors.New("session has exited")
}
func (d *ended) Restart(r Reporter) (Member, error) {
	return d.f.launch(d.rec.ID, specOf(d.rec.ID, d.info, d.rec.Env), r)
}

// recorded is a member described by a session record (supervisor.Record).
type recorded interface{ record() supervisor.Record }

// forgetRecord removes the record of e's session once the user has seen it
// end (removed it, or quit a dashboard that showed it Dead): only if it is
// still that session's record, ended.
func (f *Fleet) forgetRecord(e *entry) {
	rd, ok := e.m.(recorded)
	if !ok {
		return
	}
	was := rd.record()
	if was.ID == "" {
		return
	}
	rec, err := supervisor.ReadRecord(f.dir, e.id)
	if err != nil || rec.Ended == nil || rec.Supervisor != was.Supervisor {
		return
	}
	if err := supervisor.RemoveRecord(f.dir, e.id); err != nil {
		f.log.Warn("session record", "id", e.id, "err", err)
	}
}

// Hanger is a member whose program has a terminal that can be hung up as
// a closing terminal is (pty sessions): SIGHUP, SIGTERM a second later if
// anything is left, SIGKILL after the kill grace. StopOwned uses it; other
// members are stopped with Stop(false).
type Hanger interface {
	HangupTerminal() error
}

// adoptEnded lists the sessions of the socket dir that ended while no
// dashboard followed them (their records say so) as Dead.
func (f *Fleet) adoptEnded() {
	recs, err := supervisor.EndedRecords(f.dir)
	if err != nil {
		f.log.Warn("session records", "err", err)
		return
	}
	for _, rec := range recs {
		if _, err := f.reserve("adopt", Spec{ID: rec.ID}); err != nil {
			continue // listed meanwhile
		}
		e := &entry{id: rec.ID, adopted: true}
		if err := f.register(e, f.endedMember(rec, f.reporter(e)), nil); err != nil {
			f.log.Info("ended session not listed", "id", rec.ID, "err", err)
		}
		f.unreserve(rec.ID)
	}
}
