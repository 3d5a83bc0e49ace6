package fleet

import (
	"fmt"
	"slices"

	"github.com/heimdall-tui/heimdall-tui/backend/session"
)

// Opener opens sessions of one event-driven kind (Blemees, Heddle).
type Opener interface {
	Open(spec HeadlessSpec) (id string, err error)
}

var (
	_ Opener = (*Blemees)(nil)
	_ Opener = (*Heddle)(nil)
)

// Openers routes a HeadlessSpec to the opener of its Kind ("" is
// session.KindHeadless): the one thing a UI needs to offer every
// event-driven kind the process can open.
type Openers map[session.Kind]Opener

// Open opens spec with the opener of its kind.
func (o Openers) Open(spec HeadlessSpec) (string, error) {
	kind := spec.Kind
	if kind == "" {
		kind = session.KindHeadless
	}
	op, ok := o[kind]
	if !ok {
		return "", fmt.Errorf("cannot open %s here", kind.Describe())
	}
	return op.Open(spec)
}

// Kinds lists the kinds o opens, sorted.
func (o Openers) Kinds() []session.Kind {
	var ks []session.Kind
	for k := range o {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
