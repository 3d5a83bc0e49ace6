package coord

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

// ErrConflict is a claim refused by the collision gate.
var ErrConflict = errors.New("conflict")

// DefaultTTL is a claim's lifetime without heartbeat, in minutes.
const DefaultTTL = 60

// Claim is one HAID's claim, stored as ledger/claims/<file>.json.
type Claim struct {
	HAID            string   `json:"haid"`
	Human           string   `json:"human"`
	ClaimedSurfaces []string `json:"claimed_surfaces"`
	TaskRef         string   `json:"task_ref"`
	ClaimedAt       string   `json:"claimed_at"`
	TTLMinutes      int      `json:"ttl_minutes"`
	Heartbeat       string   `json:"heartbeat"`
}

// Expires is when the claim lapses: its last heartbeat plus its TTL.
func (c Claim) Expires() time.Time {
	t, err := time.Parse(time.RFC3339, c.Heartbeat)
	if err != nil {
		t, _ = time.Parse(time.RFC3339, c.ClaimedAt)
	}
	return t.Add(time.Duration(c.TTLMinutes) * time.Minute)
}

// Active reports whether the claim is unexpired at now.
func (c Claim) Active(now time.Time) bool { return now.Before(c.Expires()) }

// ConflictError names the claim that overlaps a refused one.
type ConflictError struct {
	Surface, Held string // the requested surface and the held pattern it overlaps
	Holder        Claim
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("conflict: %s overlaps %s claimed by %s (task %s, until %s)",
		e.Surface, e.Held, e.Holder.HAID, e.Holder.TaskRef, e.Holder.Expires().UTC().Format(time.RFC3339))
}

func (e *ConflictError) Unwrap() error { return ErrConflict }

// ClaimsDir holds one JSON file per HAID.
func (l *Ledger) ClaimsDir() string { return filepath.Join(l.dir, "claims") }

// ClaimPath is h's claim file: h with "/" and ":" replaced by "_".
func (l *Ledger) ClaimPath(h string) string {
	return filepath.Join(l.ClaimsDir(), strings.NewReplacer("/", "_", ":", "_").Replace(h)+".json")
}

// gatePath is the file whose lock serialises every claim mutation.
func (l *Ledger) gatePath() string { return filepath.Join(l.ClaimsDir(), "gate") }

// AllClaims reads every claim file, expired ones included, by HAID.
func (l *Ledger) AllClaims() ([]Claim, error) {
	paths, err := filepath.Glob(filepath.Join(l.ClaimsDir(), "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Claim
	for _, p := range paths {
		var c Claim
		if err := readJSON(p, &c); err != nil {
			return nil, err
		}
		if c.HAID != "" {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].HAID < out[j].HAID })
	return out, nil
}

// Claims are the active (unexpired) claims.
func (l *Ledger) Claims() ([]Claim, error) {
	all, err := l.AllClaims()
	if err != nil {
		return nil, err
	}
	now := l.now()
	out := all[:0]
	for _, c := range all {
		if c.Active(now) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Claim records h's claim on surfaces for task, replacing h's previous
// one, unless a surface overlaps an active claim of another HAID: then it
// returns a *ConflictError naming the first such claim. The check and the
// write happen under one lock, so of two agents claiming the same surface
// at once exactly one wins.
func (l *Ledger) Claim(h string, surfaces []string, task string, ttl int) (Claim, error) {
	human, _, err := ParseHAID(h)
	if err != nil {
		return Claim{}, err
	}
	var clean []string
	for _, s := range surfaces {
		if s = strings.TrimSpace(s); s != "" {
			clean = append(clean, s)
		}
	}
	switch {
	case len(clean) == 0:
		return Claim{}, fmt.Errorf("%w: no surfaces", ErrInvalid)
	case strings.TrimSpace(task) == "":
		return Claim{}, fmt.Errorf("%w: no task", ErrInvalid)
	case ttl < 0:
		return Claim{}, fmt.Errorf("%w: negative ttl", ErrInvalid)
	case ttl == 0:
		ttl = DefaultTTL
	}
	var c Claim
	err = planning.WithLock(l.gatePath(), func() error {
		if err := l.collide(h, clean); err != nil {
			return err
		}
		now := l.stamp()
		c = Claim{HAID: h, Human: human, ClaimedSurfaces: clean, TaskRef: task, ClaimedAt: now, TTLMinutes: ttl, Heartbeat: now}
		return writeJSON(l.ClaimPath(h), c)
	})
	return c, err
}

// collide returns a *ConflictError if a surface overlaps an active claim
// of another HAID than h. The caller holds the gate's lock.
func (l *Ledger) collide(h string, surfaces []string) error {
	held, err := l.Claims()
	if err != nil {
		return err
	}
	for _, o := range held {
		if o.HAID == h {
			continue
		}
		for _, s := range surfaces {
			for _, p := range o.ClaimedSurfaces {
				if Overlap(s, p) {
					return &ConflictError{Surface: s, Held: p, Holder: o}
				}
			}
		}
	}
	return nil
}

// Release removes h's claim; it reports whether there was one.
func (l *Ledger) Release(h string) (bool, error) {
	var had bool
	err := planning.WithLock(l.gatePath(), func() error {
		err := os.Remove(l.ClaimPath(h))
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		had = err == nil
		return err
	})
	return had, err
}

// Heartbeat renews h's claim: its heartbeat becomes now. An expired claim
// is renewed only if no other active claim overlaps it meanwhile.
func (l *Ledger) Heartbeat(h string) (Claim, error) {
	var c Claim
	err := planning.WithLock(l.gatePath(), func() error {
		c = Claim{}
		if err := readJSON(l.ClaimPath(h), &c); err != nil {
			return err
		}
		if c.HAID == "" {
			return fmt.Errorf("no claim of %s: %w", h, planning.ErrNotFound)
		}
		now := l.now()
		if !c.Active(now) {
			if err := l.collide(h, c.ClaimedSurfaces); err != nil {
				return err
			}
		}
		c.Heartbeat = l.stamp()
		return writeJSON(l.ClaimPath(h), c)
	})
	return c, err
}

// GC removes the expired claims and returns them.
func (l *Ledger) GC() ([]Claim, error) {
	var gone []Claim
	err := planning.WithLock(l.gatePath(), func() error {
		all, err := l.AllClaims()
		if err != nil {
			return err
		}
		now := l.now()
		for _, c := range all {
			if !c.Active(now) {
				if err := os.Remove(l.ClaimPath(c.HAID)); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
				gone = append(gone, c)
			}
		}
		return nil
	})
	return gone, err
}
