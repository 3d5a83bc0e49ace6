package planning

// Blackboard is the shared fact table (blackboard.json): key → value facts
// discovered once (ports, versions, environment quirks) and read by key.
//
// Editors use Load, then SetIf/DeleteIf with the Version they loaded: if
// another process changed the file in between, the write is refused with a
// *ConflictError (errors.Is(err, ErrConflict)) instead of overwriting the
// other change. The Version covers the whole file, so any external change
// counts as a conflict; the editor reloads and lets the user decide.
type Blackboard struct{ s *Store }

// Blackboard returns the Store's blackboard.
func (s *Store) Blackboard() Blackboard { return Blackboard{s} }

func (b Blackboard) table() kv {
	return kv{
		table: table[string]{path: b.s.BlackboardPath(), field: "facts"},
		s:     b.s,
		noun:  "fact",
		key:   "key",
		value: "value",
		actor: "blackboard",
	}
}

// Facts is a snapshot of the blackboard.
type Facts struct {
	Facts   map[string]string
	Version Version
}

// Load reads the blackboard; a missing file is empty with Version "".
func (b Blackboard) Load() (Facts, error) {
	m, v, err := b.table().load()
	return Facts{Facts: m, Version: v}, err
}

// Get returns the value of key; an unknown key is ErrNotFound.
func (b Blackboard) Get(key string) (string, error) { return b.table().get(key) }

// List returns the facts sorted by key.
func (b Blackboard) List() ([]Entry, error) { return b.table().list() }

// Set sets key = value unconditionally (last writer wins, no update lost).
func (b Blackboard) Set(key, value string) error {
	_, err := b.table().set(key, value, nil)
	return err
}

// SetIf sets key = value only if the file's Version is still expected; it
// returns the new Version, or a *ConflictError.
func (b Blackboard) SetIf(key, value string, expected Version) (Version, error) {
	return b.table().set(key, value, &expected)
}

// Delete removes key; an unknown key is ErrNotFound.
func (b Blackboard) Delete(key string) error {
	_, err := b.table().del(key, nil)
	return err
}

// DeleteIf removes key only if the file's Version is still expected.
func (b Blackboard) DeleteIf(key string, expected Version) (Version, error) {
	return b.table().del(key, &expected)
}
