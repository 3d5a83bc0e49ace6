// Package pubsub is the backend → UI event bus: a Broker fans values out to
// subscribers, each of which pulls everything pending with one Next call.
//
// There are two kinds of value:
//
//   - Must-deliver (Publish): exits, errors, sessions appearing or leaving.
//     Each is queued for every subscriber, in publish order, and never
//     dropped. The queue is unbounded on purpose: these events are rare (a
//     handful per session lifetime), so a slow subscriber costs a few
//     hundred bytes, while a bounded queue would have to either drop an
//     exit the user must see or block the publisher, which may be a pty
//     reader or a screen feeder that must never wait for the UI.
//   - Lossy (PublishLossy): screen-dirty and state churn, where only the
//     latest value matters. A value replaces the pending value with the same
//     key, so a subscriber holds at most one per key however fast a session
//     writes; keys keep the order in which they first became pending.
//
// Next returns must-deliver values first, in order, then the pending lossy
// values in the order their keys first became pending. Nothing here runs on a timer: an idle broker and an
// idle subscriber wake nobody.
package pubsub

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed is returned by Next once the subscription or its broker is
// closed (after a closed broker's pending values have been drained).
var ErrClosed = errors.New("pubsub: closed")

// Broker fans values out to its subscribers. Its methods are safe for
// concurrent use; Publish and PublishLossy never block on a subscriber.
type Broker[T any] struct {
	mu     sync.Mutex
	subs   map[*Sub[T]]struct{}
	closed bool
}

// NewBroker returns an open broker with no subscribers.
func NewBroker[T any]() *Broker[T] {
	return &Broker[T]{subs: make(map[*Sub[T]]struct{})}
}

// Sub is one subscriber's pending values.
type Sub[T any] struct {
	b    *Broker[T]
	wake chan struct{} // capacity 1: "something changed"

	mu        sync.Mutex
	must      []T
	lossy     map[string]T
	lossyKeys []string // keys of lossy, in first-pending order
	closed    bool     // Close was called: Next fails at once
	drained   bool     // the broker closed: Next drains, then fails
}

// Subscribe returns a new subscription that receives every value published
// from now on. On a closed broker it returns a subscription whose Next
// reports ErrClosed.
func (b *Broker[T]) Subscribe() *Sub[T] {
	s := &Sub[T]{b: b, wake: make(chan struct{}, 1), lossy: make(map[string]T)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		s.drained = true
		return s
	}
	b.subs[s] = struct{}{}
	return s
}

// Publish queues v for every subscriber. It is never dropped and never
// blocks (see the package doc for why the queue is unbounded). After Close
// it is a no-op.
func (b *Broker[T]) Publish(v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.mu.Lock()
		s.must = append(s.must, v)
		s.mu.Unlock()
		s.signal()
	}
}

// PublishLossy makes v every subscriber's pending value for key, replacing
// one not yet taken by Next. A replaced key keeps its place in the order.
// After Close it is a no-op.
func (b *Broker[T]) PublishLossy(key string, v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		s.mu.Lock()
		if _, ok := s.lossy[key]; !ok {
			s.lossyKeys = append(s.lossyKeys, key)
		}
		s.lossy[key] = v
		s.mu.Unlock()
		s.signal()
	}
}

// Close stops the broker: later publishes are dropped, and each
// subscriber's Next returns what is still pending, then ErrClosed.
// It is idempotent.
func (b *Broker[T]) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for s := range b.subs {
		s.mu.Lock()
		s.drained = true
		s.mu.Unlock()
		s.signal()
	}
	b.subs = nil
}

func (s *Sub[T]) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Next blocks until at least one value is pending, then returns all of
// them: must-deliver values in publish order, then the latest lossy value
// per key in first-pending order. It returns ctx.Err() if ctx ends first,
// and ErrClosed after Close (of the subscription at once, of the broker
// once the pending values have been returned). Call it from one goroutine
// at a time.
func (s *Sub[T]) Next(ctx context.Context) ([]T, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, ErrClosed
		}
		if n := len(s.must) + len(s.lossyKeys); n > 0 {
			out := make([]T, 0, n)
			out = append(out, s.must...)
			for _, k := range s.lossyKeys {
				out = append(out, s.lossy[k])
			}
			s.must = nil
			s.lossyKeys = s.lossyKeys[:0]
			clear(s.lossy)
			s.mu.Unlock()
			return out, nil
		}
		if s.drained {
			s.mu.Unlock()
			return nil, ErrClosed
		}
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close unsubscribes and discards what is pending; Next then returns
// ErrClosed (a Next blocked in another goroutine wakes). It is idempotent.
func (s *Sub[T]) Close() {
	s.b.mu.Lock()
	if s.b.subs != nil {
		delete(s.b.subs, s)
	}
	s.b.mu.Unlock()
	s.mu.Lock()
	s.closed = true
	s.must, s.lossyKeys = nil, nil
	clear(s.lossy)
	s.mu.Unlock()
	s.signal()
}
