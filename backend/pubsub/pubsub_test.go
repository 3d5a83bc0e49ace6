package pubsub

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

type ev struct {
	kind string
	n    int
}

func next(t *testing.T, s *Sub[ev]) []ev {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := s.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return out
}

func TestCoalescingAndOrder(t *testing.T) {
	b := NewBroker[ev]()
	s := b.Subscribe()
	b.PublishLossy("dirty/a", ev{"dirty-a", 1})
	b.Publish(ev{"added", 1})
	b.PublishLossy("dirty/b", ev{"dirty-b", 1})
	b.PublishLossy("dirty/a", ev{"dirty-a", 2}) // replaces, keeps its place
	b.Publish(ev{"exited", 2})
	b.PublishLossy("dirty/a", ev{"dirty-a", 3})
	got := next(t, s)
	want := []ev{{"added", 1}, {"exited", 2}, {"dirty-a", 3}, {"dirty-b", 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Everything was taken: a new lossy value starts a fresh order.
	b.PublishLossy("dirty/b", ev{"dirty-b", 2})
	b.PublishLossy("dirty/a", ev{"dirty-a", 4})
	if got := next(t, s); fmt.Sprint(got) != fmt.Sprint([]ev{{"dirty-b", 2}, {"dirty-a", 4}}) {
		t.Fatalf("second batch %v", got)
	}
}

func TestEverySubscriberGetsEverything(t *testing.T) {
	b := NewBroker[ev]()
	s1, s2 := b.Subscribe(), b.Subscribe()
	b.Publish(ev{"x", 1})
	b.PublishLossy("k", ev{"k", 1})
	for _, s := range []*Sub[ev]{s1, s2} {
		if got := next(t, s); len(got) != 2 || got[0] != (ev{"x", 1}) || got[1] != (ev{"k", 1}) {
			t.Fatalf("got %v", got)
		}
	}
	// A subscriber only sees what is published after it subscribed.
	s3 := b.Subscribe()
	b.Publish(ev{"y", 2})
	if got := next(t, s3); len(got) != 1 || got[0] != (ev{"y", 2}) {
		t.Fatalf("late subscriber got %v", got)
	}
}

// TestNoLossUnderConcurrency: many publishers, a reader that takes batches
// as they come; every must-deliver value arrives exactly once and each
// publisher's values arrive in its order, while lossy values for one key
// never go backwards.
func TestNoLossUnderConcurrency(t *testing.T) {
	const pubs, per = 8, 2000
	b := NewBroker[ev]()
	s := b.Subscribe()
	var wg sync.WaitGroup
	for p := range pubs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				b.Publish(ev{fmt.Sprint("p", p), i})
				b.PublishLossy(fmt.Sprint("l", p), ev{fmt.Sprint("l", p), i})
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	lastMust := map[string]int{}
	lastLossy := map[string]int{}
	total := 0
	deadline := time.Now().Add(20 * time.Second)
	for total < pubs*per {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d must-deliver values arrived", total, pubs*per)
		}
		for _, e := range next(t, s) {
			if e.kind[0] == 'p' {
				prev, ok := lastMust[e.kind]
				if (!ok && e.n != 0) || (ok && e.n != prev+1) {
					t.Fatalf("%s: got %d after %d (seen=%v)", e.kind, e.n, prev, ok)
				}
				lastMust[e.kind] = e.n
				total++
			} else {
				if prev, ok := lastLossy[e.kind]; ok && e.n <= prev {
					t.Fatalf("%s went back: %d after %d", e.kind, e.n, prev)
				}
				lastLossy[e.kind] = e.n
			}
		}
	}
	<-done
	// The final lossy values are either taken already or pending now.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	rest, _ := s.Next(ctx)
	for _, e := range rest {
		if e.kind[0] == 'p' {
			t.Fatalf("extra must-deliver value %v", e)
		}
		lastLossy[e.kind] = e.n
	}
	for p := range pubs {
		if k := fmt.Sprint("l", p); lastLossy[k] != per-1 {
			t.Errorf("%s: last lossy value %d, want %d", k, lastLossy[k], per-1)
		}
	}
}

func TestNextBlocksUntilPublish(t *testing.T) {
	b := NewBroker[ev]()
	s := b.Subscribe()
	got := make(chan []ev, 1)
	go func() {
		out, _ := s.Next(context.Background())
		got <- out
	}()
	select {
	case out := <-got:
		t.Fatalf("Next returned %v with nothing published", out)
	case <-time.After(50 * time.Millisecond):
	}
	b.Publish(ev{"a", 1})
	select {
	case out := <-got:
		if len(out) != 1 || out[0] != (ev{"a", 1}) {
			t.Fatalf("got %v", out)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next did not wake on Publish")
	}
}

func TestContextCancel(t *testing.T) {
	b := NewBroker[ev]()
	s := b.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := s.Next(ctx); errc <- err }()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next ignored ctx")
	}
	// Nothing was lost by the cancelled call.
	b.Publish(ev{"a", 1})
	if got := next(t, s); len(got) != 1 {
		t.Fatalf("got %v", got)
	}
}

func TestBrokerCloseDrains(t *testing.T) {
	b := NewBroker[ev]()
	s := b.Subscribe()
	b.Publish(ev{"exit", 1})
	b.PublishLossy("k", ev{"k", 1})
	b.Close()
	b.Close() // idempotent
	b.Publish(ev{"late", 2})
	if got := next(t, s); len(got) != 2 || got[0].kind != "exit" || got[1].kind != "k" {
		t.Fatalf("drain got %v", got)
	}
	if _, err := s.Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("after drain err = %v, want ErrClosed", err)
	}
	if _, err := b.Subscribe().Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("subscribe after close: err = %v", err)
	}
}

func TestBrokerCloseWakesBlockedNext(t *testing.T) {
	b := NewBroker[ev]()
	s := b.Subscribe()
	errc := make(chan error, 1)
	go func() { _, err := s.Next(context.Background()); errc <- err }()
	time.Sleep(10 * time.Millisecond)
	b.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake Next")
	}
}

func TestSubClose(t *testing.T) {
	b := NewBroker[ev]()
	s, other := b.Subscribe(), b.Subscribe()
	b.Publish(ev{"a", 1})
	s.Close()
	s.Close()
	if _, err := s.Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
	b.Publish(ev{"b", 2})
	if got := next(t, other); len(got) != 2 {
		t.Fatalf("other subscriber got %v", got)
	}
}

func BenchmarkPublishNext(b *testing.B) {
	br := NewBroker[ev]()
	s := br.Subscribe()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		br.PublishLossy("dirty/a", ev{"dirty", i})
		br.PublishLossy("dirty/a", ev{"dirty", i + 1})
		if i%16 == 0 {
			br.Publish(ev{"exit", i})
		}
		if _, err := s.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
