package fleet

import (
	"fmt"
	"time"

	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// Limiter is a member whose supervisor keeps a usage limit's parking and
// scheduled continue (LIMIT).
type Limiter interface {
	Limit(req frame.LimitRequest) error
}

// Park says whether heimdall may send session id anything on its own (a
// scheduled continue): parked, nothing, and a scheduled continue is
// dropped.
func (f *Fleet) Park(id string, on bool) error {
	return f.limit(id, frame.LimitRequest{Park: &on})
}

// Continue schedules text to be typed into session id as a prompt at at,
// or at its usage limit's reset if that is later; "" cancels it. Its
// supervisor keeps the schedule (it outlives the dashboard).
func (f *Fleet) Continue(id string, at time.Time, text string) error {
	req := frame.LimitRequest{Text: text}
	if text != "" {
		req.ContinueAt = at.UnixMilli()
	}
	return f.limit(id, req)
}

func (f *Fleet) limit(id string, req frame.LimitRequest) error {
	e, err := f.get(id)
	if err != nil {
		return err
	}
	l, ok := e.m.(Limiter)
	if !ok {
		return fmt.Errorf("%s is %s: its supervisor keeps no usage limits", id, e.kind.Describe())
	}
	if err := l.Limit(req); err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	return nil
}

// Limit implements Limiter: a LIMIT on a connection of its own.
func (x *sockBase) Limit(req frame.LimitRequest) error { return limitOver(x.dialer, req) }
