package classify

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// pattern is a compiled regexp with a cheap test that rejects most rows
// before the regexp runs. Calling a Go regexp costs ~100 ns even when it
// fails at the first character, and a rule table reads every row of a
// flooding screen, so for a pattern anchored at the start of the row the
// set of runes a match can start with is worked out once (from the parsed
// regexp) and a row whose first rune is not in it is rejected at once.
type pattern struct {
	re *regexp.Regexp
	// first holds sorted, inclusive rune ranges (lo, hi pairs) a match must
	// start with; nil when unknown (not anchored, or may match "").
	first []rune
}

func compilePattern(expr string) (*pattern, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	p := &pattern{re: re}
	if t, err := syntax.Parse(expr, syntax.Perl); err == nil {
		p.first = anchoredFirst(t.Simplify())
	}
	return p, nil
}

func (p *pattern) MatchString(s string) bool {
	if p.first != nil {
		r, _ := utf8.DecodeRuneInString(s)
		if s == "" || !inRanges(p.first, r) {
			return false
		}
	}
	return p.re.MatchString(s)
}

func inRanges(rs []rune, r rune) bool {
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] <= r && r <= rs[i+1] {
			return true
		}
	}
	return false
}

// anchoredFirst returns the ranges of runes every match of t starts with,
// when t matches only at the start of the text (every way through it
// begins with ^ / \A) and never matches the empty string; else nil.
func anchoredFirst(t *syntax.Regexp) []rune {
	if !anchored(t) {
		return nil
	}
	rs, nullable, ok := first(t)
	if !ok || nullable || len(rs) == 0 {
		return nil
	}
	return rs
}

// anchored reports whether every match of t must begin with \A.
func anchored(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpBeginText:
		return true
	case syntax.OpCapture:
		return anchored(t.Sub[0])
	case syntax.OpConcat:
		for _, s := range t.Sub {
			if anchored(s) {
				return true
			}
			if !zeroWidth(s) {
				return false
			}
		}
		return false
	case syntax.OpAlternate:
		for _, s := range t.Sub {
			if !anchored(s) {
				return false
			}
		}
		return len(t.Sub) > 0
	}
	return false
}

func zeroWidth(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return false
}

// first returns a superset of the runes a match of t can start with, and
// whether t can match the empty string; ok is false when the set is not
// worth knowing (any rune, case folding).
func first(t *syntax.Regexp) (rs []rune, nullable, ok bool) {
	switch t.Op {
	case syntax.OpLiteral:
		if len(t.Rune) == 0 {
			return nil, true, true
		}
		if t.Flags&syntax.FoldCase != 0 {
			return nil, false, false
		}
		return []rune{t.Rune[0], t.Rune[0]}, false, true
	case syntax.OpCharClass:
		return append([]rune(nil), t.Rune...), false, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, true, true
	case syntax.OpCapture:
		return first(t.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		rs, _, ok := first(t.Sub[0])
		return rs, true, ok
	case syntax.OpPlus:
		return first(t.Sub[0])
	case syntax.OpRepeat:
		rs, n, ok := first(t.Sub[0])
		return rs, n || t.Min == 0, ok
	case syntax.OpConcat:
		for _, s := range t.Sub {
			r, n, ok := first(s)
			if !ok {
				return nil, false, false
			}
			rs = append(rs, r...)
			if !n {
				return rs, false, true
			}
		}
		return rs, true, true
	case syntax.OpAlternate:
		for _, s := range t.Sub {
			r, n, ok := first(s)
			if !ok {
				return nil, false, false
			}
			rs = append(rs, r...)
			nullable = nullable || n
		}
		return rs, nullable, true
	}
	return nil, false, false
}
