package main

import (
	"testing"
	"time"
)

// The trimmer frees once after it starts, and again after a later spell
// of pokes (a timer that has fired is armed again by a poke).
func TestIdleTrimmerFreesAfterEachSpell(t *testing.T) {
	freed := make(chan struct{}, 16)
	it := newIdleTrimmer(time.Millisecond, func() { freed <- struct{}{} })
	defer it.stop()
	wait := func(what string) {
		t.Helper()
		select {
		case <-freed:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: not freed", what)
		}
	}
	wait("after start")
	for range 100 {
		it.poke()
	}
	wait("after a spell of pokes")
}
