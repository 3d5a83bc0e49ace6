package sessions

import (
	"slices"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
	"github.com/heimdall-tui/heimdall-tui/themes"
	"github.com/heimdall-tui/heimdall-tui/tui/layout"
)

// SortOrder is the session list's order.
type SortOrder uint8

const (
	SortStarted   SortOrder = iota // oldest first (spawn order)
	SortName                       // by ID
	SortAttention                  // what wants the user first (needs input, an error, done), then the others as started, dead last
	numSorts
)

var sortNames = [numSorts]string{"started", "name", "attention"}

func (s SortOrder) String() string {
	if s < numSorts {
		return sortNames[s]
	}
	return "SortOrder(?)"
}

// List is the session list's state, as bubbles' list.Model keeps its own:
// every session the backend last listed, the filter (and whether it is
// being typed), the order, the selection (by ID, so it survives
// re-sorting and reloads) and the scroll offset. The root model delegates
// to it and renders it with View; List does no I/O.
type List struct {
	all    []session.Info
	view   []session.Info // filtered and sorted: what the list shows
	selID  string
	offset int
	filter string
	typing bool // the filter is being typed
	order  SortOrder
	// pending is selected once it appears (a session just spawned).
	pending string
	// rows is how many sessions the list shows at once when it holds n
	// (the list's height depends on it in a stacked layout).
	rows func(n int) int
}

// NewList returns an empty list; rows says how many sessions it shows at
// once when there are n (nil: all of them).
func NewList(rows func(n int) int) *List {
	if rows == nil {
		rows = func(n int) int { return max(1, n) }
	}
	return &List{rows: rows}
}

// SetItems replaces the sessions (the backend's latest list, in its
// order) and re-derives what is shown, keeping the selection on the same
// session when it is still shown.
func (l *List) SetItems(all []session.Info) {
	l.all = all
	l.refilter()
}

// All is every session, filtered or not, in the backend's order.
func (l *List) All() []session.Info { return l.all }

// Visible is what the list shows, filtered and sorted. The caller must
// not modify it.
func (l *List) Visible() []session.Info { return l.view }

// Find returns the session with id, shown or not.
func (l *List) Find(id string) (session.Info, bool) {
	if i := slices.IndexFunc(l.all, func(in session.Info) bool { return in.ID == id }); i >= 0 {
		return l.all[i], true
	}
	return session.Info{}, false
}

// Index is id's row among the shown sessions, -1 if not shown.
func (l *List) Index(id string) int {
	return slices.IndexFunc(l.view, func(in session.Info) bool { return in.ID == id })
}

// SelectedID is the selected session's ID, "" when the list is empty.
func (l *List) SelectedID() string { return l.selID }

// Selected returns the selected session.
func (l *List) Selected() (session.Info, bool) {
	if i := l.Index(l.selID); i >= 0 {
		return l.view[i], true
	}
	return session.Info{}, false
}

// Select selects id if it is shown, and reports whether it is.
func (l *List) Select(id string) bool {
	if l.Index(id) < 0 {
		return false
	}
	l.selID = id
	l.Scroll()
	return true
}

// SelectWhenShown selects id now if it is shown, else as soon as a
// SetItems shows it.
func (l *List) SelectWhenShown(id string) {
	if !l.Select(id) {
		l.pending = id
	}
}

// SelectIndex selects row i, clamped to the rows there are.
func (l *List) SelectIndex(i int) {
	if len(l.view) == 0 {
		return
	}
	l.selID = l.view[max(0, min(i, len(l.view)-1))].ID
	l.Scroll()
}

// Move moves the selection by rows (negative: up), clamped.
func (l *List) Move(by int) { l.SelectIndex(l.Index(l.selID) + by) }

// Filter is the filter text ("" for none).
func (l *List) Filter() string { return l.filter }

// SetFilter changes the filter.
func (l *List) SetFilter(f string) {
	l.filter = f
	l.refilter()
}

// Typing reports whether the filter is being typed; SetTyping says so.
func (l *List) Typing() bool      { return l.typing }
func (l *List) SetTyping(on bool) { l.typing = on }

// Order is the list's sort order.
func (l *List) Order() SortOrder { return l.order }

// SetOrder switches to order.
func (l *List) SetOrder(order SortOrder) {
	l.order = order % numSorts
	l.refilter()
}

// ParseSortOrder is the order named name (SortOrder.String), and whether
// there is one.
func ParseSortOrder(name string) (SortOrder, bool) {
	for i, n := range sortNames {
		if n == name {
			return SortOrder(i), true
		}
	}
	return 0, false
}

// NextOrder switches to the next sort order and returns it.
func (l *List) NextOrder() SortOrder {
	l.order = (l.order + 1) % numSorts
	l.refilter()
	return l.order
}

// Offset is the first row shown.
func (l *List) Offset() int { return l.offset }

// Scroll scrolls the list so the selection is shown (after the screen or
// the layout changed).
func (l *List) Scroll() {
	l.offset = layout.VisibleRange(len(l.view), max(0, l.Index(l.selID)), l.offset, l.rows(len(l.view)))
}

// View renders the list (see ViewHint) with empty as its empty line.
func (l *List) View(st *themes.Styles, now time.Time, w, h int, empty string) string {
	return ViewHint(st, l.view, l.Index(l.selID), l.offset, now, w, h, empty)
}

// ShownSince are the instants the durations View(…, w, h, …) shows are
// measured from (ShownSince, at the list's scroll offset).
func (l *List) ShownSince(w, h int) []time.Time { return ShownSince(l.view, l.offset, w, h) }

// refilter re-derives view from all, the filter and the order.
func (l *List) refilter() {
	q := strings.ToLower(l.filter)
	l.view = l.view[:0]
	for _, in := range l.all {
		if q == "" || matches(in, q) {
			l.view = append(l.view, in)
		}
	}
	sortInfos(l.view, l.order)
	if l.pending != "" && l.Index(l.pending) >= 0 {
		l.selID, l.pending = l.pending, ""
	}
	if l.Index(l.selID) < 0 {
		l.selID = ""
		if len(l.view) > 0 {
			l.selID = l.view[0].ID
		}
	}
	l.Scroll()
}

func matches(in session.Info, q string) bool {
	for _, s := range []string{in.ID, in.Agent, State(in), in.Title} {
		if strings.Contains(strings.ToLower(s), q) {
			return true
		}
	}
	return false
}

// sortInfos orders the list; ties fall back to start time then ID, so the
// order is stable. The attention order puts first what wants the user —
// needs input (asked while nobody watched first), an error, a turn done
// and not yet seen — and keeps the rest, busy or idle alike, in the order
// they started: rows do not jump as sessions flip between working and
// idle every few seconds.
func sortInfos(v []session.Info, order SortOrder) {
	rank := func(in session.Info) int {
		switch {
		case !in.Alive:
			return 5
		case in.Attention: // needs input since nobody watched
			return 0
		case in.NeedsInput:
			return 1
		case in.Error != "":
			return 2
		case in.Done:
			return 3
		}
		return 4
	}
	slices.SortStableFunc(v, func(a, b session.Info) int {
		switch order {
		case SortName:
			return strings.Compare(a.ID, b.ID)
		case SortAttention:
			if d := rank(a) - rank(b); d != 0 {
				return d
			}
		}
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}
