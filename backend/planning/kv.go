package planning

import "fmt"

// kv is a string-valued table as the symbol table and the blackboard use
// it: get, list, set and delete by key, each in the table's own words (the
// CLI prints the errors as they are) and each write logged to
// protocol.log.
type kv struct {
	table[string]
	s *Store
	// noun names an entry in ErrNotFound errors: `symbol "F9": not found`.
	noun string
	// key and value name a bad argument in ErrInvalid errors: "empty
	// symbol id", "value contains a newline".
	key, value string
	// actor is the protocol.log actor of the writes.
	actor string
}

func (t kv) notFound(key string) error {
	return fmt.Errorf("%s %q: %w", t.noun, key, ErrNotFound)
}

// get returns the value of key; an unknown key is ErrNotFound.
func (t kv) get(key string) (string, error) {
	m, _, err := t.load()
	if err != nil {
		return "", err
	}
	v, ok := m[key]
	if !ok {
		return "", t.notFound(key)
	}
	return v, nil
}

// list returns the table sorted by key.
func (t kv) list() ([]Entry, error) {
	m, _, err := t.load()
	if err != nil {
		return nil, err
	}
	return sortedEntries(m), nil
}

// set assigns key = value under the lock (only if the Version is still
// *expected, when expected is not nil), logs `set key=value`, and returns
// the new Version.
func (t kv) set(key, value string, expected *Version) (Version, error) {
	if err := checkKey(t.key, key); err != nil {
		return "", err
	}
	if err := checkValue(t.value, value); err != nil {
		return "", err
	}
	v, err := t.update(expected, func(m map[string]string) (bool, error) {
		m[key] = value
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return v, t.s.Log(t.actor, "set", key+"="+value)
}

// del removes key under the lock (only if the Version is still *expected,
// when expected is not nil), logs `delete key`, and returns the new
// Version; an unknown key is ErrNotFound.
func (t kv) del(key string, expected *Version) (Version, error) {
	v, err := t.update(expected, func(m map[string]string) (bool, error) {
		if _, ok := m[key]; !ok {
			return false, t.notFound(key)
		}
		delete(m, key)
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return v, t.s.Log(t.actor, "delete", key)
}
