package fleet

import (
	"fmt"
	"os"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/uuid"
)

// Open opens a headless Claude session on the followed daemon (blemees/1
// open, with include_partial_messages so the answer streams and
// replay_user_messages so the user's turns are in the session's stream for
// every dashboard that follows it), owned by the follower's connection,
// and lists it; it returns its fleet ID. It is what the spawn dialog
// uses: the member sends turns, interrupts, closes (x) and restarts (a
// resume) it. It blocks until the daemon has answered the open.
func (b *Blemees) Open(spec HeadlessSpec) (string, error) {
	if spec.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("open a headless session: %w", err)
		}
		spec.Dir = wd // the daemon's own directory is not the dashboard's
	}
	sid := uuid.New()
	id := spec.ID
	if id == "" {
		id = fleetID(sid)
	}
	err := b.f.Add(id, func(id string, r Reporter) (Member, error) { return b.openOwned(id, sid, spec, false, r) })
	if err != nil {
		return "", err
	}
	if err := rememberName(b.opt.Names, sid, id); err != nil {
		b.log().Warn("headless session's name not kept", "id", id, "err", err)
	}
	return id, nil
}

// openOwned opens (or with resume, reopens) session sid for member id.
func (b *Blemees) openOwned(id, sid string, spec HeadlessSpec, resume bool, r Reporter) (Member, error) {
	m := newBlemeesMember(b, sid)
	m.id, m.r, m.own, m.dir, m.model = id, r, true, spec.Dir, spec.Model
	b.mu.Lock()
	if old := b.members[sid]; old != nil {
		b.mu.Unlock()
		return nil, fmt.Errorf("open %s: session %s is listed already", id, sid)
	}
	b.members[sid] = m // before the open: claude's events follow its reply
	b.mu.Unlock()
	fields := map[string]any{"session_id": sid, "cwd": spec.Dir, "include_partial_messages": true, "replay_user_messages": true}
	for k, v := range map[string]string{"model": spec.Model, "permission_mode": spec.PermissionMode, "system_prompt": spec.SystemPrompt} {
		if v != "" {
			fields[k] = v
		}
	}
	if resume {
		fields["resume"] = true
	}
	fr, err := b.request("blemeesd.open", fields)
	if err != nil {
		b.forget(m)
		return nil, fmt.Errorf("open %s on blemeesd: %w", id, err)
	}
	var o struct {
		LastSeq uint64 `json:"last_seq"`
	}
	fr.Decode(&o)
	m.liveAfter = o.LastSeq
	go m.loop()
	return blemeesOwned{m, spec}, nil
}

// blemeesOwned is a session the dashboard opened on a followed daemon: it
// can also be interrupted and restarted (session.CapInterrupt,
// CapRestart).
type blemeesOwned struct {
	*blemeesMember
	spec HeadlessSpec
}

// Interrupt implements Interrupter: the daemon ends the turn in flight and
// starts claude again with --resume (§5.7); blemeesd.interrupted arrives
// as an event, so it is sent without a request id.
func (o blemeesOwned) Interrupt() error {
	if !o.owns() {
		return o.driveErr("interrupt")
	}
	if err := o.b.send("blemeesd.interrupt", map[string]any{"session_id": o.sid}); err != nil {
		return fmt.Errorf("interrupt %s: %w", o.id, err)
	}
	return nil
}

// Restart implements Restarter: the same conversation is opened again
// with resume.
func (o blemeesOwned) Restart(r Reporter) (Member, error) {
	return o.b.openOwned(o.id, o.sid, o.spec, true, r)
}

var _ interface {
	Interrupter
	Restarter
} = blemeesOwned{}
