package blemeesd

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/blemees"
)

// The blemees/1 client against the real daemon: hello, requests answered
// by id (status, an error reply), a watch's ack then the owner's session
// events (replayed from the ring, then live) through OnFrame, and Done
// when the daemon goes away.
func TestClient(t *testing.T) {
	e := newEnv(t)
	owner := e.connect()
	openSession(t, owner, "s1")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	var got []blemees.Frame
	c, err := blemees.Dial(ctx, e.sock, "client-test/1", func(f blemees.Frame) {
		mu.Lock()
		got = append(got, f)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Hello.Protocol != blemees.Protocol || c.Hello.Daemon != "blemeesd/"+Version {
		t.Fatalf("hello %+v", c.Hello)
	}
	st, err := c.Request(ctx, "blemeesd.status", nil)
	if err != nil || st.Type != "blemeesd.status_reply" {
		t.Fatalf("status: %v %+v", err, st)
	}
	_, err = c.Request(ctx, "blemeesd.watch", map[string]any{"session_id": "nope"})
	var be *blemees.Error
	if !errors.As(err, &be) || be.Code != blemees.CodeSessionUnknown {
		t.Fatalf("watch of an unknown session: %v", err)
	}
	w, err := c.Request(ctx, "blemeesd.watch", map[string]any{"session_id": "s1", "last_seen_seq": 0})
	if err != nil || w.Type != "blemeesd.watching" || w.SessionID != "s1" {
		t.Fatalf("watch: %v %+v", err, w)
	}
	turnText(t, owner, "s1", "hello")
	types := func() (ts []string, seqOK bool) {
		mu.Lock()
		defer mu.Unlock()
		seqOK = true
		for i, f := range got {
			ts = append(ts, f.Type)
			if f.SessionID != "s1" || f.Seq != uint64(i+1) {
				seqOK = false
			}
		}
		return
	}
	waitFor(t, "the watched turn's result", func() bool {
		ts, _ := types()
		return len(ts) > 0 && ts[len(ts)-1] == "claude.result"
	})
	if ts, ok := types(); ts[0] != "claude.system" || !ok {
		t.Fatalf("frames %v (seqs from 1, session s1: %v)", ts, ok)
	}
	e.stop()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Done not closed after the daemon stopped")
	}
	if _, err := c.Request(ctx, "blemeesd.status", nil); !errors.Is(err, blemees.ErrConnClosed) {
		t.Fatalf("request after the end: %v", err)
	}
}
