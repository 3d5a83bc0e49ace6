package blemeesd

import (
	"context"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/blemees"
)

// heimdall's extension: a follower gets the sessions open, then a push
// for each one opened and closed (a close, a reap); a client that does
// not ask gets none of its frames.
func TestFollowSessions(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.IdleTimeoutS = 0.2 })
	owner := e.connect()
	openSession(t, owner, "s1", "cwd", e.home)
	plain := e.connect()

	pushes := make(chan blemees.Frame, 16)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := blemees.Dial(ctx, e.sock, "feed-test", func(fr blemees.Frame) { pushes <- fr })
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fr, err := f.Request(ctx, blemees.TypeFollowSessions, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows struct {
		Sessions []blemees.LiveSession `json:"sessions"`
	}
	if fr.Type != blemees.TypeSessions || fr.Decode(&rows) != nil || len(rows.Sessions) != 1 {
		t.Fatalf("reply %s", fr.Raw)
	}
	if s := rows.Sessions[0]; s.SessionID != "s1" || s.Cwd != e.home || !s.Attached || s.LastSeq == 0 {
		t.Fatalf("row %+v", s)
	}
	next := func(want string) blemees.Frame {
		t.Helper()
		for {
			select {
			case fr := <-pushes:
				if fr.SessionID != "" && fr.Type != blemees.TypeSessionClosed {
					continue // a session's own frames (none are watched here)
				}
				if fr.Type != want {
					t.Fatalf("push %s, want %s", fr.Raw, want)
				}
				return fr
			case <-ctx.Done():
				t.Fatalf("no %s", want)
			}
		}
	}

	openSession(t, owner, "s2", "cwd", e.dir)
	var o struct {
		Session blemees.LiveSession `json:"session"`
	}
	if fr := next(blemees.TypeSessionOpened); fr.Decode(&o) != nil || o.Session.SessionID != "s2" || o.Session.Cwd != e.dir || !o.Session.Attached {
		t.Fatalf("opened %s", fr.Raw)
	}
	owner.Request(map[string]any{"type": "blemeesd.close", "id": "c1", "session_id": "s1"}, "blemeesd.closed")
	if fr := next(blemees.TypeSessionClosed); fr.SessionID != "s1" {
		t.Fatalf("closed %s", fr.Raw)
	}
	owner.NC.Close() // s2 detached, then reaped
	if fr := next(blemees.TypeSessionClosed); fr.SessionID != "s2" {
		t.Fatalf("reaped %s", fr.Raw)
	}
	// The plain client's next frame is its pong: the test client fails
	// on any frame without a blemees/1 schema.
	if fr := plain.Request(map[string]any{"type": "blemeesd.ping", "id": "p1"}, "blemeesd.pong"); fr.Type() != "blemeesd.pong" {
		t.Fatalf("ping: %v", fr)
	}
}
