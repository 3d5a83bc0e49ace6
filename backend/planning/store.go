package planning

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heimdall-tui/heimdall-tui/backend/internal/atomicfile"
	"github.com/heimdall-tui/heimdall-tui/backend/planning/planfile"
)

// ProtocolVersion is the version of the token-frugal protocol this package
// speaks. It is stamped into every JSON state file and into the message
// schema's $id.
const ProtocolVersion = planfile.ProtocolVersion

// Sentinel errors. Every error this package returns wraps at most one of
// them, so callers (the CLI's exit codes, the dashboard's status line) can
// tell them apart with errors.Is.
var (
	// ErrNotFound: an unknown symbol id, fact key, capsule or role.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: an argument or a message that breaks the protocol's rules
	// (a bad id, a capsule over the line cap, a dependency cycle, ...).
	ErrInvalid = errors.New("invalid")
	// ErrConflict: a compare-and-swap write (SetIf, DeleteIf) found that the
	// file changed since the caller read it. See *ConflictError.
	ErrConflict = errors.New("changed by another process")
	// ErrCorrupt: a state file that does not parse or has the wrong shape.
	ErrCorrupt = errors.New("corrupt state file")
	// ErrVersion: a state file stamped with another protocol version.
	ErrVersion = errors.New("foreign protocol version")
)

// kindError is an error of one or more sentinel kinds whose message does
// not repeat the kind's name ("capsule id ..." rather than "invalid: ...").
type kindError struct {
	kinds []error
	msg   string
}

func (e *kindError) Error() string   { return e.msg }
func (e *kindError) Unwrap() []error { return e.kinds }

func kindErr(kinds []error, format string, args ...any) error {
	return &kindError{kinds: kinds, msg: fmt.Sprintf(format, args...)}
}

func invalidf(format string, args ...any) error {
	return kindErr([]error{ErrInvalid}, format, args...)
}

// Invalid is an error that is ErrInvalid, worded as format says (for the
// packages that build on the store: validate, demo).
func Invalid(format string, args ...any) error { return invalidf(format, args...) }

// FileError is an error about one state file. It names the file (and the
// line, for the line-oriented files) so a person can go and fix it.
type FileError struct {
	Path string
	Line int // 1-based; 0 when not about one line
	Err  error
}

// corruptf is the FileError for what does not parse or has the wrong
// shape at path (line 0: the file as a whole): ErrCorrupt, then the
// formatted detail.
func corruptf(path string, line int, format string, args ...any) error {
	return &FileError{Path: path, Line: line, Err: fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))}
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// Version identifies the content of a JSON state file: a hash of its bytes,
// or "" when the file does not exist. Two reads return the same Version iff
// the file did not change in between; an editor keeps the Version it loaded
// and writes with SetIf/DeleteIf to detect a race with another process.
type Version string

func versionOf(b []byte) Version {
	sum := sha256.Sum256(b)
	return Version(hex.EncodeToString(sum[:8]))
}

// ConflictError is returned by the compare-and-swap writes when the file's
// current Version is not the one the caller expected. Nothing was written.
type ConflictError struct {
	Path             string
	Expected, Actual Version
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s: %v (expected version %q, found %q)", e.Path, ErrConflict, e.Expected, e.Actual)
}

func (e *ConflictError) Unwrap() error { return ErrConflict }

// Store is one planning root (.planning). It holds no open files and no
// cached state: every call reads the files, so several Stores (in several
// processes) can share one root. Its methods are safe for concurrent use.
type Store struct {
	root string
	now  func() time.Time
}

// DefaultRoot is $HEIMDALL_PLANNING_DIR, else ./.planning.
func DefaultRoot() string { return planfile.DefaultRoot() }

// Open returns the Store rooted at root. It does not touch the disk: the
// directories are created by the first write (or by Init).
func Open(root string) *Store {
	return &Store{root: root, now: time.Now}
}

// Root is the directory the Store was opened on.
func (s *Store) Root() string { return s.root }

// Paths of the state files, exactly where the bash implementation keeps them.
func (s *Store) LogPath() string        { return planfile.LogPath(s.root) }
func (s *Store) BlackboardPath() string { return filepath.Join(s.root, "blackboard.json") }
func (s *Store) ProtocolDir() string    { return filepath.Join(s.root, "protocol") }
func (s *Store) SymbolsPath() string    { return planfile.SymbolsPath(s.root) }
func (s *Store) BaselinesPath() string  { return filepath.Join(s.root, "protocol", "baselines.json") }
func (s *Store) LedgerPath() string     { return planfile.LedgerPath(s.root) }
func (s *Store) SchemaPath() string     { return filepath.Join(s.root, "protocol", "message-schema.json") }
func (s *Store) CapsuleDir() string     { return filepath.Join(s.root, "protocol", "capsules") }

// The coordination ledger's directories (kept by backend/coord), watched
// for the dashboard's claims list.
func (s *Store) ledgerDir() string { return filepath.Join(s.root, "ledger") }
func (s *Store) claimsDir() string { return filepath.Join(s.root, "ledger", "claims") }

// timestamp is now in the protocol's time format.
func (s *Store) timestamp() string { return planfile.Timestamp(s.now().Unix()) }

// The locked writes are planfile's (their reasons are there).
var (
	lockPath     = planfile.LockPath
	withLock     = planfile.WithLock
	appendLine   = planfile.AppendLine
	checkVersion = planfile.CheckVersion
)

// writeAtomic replaces path with data: a temp file in the same directory,
// then rename, so a reader sees the old or the new content, never a torn
// one. Callers hold the file's lock (withLock, which also created the
// directory) so that writers do not lose updates.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// unquoteJSON decodes one quoted JSON string, for planfile.FastTable.
func unquoteJSON(quoted []byte) (string, bool) {
	var s string
	return s, json.Unmarshal(quoted, &s) == nil
}

// table is one JSON state file {"version":"2.0.0","<field>":{key:V}}.
type table[V any] struct {
	path, field string
}

// load reads the table. A missing file is an empty table with Version "".
func (t table[V]) load() (map[string]V, Version, error) {
	b, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]V{}, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", t.path, err)
	}
	m, err := t.parse(b)
	if err != nil {
		return nil, "", err
	}
	return m, versionOf(b), nil
}

func (t table[V]) parse(b []byte) (map[string]V, error) {
	corrupt := func(format string, args ...any) error { return corruptf(t.path, 0, format, args...) }
	foreign := func(version string) error {
		return &FileError{Path: t.path, Err: fmt.Errorf("%w: version %q, this tool speaks %s", ErrVersion, version, ProtocolVersion)}
	}
	if version, m, ok := planfile.FastTable[V](b, t.field, unquoteJSON); ok {
		if !checkVersion(version) {
			return nil, foreign(version)
		}
		return m, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, corrupt("%v", err)
	}
	var version string
	if raw, ok := top["version"]; !ok {
		return nil, corrupt(`no "version"`)
	} else if err := json.Unmarshal(raw, &version); err != nil {
		return nil, corrupt(`"version" is not a string`)
	}
	if !checkVersion(version) {
		return nil, foreign(version)
	}
	m := map[string]V{}
	raw, ok := top[t.field]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, corrupt("%q: %v", t.field, err)
	}
	if m == nil {
		m = map[string]V{}
	}
	return m, nil
}

// encode renders the table the way jq prints it: two-space indent, version
// first, keys sorted, no HTML escaping, trailing newline.
func (t table[V]) encode(m map[string]V) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("{\n  \"version\": \"" + ProtocolVersion + "\",\n  ")
	k, _ := json.Marshal(t.field)
	buf.Write(k)
	buf.WriteString(": ")
	if len(m) == 0 {
		buf.WriteString("{}\n}\n")
		return buf.Bytes(), nil
	}
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	buf.WriteString("{\n")
	for i, key := range keys {
		buf.WriteString("    ")
		buf.Write(appendString(nil, key))
		buf.WriteString(": ")
		switch v := any(m[key]).(type) {
		case string:
			buf.Write(appendString(nil, v))
		case int64:
			buf.WriteString(strconv.FormatInt(v, 10))
		default:
			vb, err := marshal(v)
			if err != nil {
				return nil, err
			}
			buf.Write(vb)
		}
		if i < len(keys)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("  }\n}\n")
	return buf.Bytes(), nil
}

// appendString appends s as a JSON string, as jq writes it: only '"',
// '\\' and control characters escaped (and invalid UTF-8 replaced, as
// encoding/json does). The tables are rewritten on every change, so this
// is the hot path of a write.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, fmt.Sprintf("\\u%04x", c)...)
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\\ufffd"...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, fmt.Sprintf("\\u%04x", r)...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// Marshal is json.Marshal without HTML escaping and without the newline,
// as every file and output of the protocol is written.
func Marshal(v any) ([]byte, error) { return marshal(v) }

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// update applies fn to the table under its lock and rewrites the file
// atomically if fn reports a change. expect, if not nil, is the Version the
// caller last saw: a different current Version is a *ConflictError and
// nothing is written. It returns the Version after the update.
func (t table[V]) update(expect *Version, fn func(m map[string]V) (bool, error)) (Version, error) {
	var after Version
	err := withLock(t.path, func() error {
		m, cur, err := t.load()
		if err != nil {
			return err
		}
		if expect != nil && *expect != cur {
			return &ConflictError{Path: t.path, Expected: *expect, Actual: cur}
		}
		changed, err := fn(m)
		if err != nil {
			return err
		}
		after = cur
		if !changed {
			return nil
		}
		b, err := t.encode(m)
		if err != nil {
			return fmt.Errorf("encode %s: %w", t.path, err)
		}
		if err := writeAtomic(t.path, b); err != nil {
			return err
		}
		after = versionOf(b)
		return nil
	})
	return after, err
}

// checkKey validates an id or key: non-empty, no whitespace control
// characters that would break the id<TAB>value line formats.
func checkKey(what, k string) error {
	if k == "" {
		return invalidf("empty %s", what)
	}
	if strings.ContainsAny(k, "\t\n\r") {
		return invalidf("%s %q contains a tab or newline", what, k)
	}
	return nil
}

// checkValue validates a value of a line-oriented table: no newline (the
// list formats are one entry a line).
func checkValue(what, v string) error {
	if strings.ContainsAny(v, "\n\r") {
		return invalidf("%s contains a newline", what)
	}
	return nil
}

// Entry is one key/value pair of a table, for the list commands.
type Entry struct {
	Key, Value string
}

func sortedEntries(m map[string]string) []Entry {
	out := make([]Entry, 0, len(m))
	for k, v := range m {
		out = append(out, Entry{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// WithLock runs fn holding the exclusive flock of path's lock file (the
// hidden .<name>.lock beside it), for other packages that keep state under
// the planning root (backend/coord).
func WithLock(path string, fn func() error) error { return withLock(path, fn) }

// WriteAtomic replaces path with data by rename; the caller holds WithLock.
func WriteAtomic(path string, data []byte) error { return writeAtomic(path, data) }
