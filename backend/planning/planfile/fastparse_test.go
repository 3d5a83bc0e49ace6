package planfile

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// rawStr reads what a byte-at-a-time reading of a JSON string reads, and
// stops where it stops, whatever the alignment of the bytes that need a
// look.
func FuzzRawStr(f *testing.F) {
	for _, s := range []string{
		`"src/module12/file250.ts", "next"`,
		`"0123456789abcdef\"x"`,
		`"0123456\\u00e9789abcdefghij"`,
		"\"01234567é89abcdef\"",
		"\"0123456789\xff\xfeabcdef\"",
		"\"01234567\x01\"",
		`"01234567\`,
		`"0123456789abcdef`,
		`""`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := &scanner{b: b}
		raw, plain, ok := p.rawStr()
		wantRaw, wantPlain, wantOK, wantI := refRawStr(b)
		if ok != wantOK || ok && (string(raw) != string(wantRaw) || plain != wantPlain || p.i != wantI) {
			t.Fatalf("%q: rawStr %q %v %v at %d, want %q %v %v at %d", b, raw, plain, ok, p.i, wantRaw, wantPlain, wantOK, wantI)
		}
	})
}

// refRawStr is rawStr read one byte at a time, with where it stops.
func refRawStr(b []byte) (raw []byte, plain, ok bool, end int) {
	p := &scanner{b: b}
	if !p.expect('"') {
		return nil, false, false, 0
	}
	start := p.i
	plain = true
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			return p.b[start:p.i], plain && utf8.Valid(p.b[start:p.i]), true, p.i + 1
		case c == '\\':
			plain = false
			p.i += 2
		case c < 0x20:
			return nil, false, false, 0
		default:
			p.i++
		}
	}
	return nil, false, false, 0
}

// sanitize maps s as bytes.Map with tabs and line ends made spaces does.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"a\tb\nc\rd", "é\xffx", "\xe2\x84", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := bytes.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, []byte(s))
		if got := sanitize(s); !bytes.Equal(got, want) {
			t.Fatalf("sanitize(%q) = %q, want %q", s, got, want)
		}
	})
}

// mayFoldTo is true wherever bytes.EqualFold is.
func FuzzMayFoldTo(f *testing.F) {
	for _, s := range []string{"role", "ROLE", "Tokens", "to\u212aens", "rol", "r\xffle"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, key []byte) {
		for _, name := range []string{"role", "tokens"} {
			if bytes.EqualFold(key, []byte(name)) && !mayFoldTo(key, name) {
				t.Fatalf("mayFoldTo(%q, %q) = false; EqualFold holds", key, name)
			}
		}
	})
}
