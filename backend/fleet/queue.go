package fleet

import "sync"

// queue hands values from a goroutine that must not block (a connection's
// reader) to one that acts on them (a follower's loop), in order: push
// never blocks, Ready is signalled when there is something to take.
type queue[T any] struct {
	mu    sync.Mutex
	items []T
	ready chan struct{}
}

func newQueue[T any]() *queue[T] { return &queue[T]{ready: make(chan struct{}, 1)} }

func (q *queue[T]) push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take returns what was pushed since the last take.
func (q *queue[T]) take() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// Ready is signalled once something has been pushed.
func (q *queue[T]) Ready() <-chan struct{} { return q.ready }
