// Package planfile is the planning root's files at the level of bytes:
// their paths, the protocol version they carry, the one-pass parser of the
// JSON tables, appends of whole lines under a file lock, and protocol.log's
// line format. backend/planning builds the Store on it.
//
// It imports only packages that the linker schedules for initialisation
// before reflect (os, bytes, path, strconv, time, ...; not fmt,
// encoding/json, strings or path/filepath, which wait for reflect or sort
// after it), so that a package built on it alone is initialised before the
// binary's heavy packages: cmd/heimdall-tui's earlyplan answers `resolve
// ID` and `ledger log` from its init, before them (see its doc and
// docs/ARCHITECTURE.md, "No work before main"). So its errors are built
// without fmt, in the words fmt gave them, and its paths with path, which
// on Linux joins and cleans as path/filepath does.
package planfile

import (
	"os"
	"path"
	"time"
	"unicode/utf8"
)

// ProtocolVersion is the version of the token-frugal protocol the planning
// tools speak. It is stamped into every JSON state file.
const ProtocolVersion = "2.0.0"

// CheckVersion accepts the protocol versions the tools can rewrite without
// loss: 2.0.x (a patch never changes the file format).
func CheckVersion(v string) bool {
	return v == ProtocolVersion || len(v) >= 4 && v[:4] == "2.0."
}

// DefaultRoot is $HEIMDALL_PLANNING_DIR, else ./.planning.
func DefaultRoot() string {
	if d := os.Getenv("HEIMDALL_PLANNING_DIR"); d != "" {
		return d
	}
	return ".planning"
}

// Paths of the state files under root, exactly where the bash
// implementation keeps them.
func LogPath(root string) string     { return path.Join(root, "protocol.log") }
func SymbolsPath(root string) string { return path.Join(root, "protocol", "symbols.json") }
func LedgerPath(root string) string  { return path.Join(root, "protocol", "ledger.jsonl") }

// Timestamp is the protocol's time format: RFC 3339 UTC, seconds.
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// LogLine is one protocol.log line, `ts<TAB>actor<TAB>action<TAB>detail`
// and a newline (tabs and newlines inside the fields become spaces).
func LogLine(ts, actor, action, detail string) []byte {
	line := append([]byte(ts), '\t')
	line = append(append(line, sanitize(actor)...), '\t')
	line = append(append(line, sanitize(action)...), '\t')
	return append(append(line, sanitize(detail)...), '\n')
}

// sanitize makes s one tab-free line, for a protocol.log field, and valid
// UTF-8: each invalid byte becomes U+FFFD, as bytes.Map leaves it. (Not
// bytes.Map itself: package bytes imports unicode, whose tables would then
// be built before earlyplan's init; see fastparse.go.)
func sanitize(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		switch r {
		case '\t', '\n', '\r':
			r = ' '
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

// prefixError is fmt.Errorf("<prefix>: %w", err) without fmt.
type prefixError struct {
	prefix string
	err    error
}

func (e *prefixError) Error() string { return e.prefix + ": " + e.err.Error() }
func (e *prefixError) Unwrap() error { return e.err }

// wrap is err prefixed with what failed.
func wrap(prefix string, err error) error { return &prefixError{prefix, err} }
