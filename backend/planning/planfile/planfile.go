// Package planfile is the planning root's files at the level of bytes:
// their paths, the protocol version they carry, the one-pass parser of the
// JSON tables, appends of whole lines under a file lock, and protocol.log's
// line format. backend/planning builds the Store on it.
//
// It imports only syscall and packages that the linker schedules for
// initialisation before syscall (path, strconv, unicode/utf8, math/bits;
// not os, time, bytes, fmt, strings or path/filepath), so that a package
// built on it and syscall alone is initialised right after syscall,
// before time, os and everything that waits for them: cmd/heimdall-tui's
// earlyplan answers `resolve ID` and `ledger log` from its init, before
// them (see its doc and docs/ARCHITECTURE.md, "No work before main"). Not
// time: once time is initialised, github.com/BurntSushi/toml/internal
// (ready then, and sorting before github.com/heimdall-tui) loads the local
// time zone from /etc/localtime, ~64k instructions. Not os: it waits for
// time. So its files are read and written with system calls, its errors
// are built without fmt and os, in the words os and fmt gave them, and its
// paths with path, which on Linux joins and cleans as path/filepath does.
package planfile

import (
	"path"
	"syscall"
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

// RootEnv is the environment variable that names the planning root.
const RootEnv = "HEIMDALL_PLANNING_DIR"

// DefaultRoot is $HEIMDALL_PLANNING_DIR, else ./.planning.
func DefaultRoot() string {
	d, _ := syscall.Getenv(RootEnv)
	return Root(d)
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
func LogPath(root string) string     { return path.Join(root, "protocol.log") }
func SymbolsPath(root string) string { return path.Join(root, "protocol", "symbols.json") }
func LedgerPath(root string) string  { return path.Join(root, "protocol", "ledger.jsonl") }

// Timestamp is the protocol's time format, RFC 3339 UTC to the second,
// of unix (seconds since 1970, as time.Time.Unix): what
// t.UTC().Format("2006-01-02T15:04:05Z") gives, for years 0 to 9999.
func Timestamp(unix int64) string {
	days, sec := unix/86400, unix%86400
	if sec < 0 {
		days, sec = days-1, sec+86400
	}
	y, m, d := civil(days)
	b := make([]byte, 0, 20)
	b = appendInt(b, y, 4)
	b = appendInt(append(b, '-'), m, 2)
	b = appendInt(append(b, '-'), d, 2)
	b = appendInt(append(b, 'T'), sec/3600, 2)
	b = appendInt(append(b, ':'), sec/60%60, 2)
	b = appendInt(append(b, ':'), sec%60, 2)
	return string(append(b, 'Z'))
}

// civil is the proleptic Gregorian date of the day days after 1970-01-01
// (Howard Hinnant's days_from_civil, inverted).
func civil(days int64) (y, m, d int64) {
	days += 719468 // days from 0000-03-01
	era := days / 146097
	if days < 0 {
		era = (days - 146096) / 146097
	}
	doe := days - era*146097                               // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365], from March 1
	mp := (5*doy + 2) / 153                                // [0, 11], March first
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

// appendInt appends v (0 <= v < 10^width) in decimal, zero-padded to width
// digits.
func appendInt(b []byte, v int64, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		p := int64(1)
		for range i {
			p *= 10
		}
		b = append(b, byte('0'+v/p%10))
	}
	return b
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

// opError is a failed system call on a file, worded as os words it
// (*fs.PathError: "open FILE: permission denied"); errors.Is sees the
// errno, so fs.ErrNotExist and friends match as they do with os's errors.
func opError(op, file string, err error) error { return wrap(op+" "+file, err) }
