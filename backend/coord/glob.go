package coord

import "strings"

// Overlap reports whether two surface patterns can name a common file,
// decided on the patterns themselves. Patterns are slash-separated paths
// relative to the repository root; in a segment "*" matches any run of
// characters but "/", "?" and a [...] class one character; a "**" segment
// matches any number of segments, none included. A pattern that may name
// a directory also covers what lies below it: claiming src/a claims
// src/a/b.go, as if it ended in "/**". A pattern may name a directory
// unless its last segment looks like a file name (has a "." after its
// first character: b.go, *.md); a trailing "/" always marks a directory.
// "./" and repeated slashes are ignored.
func Overlap(a, b string) bool {
	return segsOverlap(segments(a), segments(b))
}

// segments splits a pattern into its segments and appends the implicit
// "**" that makes a possible directory cover its subtree.
func segments(p string) []string {
	var out []string
	dir := strings.HasSuffix(p, "/")
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." {
			continue
		}
		if s == "**" && len(out) > 0 && out[len(out)-1] == "**" {
			continue
		}
		out = append(out, s)
	}
	if n := len(out); n == 0 || (out[n-1] != "**" && (dir || !fileLike(out[n-1]))) {
		out = append(out, "**")
	}
	return out
}

// segsOverlap: is there a path both segment lists match?
func segsOverlap(a, b []string) bool { return starOverlap(a, b, "**", segOverlap) }

// starOverlap: is there a sequence both token lists match, where the star
// token matches any run of tokens (none included) and eq says whether two
// other tokens can match the same element? Dynamic programming over
// (i, j), memoised.
func starOverlap(a, b []string, star string, eq func(x, y string) bool) bool {
	memo := make([]int8, (len(a)+1)*(len(b)+1))
	var ov func(i, j int) bool
	ov = func(i, j int) bool {
		k := i*(len(b)+1) + j
		if memo[k] != 0 {
			return memo[k] > 0
		}
		var r bool
		switch {
		case i == len(a) && j == len(b):
			r = true
		case i < len(a) && a[i] == star:
			r = ov(i+1, j) || (j < len(b) && ov(i, j+1))
		case j < len(b) && b[j] == star:
			r = ov(i, j+1) || (i < len(a) && ov(i+1, j))
		case i == len(a) || j == len(b):
			r = false
		default:
			r = eq(a[i], b[j]) && ov(i+1, j+1)
		}
		memo[k] = 1
		if !r {
			memo[k] = -1
		}
		return r
	}
	return ov(0, 0)
}

// tokens splits one segment into single-character tokens: a literal
// character, "?", a "[...]" class (taken as any one character, which can
// only widen the overlap) or "*". A backslash escapes the next character.
func tokens(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
			}
			out = append(out, "="+s[i:i+1])
		case '*':
			if len(out) == 0 || out[len(out)-1] != "*" {
				out = append(out, "*")
			}
		case '?':
			out = append(out, "?")
		case '[':
			if end := strings.IndexByte(s[i+1:], ']'); end >= 0 {
				i += end + 1
				out = append(out, "?")
			} else {
				out = append(out, "=[")
			}
		default:
			out = append(out, "="+s[i:i+1])
		}
	}
	return out
}

// segOverlap: is there a segment both patterns match?
func segOverlap(a, b string) bool {
	return a == b || starOverlap(tokens(a), tokens(b), "*", func(x, y string) bool {
		return x == "?" || y == "?" || x == y
	})
}

// fileLike: does a last segment look like a file name rather than a
// directory (a "." after its first character)?
func fileLike(seg string) bool { return strings.IndexByte(seg, '.') > 0 }
