// Package planfile is the planning root's files at the level of bytes:
// their paths, the protocol version they carry, the one-pass parser of the
// JSON tables, appends of whole lines under a file lock, and protocol.log's
// line format. backend/planning builds the Store on it.
package planfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ProtocolVersion is the version of the token-frugal protocol the planning
// tools speak. It is stamped into every JSON state file.
const ProtocolVersion = "2.0.0"

// CheckVersion accepts the protocol versions the tools can rewrite without
// loss: 2.0.x (a patch never changes the file format).
func CheckVersion(v string) bool {
	return v == ProtocolVersion || len(v) >= 4 && v[:4] == "2.0."
}

// RootEnv is the environment variable that names the planning root.
const RootEnv = "HEIMDALL_PLANNING_DIR"

// DefaultRoot is $HEIMDALL_PLANNING_DIR, else ./.planning.
func DefaultRoot() string {
	return Root(os.Getenv(RootEnv))
}

// Root is the planning root that env, RootEnv's value, names: env, else
// ./.planning when it is empty or unset.
func Root(env string) string {
	if env != "" {
		return env
	}
	return ".planning"
}

// Paths of the state files under root, exactly where the bash
// implementation keeps them.
func LogPath(root string) string     { return filepath.Join(root, "protocol.log") }
func SymbolsPath(root string) string { return filepath.Join(root, "protocol", "symbols.json") }
func LedgerPath(root string) string  { return filepath.Join(root, "protocol", "ledger.jsonl") }

// Timestamp is the protocol's time format, RFC 3339 UTC to the second,
// of unix (seconds since 1970, as time.Time.Unix).
func Timestamp(unix int64) string { return time.Unix(unix, 0).UTC().Format("2006-01-02T15:04:05Z") }

// LogLine is one protocol.log line, `ts<TAB>actor<TAB>action<TAB>detail`
// and a newline (tabs and newlines inside the fields become spaces).
func LogLine(ts, actor, action, detail string) []byte {
	line := append([]byte(ts), '\t')
	line = append(append(line, sanitize(actor)...), '\t')
	line = append(append(line, sanitize(action)...), '\t')
	return append(append(line, sanitize(detail)...), '\n')
}

// sanitize makes s one tab-free line, for a protocol.log field, and valid
// UTF-8: each invalid byte becomes U+FFFD.
func sanitize(s string) []byte {
	return []byte(strings.Map(func(r rune) rune { // an invalid byte is mapped as U+FFFD
		switch r {
		case '\t', '\n', '\r':
			return ' '
		}
		return r
	}, s))
}

// wrap is err prefixed with what failed.
func wrap(prefix string, err error) error { return fmt.Errorf("%s: %w", prefix, err) }
