package classify

import "time"

// DebounceHold is how long a raw state must persist before it is reported.
// Screens settle within a frame or two; 200 ms hides a transient redraw
// (a status line cleared and rewritten) while still reporting a new state
// within 200 ms of the screen settling.
const DebounceHold = 200 * time.Millisecond

// debouncer turns a piecewise-constant raw state, fed as change points in
// time order, into the reported state. It is exact however rarely it is
// queried: set commits a pending candidate that had already held long
// enough before the new change point.
type debouncer struct {
	hold      time.Duration
	rep       Raw       // reported state
	repSince  time.Time // when the screen first showed rep
	cand      Raw       // latest raw state
	candSince time.Time // when the screen first showed cand
}

func newDebouncer(hold time.Duration, start time.Time) debouncer {
	return debouncer{hold: hold, rep: RawIdle, repSince: start, cand: RawIdle, candSince: start}
}

// set records that the raw state is r from t on. Times must not go back.
func (d *debouncer) set(t time.Time, r Raw) {
	d.rep, d.repSince = d.at(t)
	if r != d.cand {
		d.cand, d.candSince = r, t
	}
}

// at returns the reported state at now and when it began; now must not be
// before the last set (the debouncer keeps no history). A state's start
// is when the screen first showed it, not when the hold expired, so a
// dashboard's "thinking for 12s" counts from the real start.
func (d *debouncer) at(now time.Time) (Raw, time.Time) {
	if d.cand != d.rep && now.Sub(d.candSince) >= d.hold {
		return d.cand, d.candSince
	}
	return d.rep, d.repSince
}
