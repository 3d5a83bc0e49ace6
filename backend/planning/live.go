package planning

import (
	"context"
	"sync"
	"time"
)

// liveDebounce merges a burst of file events (an agent appending ten ledger
// lines) into one reload; it is also the latency of a change showing up in
// the dashboard, well inside the "within a second".
const liveDebounce = 100 * time.Millisecond

// Live is a Store as the dashboard uses it: the reads and compare-and-swap
// writes of its views as plain methods, and NextChange, which blocks until
// the planning files change. Changes come from Watch (fsnotify): nothing
// polls, and an idle planning tree costs nothing.
type Live struct {
	s      *Store
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	pending Changes
	err     error // the watcher's failure, reported once by NextChange
	wake    chan struct{}
}

// NewLive starts watching s. Close stops it.
func NewLive(s *Store) *Live {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Live{s: s, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1)}
	go func() {
		defer close(l.done)
		err := s.Watch(ctx, liveDebounce, func(c Changes) {
			l.mu.Lock()
			l.pending |= c
			l.mu.Unlock()
			l.signal()
		})
		if err != nil && ctx.Err() == nil {
			l.mu.Lock()
			l.err = err
			l.mu.Unlock()
			l.signal()
		}
	}()
	return l
}

func (l *Live) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// NextChange blocks until some planning state changed since the last call
// and returns which, or returns ctx's error, or the watcher's error (once;
// after that no changes arrive).
func (l *Live) NextChange(ctx context.Context) (Changes, error) {
	for {
		l.mu.Lock()
		c, err := l.pending, l.err
		l.pending, l.err = 0, nil
		l.mu.Unlock()
		if c != 0 || err != nil {
			return c, err
		}
		select {
		case <-l.wake:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// Close stops the watcher and waits for it.
func (l *Live) Close() {
	l.cancel()
	<-l.done
}

// Root is the planning root.
func (l *Live) Root() string { return l.s.Root() }

// LedgerReport is Ledger().Report(latest).
func (l *Live) LedgerReport(latest int) (LedgerReport, error) { return l.s.Ledger().Report(latest) }

// Facts is Blackboard().Load().
func (l *Live) Facts() (Facts, error) { return l.s.Blackboard().Load() }

// SetFact is Blackboard().SetIf: refused with a *ConflictError if the file
// changed since expected.
func (l *Live) SetFact(key, value string, expected Version) (Version, error) {
	return l.s.Blackboard().SetIf(key, value, expected)
}

// DeleteFact is Blackboard().DeleteIf.
func (l *Live) DeleteFact(key string, expected Version) (Version, error) {
	return l.s.Blackboard().DeleteIf(key, expected)
}

// CapsuleIDs is Capsules().List().
func (l *Live) CapsuleIDs() ([]string, error) { return l.s.Capsules().List() }

// Hydrate is Capsules().Hydrate(id): the capsule's dependency closure,
// dependencies first.
func (l *Live) Hydrate(id string) (string, error) { return l.s.Capsules().Hydrate(id) }
