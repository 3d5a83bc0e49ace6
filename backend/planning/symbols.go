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

func (y Symbols) table() table[string] {
	return table[string]{path: y.s.SymbolsPath(), field: "symbols"}
}

// Load returns the whole table and its Version.
func (y Symbols) Load() (map[string]string, Version, error) { return y.table().load() }

// Get resolves id; an unknown id is ErrNotFound.
func (y Symbols) Get(id string) (string, error) {
	m, _, err := y.table().load()
	if err != nil {
		return "", err
	}
	v, ok := m[id]
	if !ok {
		return "", fmt.Errorf("symbol %q: %w", id, ErrNotFound)
	}
	return v, nil
}

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
	if err := checkKey("symbol id", id); err != nil {
		return err
	}
	if err := checkValue("symbol value", value); err != nil {
		return err
	}
	if _, err := y.table().update(nil, func(m map[string]string) (bool, error) {
		m[id] = value
		return true, nil
	}); err != nil {
		return err
	}
	return y.s.Log("resolve", "set", id+"="+value)
}

// List returns the table sorted by id.
func (y Symbols) List() ([]Entry, error) {
	m, _, err := y.table().load()
	if err != nil {
		return nil, err
	}
	return sortedEntries(m), nil
}
