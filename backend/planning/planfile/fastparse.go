package planfile

import (
	"bytes"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// FastTable parses the one shape the tables have —
// {"version": STRING, FIELD: {KEY: VALUE, ...}} with string or integer
// values — in a single pass without reflection. Every JSON state file is
// read (and most rewritten) on every command, and a table of a few
// thousand facts made encoding/json the cost of a write. Anything else
// (another field, another value type, a syntax error) returns ok=false and
// the caller falls back to encoding/json, which also words the error.
// Strings with escapes are decoded by unquote (given the string with its
// quotes); with unquote nil they make it return ok=false.
func FastTable[V any](b []byte, field string, unquote func(quoted []byte) (string, bool)) (version string, m map[string]V, ok bool) {
	p := &scanner{b: b, unquote: unquote}
	m = map[string]V{}
	version, ok = p.table(field, func() bool {
		k, ok := p.str()
		if !ok || !p.expect(':') {
			return false
		}
		var v V
		switch pv := any(&v).(type) {
		case *string:
			*pv, ok = p.str()
		case *int64:
			*pv, ok = p.int()
		default:
			ok = false
		}
		m[k] = v
		return ok
	})
	if !ok {
		return "", nil, false
	}
	return version, m, true
}

// table reads {"version": STRING, FIELD: {ENTRY, ...}} (the two keys in
// any order), calling entry to read each ENTRY of FIELD's object; an
// entry reporting false, another key or a syntax error make it return
// ok=false.
func (p *scanner) table(field string, entry func() bool) (version string, ok bool) {
	gotVersion := false
	ok = p.object(func() bool {
		key, ok := p.str()
		if !ok || !p.expect(':') {
			return false
		}
		switch key {
		case "version":
			version, ok = p.str()
			gotVersion = true
			return ok
		case field:
			return p.object(entry)
		}
		return false
	})
	p.ws()
	if !ok || p.i != len(p.b) || !gotVersion {
		return "", false // without a version too: let encoding/json report it
	}
	return version, true
}

// object reads a JSON object, calling member to read each of its members;
// a member reporting false or a syntax error make it return false.
func (p *scanner) object(member func() bool) bool {
	if !p.expect('{') {
		return false
	}
	if p.peek() == '}' {
		p.i++
		return true
	}
	for {
		if !member() {
			return false
		}
		if !p.expect(',') {
			return p.expect('}')
		}
	}
}

type scanner struct {
	b       []byte
	i       int
	unquote func(quoted []byte) (string, bool) // nil: no strings with escapes
}

func (p *scanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *scanner) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *scanner) expect(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// str reads a JSON string. Plain ones (no escapes, valid UTF-8, no
// control characters) are sliced; others are decoded by unquote.
func (p *scanner) str() (string, bool) {
	raw, plain, ok := p.rawStr()
	if !ok {
		return "", false
	}
	if plain {
		return string(raw), true
	}
	if p.unquote == nil {
		return "", false
	}
	// raw ends just before the closing quote at p.i-1; with its quotes
	// it is p.b[p.i-len(raw)-2 : p.i].
	return p.unquote(p.b[p.i-len(raw)-2 : p.i])
}

// int reads a JSON integer (no fraction, no exponent).
func (p *scanner) int() (int64, bool) {
	p.ws()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	if p.i-digits > 1 && p.b[digits] == '0' {
		return 0, false // a leading zero is not JSON
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	return n, err == nil
}

// FastLedgerLine reads role and tokens from one ledger line, the way the
// ledger writes it: a flat object of string and integer values. It
// returns ok=false for anything else (the caller falls back to
// encoding/json); the role is a slice of line, valid until the next read.
func FastLedgerLine(line []byte) (role []byte, tokens int64, ok bool) {
	p := &scanner{b: line}
	if !p.expect('{') {
		return nil, 0, false
	}
	gotRole, gotTokens := false, false
	for {
		key, plain, ok := p.rawStr()
		if !ok || !plain || !p.expect(':') {
			return nil, 0, false
		}
		// encoding/json matches keys case-insensitively; leave such lines
		// to it so both parsers always agree.
		if (mayFoldTo(key, "role") && string(key) != "role") || (mayFoldTo(key, "tokens") && string(key) != "tokens") {
			return nil, 0, false
		}
		switch p.peek() {
		case '"':
			v, plain, ok := p.rawStr()
			if !ok {
				return nil, 0, false
			}
			if string(key) == "role" {
				if !plain {
					return nil, 0, false
				}
				role, gotRole = v, true
			}
		default:
			n, ok := p.int()
			if !ok {
				return nil, 0, false
			}
			if string(key) == "tokens" {
				tokens, gotTokens = n, true
			}
		}
		if p.expect(',') {
			continue
		}
		if !p.expect('}') {
			return nil, 0, false
		}
		break
	}
	p.ws()
	if p.i != len(p.b) || !gotRole || !gotTokens {
		return nil, 0, false
	}
	return role, tokens, true
}

// mayFoldTo reports whether encoding/json may take the object key key for
// the field name (lower-case ASCII): key equals it but for ASCII case, or
// has a non-ASCII byte (Unicode folds more, e.g. the Kelvin sign to k).
func mayFoldTo(key []byte, name string) bool {
	return !isASCII(key) || bytes.EqualFold(key, []byte(name))
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// rawStr reads a JSON string without decoding it: its raw bytes, and
// whether they are plain (no escapes, valid UTF-8), i.e. the value itself.
//
// `resolve` reads a whole symbol table in a fresh process, so its strings
// are read eight bytes at a time up to the first byte that needs a look
// (specialBytes), and only a string with a non-ASCII byte is checked for
// UTF-8 validity.
func (p *scanner) rawStr() (raw []byte, plain, ok bool) {
	if !p.expect('"') {
		return nil, false, false
	}
	start := p.i
	plain = true
	ascii := true
	for {
		if p.i+8 <= len(p.b) {
			m := specialBytes(load64(p.b[p.i:]))
			if m == 0 {
				p.i += 8
				continue
			}
			p.i += bits.TrailingZeros64(m) / 8
		} else if p.i >= len(p.b) {
			return nil, false, false
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			raw = p.b[start:p.i]
			p.i++
			return raw, plain && (ascii || utf8.Valid(raw)), true
		case c == '\\':
			plain = false
			p.i += 2
		case c < 0x20:
			return nil, false, false
		default:
			ascii = ascii && c < utf8.RuneSelf
			p.i++
		}
	}
}

// SWAR constants: a one and a high bit in every byte of a word.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// specialBytes marks, by its high bit, each byte of the little-endian word
// x that a string cannot go on through as it is: a quote, a backslash, a
// control character or a non-ASCII byte. The lowest mark is exact; a mark
// above it may be wrong (a borrow), which is why only the lowest is used.
// (v-lowBits)&^v marks the zero bytes of v; (x-lowBits*0x20)&^x the bytes
// of x below 0x20.
func specialBytes(x uint64) uint64 {
	quote, backslash := x^(lowBits*'"'), x^(lowBits*'\\')
	return (x | (quote-lowBits)&^quote | (backslash-lowBits)&^backslash | (x-lowBits*0x20)&^x) & highBits
}

// load64 is the little-endian word at the start of b (at least 8 bytes).
func load64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
