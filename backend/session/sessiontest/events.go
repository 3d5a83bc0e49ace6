// Package sessiontest has test helpers for code that publishes
// session.Events (the fleet, and the tests of what sits on it).
package sessiontest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/proctest"
	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Source is what a Recorder reads: a fleet's Next, ended by its Close.
type Source interface {
	Next(ctx context.Context) ([]session.Event, error)
	Close() error
}

// Recorder collects a Source's events on a goroutine until Next fails.
type Recorder struct {
	mu   sync.Mutex
	evs  []session.Event
	done chan struct{}
}

// Record starts collecting src's events. At the test's end it closes src
// and fails the test if Next does not return within 10 s.
func Record(t testing.TB, src Source) *Recorder {
	r := &Recorder{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for {
			evs, err := src.Next(context.Background())
			if err != nil {
				return
			}
			r.mu.Lock()
			r.evs = append(r.evs, evs...)
			r.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		src.Close()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("Next did not end after Close")
		}
	})
	return r
}

// Find returns the index of the first event of kind for id with Seq ≥
// minSeq (only Dirty events carry one), or -1.
func (r *Recorder) Find(kind session.EventKind, id string, minSeq uint64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, e := range r.evs {
		if e.Kind == kind && e.ID == id && e.Seq >= minSeq {
			return i
		}
	}
	return -1
}

// Has reports whether an event of kind for id arrived.
func (r *Recorder) Has(kind session.EventKind, id string) bool { return r.Find(kind, id, 0) >= 0 }

// Count returns how many events of kind for id arrived.
func (r *Recorder) Count(kind session.EventKind, id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.evs {
		if e.Kind == kind && e.ID == id {
			n++
		}
	}
	return n
}

func (r *Recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range r.evs {
		fmt.Fprintf(&b, "%v(%s,%d) ", e.Kind, e.ID, e.Seq)
	}
	return b.String()
}

// Wait waits up to 10 s for an event Find finds and returns its index.
func (r *Recorder) Wait(t testing.TB, kind session.EventKind, id string, minSeq uint64) int {
	t.Helper()
	i := -1
	proctest.WaitFor(t, fmt.Sprintf("%v(%s, seq ≥ %d) in %v", kind, id, minSeq, r), 10*time.Second, func() bool {
		i = r.Find(kind, id, minSeq)
		return i >= 0
	})
	return i
}
