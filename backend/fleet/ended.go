package fleet

import (
	"errors"
	"slices"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/attach"
	"github.com/heimdall-tui/heimdall-tui/backend/proc"
	"github.com/heimdall-tui/heimdall-tui/backend/review"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/backend/supervisor"
	"github.com/heimdall-tui/heimdall-tui/backend/vt"
)

// maxRecordSize bounds the screen an ended session's record may ask for
// (a corrupt record must not make the dashboard allocate gigabytes).
const maxRecordSize = 1000

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
	if cols <= 0 || rows <= 0 || cols > maxRecordSize || rows > maxRecordSize { // no screen, or not a sane one
		cols, rows = supervisor.DefaultCols, supervisor.DefaultRows
	}
	d.emu = vt.New(cols, rows, vt.Options{})
	d.emu.Write([]byte(rec.Screen))
	d.info = session.Info{
		Kind: session.KindPty, Agent: rec.Agent, Classifier: rec.Classifier,
		Argv: slices.Clone(rec.Argv), Dir: rec.Dir, Worktree: rec.Worktree, Owned: rec.Dashboard, PID: rec.PID,
		Started: rec.Started, State: session.Dead, ExitCode: rec.ExitCode,
		Cols: cols, Rows: rows, Title: d.emu.Snapshot().Title, Conversation: rec.Conversation,
		Usage: rec.Usage, Resume: session.Resume{Tokens: rec.Context, Model: rec.ContextModel},
	}
	if rec.Kind == "acp" {
		d.info.Kind = session.KindACP
	}
	if rec.Lost() {
		seen := rec.Started
		if rec.Seen != nil {
			seen = *rec.Seen
		}
		d.info.Lost, d.info.LastSeen, d.info.StateSince = true, seen, seen
		d.info.Rebooted = rec.Boot != "" && rec.Boot != f.boot
		d.info.ExitCode = -1 // not known
	} else {
		d.info.StateSince = *rec.Ended
	}
	r.Exited(d.info.ExitCode)
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
	return d.f.launch(d.rec.ID, specOf(d.rec.ID, d.info, d.rec), r)
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
	d, _ := e.m.(*ended)
	lost := d != nil && d.info.Lost
	rec, err := supervisor.ReadRecord(f.dir, e.id)
	// The supervisor delivers EXIT as the program ends and records the end
	// just after: give it a moment. A lost session's never will.
	for deadline := time.Now().Add(time.Second); err == nil && rec.Ended == nil && !lost &&
		rec.Supervisor == was.Supervisor && !proc.Gone(rec.Supervisor) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		rec, err = supervisor.ReadRecord(f.dir, e.id)
	}
	over := rec.Ended != nil || (lost && rec.Started.Equal(was.Started))
	if err != nil || !over || rec.Supervisor != was.Supervisor {
		return
	}
	if err := supervisor.RemoveRecord(f.dir, e.id); err != nil {
		f.log.Warn("session record", "id", e.id, "err", err)
	}
	if err := review.SaveNotes(supervisor.NotesPath(f.dir, e.id), nil); err != nil { // its review notes go with it
		f.log.Warn("session notes", "id", e.id, "err", err)
	}
}

// adoptEnded lists the sessions of the socket dir that ended while no
// dashboard followed them (their records say so) as Dead, and those whose
// supervisors died without recording an end as Dead and Lost.
func (f *Fleet) adoptEnded() {
	recs, err := supervisor.PastRecords(f.dir)
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
