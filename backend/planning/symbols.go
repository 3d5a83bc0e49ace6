package planning

import (
	"fmt"
	"sort"
)

// Symbols is the symbol table (protocol/symbols.json): short ids for
// recurring artifacts (paths, criteria, invariants), resolvable both ways.
type Symbols struct{ s *Store }

// Symbols returns the Store's symbol table.
func (s *Store) Symbols() Symbols { return Symbols{s} }

func (y Symbols) table() kv {
	return kv{
		table: table[string]{path: y.s.SymbolsPath(), field: "symbols"},
		s:     y.s,
		noun:  "symbol",
		key:   "symbol id",
		value: "symbol value",
		actor: "resolve",
	}
}

// Load returns the whole table and its Version.
func (y Symbols) Load() (map[string]string, Version, error) { return y.table().load() }

// Get resolves id; an unknown id is ErrNotFound.
func (y Symbols) Get(id string) (string, error) { return y.table().get(id) }

// Reverse returns the ids whose value is value, sorted; none is ErrNotFound.
func (y Symbols) Reverse(value string) ([]string, error) {
	m, _, err := y.table().load()
	if err != nil {
		return nil, err
	}
	var ids []string
	for k, v := range m {
		if v == value {
			ids = append(ids, k)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no symbol has value %q: %w", value, ErrNotFound)
	}
	sort.Strings(ids)
	return ids, nil
}

// Set assigns id → value (under the lock, atomically) and logs it.
func (y Symbols) Set(id, value string) error {
	_, err := y.table().set(id, value, nil)
	return err
}

// List returns the table sorted by id.
func (y Symbols) List() ([]Entry, error) { return y.table().list() }
